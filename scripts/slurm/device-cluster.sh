#!/usr/bin/env bash
# device-cluster.sh - make bench-slurm on a one-node Slurm cluster made on a
# GPU machine that has no network and no Slurm: the machine's GPUs become
# GRES (gpu:N, a generated gres.conf), one partition holds the node, and
# scripts/slurm/submit.sh (what make bench-slurm runs) submits one task per
# GPU (--gres=gpu:1 each; with N > 1 GPUs, --per-gpu and 1/N of the cores
# each), each of which must get its own GPU through Slurm, build for it and
# measure it into a result set of its own, all at the same time; then the
# report job that merges the sets into MACHINES.md.
#
#   1. Where there is apt and a network, fetch Debian's packages:
#        bash scripts/slurm/device-cluster.sh --download build/slurm-debs
#   2. Bring that folder to the GPU machine, and there, as root:
#        bash scripts/slurm/device-cluster.sh --debs build/slurm-debs [--set smoke] [--algo integral,kmeans]
#                                           [--keep DIR] [--time MIN]
#
# The packages are unpacked under a temporary prefix (dpkg-deb -x), never
# into /: the daemons and commands run from there (PATH, LD_LIBRARY_PATH,
# PluginDir), and munged runs with its key, socket and logs in the work
# folder.  Results and the report go to the work folder too (--keep DIR
# copies the task table, MACHINES.md, env.json and the job logs there).
# Every daemon it started is stopped at the end.  Last line: "N passed, N
# failed".  Tested on Debian 12's Slurm 22.05 and munge 0.5.15.
set -uo pipefail
cd "$(dirname "$0")/../.."

# libdbus-1-3: the cgroup/v2 plugin links it (an H100 machine with cgroup v2
# and no libdbus: "slurmd initialization failed", 2026-11-25)
PACKAGES="slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 libhwloc15 libjson-c5 liblz4-1
          libyaml-0-2 liblua5.1-0 libnuma1 libdbus-1-3"
