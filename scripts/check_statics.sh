#!/bin/sh
# check_statics.sh - no file-level (or function-level static) mutable
# state in DIR's C files, outside main and the named exceptions below.
# State a run changes belongs in a struct its caller owns (bench/README.md,
# "State"); a `static const` table is not state.  Prints each variable
# found that is not an exception, and fails if there is one.
#   sh scripts/check_statics.sh [DIR]
#
# The exceptions, each process-wide by nature, set before or outside any
# run, and read by all (FILE:NAME):
#   variants/registry.c  - the variant table, filled as the program loads by
#       each variant's and algorithm's own registration (Google Benchmark's
#       pattern), ordered once, read-only after: the program's, not a run's.
#   machine/nvml.c, machine/energy.c, machine/gpu_clocks.c - the handles
#       to NVML, RAPL and nvidia-smi and what they said once: NVML's own
#       state is the process's (nvmlInit), and the machine is one per
#       process; its idle power is measured once.
#   machine/host_noise.c exempt_* - which of the process's own threads
#       bench's quiet wait leaves out: the threads are the process's.
#   cases/cases.c budget - the host memory a case may need (--max-memory),
#       a process limit set once from the command line, as --max-pixels
#       is (segbench/image_io.h).
dir=${1:-bench}
allowed='
variants/registry.c:registry_variants
variants/registry.c:registry_ops
variants/registry.c:registry_chains
variants/registry.c:registry_strays
variants/registry.c:registry_algos
variants/registry.c:registry_nalgos
variants/registry.c:registry_order
variants/registry.c:once
machine/nvml.c:nvml
machine/energy.c:energy
machine/energy.c:idle
machine/energy.c:measured
machine/gpu_clocks.c:smi_missing
machine/host_noise.c:exempt_tid
machine/host_noise.c:exempt_lock
cases/cases.c:budget
'
find "$dir" -name '*.c' ! -path '*/cli/main.c' | sort | xargs awk -v allowed="$allowed" -v dir="$dir" '
  BEGIN { n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) if (a[i] != "") ok[a[i]] = 1 }
  FNR == 1 { depth = 0; pending = "" }
  {
    line = $0
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)          # strings hold no code
    sub(/\/\*.*\*\//, "", line); sub(/\/\/.*/, "", line)
    code = line; sub(/^[ \t]+/, "", code)
    if (code ~ /^static[ \t]/ && code !~ /^static[ \t]+(inline[ \t]+)?[^=;]*\(/ && code !~ /^static[ \t]+(const[ \t]|[^=;]*\*[ \t]*const[ \t])/) {
      decl = code; sub(/[ \t]*=.*/, "", decl); sub(/[ \t]*;.*/, "", decl); sub(/\[.*/, "", decl)
      if (decl ~ /\{$/ || decl ~ /^static[ \t]+struct[ \t]*(\{|$)/) {   # static struct { ... } name;
        pending = FILENAME ":" FNR
      } else {
        m = split(decl, w, /[ \t*]+/); name = w[m]
        file = FILENAME; sub("^" dir "/", "", file)
        if (!((file ":" name) in ok)) { printf "%s:%d: static %s is mutable state (bench/README.md, State)\n", FILENAME, FNR, name; bad = 1 }
      }
    }
    if (pending != "" && line ~ /^\}[ \t]*[A-Za-z_][A-Za-z_0-9]*/) {
      name = line; sub(/^\}[ \t]*/, "", name); sub(/[^A-Za-z_0-9].*/, "", name)
      file = FILENAME; sub("^" dir "/", "", file)
      if (!((file ":" name) in ok)) { printf "%s: static struct %s is mutable state (bench/README.md, State)\n", pending, name; bad = 1 }
      pending = ""
    }
  }
  END { if (!bad) print "check-statics: no mutable state in " dir "/ outside main and the named exceptions"; exit bad }'
