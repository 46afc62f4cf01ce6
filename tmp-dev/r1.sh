#!/bin/bash
# round 1: build, CPU tests, GPU agreement + sanitizers (not racecheck-1/2)
export SB_GIT_COMMIT=$1 SB_GIT_DIRTY=0
L=$OUT/log; mkdir -p $L
t0=$(date +%s)
make -j16 > $L/build.log 2>&1 || { tail -50 $L/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
t=$(date +%s); make test > $L/test.log 2>&1; echo "make test rc=$? $(( $(date +%s) - t )) s: $(tail -1 $L/test.log)"
grep -E "^FAIL|throw-away|no GPU here" -A3 $L/test.log | head -20
for s in agreement memcheck synccheck initcheck racecheck-3; do
  t=$(date +%s); make test-gpu-$s > $L/gpu-$s.log 2>&1; echo "test-gpu-$s rc=$? $(( $(date +%s) - t )) s: $(tail -1 $L/gpu-$s.log)"
  grep -E "^FAIL" -A12 $L/gpu-$s.log | head -30
done
tar czf $OUT/r1.tgz -C $OUT log
