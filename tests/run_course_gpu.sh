#!/usr/bin/env bash
# run_course_gpu.sh - `make test-course-gpu`: the course's exercises as a
# teacher hands them out, on a GPU machine.  For every CUDA lesson edge of
# the named algorithms (a rung with a declared parent):
#
#   1. the stub (segbench exercise) is graded and must fail with exit 3:
#      exact, since it is the parent's code, but not the lesson;
#   2. the reference solution (segbench exercise --solution) is graded and
#      must pass with exit 0: exact on the set and on seeded awkward sizes,
#      memcheck- and racecheck-clean, and as fast as the lesson promises.
#
# All stubs are built in one build, then all solutions in another (BUILD
# below, not build/, so the main build keeps no student rung).  The stub
# round leaves out compute-sanitizer: a stub is its parent's code, which
# make test-gpu sanitizes.  Each grade's summary line goes to the table;
# the last line is "N passed, N failed".
#
#   run_course_gpu.sh [--seed N] [--build DIR] [--log DIR] [--round stubs|solutions|both]
#                     [--build-only] ALGO...
#
# exercises/ALGO must not hold a student's work: the script writes there
# (marking it with exercises/.course-check) and removes what it wrote when
# it ends, unless --build-only (build the first round's exercises and stop,
# leaving them for a later call to grade: a build can then overlap other
# work).
set -u

seed=20261125 build=build-course log="" round=both build_only=0
algos=()
while [ $# -gt 0 ]; do
    case "$1" in
    --seed) seed=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --round) round=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_course_gpu.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) algos+=("$1"); shift ;;
    esac
done
case "$round" in stubs|solutions|both) ;; *) echo "run_course_gpu.sh: --round is stubs, solutions or both" >&2; exit 2 ;; esac
[ ${#algos[@]} -gt 0 ] || { echo "run_course_gpu.sh: name the algorithms (for example integral kmeans slic)" >&2; exit 2; }
segbench=./build/segbench
[ -x "$segbench" ] || { echo "run_course_gpu.sh: $segbench not built (run make)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run_course_gpu.sh: python3 reads segbench list --json; install it" >&2; exit 2; }
mark=exercises/.course-check
for a in "${algos[@]}"; do
    if [ -n "$(ls -A "exercises/$a" 2>/dev/null)" ] && [ ! -f "$mark" ]; then
        echo "run_course_gpu.sh: exercises/$a holds files (a student's work?); move them away first" >&2
        exit 2
    fi
done
[ -n "$log" ] || log=$(mktemp -d "${TMPDIR:-/tmp}/segbench-course.XXXXXX")
mkdir -p "$log"
mkdir -p exercises && touch "$mark"
[ "$build_only" = 1 ] ||
    trap 'for a in "${algos[@]}"; do rm -rf "exercises/$a"; done; rm -f "$mark"; rmdir exercises 2>/dev/null' EXIT

# The lesson edges: ALGO/RUNG of every CUDA variant that names a parent.
edges=$("$segbench" list --algo "$(IFS=,; echo "${algos[*]}")" --json | python3 -c '
import json, sys
for a in json.load(sys.stdin)["algorithms"]:
    for v in a["variants"]:
        if v.get("parent") and v["backend"].startswith("cuda") and not v["name"].startswith("student-"):
            print(a["name"] + "/" + v["name"])') || exit 2
[ -n "$edges" ] || { echo "run_course_gpu.sh: no CUDA lesson edge in ${algos[*]}" >&2; exit 2; }
echo "course check: $(echo "$edges" | wc -l) lesson edges of ${algos[*]}, seed $seed, logs in $log"

# grade checks on the smoke set and times at the default set's summary image
make -s datasets SET=smoke >"$log/datasets.log" 2>&1 && make -s datasets SET=default >>"$log/datasets.log" 2>&1 ||
    { echo "run_course_gpu.sh: make datasets failed (see $log/datasets.log)" >&2; exit 2; }

pass=0 fail=0
table=()

# round NAME EXPECTED [exercise flags] -- [grade flags]
round() {
    local name=$1 want=$2
    shift 2
    local ex=() gr=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do ex+=("$1"); shift; done
    shift
    gr=("$@")
    # Written beside, then copied where it differs: an unchanged file keeps
    # its time, so a build made before (the same stubs) is not redone.
    local e f scratch=$log/root
    rm -rf "$scratch" && mkdir -p "$scratch"
    for e in $edges; do
        "$segbench" exercise "$e" --root "$scratch" "${ex[@]}" >"$log/exercise.out" 2>&1 ||
            { echo "FAIL $name: segbench exercise $e: $(tail -n 1 "$log/exercise.out")"; fail=$((fail + 1)); return; }
    done
    for f in "$scratch"/exercises/*/*; do
        local to=exercises/${f#"$scratch"/exercises/}
        mkdir -p "$(dirname "$to")"
        cmp -s "$f" "$to" || cp "$f" "$to"
    done
    local started=$SECONDS
    if ! make -s BUILD="$build" "$build/segbench" >"$log/$name-build.log" 2>&1; then
        echo "FAIL $name: the build failed; its last lines:"
        tail -n 20 "$log/$name-build.log" | sed 's/^/    /'
        fail=$((fail + 1))
        return
    fi
    echo "$name: built in $((SECONDS - started)) s"
    [ "$build_only" = 0 ] || exit 0
    for e in $edges; do
        local algo=${e%%/*} rung=${e#*/} out code
        out="$log/$name-${algo}-${rung}.out"
        started=$SECONDS
        "./$build/segbench" grade "$algo/student-$rung" --seed "$seed" "${gr[@]}" >"$out" 2>&1
        code=$?
        local line
        line=$(grep '^grade ' "$out" | tail -n 1)
        [ -n "$line" ] || line=$(tail -n 1 "$out")
        if [ "$code" -eq "$want" ]; then
            pass=$((pass + 1))
            table+=("ok   $name $e: exit $code ($((SECONDS - started)) s) $line")
        else
            fail=$((fail + 1))
            table+=("FAIL $name $e: exit $code, want $want ($((SECONDS - started)) s) $line")
        fi
        echo "${table[-1]}"
    done
}

[ "$round" = solutions ] || round stubs 3 -- --no-sanitizer
[ "$round" = stubs ] || round solutions 0 --solution --
echo
printf '%s\n' "${table[@]}" >"$log/table.txt"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
