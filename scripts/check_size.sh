#!/bin/sh
# check_size.sh - no function of DIR is longer than MAX lines (from the
# line of its opening brace to its closing one).  Functions are found as
# bench/ writes them: the brace of a function alone on a line in column 0,
# its closing brace likewise.  Prints each one over, and the longest.
#   sh scripts/check_size.sh [DIR] [MAX]
dir=${1:-bench}
max=${2:-100}
find "$dir" -name '*.c' | sort | xargs awk -v max="$max" '
  FNR == 1 { name = ""; start = 0 }
  /^[A-Za-z_].*\(/ { split($0, a, "("); n = split(a[1], w, /[ *]+/); cand = w[n] }
  /^\{/ { start = FNR; name = cand }
  /^\}/ && start {
    len = FNR - start + 1
    if (len > longest) { longest = len; where = FILENAME ": " name }
    if (len > max) { printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME, start, name, len, max; bad = 1 }
    start = 0
  }
  END {
    printf "check-size: the longest function of %s/ is %s, %d lines (at most %d)\n", dir, where, longest, max
    exit bad
  }' dir="$dir"
