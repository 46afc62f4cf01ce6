#!/bin/sh
# variant_table.sh - print every SB_VARIANT(...) registration, SB_RUNG(...)
# ladder line and SB_CUDA_RUNG(...) (both at once) found in the variants'
# source files, in the registry's order, for registry.c to
# include (the Makefile writes it to build/gen/variants.inc).
#
# The order is the files' order: impl_cpu/, then impl_pthread/'s pthread
# files, then its OpenMP files, then each impl_cuda/<algo>/ in version
# order (sort -V), so 2_blocked6.cu comes before 10_x.cu; then students'
# copies under exercises/<algo>/ when there are any.  Within a file,
# the order of its lines.  Every file is read whether or not this build
# can compile it, so a variant it cannot build is still listed.
#
# Usage: variant_table.sh ROOT          (the directory holding impl_cpu/ ...)
#        variant_table.sh --files ROOT  the variants' source files alone, one a line
#                                       (for build/code_ids: base/code_id.h)
set -eu
only_files=0
if [ "${1:-}" = --files ]; then
    only_files=1
    shift
fi
root=${1:-.}
cd "$root"
files="$(ls impl_cpu/*.c) $(ls impl_pthread/*_pthread.c) $(ls impl_pthread/*_openmp.c)"
for dir in impl_cuda/*/; do
    files="$files $(ls "$dir" | grep '\.cu$' | sort -V | sed "s|^|$dir|")"
done
# students' copies (make exercise), last, when there are any
for dir in exercises/*/; do
    [ -d "$dir" ] || continue
    files="$files $(ls "$dir" | grep -E '(\.cu|_openmp\.c|_pthread\.c)$' | sort -V | sed "s|^|$dir|")"
done
if [ "$only_files" = 1 ]; then
    for file in $files; do
        grep -Eq '^SB_(VARIANT|CUDA_RUNG)\(' "$file" && echo "$file"
    done
    exit 0
fi
for file in $files; do
    # From a line that opens with SB_VARIANT(, SB_RUNG( or SB_CUDA_RUNG( to the line that closes its
    # parentheses, counting none inside string literals; #line points
    # compiler messages at the source file.
    awk -v file="$file" '
        !on && /^SB_(VARIANT|RUNG|CUDA_RUNG)\(/ { on = 1; depth = 0; printf "#line %d \"%s\"\n", FNR, file }
        on {
            print
            instr = 0
            for (i = 1; i <= length($0); i++) {
                c = substr($0, i, 1)
                if (instr) { if (c == "\\") i++; else if (c == "\"") instr = 0 }
                else if (c == "\"") instr = 1
                else if (c == "(") depth++
                else if (c == ")") depth--
            }
            if (depth == 0) on = 0
        }
        END { if (on) { printf "variant_table.sh: %s: an SB_VARIANT(, SB_RUNG( or SB_CUDA_RUNG( is never closed\n", file > "/dev/stderr"; exit 1 } }
    ' "$file"
done
