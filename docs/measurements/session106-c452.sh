#!/usr/bin/env bash
# Session 106, call 452 (session 105's owed GPU checks, HEAD 4f25090's bundle): compute-sanitizer racecheck on CUDA's
# packed tests (killed by its 100 s limit in call 451), then a folder of 8 4K RGB8 PNGs through CUDA's 8-bit path,
# packed and not, two rounds (report download ms); call 453 runs test_gl whole on NVIDIA's GL.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c452.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 400 $CS --tool racecheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Packed*'
mkdir -p /tmp/png
step timeout 120 $b/bin/gpublur_make_bench_images /tmp/png 8 0 3840 2160 6
for round in 1 2; do
  for packed in 1 0; do
    rm -rf /tmp/op
    GPUBLUR_PACKED_IO=$packed timeout 120 $b/bin/gpublur -q blur /tmp/png -o /tmp/op -b cuda --sigma 8 \
      --report /tmp/rp.json 2>>"$log"
    python3 -c "
import json; r=json.load(open('/tmp/rp.json'))
d=[round(i['timings_ms']['download'],2) for i in r['images']]
print('round $round packed $packed download ms', d, 'wall', round(r['summary']['wall_ms'],1))" >>"$log" 2>&1
  done
done
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|ERROR SUMMARY|RACECHECK SUMMARY|download ms|NVIDIA" "$log" | tail -40
