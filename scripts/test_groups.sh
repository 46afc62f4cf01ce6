#!/bin/sh
# test_groups.sh - the test suite's table, made from the tests themselves:
# every `const sb_test tests_NAME[]` of tests/*/*.c (each file exports one
# group and tests_NAME_count), folder by folder in the order below, so a new test file
# is registered by existing.  The Makefile writes build/gen/test_groups.inc
# from it for tests/test_main.c and tests/test_gpu.c.
#   sh scripts/test_groups.sh [TESTS_DIR]
dir=${1:-tests}
# folders bottom up, as bench/'s layers are (README.md there), then any other
order="common algos measure io compare cli pages profile course reporters"
folders=$order
for d in "$dir"/*/; do
  d=$(basename "$d")
  [ "$d" = fuzz ] && continue       # libFuzzer targets, built apart (make fuzz)
  case " $order " in *" $d "*) ;; *) [ -n "$(ls "$dir/$d"/*.c 2>/dev/null)" ] && folders="$folders $d" ;; esac
done
groups=$(for d in $folders; do ls "$dir/$d"/*.c 2>/dev/null; done | xargs cat |
         sed -n 's/^const sb_test \(tests_[A-Za-z0-9_]*\)\[\] = {.*/\1/p')
for g in $groups; do
  echo "extern const sb_test $g[];"
  echo "extern const int ${g}_count;"
done
echo "#define SB_TEST_GROUPS \\"
for g in $groups; do echo "    { $g, &${g}_count }, \\"; done
echo "    /* end */"
