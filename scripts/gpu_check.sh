#!/usr/bin/env bash
# The one-call GPU check, run from the bundle on the GPU machine (it builds nothing):
#   1. every test binary in the bundle (CUDA and GL tests run for real there),
#   2. compute-sanitizer memcheck and racecheck over the CUDA tests,
#   3. bench tables: 4096x4096 and 1024x1024 RGBA float32, sigma 3, 12, 48, every CUDA and GL method.
# Logs go under $OUT (or ./gpu-check-out). Exit status non-zero on any failure.
# GL there: pass GPUBLUR_GL_DEBS=DIR with the glvnd .debs (scripts/fetch_gl_debs.sh) to unpack the loader.
set -u
here=$(dirname "$(readlink -f "$0")")
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUBLUR_TESTDATA="$here/testdata"
export GPUBLUR_REQUIRE_GL=1  # on the GPU machine a missing EGL display is a failure, not a skip
if [[ -n ${GPUBLUR_GL_DEBS:-} ]]; then
  for f in "$GPUBLUR_GL_DEBS"/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[[ -f $vendor ]] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor

failed=()
# step NAME LOG CMD...: runs CMD, appends its output to LOG, records a failure by name.
step() {
  local name=$1 log=$2
  shift 2
  echo "=== $name: $*" >>"$log"
  local t0=$SECONDS
  "$@" >>"$log" 2>&1
  local rc=$?
  echo "=== $name: rc=$rc ($((SECONDS - t0)) s)" | tee -a "$log"
  ((rc == 0)) || failed+=("$name")
}

nvidia-smi >"$out/nvidia-smi.txt" 2>&1
for t in "$here"/bin/test_*; do
  step "$(basename "$t")" "$out/tests.log" "$t" --gtest_brief=1
done

if command -v compute-sanitizer >/dev/null && [[ -x $here/bin/test_cuda ]]; then
  filter=${GPUBLUR_SANITIZER_FILTER:-*}
  for tool in memcheck racecheck; do
    step "sanitizer-$tool" "$out/sanitizer.log" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$here/bin/test_cuda" --gtest_brief=1 "--gtest_filter=$filter"
  done
else
  echo "=== compute-sanitizer or test_cuda missing" | tee -a "$out/sanitizer.log"
  failed+=("sanitizer-missing")
fi

for backend in cuda gl; do
  step "bench-$backend" "$out/bench.txt" "$here/bin/gpublur" bench --backend "$backend" --method all \
    --sigma 3,12,48 --size 1024,4096 --channels 4 --json "$out/bench_$backend.json"
done
cat "$out/bench.txt"

if ((${#failed[@]})); then
  echo "GPU CHECK FAILED: ${failed[*]}"
  exit 1
fi
echo "GPU CHECK PASSED"
