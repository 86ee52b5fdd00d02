# Not run: session 97's GPU check of its CPU-side changes on the GPU machine (three starts failed after call 420).
# Copy to .device/scripts/ and run with carry [bundle.tar.xz, .gl, .device] after scripts/bundle.sh and scripts/fetch_gl_debs.sh.
#!/usr/bin/env bash
# Session 97, call 421: HEAD's GPU check for this session's changes: test_e2e whole (the new report, interrupt,
# quality and bilateral-alpha tests with NVIDIA's GL and CUDA), the matrix's bilateral cases on cuda and gl at full
# size (alpha per channel group), test_quality, quality on GL rgba16f judged on the cpu backend, memcheck on a
# layered-EXR CUDA bilateral. One log.
set -u
root=$PWD
tar -xJf bundle.tar.xz
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
b=$root/bundle
export LD_LIBRARY_PATH=$b/lib GPUBLUR_TESTDATA=$b/testdata GPUBLUR_SOURCE_DIR=$b GPUBLUR_BIN=$b/bin/gpublur
export GPUBLUR_REQUIRE_GL=1 GPUBLUR_REQUIRE_CUDA=1 GPUBLUR_MATRIX_LARGE=1
log=$OUT/c421.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
step $b/bin/test_e2e --gtest_brief=1
step $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*bilateral*_cuda_*:*bilateral*_gl_*'
# (test_quality: CPU tests, run by CI)
step $b/bin/gpublur quality -b gl --gl-storage rgba16f -m gauss-sep --sigma 3 $b/testdata/landscape_rgb8.png --no-impulse
step $b/bin/gpublur quality -b gl -m gauss-sep --sigma 3 $b/testdata/landscape_rgb8.png --no-impulse
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step $CS --tool memcheck --error-exitcode 9 $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*Bilateral*'
grep -E "^===|PASSED|FAILED|SKIPPED|Failure" "$log" | tail -40
