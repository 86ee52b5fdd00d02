#!/usr/bin/env bash
# Session 99, the last GPU call: HEAD's GPU tests (test_cuda, test_e2e, the GL backend's timing tests, the matrix at CI
# size), bench's channel lists on GL and CUDA, and the report's stages on NVIDIA's GL and CUDA: a blur's time outside
# every stage with a cold and a warm GL shader cache (the backend's preparation now counts in compute).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c423.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
# The report's stages: wall - max(backend_init, read) - upload - compute - download - write, per run.
gap() {
  python3 - "$1" <<'PY' >>"$log" 2>&1
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]; i = r["images"][0]["timings_ms"]
init = s.get("startup_ms", {}).get("backend_init", 0)
gap = s["wall_ms"] - max(init, i["read"]) - i["upload"] - i["compute"] - i["download"] - i["write"]
print("%s %s: wall %.1f = max(backend_init %.1f, read %.1f) + upload %.2f + compute %.1f + download %.2f + write %.1f"
      " + in no stage %.1f ms" % (r["backend"]["name"], sys.argv[1].split("/")[-1], s["wall_ms"], init, i["read"],
                                  i["upload"], i["compute"], i["download"], i["write"], gap))
PY
}
mkdir -p /tmp/stages/cache
for run in cold warm warm2; do
  XDG_CACHE_HOME=/tmp/stages/cache $B blur $b/testdata/landscape_rgb8.png -o /tmp/stages/gl_$run -b gl -m iir \
    --sigma 3 --report /tmp/stages/gl_$run.json 2>>"$log"
  gap /tmp/stages/gl_$run.json
done
for run in first second; do
  $B blur $b/testdata/landscape_rgb8.png -o /tmp/stages/cuda_$run -b cuda -m iir --sigma 3 \
    --report /tmp/stages/cuda_$run.json 2>>"$log"
  gap /tmp/stages/cuda_$run.json
done
step $b/bin/test_e2e --gtest_brief=1
step $b/bin/test_cuda --gtest_brief=1
step $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlBackend*:GlTiming*:GlReshuffle*'
step $B bench -b gl -m copy,box --sigma 3 --size 4096 --channels 1,4 --repeat 5
step $B bench -b cuda -m copy,box --sigma 3 --size 4096 --channels 1,4 --repeat 5
step timeout 200 $b/bin/test_method_matrix --gtest_brief=1
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|in no stage" "$log" | tail -40
