# Not run: session 96's GPU check for its bilateral change (no GPU machine was lent after call 417). Copy to
# .device/scripts/ and run with carry [bundle.tar.xz, .gl, .device] after scripts/bundle.sh and scripts/fetch_gl_debs.sh.
#!/usr/bin/env bash
# Session 96's GPU call: this session's bilateral change (Pass::alpha; CUDA's colour mask) and the rest of HEAD on the
# device: test_e2e (cuda + gl; the new BilateralLeavesOutTheImagesAlphaNotItsLastChannel), test_cuda, the registry
# matrix's bilateral cases at full size, memcheck on CUDA bilateral, a CUDA bilateral bench (the colour mask
# is a kernel argument now); one log under $OUT.
set -u
root=$PWD
tar -xJf bundle.tar.xz
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
b=$root/bundle
export LD_LIBRARY_PATH=$b/lib GPUBLUR_TESTDATA=$b/testdata GPUBLUR_SOURCE_DIR=$b GPUBLUR_BIN=$b/bin/gpublur
export GPUBLUR_REQUIRE_GL=1 GPUBLUR_REQUIRE_CUDA=1 GPUBLUR_MATRIX_LARGE=1
log=$OUT/c418.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv >>"$log" 2>&1
step $b/bin/test_e2e --gtest_brief=1
step $b/bin/test_cuda --gtest_brief=1
step $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*bilateral*_cuda_*:*bilateral*_gl_*'
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
mkdir -p /tmp/in && $b/bin/gpublur_make_testdata /tmp/in >/dev/null 2>&1 || cp $b/testdata/*.exr /tmp/in/ 2>/dev/null
step $CS --tool memcheck --error-exitcode 9 $b/bin/gpublur blur $b/testdata -o /tmp/o1 -q --overwrite -b cuda -m bilateral --sigma 2 --sigma-range 0.05 --border mirror
for c in 2 4; do step $b/bin/gpublur bench --backend cuda --method copy,bilateral,bilateral:impl=separable --sigma 3 --size 1024 --channels $c --repeat 11; done
tail -c 6000 "$log"
