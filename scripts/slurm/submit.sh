#!/usr/bin/env bash
# submit.sh - `make bench-slurm`: segbench on every GPU type of a Slurm
# cluster, one report.  For each partition (or GRES) named, one job of
# scripts/slurm/task.sbatch; then one job of scripts/slurm/report.sbatch that
# depends on all of them (afterany) and writes report/MACHINES.md with the
# machines side by side and the failed tasks named.
#
# Why one job per target and not one array: the tasks of a Slurm job array
# share one partition and one GRES request, so an array cannot put task 1
# on the a100 partition and task 2 on the h100 one.
#
#   submit.sh (--partitions P1,P2,... | --gres G1,G2,...) [options]
#     --partitions LIST   one task per partition (make: PARTITIONS=a100,h100)
#     --gres LIST         one task per GRES, e.g. gpu:a100:1,gpu:h100:1 (make: GRES=...)
#     --partition P       with --gres: the partition they share
#     --time MIN          time limit of each task (default 60; make: TIME=)
#     --account NAME      charge this account (make: ACCOUNT=)
#     --sbatch "FLAGS"    more sbatch flags for every job (make: SBATCH_FLAGS=)
#     --set NAME          dataset (default: default)    --budget MS   (default: 100)
#     --algo PATTERNS     only these algorithms, e.g. integral,kmeans (make: ALGO=; default: all)
#     --results DIR       results folder (default: results)   --report DIR (default: report)
#     --make "ARGS"       extra make arguments on the nodes, e.g. "NVCC=" (make: SLURM_MAKE=)
#     --per-gpu           one result set per GPU (<machine-id>-<UUID's first 8 hex digits>), so
#                         tasks on several GPUs of one model in one host run at once (make: PER_GPU=1);
#                         e.g. --gres gpu:1,gpu:1 --per-gpu: two tasks, one GPU each
#     --cpus-per-task N   each task's share of the node's cores; bench sweeps threads up to it
#                         (make: CPUS=N; default: what the partition gives)
#     --dry-run           print the job scripts and the sbatch commands; submit nothing
set -euo pipefail
cd "$(dirname "$0")/../.."

partitions="" gres="" partition="" time_min=60 account="" extra="" set_name=default budget=100
results=results report=report make_args="" dry="" algo="" per_gpu=0 cpus=""
while [ $# -gt 0 ]; do
  case "$1" in
    --partitions) partitions=$2; shift 2 ;;
    --gres) gres=$2; shift 2 ;;
    --partition) partition=$2; shift 2 ;;
    --time) time_min=$2; shift 2 ;;
    --account) account=$2; shift 2 ;;
    --sbatch) extra=$2; shift 2 ;;
    --set) set_name=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --algo) algo=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --make) make_args=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --per-gpu) per_gpu=1; shift ;;
    --cpus-per-task) cpus=$2; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-slurm: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "bench-slurm: $*" >&2; exit 2; }
[ -n "$partitions" ] || [ -n "$gres" ] || die "name the GPU types: PARTITIONS=a100,h100 or GRES=gpu:a100:1,gpu:h100:1"
[ -z "$partitions" ] || [ -z "$gres" ] || die "PARTITIONS and GRES are two ways to say the same thing: give one"
case "$time_min" in '' | *[!0-9]*) die "--time: '$time_min' is not a whole number of minutes" ;; esac
case "$budget" in '' | *[!0-9.]*) die "--budget: '$budget' is not a number of milliseconds" ;; esac
case "$cpus" in *[!0-9]*) die "--cpus-per-task: '$cpus' is not a whole number of cores" ;; esac
case "$algo" in *[!a-z0-9,*?-]*) die "--algo: '$algo' is not a list of algorithm names or patterns" ;; esac
[ -r "datasets/sets/$set_name.set" ] || die "--set: no datasets/sets/$set_name.set"
[ -n "$dry" ] || command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm login node"

