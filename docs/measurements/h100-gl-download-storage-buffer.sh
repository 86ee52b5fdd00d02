#!/usr/bin/env bash
# Session 100: as c433, the download with a buffer of its own (the uploads had slowed sharing one); no matrix.
# glGetTextureImage (a temporary knob, GPUBLUR_TEMP_DRIVER_DOWNLOAD, not landed), in steady state: blur of five 4096^2
# float EXRs each with -m copy, the report's per-image download stage. Then GL tests on NVIDIA's GL.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c434.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
for c in 1 3 4; do
  mkdir -p /tmp/c$c
  for i in 1 2 3 4 5; do python3 .device/tools/mkexr.py /tmp/c$c/i$i.exr 4096 4096 $c; done
done
for round in 1 2; do
  for mode in buffer driver; do
    if [ $mode = driver ]; then export GPUBLUR_TEMP_DRIVER_DOWNLOAD=1; else unset GPUBLUR_TEMP_DRIVER_DOWNLOAD; fi
    for c in 1 3 4; do
      rm -rf /tmp/o; $B blur /tmp/c$c -o /tmp/o -b gl -m copy --report /tmp/r.json -q
      python3 -c "import json; r=json.load(open('/tmp/r.json')); print('round $round $mode channels $c download_ms', ' '.join('%.1f' % i['timings_ms']['download'] for i in r['images']), ' upload_ms', ' '.join('%.1f' % i['timings_ms']['upload'] for i in r['images']))" >>"$log" 2>&1
    done
  done
done
unset GPUBLUR_TEMP_DRIVER_DOWNLOAD
step $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlFft*:GlBackend*:GlPacked*:GlMethods*:GlTiming*'
cat "$log" | grep -E "round|^===|PASSED|FAILED"
