#!/bin/sh
# check_layers.sh - the include rule of bench/ (bench/README.md): each
# folder is a layer, and a file includes headers of its own layer and of
# the layers below it only, so dependencies point one way:
#
#   base <- machine <- variants <- measure <- cases <- algos <- io <- {compare, profile} <- course <- pages
#        <- reporters <- run <- cli
#
# Folders on one rung ({compare, profile}) include neither each other.
# Headers of include/segbench/ (the public interface) are below all.
# A folder not in the table is an error too: a new folder takes a place.
# With a build folder, the same rule for symbols: no object of a layer
# uses a function or object that a higher layer's object defines (an
# extern declared in a lower header and defined above it: what the
# include check cannot see), read with nm.
# Prints each include or symbol against the order and exits 1 if there is any.
#   sh scripts/check_layers.sh [BENCH_DIR [BUILD_DIR]]
dir=${1:-bench}
objs=${2:-}
rank() {
  case $1 in
    base) echo 0 ;; machine) echo 1 ;; variants) echo 2 ;; measure) echo 3 ;; cases) echo 4 ;; algos) echo 5 ;;
    io) echo 6 ;; compare|profile) echo 7 ;; course) echo 8 ;; pages) echo 9 ;; reporters) echo 10 ;; run) echo 11 ;;
    cli) echo 12 ;;
    *) echo -1 ;;
  esac
}
bad=0
files=0
for f in "$dir"/*/*.c "$dir"/*/*.h; do
  [ -f "$f" ] || continue
  files=$((files + 1))
  from=$(basename "$(dirname "$f")")
  rf=$(rank "$from")
  if [ "$rf" -lt 0 ]; then
    echo "$f: folder '$from' has no place in the layer order (scripts/check_layers.sh, bench/README.md)"
    bad=1
    continue
  fi
  for to in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$f" | sort -u); do
    [ "$to" = segbench ] && continue
    [ "$to" = "$from" ] && continue
    rt=$(rank "$to")
    if [ "$rt" -lt 0 ]; then
      echo "$f: includes from '$to/', which is no layer of bench/"
      bad=1
    elif [ "$rt" -ge "$rf" ]; then
      echo "$f: $from/ includes $to/ ($(grep -n "#[[:space:]]*include[[:space:]]*\"$to/" "$f" | head -n 1 | cut -d: -f1)): against the order, $to/ is not below $from/"
      bad=1
    fi
  done
done
[ "$bad" -eq 0 ] && echo "check-layers: $files files of $dir/, every include points down the layer order"
if [ -n "$objs" ]; then
  # each object's defined and undefined symbols, with its layer's rank;
  # then every use whose definition lies in a higher layer
  list=$(mktemp)
  for o in "$objs"/bench/*/*.o; do
    [ -f "$o" ] || continue
    r=$(rank "$(basename "$(dirname "$o")")")
    nm -g "$o" 2>/dev/null | awk -v r="$r" -v o="$o" 'NF == 3 && $2 != "U" { print "D", $3, r, o } $1 == "U" { print "U", $2, r, o }'
  done > "$list"
  awk '$1 == "D" && !($2 in rank) { rank[$2] = $3; file[$2] = $4 }
       $1 == "U" { use[++n] = $0 }
       END {
         bad = 0
         for (i = 1; i <= n; i++) {
           split(use[i], u, " ")
           if ((u[2] in rank) && rank[u[2]] > u[3]) {
             printf "%s: uses %s, defined in a layer above its own (%s)\n", u[4], u[2], file[u[2]]
             bad = 1
           }
         }
         exit bad
       }' "$list" || bad=1
  rm -f "$list"
  [ "$bad" -eq 0 ] && echo "check-layers: no object of $dir/ uses a symbol defined in a layer above its own"
fi
exit $bad
