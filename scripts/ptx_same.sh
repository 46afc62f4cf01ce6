#!/usr/bin/env bash
# ptx_same.sh REV FILE.cu... - does each kernel of each CUDA file compile to
# the PTX it had at git revision REV?  For a refactor that moves code between
# rung files and headers (issue 78): the same instructions mean the same
# exactness and the same speed, before any GPU time is spent.
#
# Each file is compiled twice with nvcc -ptx for sm_90 (NVCC_ARCH to change
# it): at REV, in a scratch worktree, and as it is now.  Every kernel's body
# is compared by its mangled name, registers, labels, local depots and
# mangled symbols renamed, source-line directives left out; a kernel whose
# name is gone but whose body a new kernel of the file has (it became a
# template's instance) counts as renamed, not gone.  A file that is
# new since REV is compared with REV's file of the same name only if there is
# one.  Prints a line a kernel that differs or is gone (a kernel a rung now
# takes from the file that lends it is gone from the borrower: compare that
# file too), and a line a file; exits 1 if any kernel differs, 2 on a usage
# or build error.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: scripts/ptx_same.sh REV FILE.cu... (e.g. scripts/ptx_same.sh HEAD~1 impl_cuda/kmeans/7_blockcount.cu)" >&2
  exit 2
fi
rev=$1
shift
top=$(git rev-parse --show-toplevel)
cd "$top"
git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || { echo "ptx_same: no revision '$rev'" >&2; exit 2; }
command -v nvcc >/dev/null || { echo "ptx_same: nvcc not found" >&2; exit 2; }
arch=${NVCC_ARCH:-sm_90}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptx-same.XXXXXX")
old="$scratch/old"
cleanup() { git worktree remove --force "$old" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
git worktree add --detach --quiet "$old" "$rev"

# kernels FILE.ptx OUT: one file per kernel in OUT, named by its mangled name
kernels() {
  mkdir -p "$2"
  awk -v out="$2" '
    /^(\.visible |\.weak )?\.entry / { name = $0; sub(/^.*\.entry /, "", name); sub(/\(.*$/, "", name); file = out "/" name }
    file != "" {
      if ($0 ~ /^[ \t]*(\/\/|\.loc|\.file)/ || $0 ~ /^[ \t]*$/) next
      line = $0
      gsub(/%[a-z]+[0-9]+/, "%R", line)
      gsub(/\$L__BB[0-9_]+/, "L", line)
      gsub(/__local_depot[0-9]+/, "DEPOT", line)
      gsub(/_Z[A-Za-z0-9_]+/, "SYM", line)
      print line > file
      if ($0 ~ /^}/) { close(file); file = "" }
    }' "$1"
}

status=0
for f in "$@"; do
  [ -f "$f" ] || { echo "ptx_same: no file $f" >&2; exit 2; }
  if [ ! -f "$old/$f" ]; then
    echo "$f: new since $rev (nothing to compare)"
    continue
  fi
  id=$(echo "$f" | tr '/.' '__')
  for side in old new; do
    tree=$([ $side = old ] && echo "$old" || echo "$top")
    if ! nvcc -O3 -std=c++17 -I"$tree/include" -arch="$arch" -ptx -o "$scratch/$id.$side.ptx" "$tree/$f" \
         2>"$scratch/$id.$side.log"; then
      echo "ptx_same: $f does not compile ($side):" >&2
      head -5 "$scratch/$id.$side.log" >&2
      exit 2
    fi
    kernels "$scratch/$id.$side.ptx" "$scratch/$id.$side"
  done
  same=0 differs=0 renamed=0
  for k in "$scratch/$id.old"/*; do
    [ -e "$k" ] || continue
    name=$(basename "$k")
    if [ ! -f "$scratch/$id.new/$name" ]; then
      # a kernel that became a template instance (or was renamed) keeps its body
      twin=""
      for n in "$scratch/$id.new"/*; do
        [ -e "$n" ] && [ ! -f "$scratch/$id.old/$(basename "$n")" ] && cmp -s "$k" "$n" && { twin=$(basename "$n"); break; }
      done
      if [ -n "$twin" ]; then
        echo "$f: $name is the same as $twin (renamed)"
        renamed=$((renamed + 1))
      else
        echo "$f: $name is gone (moved to a file this one borrows from?)"
      fi
    elif cmp -s "$k" "$scratch/$id.new/$name"; then
      same=$((same + 1))
    else
      echo "$f: $name differs"
      differs=$((differs + 1))
      status=1
    fi
  done
  new=0
  for k in "$scratch/$id.new"/*; do
    [ -e "$k" ] && [ ! -f "$scratch/$id.old/$(basename "$k")" ] && new=$((new + 1))
  done
  echo "$f: $same kernels the same, $renamed renamed, $differs different, $((new - renamed)) new"
done
exit $status
