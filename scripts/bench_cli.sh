#!/usr/bin/env bash
# bench_cli.sh - `make bench-cli`: what a user of `segbench run` waits for,
# the whole process (start, PNG decode, the integral image, PNG encode),
# timed by hyperfine for each integral variant that can run here, on the
# largest image of a dataset.  hyperfine's JSON goes to
# <results>/cli.json, which `segbench report` shows as a table.
#
#   bench_cli.sh [--set NAME] [--dataset DIR] [--results DIR] [--segbench BIN] [--runs N]
#     --set NAME      the dataset (datasets/build/NAME, made by 'make datasets'); default: default
#     --dataset DIR   a generated dataset directory instead (holds manifest.tsv)
#     --results DIR   where cli.json goes; default: results/<machine-id>
#     --segbench BIN  default: build/segbench
#     --runs N        hyperfine runs per command; default: hyperfine's own choice
set -euo pipefail

set_name=default dataset="" results="" segbench=./build/segbench runs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --set) set_name=$2; shift 2 ;;
    --dataset) dataset=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --segbench) segbench=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_cli.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

command -v hyperfine >/dev/null 2>&1 || { echo "bench-cli: hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
[ -x "$segbench" ] || { echo "bench-cli: $segbench not found (run make)" >&2; exit 2; }
dataset=${dataset:-datasets/build/$set_name}
manifest=$dataset/manifest.tsv
[ -r "$manifest" ] || { echo "bench-cli: $manifest not found (run: make datasets SET=$set_name)" >&2; exit 2; }

# The largest image of the set: process start and file I/O weigh least there.
read -r image width height < <(awk -F'\t' '!/^#/ && NF >= 5 { print $4 * $5, $2, $4, $5 }' "$manifest" |
                                sort -k1,1nr | head -n 1 | cut -d' ' -f2-)
[ -n "${image:-}" ] || { echo "bench-cli: $manifest lists no image" >&2; exit 2; }
case "$image" in /*) ;; *) image=$dataset/$image ;; esac

if [ -z "$results" ]; then
  machine=$("$segbench" env --no-measure | sed -n 's/^ *"machine_id": "\(.*\)",$/\1/p')
  results=results/$machine
fi
mkdir -p "$results"

# The variants a user would pick, those that can run on this machine.
commands=()
name=$(basename "$image"); name=${name%.*}
for v in cpu pthread openmp cuda-pdl; do
  status=$("$segbench" list --json --algo integral --variant "$v" | sed -n 's/.*"status": "\([a-z ]*\)".*/\1/p')
  if [ "$status" = available ]; then
    commands+=(-n "integral/$v on $name (${width}x$height)"
               "$segbench run integral --variant $v $image $results/.cli-out-$v.png")
  else
    echo "bench-cli: leaving out integral/$v: $status here"
  fi
done

echo "bench-cli: segbench run integral on $image (${width}x$height), $((${#commands[@]} / 3)) variant(s)"
tmp=$(mktemp "$results/.cli.json.XXXXXX")
trap 'rm -f "$tmp" "$results"/.cli-out-*.png' EXIT
hyperfine --style basic --warmup 2 ${runs:+--runs "$runs"} --export-json "$tmp" "${commands[@]}"
mv "$tmp" "$results/cli.json"
echo "bench-cli: wrote $results/cli.json"