IFS=, read -r -a targets <<<"${partitions:-$gres}"
for t in "${targets[@]}"; do
  case "$t" in *[[:space:]]*) die "'$t' is not a partition or GRES name (names hold no spaces)" ;; esac
done
group=segbench-$(date -u +%Y%m%dT%H%M%SZ)-$$
common=(--parsable --time="$time_min")
[ -n "$account" ] && common+=(--account="$account")
# Extra sbatch flags are a list, split as a shell would split it (quotes
# keep '--comment="a b"' one flag) but by xargs, which runs nothing.
if [ -n "$extra" ]; then
  printf '%s' "$extra" | xargs printf '%s\0' >/dev/null 2>&1 \
    || die "--sbatch: cannot split '$extra' into flags (an unmatched quote?)"
  mapfile -d '' flags < <(printf '%s' "$extra" | xargs printf '%s\0')
  common+=("${flags[@]}")
fi
# The jobs read their settings from the environment (sbatch --export=ALL).
export SEGBENCH_GROUP=$group SEGBENCH_SET=$set_name SEGBENCH_BUDGET=$budget SEGBENCH_RESULTS=$results
export SEGBENCH_REPORT=$report SEGBENCH_MAKE=$make_args SEGBENCH_ALGO=$algo SEGBENCH_PER_GPU=$per_gpu
common+=(--export=ALL)
logs=$results/.slurm/$group            # job logs and the tasks' status lines
[ -n "$dry" ] || mkdir -p "$logs"

if [ -n "$dry" ]; then
  echo "# bench-slurm --dry-run: group $group; the job script of each task (scripts/slurm/task.sbatch):"
  sed 's/^/    /' scripts/slurm/task.sbatch
  echo "# the report job's script (scripts/slurm/report.sbatch):"
  sed 's/^/    /' scripts/slurm/report.sbatch
  echo "# would run, with $(env | grep '^SEGBENCH_' | sort | tr '\n' ' ')in the environment:"
fi

# sbatch, or (--dry-run) print the command and answer with a made-up job id
submit() {
  if [ -n "$dry" ]; then
    echo "${SEGBENCH_TARGET:+SEGBENCH_TARGET=$SEGBENCH_TARGET }$(printf '%q ' sbatch "$@")" >&2
    echo "<job:${SEGBENCH_TARGET:-report}>"
  else
    sbatch "$@"
  fi
}
jobs=()
for t in "${targets[@]}"; do
  [ -n "$t" ] || die "an empty name in '${partitions:-$gres}'"
  where=()
  if [ -n "$partitions" ]; then
    where=(--partition="$t")
  else
    where=(--gres="$t")
    [ -n "$partition" ] && where+=(--partition="$partition")
  fi
  [ -n "$cpus" ] && where+=(--cpus-per-task="$cpus")
  export SEGBENCH_TARGET=$t
  id=$(submit "${common[@]}" "${where[@]}" --job-name="segbench-$t" --output="$logs/%j.out" scripts/slurm/task.sbatch)
  id=${id%%;*}                       # --parsable: "id" or "id;cluster"
  jobs+=("$id")
  echo "bench-slurm: task for $t: job $id"
done
dep=$(IFS=:; echo "${jobs[*]}")
report_where=()
[ -n "$partitions" ] && report_where=(--partition="${targets[0]}")
[ -n "$partition" ] && report_where=(--partition="$partition")
unset SEGBENCH_TARGET
export SEGBENCH_JOBS="${jobs[*]}" SEGBENCH_TARGETS="${targets[*]}"
rid=$(submit "${common[@]}" "${report_where[@]}" --dependency="afterany:$dep" --job-name=segbench-report \
  --output="$logs/%j.out" scripts/slurm/report.sbatch)
rid=${rid%%;*}
echo "bench-slurm: report job $rid runs after ${jobs[*]}: $report/MACHINES.md, $results/slurm-tasks.tsv"
echo "bench-slurm: follow with: squeue -j $(IFS=,; echo "${jobs[*]},$rid")   (logs: $logs/<job>.out)"
