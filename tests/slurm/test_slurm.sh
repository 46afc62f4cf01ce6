#!/usr/bin/env bash
# test_slurm.sh - `make test-slurm`: make bench-slurm on a real Slurm
# cluster of one node, this machine (CPU only).  Installs Debian's
# slurm-wlm and munge when missing (as root), starts munged, slurmctld and
# slurmd from a generated slurm.conf with two partitions on this node,
# submits the smoke set to both (two tasks on identical machines: one
# result set must come out, measured once), then a second submission whose
# second task is cancelled (the report must name it), checks the merged
# results and report, and stops every daemon it started.  Last line:
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
limit=${SLURM_TEST_TIMEOUT:-240}     # seconds a submission may take

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/    /' <<<"$2"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-slurm: installing slurm-wlm and munge"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
  fi
fi
if ! command -v slurmctld >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  bad "a one-node cluster needs root and slurm-wlm + munge (apt-get install slurm-wlm munge)"
  finish; exit 1
fi

work=$(mktemp -d /tmp/segbench-slurm-XXXXXX)
chmod 755 "$work"
export SLURM_CONF=$work/slurm.conf
started_munged=""
# A munged that runs (a dead one waiting to be reaped, state Z, is none:
# containers whose init does not reap leave those behind)
munged_alive() {
  local p
  for p in $(pgrep -x munged 2>/dev/null); do
    grep -q '^State:[[:space:]]*[RSD]' "/proc/$p/status" 2>/dev/null && return 0
  done
  return 1
}
stop_daemons() {
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" ${started_munged:+"$started_munged"}; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  for _ in $(seq 50); do
    pgrep -f "$work/slurm" >/dev/null 2>&1 || { [ -n "$started_munged" ] && munged_alive; } || break
    sleep 0.2
  done
  pkill -9 -f "slurmd -f $work" 2>/dev/null; pkill -9 -f "slurmctld -f $work" 2>/dev/null
  [ -n "$started_munged" ] && pkill -9 -x munged 2>/dev/null
  true
}
trap 'stop_daemons; rm -rf "$work"' EXIT

# ---- munge: its directories belong to the munge user, and munged runs as it
if ! munged_alive; then
  mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
  [ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
  chmod 700 /etc/munge && chmod 400 /etc/munge/munge.key && chmod 755 /run/munge
  runuser -u munge -- /usr/sbin/munged || { bad "munged would not start"; finish; exit 1; }
  started_munged=/run/munge/munged.pid
fi

# ---- the cluster: this node, two partitions (two "GPU types" of one machine)
host=$(hostname -s)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
mkdir -p "$work/state" "$work/spool"
# shellcheck source=scripts/slurm/one-node.sh
. scripts/slurm/one-node.sh
{
  slurm_one_node_conf segbench-test "$work"
  cat <<CONF
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=cpu-a Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=cpu-b Nodes=$host MaxTime=INFINITE State=UP
CONF
} >"$SLURM_CONF"
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || { bad "slurmctld/slurmd would not start" "$(tail -n 5 "$work"/*.log)"; finish; exit 1; }
for _ in $(seq 60); do
  [ "$(sinfo -h -o %T -p cpu-a 2>/dev/null | head -n 1)" = idle ] && break
  sleep 1
done
check "a one-node cluster is up (sinfo: idle)" '[ "$(sinfo -h -o %T -p cpu-a | head -n 1)" = idle ]' "$(tail -n 5 "$work"/*.log)"

results=$work/results report=$work/report

# Submit, then wait (bounded) until none of the submission's jobs is queued.
submission() {
  bash scripts/slurm/submit.sh --partitions cpu-a,cpu-b --set smoke --budget 20 --time 10 --make "NVCC=" \
    --results "$results" --report "$report" "$@" >"$work/submit.out" 2>&1
}
wait_jobs() {
  local ids start=$SECONDS
  ids=$(sed -n 's/^bench-slurm: \(task for .*: job\|report job\) \([0-9]*\).*/\2/p' "$work/submit.out" | paste -sd,)
  while [ -n "$(squeue -h -j "$ids" 2>/dev/null)" ]; do
    [ $((SECONDS - start)) -lt "$limit" ] || return 1
    sleep 2
  done
}

# ---- 1: two tasks land on identical machines: one result set, measured once
start=$SECONDS
submission
cat "$work/submit.out"
check "bench-slurm submits two tasks and a report job" 'grep -c "job [0-9]" "$work/submit.out" | grep -qx 3' \
  "$(cat "$work/submit.out")"
wait_jobs
check "the submission ends within ${limit} s ($((SECONDS - start)) s)" '[ $((SECONDS - start)) -lt "$limit" ]'
machine=$(./build/segbench env --no-measure 2>/dev/null | sed -n 's/^ *"machine_id": "\(.*\)",$/\1/p')
[ -n "$machine" ] || machine=$(ls "$results" | head -n 1)
tsv=$results/slurm-tasks.tsv
logs=$(cat "$results"/.slurm/*/*.out 2>/dev/null | tail -n 30)
check "slurm-tasks.tsv: both tasks ok" '[ "$(grep -c "	ok	" "$tsv" 2>/dev/null)" = 2 ]' "$(cat "$tsv" 2>/dev/null; echo "$logs")"
check "one task measured, the other kept its result set" \
  'grep -q "same machine as another task" "$tsv" && [ "$(grep -c "CSV lines" "$tsv")" = 1 ]' "$(cat "$tsv" 2>/dev/null)"
check "the result set is one finished run" \
  'grep -q "\"run_finished\": true" "$results/$machine/env.json" && [ "$(cut -d, -f28 "$results/$machine/integral.csv" | sed 1d | sort -u | wc -l)" = 1 ]' \
  "$(ls -la "$results/$machine" 2>&1)"
check "the merged report: REPORT.md and MACHINES.md with the cluster tasks" \
  '[ -s "$report/$machine/REPORT.md" ] && grep -q "All 2 tasks finished" "$report/MACHINES.md" && grep -q " | none | " "$report/MACHINES.md"' \
  "$(cat "$report/MACHINES.md" 2>/dev/null | head -20; echo "$logs")"
cp "$report/MACHINES.md" "$work/MACHINES-1.md" 2>/dev/null

# ---- 2: a task that fails (cancelled) is named in the report
submission
cancel=$(sed -n 's/^bench-slurm: task for cpu-b: job \([0-9]*\).*/\1/p' "$work/submit.out")
scancel "$cancel"
wait_jobs
check "a cancelled task is named as failed in MACHINES.md" \
  'grep -q "1 of 2 tasks failed: task $cancel (cpu-b)" "$report/MACHINES.md"' "$(cat "$tsv" 2>/dev/null)"

# ---- the generated job script and the machine table, for the record
if [ -n "${SLURM_TEST_SHOW:-}" ]; then
  bash scripts/slurm/submit.sh --partitions cpu-a,cpu-b --set smoke --dry-run 2>&1 | tail -n 6
  echo "--- MACHINES.md after submission 1"; cat "$work/MACHINES-1.md"
  echo "--- its cluster tasks after submission 2"; sed -n '/^## Cluster tasks/,/^| [0-9]* | cpu-b/p' "$report/MACHINES.md"
fi

stop_daemons
check "no daemon left running" '! pgrep -f "$work/slurm" >/dev/null && { [ -z "$started_munged" ] || ! munged_alive; }'
finish
