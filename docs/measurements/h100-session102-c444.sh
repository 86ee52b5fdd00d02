#!/usr/bin/env bash
# Session 102, first call: (1) the CUDA tall-grid change (c0ce3ac, tall_grid / grid_row in every tiled kernel) timed
# against the binary before it (5dd2e4e), alternated old / new / old / new, CUDA RGBA 4096^2 and 1024^2, the methods
# whose kernels it touched; (2) the new fft_kernel_spectrum (c20e7a0) on the GPUs: test_cuda's fft tests, GL's fft and
# conv schedule tests, the matrix's fft and gauss-sep cases on cuda and gl (CI size); GlBackend.DrawLimits on NVIDIA.
set -u
tar -xJf bundle.tar.xz
xz -dc .device/old/gpublur-5dd2e4e.xz >old-gpublur && chmod +x old-gpublur
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c444.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv >>"$log" 2>&1
NEW=$b/bin/gpublur
OLD=$PWD/old-gpublur
A="--method copy,gauss-sep,gauss-linear,gauss-2d --sigma 3,12,48 --size 1024,4096 --channels 4 --repeat 11"
B="--method copy,kawase,reshuffle,pyramid,bilateral,box:impl=2d --sigma 3,12 --size 1024,4096 --channels 4 --repeat 11"
for round in 1 2; do
  step $OLD bench -b cuda $A --json $OUT/c444_old_a$round.json
  step $NEW bench -b cuda $A --json $OUT/c444_new_a$round.json
  step $OLD bench -b cuda $B --json $OUT/c444_old_b$round.json
  step $NEW bench -b cuda $B --json $OUT/c444_new_b$round.json
done
export GPUBLUR_MATRIX_LARGE=
step timeout 120 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Fft*:*fft*'
step timeout 120 $b/bin/test_gl --gtest_filter='GlFft*:GlConvSchedules*:GlBackend.DrawLimits'
step timeout 200 $b/bin/test_method_matrix --gtest_brief=1 \
  --gtest_filter='*fft_cuda*:*fft_gl*:*gauss_sep*_cuda_*:*gauss_sep*_gl_*'
grep -E "^===|PASSED|FAILED|Failure|limits" "$log" | tail -40
python3 - "$OUT" <<'PY'
import json, sys, glob, collections
out = sys.argv[1]
t = collections.defaultdict(list)
for f in sorted(glob.glob(out + "/c444_*.json")):
    which = f.split("_")[1]
    for c in json.load(open(f))["cases"]:
        p = c["params"]
        key = (c["method"] + (":" + p["impl"] if "impl" in p else ""), float(p.get("sigma", 0)), c["width"])
        t[key].append((which, c["median_ms"]))
for k, v in sorted(t.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
    old = [m for w, m in v if w == "old"]; new = [m for w, m in v if w == "new"]
    print("%-24s s%-5g %5d  old %s  new %s  new/old %.3f" % (k[0], k[1], k[2], " ".join("%.4f" % m for m in old),
          " ".join("%.4f" % m for m in new), min(new) / min(old) if old and new else 0))
PY
