#!/usr/bin/env bash
# Session 97, call 420: bilateral's usual colour mask compiled in (gpu/cuda/passes/bilateral.cu) against call 419's
# binary (mask a kernel argument), interleaved A/B; its tests and memcheck on the unusual-mask path. One log.
set -u
root=$PWD
tar -xJf bundle.tar.xz
xz -dc .device/gpublur-c419.xz > /tmp/gpublur-c419 && chmod +x /tmp/gpublur-c419
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
b=$root/bundle
export LD_LIBRARY_PATH=$b/lib GPUBLUR_TESTDATA=$b/testdata GPUBLUR_SOURCE_DIR=$b GPUBLUR_BIN=$b/bin/gpublur
export GPUBLUR_REQUIRE_GL=1 GPUBLUR_REQUIRE_CUDA=1 GPUBLUR_MATRIX_LARGE=1
log=$OUT/c420.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv >>"$log" 2>&1
for round in 1 2; do
  for bin in /tmp/gpublur-c419 $b/bin/gpublur; do
    for c in 1 2 3 4; do
      step $bin bench --backend cuda --method copy,bilateral,bilateral:impl=separable --sigma 3,12 --size 1024 --channels $c --repeat 11
    done
    step $bin bench --backend cuda --method copy,bilateral,bilateral:impl=separable --sigma 3 --size 4096 --channels 4 --repeat 5
  done
done
step $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*Bilateral*'
step $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*bilateral*_cuda_*'
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step $CS --tool memcheck --error-exitcode 9 $b/bin/gpublur blur $b/testdata -o /tmp/o1 -q --overwrite -b cuda -m bilateral --sigma 2 --sigma-range 0.05 --border mirror
step $CS --tool memcheck --error-exitcode 9 $b/bin/test_e2e --gtest_brief=1 --gtest_filter="*Bilateral*"
tail -c 3000 "$log"
