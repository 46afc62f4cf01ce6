#!/usr/bin/env bash
# profile.sh - `make profile`: Nsight Compute over each stage's fastest
# CUDA rung and its parent (--rungs all: every CUDA rung), at the
# summary image, one checked run each (segbench profile), and its CSV
# turned into <results>/<algo>.profile.csv (segbench profile --import).
# Run it after `make bench`: the fastest rung is read from the timings in
# <results>, and the profile belongs to the same commit and run.
#
#   bash scripts/profile.sh [--results DIR] [--set NAME] [--algos a,b]
#                                 [--rungs top|all] [--timeout S per algorithm]
#   bash scripts/profile.sh --edge ALGO/RUNG [--set NAME] [--timeout S]
#
# --edge (make profile ALGO=... RUNG=...): one lesson, the rung and the
# rung it grows from, profiled on the same image into a scratch result
# set (the published profile is left alone), then printed side by side:
# time under ncu, DRAM bytes and throughput, L2, issue slots, occupancy,
# warp instructions, the top stall, each side's kernels.
#
# NCU names the ncu binary (default: ncu on PATH, else the toolkit's);
# PROFILE_KEEP=DIR keeps each algorithm's raw ncu CSV, regions and output.
# ncu is started with --clock-control none: the clocks are the card's own,
# as in the timings (never locked or reset).
set -euo pipefail

segbench=./build/segbench
results="" set=default algos="" timeout=150 rungs=top edge=""
while [ $# -gt 0 ]; do
    case "$1" in
    --results) results=$2; shift 2 ;;
    --set) set=$2; shift 2 ;;
    --algos) algos=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --rungs) rungs=$2; shift 2 ;;
    --edge) edge=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

ncu=${NCU:-$(command -v ncu || true)}
[ -n "$ncu" ] || for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do [ -x "$c" ] && ncu=$c; done
if [ -z "$ncu" ]; then
    echo "make profile: ncu (Nsight Compute) not found; install it with the CUDA toolkit or set NCU=path" >&2
    exit 2
fi
[ -x "$segbench" ] || { echo "make profile: $segbench not built (run make)" >&2; exit 2; }

# ncu's own sections (speed of light, occupancy, warp states, issue
# slots) and the counts the limits are made of (ncu_import.h).  A list of
# single metrics instead costs as many passes, and on ncu 2025.3 it timed
# kernels 25x slower than they run (seen on the H100, 2026-11-25).
sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis)
metrics=dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second

# ncu_pass LOOPS LOG REGIONS OUT SPEC... [profile options]: one ncu run of
# segbench profile over the variants that launch from conditional graph
# nodes (LOOPS=only) or over the others (none).  The first are one result
# a graph (--graph-profiling graph: ncu cannot profile the kernel nodes of
# a graph with conditional nodes one by one); the others must be profiled
# without it, which timed every plain kernel 15-21x slower than it runs
# (integral's widen_copy: 265 against 12.5 us, H100, ncu 2025.3,
# 2026-11-26).  A pass with nothing to profile writes no files.
ncu_pass() {
    local loops=$1 log=$2 regions=$3 out=$4
    shift 4
    local mode=()
    [ "$loops" = only ] && mode=(--graph-profiling graph)
    rm -f "$log" "$regions"
    timeout --signal=INT "$timeout" "$ncu" --profile-from-start off --clock-control none "${mode[@]}" \
        --csv --page raw --print-units base --log-file "$log" "${sections[@]}" --metrics "$metrics" \
        "$segbench" profile "$@" --graph-loops "$loops" --warmup 1 --regions "$regions" > "$out" 2>&1 ||
        grep -q "nothing profiled: no chosen variant" "$out"   # every chosen rung was the other pass's
}

# has_loops ALGO: whether any variant of ALGO launches from conditional
# graph nodes (else the second pass is skipped).  grep -c, not -q: -q
# stops reading at the first match, and under pipefail the list's SIGPIPE
# would fail the test.
has_loops() { [ "$("$segbench" list --algo "$1" --json | grep -c '"graph_loop": true')" -gt 0 ]; }

