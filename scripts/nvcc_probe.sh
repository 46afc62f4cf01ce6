#!/bin/sh
# nvcc_probe.sh - can this nvcc compile device code here?  Prints nothing
# when it can, else one line naming the problem (the Makefile then builds
# without CUDA).  The answer is kept in DIR/nvcc-probe, keyed by nvcc, its
# version, the host compiler's version and the targets, so a make that
# finds it there costs two --version calls, not a compile.
#   sh scripts/nvcc_probe.sh NVCC DIR GENCODE-FLAGS...
nvcc=$1
dir=$2
shift 2
key="$nvcc|$("$nvcc" --version 2>/dev/null | tail -n 1)|$(${CC:-cc} --version 2>/dev/null | head -n 1)|$*"
cache="$dir/nvcc-probe"
if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$key" ]; then
  tail -n +2 "$cache"
  exit 0
fi
mkdir -p "$dir" 2>/dev/null
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/nvcc-probe.$$")
mkdir -p "$tmp"
printf '__global__ void probe(int *x) { *x = 1; }\nint main(void) { return 0; }\n' > "$tmp/probe.cu"
if "$nvcc" -std=c++17 "$@" -c "$tmp/probe.cu" -o "$tmp/probe.o" > "$tmp/log" 2>&1; then
  why=""
else
  first=$(grep -m 1 -i -E 'error|fatal|not supported|unsupported' "$tmp/log" || head -n 1 "$tmp/log")
  why="nvcc ($nvcc) cannot compile here: $(printf '%s' "${first:-it exited non-zero with no message}" | tr -d '\r' | cut -c1-200)"
fi
rm -rf "$tmp"
{ echo "$key"; [ -n "$why" ] && echo "$why"; } > "$cache.tmp.$$" 2>/dev/null && mv "$cache.tmp.$$" "$cache" 2>/dev/null
[ -n "$why" ] && echo "$why"
exit 0
