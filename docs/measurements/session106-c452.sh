#!/usr/bin/env bash
# Session 106, call 452 (session 105's owed GPU check, and this session's CUDA changes; lean: the device budget's last
# minutes): compute-sanitizer racecheck on CUDA's packed tests (killed by its 100 s limit in call 451); test_cuda's
# conv2d tests and large matrices' sums (CUDA conv2d-matrix's global path sums each row apart); the e2e tests of
# bilateral and non-finite inputs (bilateral's weight floor) on cpu, gl and cuda. The 4K PNG folder's download times
# are left out (predicted unchanged). Call 453 runs test_gl whole on NVIDIA's GL. Its .device/scripts/ held
# docs/measurements/session106/'s exr.py, cmp2.py (an uncompressed EXR's max abs difference) and s3.exr.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c452.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 200 $CS --tool racecheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Packed*'
step timeout 120 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Conv2d*:*Matrix*'
step timeout 120 $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*WithoutAFootprint*:*Bilateral*'
# Large matrices' float sums (session 106: GL sums blocks of kernel rows apart, CUDA's global path each row): a
# normalised n x n matrix of 0.5 with a centre of 1 on a 3 x 3 wrapped image, cuda and gl against cpu (max abs).
d=$PWD/.device/scripts
for n in 501 1001; do
  python3 -c "
n=$n
with open('/tmp/k$n.txt','w') as f:
  for y in range(n): f.write(' '.join('1' if (x==n//2 and y==n//2) else '0.5' for x in range(n))+'\n')"
  for be in cpu cuda gl; do
    rm -rf /tmp/ok_$be
    timeout 120 $b/bin/gpublur -q blur $d/s3.exr -o /tmp/ok_$be -b $be -m kernel --kernel /tmp/k$n.txt --normalize \
      --border wrap >>"$log" 2>&1
  done
  for be in cuda gl; do
    echo "matrix $n $be vs cpu: $(cd $d && python3 cmp2.py /tmp/ok_cpu/s3.exr /tmp/ok_$be/s3.exr)" >>"$log" 2>&1
  done
done
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|ERROR SUMMARY|RACECHECK SUMMARY|^matrix|NVIDIA" "$log" | tail -40
