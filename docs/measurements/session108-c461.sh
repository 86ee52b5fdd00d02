#!/usr/bin/env bash
# Session 108, call 461: GL's transfers through pinned staging (gl_staging.hpp) against the driver's
# glNamedBufferSubData / glGetNamedBufferSubData (GPUBLUR_GL_STAGING=0), one binary, alternated, two rounds, CUDA
# beside them: a folder of 32 4K RGB8 PNGs (the 8-bit path) and one of six 4096^2 RGBA half EXRs (the float path);
# then GlStaging's, the backend's and the packed tests on NVIDIA's GL.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c461.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
mkdir -p /tmp/png /tmp/exr
timeout 200 $b/bin/gpublur_make_bench_images /tmp/png 32 0 3840 2160 6 >>"$log" 2>&1
timeout 100 $b/bin/gpublur_make_bench_images /tmp/exr 0 6 4096 4096 6 >>"$log" 2>&1
run() {  # label VAR=value input args...
  local label=$1 e=$2 in=$3; shift 3
  rm -rf /tmp/op /tmp/rp.json
  timeout 120 env "$e" $b/bin/gpublur -q blur $in -o /tmp/op --sigma 8 --report /tmp/rp.json "$@" 2>>"$log"
  python3 -c "
import json, statistics as st; r=json.load(open('/tmp/rp.json')); s=r['summary']
d=[i['timings_ms']['download'] for i in r['images']]; u=[i['timings_ms']['upload'] for i in r['images']]
print('$label: %.2f images/s, download median %.2f total %.0f, upload median %.2f total %.0f;' % (s['images_per_second'],
      st.median(d), sum(d), st.median(u), sum(u)), 'stages', {k: round(v) for k, v in s['stage_totals_ms'].items()})" >>"$log" 2>&1
}
run warmup-gl A=1 /tmp/png -b gl
for round in 1 2; do
  run "r$round png gl staging" A=1 /tmp/png -b gl
  run "r$round png gl driver" GPUBLUR_GL_STAGING=0 /tmp/png -b gl
  run "r$round png cuda" A=1 /tmp/png -b cuda
  run "r$round exr gl staging" A=1 /tmp/exr -b gl
  run "r$round exr gl driver" GPUBLUR_GL_STAGING=0 /tmp/exr -b gl
  run "r$round exr cuda" A=1 /tmp/exr -b cuda
done
echo "=== tests [$(date +%T)]" >>"$log"
timeout 150 $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlStaging*:GlBackend*:GlPacked*:GlPadded*:GlMethods*' >>"$log" 2>&1
echo "=== rc=$?" >>"$log"
timeout 120 $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*Gl*:*gl*:*Packed*:*Png*' >>"$log" 2>&1
echo "=== e2e rc=$?" >>"$log"
grep -E "images/s|NVIDIA|rror|^===|PASSED|FAILED|SKIPPED" "$log" | tail -40
