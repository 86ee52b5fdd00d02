#!/usr/bin/env bash
# Session 100: this session's GL change on NVIDIA's GL (a three-channel image's fourth texel channel set to 0 after the
# float upload, unpack8 writing 0): the GL fft / backend / packed / methods tests, the matrix's GL cases at CI size, and
# GL copy / fft on RGB against RGBA 4096^2 (the upload's extra pass is outside the timed program).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c428.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
step $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlFft*:GlBackend*:GlPacked*:GlMethods*'
step timeout 240 $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*_gl_*'
step $B bench -b gl -m copy,fft,gauss-sep --sigma 3,48 --size 4096 --channels 3,4 --repeat 5 --json /tmp/c428.json
python3 -c "import json; [print(c['method'], c['channels'], c['sigma'], 'upload_ms', c['upload_ms'], 'median_ms', c['median_ms']) for c in json.load(open('/tmp/c428.json'))['cases']]" >>"$log" 2>&1
grep -E "^===|PASSED|FAILED|SKIPPED|Failure" "$log" | tail -30