debs="" set_name=smoke algo="integral,kmeans" keep="" time_min=30 gres_files="" make_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --download)
      mkdir -p "$2" && cd "$2" || exit 2
      # shellcheck disable=SC2086  # a list of package names
      apt-get download $PACKAGES || { echo "device-cluster: apt-get download failed" >&2; exit 1; }
      echo "device-cluster: $(ls ./*.deb | wc -l) packages in $2 ($(du -sh . | cut -f1))"
      exit 0 ;;
    --debs) debs=$2; shift 2 ;;
    --set) set_name=$2; shift 2 ;;
    --algo) algo=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --time) time_min=$2; shift 2 ;;
    --gres-files) gres_files=$2; shift 2 ;;   # tests: stand-ins for /dev/nvidia*, comma list
    --make) make_args=$2; shift 2 ;;          # tests: e.g. "NVCC=" where there is no GPU
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "device-cluster: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$debs" ] || { echo "device-cluster: give --debs DIR (made by --download DIR)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "device-cluster: slurmd must run as root here" >&2; exit 2; }
ls "$debs"/*.deb >/dev/null 2>&1 || { echo "device-cluster: no .deb in $debs" >&2; exit 2; }

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/    /' <<<"$2"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

work=$(mktemp -d /tmp/segbench-device-cluster-XXXXXX)
chmod 700 "$work"
prefix=$work/prefix
mkdir -p "$prefix" "$work/state" "$work/spool" "$work/munge"
for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$prefix" || { echo "device-cluster: cannot unpack $d" >&2; exit 1; }; done
# Debian installs the daemons as slurmctld-wlm, slurmd-wlm and
# slurmstepd-wlm and names them with update-alternatives: the same names,
# as links inside the prefix
for f in "$prefix"/usr/sbin/*-wlm; do [ -e "$f" ] && ln -sf "$(basename "$f")" "${f%-wlm}"; done
plugins=$prefix/usr/lib/x86_64-linux-gnu/slurm-wlm      # the plugins and libslurmfull.so
export PATH=$prefix/usr/sbin:$prefix/usr/bin:$PATH
export LD_LIBRARY_PATH=$plugins:$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SLURM_CONF=$work/slurm.conf
check "the packages unpack and run from the prefix ($(slurmctld -V 2>&1 | head -n 1), $(munged --version 2>&1 | head -n 1))" \
  '[ "$(command -v slurmctld)" = "$prefix/usr/sbin/slurmctld" ] && slurmctld -V >/dev/null 2>&1 &&
   [ "$(command -v sbatch)" = "$prefix/usr/bin/sbatch" ] && munged --version >/dev/null 2>&1' \
  "$(slurmctld -V 2>&1 | head -n 3; ldd "$prefix/usr/sbin/slurmctld" | grep "not found")"

stop_daemons() {
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  for _ in $(seq 50); do pgrep -f "$work/" >/dev/null 2>&1 || break; sleep 0.2; done
  pkill -9 -f "$work/" 2>/dev/null
  true
}
trap 'stop_daemons; rm -rf "$work"' EXIT

# ---- munge: root may run it (--force); its key, socket and logs in the work folder
socket=$work/munge/munge.socket
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" 2>"$work/munge/start.err"
check "munged runs from the prefix" '[ -S "$socket" ]' "$(cat "$work/munge/start.err" "$work/munge/munged.log" 2>/dev/null | tail -n 5)"

# ---- the GPUs as GRES: a gres.conf of the device files
files=()
if [ -n "$gres_files" ]; then
  IFS=, read -r -a files <<<"$gres_files"
else
  for f in /dev/nvidia[0-9]*; do [ -e "$f" ] && files+=("$f"); done
fi
ngpu=${#files[@]}
check "the node has GPUs to offer ($ngpu: ${files[*]:-none})" '[ "$ngpu" -gt 0 ]'
host=$(hostname -s)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
{
  echo "AutoDetect=off"
  for f in "${files[@]}"; do echo "NodeName=$host Name=gpu File=$f"; done
} >"$work/gres.conf"
# shellcheck source=scripts/slurm/one-node.sh
. scripts/slurm/one-node.sh
{
  slurm_one_node_conf segbench-device "$work"
  cat <<CONF
AuthInfo=socket=$socket
PluginDir=$plugins
GresTypes=gpu
NodeName=$host CPUs=$(nproc) RealMemory=$mem Gres=gpu:$ngpu State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
} >"$SLURM_CONF"
# each task bound to the cores it was given (sched_setaffinity): bench sweeps
# its threads up to them, and two tasks do not measure each other
sed -i 's|^TaskPlugin=task/none$|TaskPlugin=task/affinity|' "$SLURM_CONF"
# slurmd starts each job's slurmstepd from the path it was built with
# (/usr/sbin) unless -d names another
# cgroup v1 or v2, whichever the machine has; no systemd to ask for a scope
cat >"$work/cgroup.conf" <<CONF
CgroupPlugin=autodetect
IgnoreSystemd=yes
CONF
# Without systemd, slurmd's cgroup/v2 plugin makes its scope itself, under
# /sys/fs/cgroup/system.slice, which only systemd would have made, and wants
# the cpu, cpuset and memory controllers delegated to it (an H100 machine
# without systemd, 2026-11-25: "Could not create scope directory
# /sys/fs/cgroup/system.slice/..._slurmstepd.scope", "Controller cpuset is
# not enabled", then "slurmd initialization failed").  Make both, where this
# root may.
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
  mkdir -p /sys/fs/cgroup/system.slice 2>/dev/null
  for c in cpu cpuset memory; do
    echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
    echo "+$c" >/sys/fs/cgroup/system.slice/cgroup.subtree_control 2>/dev/null
  done
fi
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" -d "$prefix/usr/sbin/slurmstepd"
for _ in $(seq 60); do
  [ "$(sinfo -h -o %T -p gpu 2>/dev/null | head -n 1)" = idle ] && break
  sleep 1
done
check "a one-node cluster is up with gpu:$ngpu (sinfo: $(sinfo -h -o '%P %T %G' 2>/dev/null | head -n 1))" \
  '[ "$(sinfo -h -o %T -p gpu | head -n 1)" = idle ] && sinfo -h -o %G | grep -q "gpu:$ngpu"' \
  "$(tail -n 8 "$work"/slurmctld.log "$work"/slurmd.log 2>/dev/null)"
[ "$fail" -eq 0 ] || { echo "device-cluster: the cluster did not come up; nothing submitted"; finish; exit 1; }

# ---- make bench-slurm GRES=gpu:1,... PARTITION=gpu: a task per GPU, into the work folder
results=$work/results report=$work/report
gres_list=$(for _ in $(seq "$ngpu"); do printf 'gpu:1,'; done)
gres_list=${gres_list%,}
per_gpu=() cpus=$(nproc)
if [ "$ngpu" -gt 1 ]; then
  cpus=$(($(nproc) / ngpu))
  per_gpu=(--per-gpu --cpus-per-task "$cpus")
fi
start=$SECONDS
bash scripts/slurm/submit.sh --gres "$gres_list" --partition gpu "${per_gpu[@]}" --set "$set_name" --algo "$algo" \
  --time "$time_min" --results "$results" --report "$report" ${make_args:+--make "$make_args"} 2>&1 | tee "$work/submit.out"
ids=$(sed -n 's/^bench-slurm: \(task for .*: job\|report job\) \([0-9]*\).*/\2/p' "$work/submit.out" | paste -sd,)
while [ -n "$ids" ] && [ -n "$(squeue -h -j "$ids" 2>/dev/null)" ]; do
  [ $((SECONDS - start)) -lt $((time_min * 60)) ] || break
  sleep 3
done
echo "device-cluster: the submission took $((SECONDS - start)) s"
tsv=$results/slurm-tasks.tsv
logs=$(cat "$results"/.slurm/*/*.out 2>/dev/null)
sets=$(awk -F'\t' 'NR > 1 && $5 == "ok" { print $4 }' "$tsv" 2>/dev/null | sort -u)
nsets=$(grep -c . <<<"$sets")
uuids=$(for m in $sets; do sed -n 's/^ *"gpu_uuid": "\(.*\)",$/\1/p' "$results/$m/env.json" 2>/dev/null; done | sort -u)
check "the $ngpu task(s) ran and finished ok (slurm-tasks.tsv)" '[ "$(grep -c "	ok	" "$tsv" 2>/dev/null)" = "$ngpu" ]' \
  "$(cat "$tsv" 2>/dev/null; tail -n 20 <<<"$logs")"
# (stand-in device files are no GPUs to Slurm's gpu plugin: it names none)
check "Slurm gave each task a GPU of its own (CUDA_VISIBLE_DEVICES set by GRES, $ngpu distinct job GPUs)" \
  '[ "$(grep -o "SLURM_JOB_GPUS=[0-9]*" <<<"$logs" | sort -u | wc -l)" = "$ngpu" ] || [ -n "$gres_files" ]' \
  "$(grep "CUDA_VISIBLE\|GPU " <<<"$logs")"
check "each task measured its own card: $nsets result set(s) ($(echo $sets)), $(grep -c . <<<"$uuids") GPU UUID(s)" \
  '[ "$nsets" = "$ngpu" ] && { [ -n "$make_args" ] || [ "$(grep -c . <<<"$uuids")" = "$ngpu" ]; } &&
   for m in $sets; do grep -q "\"gpu_present\": true" "$results/$m/env.json" 2>/dev/null || [ -n "$make_args" ] || exit 1; done' \
  "$(for m in $sets; do head -n 12 "$results/$m/env.json"; done 2>/dev/null)"
check "each task had its share of the cores ($cpus of $(nproc))" \
  'for m in $sets; do grep -q "\"cpu_usable_cores\": $cpus," "$results/$m/env.json" || exit 1; done' \
  "$(for m in $sets; do grep cores "$results/$m/env.json"; done 2>/dev/null)"
if [ "$ngpu" -gt 1 ]; then
  check "the tasks ran at the same time (their start and end times overlap)" \
    'grep -q "tasks ran at the same time" "$report/MACHINES.md" 2>/dev/null' "$(cat "$tsv" 2>/dev/null)"
fi
check "the report job merged them: MACHINES.md names every task$([ "$ngpu" -gt 1 ] && echo " and compares the cards")" \
  '[ -s "$report/MACHINES.md" ] && grep -q "All $ngpu tasks\? finished" "$report/MACHINES.md" &&
   { [ "$ngpu" = 1 ] || [ -n "$make_args" ] || grep -q "two cards of one model in one host" "$report/MACHINES.md"; }' \
  "$(head -n 30 "$report/MACHINES.md" 2>/dev/null; tail -n 10 <<<"$logs")"
echo "--- slurm-tasks.tsv"
cat "$tsv" 2>/dev/null
echo "--- MACHINES.md"
cat "$report/MACHINES.md" 2>/dev/null | head -n 60
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  cp "$tsv" "$report/MACHINES.md" "$work/slurm.conf" "$work/gres.conf" "$work/submit.out" "$keep"/ 2>/dev/null
  for m in $sets; do cp "$results/$m/env.json" "$keep/$m.env.json" 2>/dev/null; done
  cp -r "$results" "$keep/results" 2>/dev/null
  cat "$results"/.slurm/*/*.out >"$keep/jobs.log" 2>/dev/null
  cat "$work"/slurmctld.log "$work"/slurmd.log >"$keep/daemons.log" 2>/dev/null
fi
stop_daemons
check "no daemon left running" '! pgrep -f "$work/" >/dev/null'
finish
