#!/bin/bash
# d3.sh HASH: the run of record: build, integral GPU tests, every algorithm benched into a copy of the published set
H=$1
cd /tmp/w
O=/tmp/w/out3; mkdir -p $O
echo "start $(date +%T)" > $O/progress
make -j16 all SB_GIT_COMMIT=$H CUDA_ARCH=90 INSTALL_TOOLS=no > $O/build.log 2>&1 || { echo "build failed" >> $O/progress; exit 1; }
make datasets > /dev/null 2>&1; make datasets SET=smoke > /dev/null 2>&1
echo "built $(date +%T)" >> $O/progress
./build/test_gpu --only "integral" > $O/test_gpu.log 2>&1
echo "test_gpu $(tail -1 $O/test_gpu.log) $(date +%T)" >> $O/progress
rm -rf /tmp/rec /tmp/base; cp -a results/h100-80gb-hbm3 /tmp/rec; cp -a results/h100-80gb-hbm3 /tmp/base; touch /tmp/stamp; sleep 1
/usr/bin/time -v ./build/segbench bench --results /tmp/rec --overwrite --quiet > $O/bench.log 2>&1
echo "bench rc=$? $(date +%T)" >> $O/progress
./build/segbench compare --baseline /tmp/base --current /tmp/rec > $O/compare.log 2>&1
cd /tmp/rec && find . -newer /tmp/stamp -type f ! -name .lock | tar czf $O/rec.tgz -T - ; cd /tmp/w
echo "all done $(date +%T)" >> $O/progress
