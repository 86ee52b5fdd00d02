#!/usr/bin/env bash
# Session 111, call 468: DRAM fetches of 128 bytes into L2 (the CUDA backend's new default) against the driver's
# own (GPUBLUR_CUDA_L2_FETCH=0), alternated; the new CudaBackend test; then the issue tables (CUDA, GL) with the
# change, as call 465 took them. In order of need: the log is written as it goes (little device time was left).
# Carry .device (exp.tar.xz: gpublur and test_cuda of this change, the bundle's libraries) and .gl. Not run in session
# 111 (no machine came after call 467): owed. To make exp.tar.xz: git apply session111-l2-fetch-128.patch; bash
# scripts/bundle.sh; mkdir -p .device/exp/bin; cp build-bundle/bin/{gpublur,test_cuda} .device/exp/bin; strip them;
# cp -r bundle/lib scripts/gpu_env.sh .device/exp; cp -r testdata .device/exp; tar -C .device -cJf .device/exp.tar.xz exp.
set -u
tar -xJf .device/exp.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . exp/gpu_env.sh
b=$here
log=$OUT/c468.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
for f in "" 0; do
  GPUBLUR_CUDA_L2_FETCH=$f $b/bin/gpublur bench -b cuda --method copy --size 256 --repeat 3 -v 2>&1 |
    grep -i "L2 fetch" >>"$log"
done
for round in 1 2; do
  for f in 0 128; do
    echo "=== round $round fetch $f [$(date +%T)]" >>"$log"
    GPUBLUR_CUDA_L2_FETCH=$f timeout 60 $b/bin/gpublur bench -b cuda \
      --method copy,gauss-sep,box,box:impl=sat,integral,iir,fft,kawase --sigma 3,48,200 \
      --size 4096 --channels 4 --repeat 7 2>&1 | grep -E "4096x4096" | sed "s/^/r$round f$f: /" >>"$log"
  done
done
echo "=== test_cuda CudaBackend [$(date +%T)]" >>"$log"
timeout 60 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaBackend.*' >>"$log" 2>&1
echo "=== rc=$? [$(date +%T)]" >>"$log"
for be in cuda gl; do
  echo "=== tables $be [$(date +%T)]" >>"$log"
  timeout 100 $b/bin/gpublur bench -b $be --method copy,box,integral,iir,iir:impl=deriche,fft --sigma 3,12,48,100,200 \
    --size 1024,4096 --channels 4 --repeat 11 2>&1 | grep -E "x(1024|4096) " | sed "s/^/$be: /" >>"$log"
done
echo "=== end [$(date +%T)]" >>"$log"
grep -E "^===|L2 fetch|PASSED|FAILED|Failure" "$log" | tail -30
