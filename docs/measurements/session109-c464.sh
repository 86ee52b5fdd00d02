#!/usr/bin/env bash
# Session 109, call 464: session 108's owed GL staging check (session108-c464.sh: the product's GlStagingTest must
# pass, the two mutants from session108-c464-prep.sh must fail WaitsForTheGpuBehindASlowDispatch, then the GL suites
# that transfer through the staging), and a probe of CUDA box at sigma 200 for wave quantization: 4096 wide RGBA
# runs 1024 walk strips (3.88 waves at two blocks an SM on 132 SMs) and 4096 rows (15.5 waves); 4224 wide (1056
# strips, 4.0 waves) and 4224 tall (16.0 waves) cost per pixel the same if the waves' tails cost nothing.
# Carry bundle.tar.xz, .gl and .device.
set -u
bash docs/measurements/session108-c464.sh
cp $OUT/c464.txt $OUT/c464-staging.txt
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c464-waves.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
for round in 1 2; do
  echo "=== round $round [$(date +%T)]" >>"$log"
  timeout 200 $b/bin/gpublur bench -b cuda --method copy,box --sigma 200 \
    --size 4096,4224x4096,4096x4224 --channels 4 --repeat 11 2>&1 |
    grep -E "^(copy|box)" | sed "s/^/r$round: /" >>"$log"
done
echo "=== pass times [$(date +%T)]" >>"$log"
GPUBLUR_PASS_TIMES=1 timeout 120 $b/bin/gpublur bench -b cuda --method box --sigma 200 \
  --size 4096,4224x4096,4096x4224 --channels 4 --repeat 11 >>"$log" 2>$OUT/c464-passes.txt
echo "=== rc=$?" >>"$log"
grep -E "^===|r[12]:" "$log" | tail -40