# import_passes RESULTS LOG_PREFIX REGIONS_PREFIX: both passes' ncu files
# (PREFIX-none.*, PREFIX-only.*) into RESULTS/<algo>.profile.csv, the
# second pass's rows after the first's.
import_passes() {
    local results=$1 logs=$2 regions=$3 loops status=0 first=1 tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/segbench-import.XXXXXX")
    cp "$results/env.json" "$tmp/"
    for loops in none only; do
        # a pass that profiled nothing left the regions' header alone
        [ -f "$regions-$loops.tsv" ] && [ "$(wc -l < "$regions-$loops.tsv")" -gt 1 ] && [ -f "$logs-$loops.csv" ] ||
            continue
        if [ "$first" = 1 ]; then
            "$segbench" profile --import "$logs-$loops.csv" --regions "$regions-$loops.tsv" --results "$results" ||
                status=1
            first=0
        else
            "$segbench" profile --import "$logs-$loops.csv" --regions "$regions-$loops.tsv" --results "$tmp" >/dev/null ||
                status=1
            for f in "$tmp"/*.profile.csv; do
                [ -f "$f" ] || continue
                if [ -f "$results/${f##*/}" ]; then tail -n +2 "$f" >> "$results/${f##*/}"; else cp "$f" "$results/"; fi
                echo "added the graph loops' rows to $results/${f##*/}"
            done
        fi
    done
    rm -rf "$tmp"
    return $status
}

# One edge: parent and rung on the same image, into a scratch set.
if [ -n "$edge" ]; then
    algo=${edge%%/*}
    parent=$("$segbench" lesson "$edge" --no-diff 2>/dev/null | sed -n 's/^grows from: \([^ ]*\).*/\1/p')
    [ -n "$parent" ] || { echo "make profile: $edge is no edge of a ladder (segbench lesson $algo shows the tree)" >&2; exit 2; }
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/segbench-edge.XXXXXX")
    trap 'rm -rf "$scratch"' EXIT
    machine=$("$segbench" env --no-measure | sed -n 's/^ *"machine_id": "\(.*\)",$/\1/p')
    if [ -f "results/$machine/env.json" ]; then cp "results/$machine/env.json" "$scratch/"; else "$segbench" env > "$scratch/env.json"; fi
    echo "profile: $algo/$parent -> $edge under ncu, on the summary image of set '$set'"
    for loops in none only; do
        [ "$loops" = none ] || has_loops "$algo" || continue
        ncu_pass "$loops" "$scratch/ncu-$loops.csv" "$scratch/regions-$loops.tsv" "$scratch/out" \
            "$edge" "$algo/$parent" --set "$set" ||
            { tail -n 5 "$scratch/out" >&2; echo "make profile: ncu or the run failed" >&2; exit 1; }
    done
    import_passes "$scratch" "$scratch/ncu" "$scratch/regions" >/dev/null || exit 1
    "$segbench" profile --edge "$edge" --results "$scratch"
    exit $?
fi
if [ -z "$results" ]; then
    machine=$("$segbench" env --no-measure | sed -n 's/^ *"machine_id": "\(.*\)",$/\1/p')
    results=results/$machine
fi
[ -f "$results/env.json" ] || { echo "make profile: $results/env.json not found; run make bench first" >&2; exit 2; }
[ -n "$algos" ] || algos=$("$segbench" list | sed -n 's/^\([a-z0-9-]*\): .*/\1/p' | paste -sd, -)

case "$rungs" in top|all) ;; *) echo "profile.sh: --rungs is top or all" >&2; exit 2 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/segbench-profile.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
IFS=, read -r -a list <<< "$algos"
for algo in "${list[@]}"; do
    echo "profile: $algo ($rungs CUDA rungs, each stage, at the summary image)"
    started=$SECONDS
    pick=(--top --results "$results")
    [ "$rungs" = all ] && pick=()
    for loops in none only; do
        [ "$loops" = none ] || has_loops "$algo" || continue
        if ! ncu_pass "$loops" "$work/$algo.ncu-$loops.csv" "$work/$algo.regions-$loops.tsv" "$work/$algo.out-$loops" \
            "$algo/cuda-*" "${pick[@]}" --set "$set"; then
            echo "profile: $algo: ncu or the run failed or took over ${timeout} s; its last lines:" >&2
            tail -n 5 "$work/$algo.out-$loops" >&2
            status=1
        fi
    done
    import_passes "$results" "$work/$algo.ncu" "$work/$algo.regions" || status=1
    echo "profile: $algo took $((SECONDS - started)) s"
    [ -z "${PROFILE_KEEP:-}" ] || cp "$work/$algo".* "$PROFILE_KEEP"/ 2>/dev/null || true
done
exit $status
