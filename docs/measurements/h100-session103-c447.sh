#!/usr/bin/env bash
# Session 103, first call: HEAD's GPU tests after this session's changes (downloads into the host image's own
# buffer on CUDA and GL; bench / quality / downsample / SIGPIPE fixes in the CLI): test_cuda whole, test_gl's backend,
# packed and methods suites on NVIDIA's GL, test_e2e; then the download stage old (the binary before 01d6dae) against
# new, alternated, on five 4096^2 float RGBA EXRs (blur -m copy, CUDA and GL, the report's per-image download ms).
set -u
tar -xJf bundle.tar.xz
xz -dc .device/old/gpublur.xz >old-gpublur && chmod +x old-gpublur
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c447.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
nproc >>"$log"
export GPUBLUR_MATRIX_LARGE=
step timeout 240 $b/bin/test_cuda --gtest_brief=1
step timeout 120 $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlBackend*:GlPacked*:GlMethods*'
step timeout 120 $b/bin/test_e2e --gtest_brief=1
mkdir -p /tmp/big
for i in 1 2 3 4 5; do python3 docs/measurements/mkexr.py /tmp/big/b$i.exr 4096 4096 4; done
for round in 1 2; do
  for bin in $PWD/old-gpublur $b/bin/gpublur; do
    for be in cuda gl; do
      rm -rf /tmp/ob
      timeout 120 $bin -q blur /tmp/big -o /tmp/ob -b $be -m copy --exr-compression none --io-threads 2 \
        --report /tmp/rb.json 2>>"$log"
      python3 -c "
import json,sys; r=json.load(open('/tmp/rb.json'))
d=[round(i['timings_ms']['download'],1) for i in r['images']]
print('$round ${bin##*/} $be download ms', d, 'wall', round(r['summary']['wall_ms'],1))" >>"$log" 2>&1
    done
  done
done
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|download ms|^[0-9]+$|NVIDIA" "$log" | tail -40
