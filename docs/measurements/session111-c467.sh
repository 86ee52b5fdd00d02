#!/usr/bin/env bash
# Session 111, call 467: cp.async L2 prefetch size for the box walk / column strips, and the L2 fetch granularity
# (experiment binary: session111-c467-cp-prefetch.patch on 0006662^^^, bundle.sh; carry .device with exp.tar.xz).
set -u
tar -xJf .device/exp.tar.xz
. exp/gpu_env.sh
b=$here
log=$OUT/c467.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
run() {  # label, env...
  local label=$1; shift
  env "$@" timeout 120 $b/bin/gpublur bench -b cuda --method copy,box,integral --sigma 3,12,48,100,200 \
    --size 4096 --channels 4 --repeat 11 2>&1 | grep -E "^(copy|box|integral) " | sed "s/^/$label: /" >>"$log"
}
for round in 1 2; do
  echo "=== round $round [$(date +%T)]" >>"$log"
  for pf in 0 64 128 256; do run "r$round pf$pf" GPUBLUR_CUDA_CP_PREFETCH=$pf; done
  run "r$round fetch128" GPUBLUR_CUDA_L2_FETCH=128
  run "r$round fetch32" GPUBLUR_CUDA_L2_FETCH=32
done
echo "=== pass times [$(date +%T)]" >>"$log"
for pf in 0 256; do
  GPUBLUR_CUDA_CP_PREFETCH=$pf GPUBLUR_PASS_TIMES=1 timeout 120 $b/bin/gpublur bench -b cuda --method box,integral \
    --sigma 48,200 --size 4096 --channels 4 --repeat 11 >/dev/null 2>$OUT/c467-passes-pf$pf.txt
done
echo "=== 1024 [$(date +%T)]" >>"$log"
for pf in 0 256 0 256; do
  GPUBLUR_CUDA_CP_PREFETCH=$pf timeout 120 $b/bin/gpublur bench -b cuda --method copy,box,integral --sigma 3,48,200 \
    --size 1024,2048 --channels 4 --repeat 11 2>&1 | grep -E "^(copy|box|integral) " | sed "s/^/pf$pf: /" >>"$log"
done
echo "=== end [$(date +%T)]" >>"$log"
cat "$log" | awk '{print}' | tail -150
