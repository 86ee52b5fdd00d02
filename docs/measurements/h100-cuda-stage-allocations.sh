#!/usr/bin/env bash
# Session 99, call 424: CUDA's upload and download spans now hold their allocations (buffers, pinned staging, the
# host image): the CUDA backend tests, test_e2e, and a blur's time outside every stage on CUDA (call 423: 3.9-5.2 ms).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c424.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
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
mkdir -p /tmp/stages
for run in first second; do
  $B blur $b/testdata/landscape_rgb8.png -o /tmp/stages/cuda_$run -b cuda -m iir --sigma 3 \
    --report /tmp/stages/cuda_$run.json 2>>"$log"
  gap /tmp/stages/cuda_$run.json
  $B blur $b/testdata/landscape_rgb8.png -o /tmp/stages/cudaf_$run -b cuda -m iir --sigma 3 --format exr \
    --report /tmp/stages/cudaf_$run.json 2>>"$log"
  gap /tmp/stages/cudaf_$run.json
done
step $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaBackend*:*Packed*:*Upload*:*Download*'
step $b/bin/test_e2e --gtest_brief=1
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|in no stage" "$log" | tail -30
