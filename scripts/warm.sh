#!/usr/bin/env bash
# warm.sh - `make warm`: warm against cold (docs/video.md's tables).  For
# each algorithm with warm starts, the GPU rung bench streams (the first
# GPU row of <results>/<algo>.stream.csv, so run it after `make bench`)
# streams each of those rows' scenes cold and then warm, 1 and 3 in
# flight (segbench stream --warm), and, where the rung takes its start on
# the device (segbench list --json: warm_chain), 2 and 3 in flight with
# runs in turn, each warm frame from the one before it; into
# <results>/warm-<algo>.txt, which
# `segbench docs` reads (its warm-table figure).  A file is replaced only
# when its streams all ran; a variant that breaks its contract on a frame
# fails the target.
#
#   bash scripts/warm.sh [--results DIR] [--set NAME] [--algos a,b]
set -euo pipefail

segbench=./build/segbench
results="" set=default algos="kmeans,slic,grabcut"
while [ $# -gt 0 ]; do
    case "$1" in
    --results) results=$2; shift 2 ;;
    --set) set=$2; shift 2 ;;
    --algos) algos=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "warm.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$segbench" ] || { echo "make warm: $segbench not built (run make)" >&2; exit 2; }
if [ -z "$results" ]; then
    machine=$("$segbench" env --no-measure | sed -n 's/^ *"machine_id": "\(.*\)",$/\1/p')
    results=results/$machine
fi

status=0
for algo in ${algos//,/ }; do
    csv=$results/$algo.stream.csv
    if [ ! -f "$csv" ]; then
        echo "make warm: $csv not found: $algo left out (run make bench first)" >&2
        status=2
        continue
    fi
    # the columns: algo, stage, variant, backend, threads, in_flight, sequence, width, height, ...
    variant=$(awk -F, 'NR > 1 && $4 != "cpu" { print $3; exit }' "$csv")
    sizes=$(awk -F, 'NR > 1 { print $8 "x" $9 }' "$csv" | sort -u -t x -k1,1n)
    if [ -z "$variant" ]; then
        echo "make warm: $csv has no GPU row: $algo left out" >&2
        continue
    fi
    out=$results/warm-$algo.txt
    tmp=$out.part
    : > "$tmp"
    ok=1
    chained=0
    "$segbench" list --json --algo "$algo" --variant "$variant" | grep -q '"warm_chain": true' && chained=1
    for size in $sizes; do
        echo "make warm: $algo/$variant at $size, cold then warm, 1 and 3 in flight" >&2
        "$segbench" stream "$algo/$variant" --warm --set "$set" --size "$size" --in-flight 1,3 --quiet >> "$tmp" ||
            { ok=0; break; }
        [ $chained = 1 ] || continue
        echo "make warm: $algo/$variant at $size, runs in turn, each warm frame from the one before on the GPU" >&2
        "$segbench" stream "$algo/$variant" --warm --set "$set" --size "$size" --in-flight 2,3 --runs in-turn \
            --quiet >> "$tmp" || { ok=0; break; }
    done
    if [ $ok = 1 ]; then
        mv "$tmp" "$out"
        echo "make warm: wrote $out" >&2
    else
        rm -f "$tmp"
        echo "make warm: $algo/$variant failed: $out left as it was" >&2
        status=1
    fi
done
exit $status
