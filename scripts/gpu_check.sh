#!/usr/bin/env bash
# The one-call GPU check, run from the bundle on the GPU machine (it builds nothing):
#   1. every test binary in the bundle (CUDA and GL tests run for real there),
#   2. compute-sanitizer memcheck, racecheck, initcheck and synccheck over the CUDA tests,
#   3. bench tables: 4096x4096 and 1024x1024 RGBA float32, sigma 3, 12, 48, every CUDA and GL method.
# Logs go under $OUT (or ./gpu-check-out). Exit status non-zero on any failure.
# GL there: pass GPUBLUR_GL_DEBS=DIR with the glvnd .debs (scripts/fetch_gl_debs.sh) to unpack the loader.
# GPUBLUR_CHECK_PARTS (default tests,matrix,sanitizer,variants,bench,bench2; also folder, cold, passes, profile, cpu-tests)
# runs a subset, so the
# check fits calls of limited length.
set -u
parts=",${GPUBLUR_CHECK_PARTS:-tests,matrix,sanitizer,variants,bench,bench2},"
want() { [[ $parts == *",$1,"* ]]; }
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out"
. "$(dirname "$(readlink -f "$0")")/gpu_env.sh"  # sets `here`, the bundle's folder

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

nvidia-smi >>"$out/tests.log" 2>&1
# The registry-driven matrix (every method x backend x border x channels at 1023x517) is a part of its own:
# with issue 9 and 11's methods it no longer fits one call beside the other test binaries.
for t in "$here"/bin/test_*; do
  part=tests
  [[ $(basename "$t") == test_method_matrix ]] && part=matrix
  # test_core and test_cli_core need no GPU (CI runs them): 155 s of device time saved (part cpu-tests).
  [[ $(basename "$t") == test_core || $(basename "$t") == test_cli_core ]] && part=cpu-tests
  want $part && step "$(basename "$t")" "$out/tests.log" "$t" --gtest_brief=1
done

if ! want sanitizer; then
  :
elif command -v compute-sanitizer >/dev/null && [[ -x $here/bin/test_cuda ]]; then
  # Small images and sigma <= 12 keep the instrumented runs to minutes; the out-of-memory test is left out
  # because its deliberate cudaMalloc failure counts as an API error under the sanitizer.
  filter=${GPUBLUR_SANITIZER_FILTER:--*OutOfMemory*:CudaBoxEmulated.*:CudaIntegralEmulated.*:CudaIirEmulated*:CudaFftEmulated*}
  # racecheck over all of test_cuda ran past 270 s on an H100 (memcheck: 54 s), so it is bounded per binary; the
  # registry-driven matrix's CUDA cases (every method's kernels, CI size 203x117) go under both tools too:
  # memcheck all 1776 in 7 s, racecheck the RGBA ones (148) in 36 s.
  # initcheck (reads of device memory nothing wrote) and synccheck (barriers) since 2026-12-01: on an H200 test_cuda
  # took 82 and 51 s under them, the matrix's CUDA cases 9 s each
  # (docs/measurements/h200-sanitizer-initcheck-synccheck.txt).
  for tool in memcheck racecheck initcheck synccheck; do
    step "sanitizer-$tool" "$out/sanitizer.log" env GPUBLUR_CUDA_TEST_SMALL=1 GPUBLUR_CUDA_TEST_MAX_SIGMA=12 \
      timeout "${GPUBLUR_SANITIZER_TIMEOUT:-400}" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$here/bin/test_cuda" --gtest_brief=1 "--gtest_filter=$filter"
  done
  for tool in memcheck initcheck synccheck; do
    step "sanitizer-$tool-matrix" "$out/sanitizer.log" env GPUBLUR_MATRIX_LARGE= compute-sanitizer --tool "$tool" \
      --error-exitcode 1 "$here/bin/test_method_matrix" --gtest_brief=1 "--gtest_filter=*_cuda_*"
  done
  step "sanitizer-racecheck-matrix" "$out/sanitizer.log" env GPUBLUR_MATRIX_LARGE= compute-sanitizer \
    --tool racecheck --error-exitcode 1 "$here/bin/test_method_matrix" --gtest_brief=1 \
    "--gtest_filter=*_cuda_*c4_203x117*"
else
  echo "=== compute-sanitizer or test_cuda missing" | tee -a "$out/sanitizer.log"
  failed+=("sanitizer-missing")
fi

# Every CUDA gauss-sep kernel variant and every box schedule (not only the defaults the tests run) against the
# CPU reference; then the box schedules timed beside the copy kernel at sigma 3, 12, 48, 200 (4096^2 RGBA).
if want variants && [[ -x $here/bin/cuda_kernel_timing ]]; then
  step "cuda-variants" "$out/tests.log" "$here/bin/cuda_kernel_timing" 256 4 3 check,box-check
  step "cuda-box-timing" "$out/bench.txt" "$here/bin/cuda_kernel_timing" 4096 4 20 box
fi

# bench NAME ARGS...: one table into bench.txt, its JSON as NAME.json into bench_json.tar (the device tool
# returns few files). 10 timed runs per case: gauss-2d at sigma 48 takes seconds a run.
json_dir=$(mktemp -d)
bench() {
  want "${BENCH_PART:-bench}" || return 0
  local name=$1
  shift
  step "bench-$name" "$out/bench.txt" "$here/bin/gpublur" bench --sigma "${SIGMAS:-3,12,48}" --size 1024,4096 \
    --channels 4 --repeat 10 --json "$json_dir/$name.json" "$@"
}
bench cuda --backend cuda --method all
bench gl --backend gl --method all
# Box: every impl at sigma 3..200 (the separable target: <= 2.5x copy, flat in sigma); the direct 2D box only
# where its w^2 reads per pixel take seconds, not hours.
SIGMAS=3,12,48,200 bench cuda_box --backend cuda --method box,box:impl=moving-average,box:impl=sat
SIGMAS=3,12,48,200 bench gl_box --backend gl --method box,box:impl=moving-average,box:impl=sat
SIGMAS=3,12 bench box_2d_cuda --backend cuda --method box:impl=2d
SIGMAS=3,12 bench box_2d_gl --backend gl --method box:impl=2d
# The variants the defaults leave out: GL's fragment-shader gauss-sep, and gauss-linear with exact interpolation.
bench gl_fragment --backend gl --method gauss-sep --param impl=fragment
bench cuda_linear_exact --backend cuda --method gauss-linear --param interp=exact
bench gl_linear_exact --backend gl --method gauss-linear --param interp=exact
# GL variants beside the defaults (env knobs of gpu/gl/gl_tuning.cpp): the fused small-radius gauss-sep shader,
# 8 outputs per invocation for gauss-2d and for gauss-sep (with NVIDIA's unroll pragma).
GPUBLUR_GL_FUSED_MAX_RADIUS=9 bench gl_fused --backend gl --method gauss-sep
GPUBLUR_GL_2D_PER=8 bench gl_2d_per8 --backend gl --method gauss-2d
GPUBLUR_GL_SEP_PER=8 GPUBLUR_GL_UNROLL=1 bench gl_sep_per8 --backend gl --method gauss-sep
# Part bench2 (a call of its own): the methods of issues 9 and 11.
# Constant-time methods at sigma 3..200 (issue 9: <= 3x copy, flat in sigma, GL within 1.5x of CUDA).
BENCH_PART=bench2 SIGMAS=3,12,48,100,200 bench cuda_const --backend cuda \
  --method integral,integral:passes=4,box,iir,iir:impl=deriche,fft,gauss-sep
BENCH_PART=bench2 SIGMAS=3,12,48,100,200 bench gl_const --backend gl \
  --method integral,integral:passes=4,box,iir,iir:impl=deriche,fft
BENCH_PART=bench2 SIGMAS=400 bench cuda_sigma400 --backend cuda --method fft,gauss-sep,iir,integral
BENCH_PART=bench2 SIGMAS=200,400,512 bench cuda_box_large --backend cuda --method box,integral,integral:passes=4
# iir with the wrap border (two extra sweeps per line for the periodic start state).
BENCH_PART=bench2 SIGMAS=12,200 bench cuda_iir_wrap --backend cuda --method iir --border wrap
# gauss-sep handing over to fft from a radius (off by default until this crossover is measured).
BENCH_PART=bench2 GPUBLUR_SEP_FFT_MIN_RADIUS=1 SIGMAS=48,100,200,400 bench cuda_sep_fft --backend cuda \
  --method gauss-sep
# GL's gauss-sep -> fft crossover (the default hand-over at radius 301 was measured on CUDA only).
BENCH_PART=bench2 GPUBLUR_SEP_FFT_MIN_RADIUS=100000 SIGMAS=100,200,400 bench gl_sep_large --backend gl \
  --method gauss-sep,fft
# bilateral: brute force and the separable approximation (compute-bound: an exp per tap).
BENCH_PART=bench2 SIGMAS=3,12 bench cuda_bilateral --backend cuda --method bilateral,bilateral:impl=separable
BENCH_PART=bench2 SIGMAS=3,12 bench gl_bilateral --backend gl --method bilateral,bilateral:impl=separable
# kernel: a user kernel file (13 x 13, rank 1) on the separable path and forced onto the direct 2D matrix path
# (Op::Conv2dMatrix); sigma is not used by the method (one value).
kfile="$here/testdata/kernels/gauss_sigma2.txt"
BENCH_PART=bench2 SIGMAS=2 bench cuda_kernel --backend cuda --method "kernel:kernel=$kfile,kernel:kernel=$kfile:impl=2d"
BENCH_PART=bench2 SIGMAS=2 bench gl_kernel --backend gl --method "kernel:kernel=$kfile,kernel:kernel=$kfile:impl=2d"
# Diffusion: steps per CUDA launch 1 (ping-pong), 4 (default), 8, 16; the thesis's fixed iteration counts.
for s in 1 8 16; do
  BENCH_PART=bench2 GPUBLUR_CUDA_DIFFUSION_STEPS=$s SIGMAS=3,12 bench cuda_diffusion_s$s --backend cuda \
    --method diffusion
done
BENCH_PART=bench2 SIGMAS=3 bench cuda_diffusion_thesis --backend cuda \
  --method diffusion:iterations=10:rate=0.25,diffusion:iterations=50:rate=0.25,diffusion:iterations=200:rate=0.25
BENCH_PART=bench2 SIGMAS=3 bench gl_diffusion_thesis --backend gl \
  --method diffusion:iterations=10:rate=0.25,diffusion:iterations=50:rate=0.25,diffusion:iterations=200:rate=0.25
# reshuffle (issue 11 point 2) beside gauss-2d, the same kernel: sigma 3, 12, 48, and the thesis's filter widths
# 6 sigma (Figure 4.18: 1024^2, widths up to ~40: sigma 1, 2, 4, 6 here).
BENCH_PART=bench2 SIGMAS=3,12,48 bench cuda_reshuffle --backend cuda --method reshuffle,gauss-2d
BENCH_PART=bench2 SIGMAS=3,12,48 bench gl_reshuffle --backend gl --method reshuffle,gauss-2d
BENCH_PART=bench2 SIGMAS=1,2,4,6 bench cuda_reshuffle_thesis --backend cuda --method reshuffle,gauss-2d
BENCH_PART=bench2 SIGMAS=1,2,4,6 bench gl_reshuffle_thesis --backend gl --method reshuffle,gauss-2d
# kawase --impl dual and kawase (issue 10 points 3, 6: <= 2x copy at sigma 12 and 48, GL within 1.25x of CUDA);
# kawase runs at 1/F resolution by default (F from sigma), kawase:downsample=1 is the full-resolution program.
BENCH_PART=bench2 SIGMAS=3,12,48,100,200 bench cuda_dual --backend cuda --method kawase:impl=dual
BENCH_PART=bench2 SIGMAS=3,12,48,100,200 bench gl_dual --backend gl --method kawase:impl=dual
BENCH_PART=bench2 SIGMAS=12,48 bench cuda_kawase --backend cuda --method kawase,kawase:downsample=1,kawase:impl=dual:levels=2
# pyramid (issue 10: <= 1.6x copy at sigma 12, 48, 200; GL within 1.25x of CUDA), every analysis filter, and
# --downsample around gauss-sep and kawase.
BENCH_PART=bench2 SIGMAS=12,48,200 bench cuda_pyramid --backend cuda \
  --method pyramid,pyramid:down=box2,pyramid:down=box4,pyramid:down=mipmap
BENCH_PART=bench2 SIGMAS=12,48,200 bench gl_pyramid --backend gl \
  --method pyramid,pyramid:down=box2,pyramid:down=box4,pyramid:down=mipmap
BENCH_PART=bench2 SIGMAS=12,48 bench cuda_downsample --backend cuda \
  --method gauss-sep:downsample=2,gauss-sep:downsample=4,gauss-sep:downsample=8,kawase:downsample=4
BENCH_PART=bench2 SIGMAS=12,48 bench gl_downsample --backend gl \
  --method gauss-sep:downsample=2,gauss-sep:downsample=4,gauss-sep:downsample=8,kawase:downsample=4
# spread (issue 11 point 7: independent of R within 1.2x): sigma 3, 12, 48 and the thesis's radii 6..40.
BENCH_PART=bench2 SIGMAS=3,12,48 bench cuda_spread --backend cuda --method spread
BENCH_PART=bench2 SIGMAS=3,12,48 bench gl_spread --backend gl --method spread
BENCH_PART=bench2 SIGMAS=3 bench cuda_spread_thesis --backend cuda \
  --method spread:radius=6,spread:radius=10,spread:radius=20,spread:radius=30,spread:radius=40
# GL's resampling passes (issue 10 point 6: GL within 1.25x of CUDA; docs/performance.md "kawase --impl dual"):
# each pass's measured-best form; kawase at its default resolution and at full resolution (the sampler). CUDA's
# side: cuda_dual, cuda_pyramid, cuda_kawase.
BENCH_PART=bench2 SIGMAS=12,48 bench gl_resample --backend gl --method kawase:impl=dual,pyramid,pyramid:down=box2
BENCH_PART=bench2 SIGMAS=3,12,48 bench gl_kawase --backend gl --method kawase,kawase:downsample=1

# CUDA pyramid and --downsample: the fused schedules (two Down2 / Up2 passes per kernel, the long folded Down2 as
# rows then columns; the one-kernel-per-pass schedule measured slower and is gone: docs/performance.md).
BENCH_PART=bench2 SIGMAS=12,48,200 bench cuda_pyramid_fused --backend cuda \
  --method pyramid,pyramid:down=box2,gauss-sep:downsample=4
# iir (issue 9 point 5: <= 3x copy at every sigma, 4096^2 and 1024^2): the segment scan, both filters (the line
# kernel it replaced measured 1.8x slower: docs/measurements/h100-9f0bb27-bench-ab.txt); the wrap border.
BENCH_PART=bench2 SIGMAS=3,12,48,200 bench cuda_iir_scan --backend cuda --method iir,iir:impl=deriche
BENCH_PART=bench2 SIGMAS=12,200 bench cuda_iir_scan_wrap --backend cuda --method iir --border wrap
# Part passes: each pass's device time (GPUBLUR_PASS_TIMES=1, medians by pass_times.py) for the methods furthest
# from their targets, 4096^2 RGBA: where inside a program the time goes.
if want passes; then
  for spec in "cuda kawase:impl=dual 12" "gl kawase:impl=dual 12" "cuda pyramid 12" "cuda pyramid 48" \
    "gl pyramid 12" "gl pyramid 48" "cuda pyramid:down=box2 12" "cuda spread 3" "cuda spread 48" "gl spread 12" \
    "cuda fft 12" "gl fft 12" "cuda iir 12" "cuda integral 12" "cuda box 12" "gl box 48" "gl integral 48"; do
    read -r b m sg <<<"$spec"
    echo "=== $b $m sigma $sg" >>"$out/passes.txt"
    GPUBLUR_PASS_TIMES=1 "$here/bin/gpublur" bench --backend "$b" --method "$m" --sigma "$sg" --size 4096 \
      --channels 4 --repeat 10 2>/tmp/pass_times.log | grep -v "^method\|^backend" >>"$out/passes.txt"
    python3 "$here/pass_times.py" /tmp/pass_times.log >>"$out/passes.txt" 2>&1
  done
fi
# Part passes: GL pyramid box2 at sigma 48 (the defaults of dual and pyramid at sigma 12 are in the part above).
if want passes; then
  echo "=== gl pyramid:down=box2 sigma 48" >>"$out/passes.txt"
  GPUBLUR_PASS_TIMES=1 "$here/bin/gpublur" bench --backend gl --method pyramid:down=box2 --sigma 48 --size 4096 \
    --channels 4 --repeat 10 2>/tmp/pass_times.log | grep -v "^method\|^backend" >>"$out/passes.txt"
  python3 "$here/pass_times.py" /tmp/pass_times.log >>"$out/passes.txt" 2>&1
  # iir's passes (at 4096^2 RGBA the 2D tiles' kernels), sigma 12 and 200.
  for sg in 12 200; do
    echo "=== cuda iir sigma $sg" >>"$out/passes.txt"
    GPUBLUR_PASS_TIMES=1 "$here/bin/gpublur" bench --backend cuda --method iir --sigma "$sg" --size 4096 \
      --channels 4 --repeat 10 2>/tmp/pass_times.log | grep -v "^method\|^backend" >>"$out/passes.txt"
    python3 "$here/pass_times.py" /tmp/pass_times.log >>"$out/passes.txt" 2>&1
  done
fi

# Part profile: Nsight Compute on the kernels that sit furthest above their floor (issue 8 box, issue 9 integral,
# iir, fft; 4096^2 RGBA, one measured launch each): throughput, occupancy, warp stalls, memory, as text.
if want profile; then
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [[ -z $ncu ]]; then
    echo "=== ncu missing" | tee -a "$out/profile.txt"
    failed+=("ncu-missing")
  else
    for spec in "box 12 regex:box_" "integral 12 regex:box_" "iir 12 regex:iir1d|iir2d" "fft 12 regex:gather|multiply|scatter|fft" \
      "gauss-sep 48 regex:tc16|sep_"; do
      read -r m sg k <<<"$spec"
      step "ncu-$m" "$out/profile.txt" "$ncu" --clock-control none -k "$k" --launch-skip 4 --launch-count 3 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        --section MemoryWorkloadAnalysis "$here/bin/gpublur" bench --backend cuda --method "$m" --sigma "$sg" \
        --size 4096 --channels 4 --repeat 2
    done
  fi
fi

# Part folder (issue 12): the folder job with the GPU backends beside its peers (OpenCV where python3 has cv2)
# and the PNG codec bench on one of its inputs.
if want folder; then
  fdir=${BENCH_DIR:-/tmp/gpublur_folder_bench}
  step folder-bench "$out/folder.txt" env BENCH_BACKENDS="cuda gl cpu" BENCH_DIR="$fdir" \
    bash "$here/folder_bench.sh" "$here/bin/gpublur"
  png=$(ls "$fdir"/in_png_*/*.png 2>/dev/null | head -1)
  [[ -n $png ]] && step png-codec "$out/folder.txt" "$here/bin/gpublur_png_codec_bench" "$png" 3
fi

# Part cold (issue 12 point 7): the cold start of each backend, one small PNG, whole process, 5 runs each.
if want cold; then
  TIMEFORMAT="cold start %R s"
  # -v adds the start-up trace (driver, context, properties, backend ready, backends closed, main done, each
  # at its process age); GPUBLUR_EXIT_TEARDOWN=1 runs the ordinary exit (static destructors, the CUDA runtime's
  # and EGL's teardown) that exit_process skips, to measure what skipping saves.
  for b in cuda gl cpu; do
    for teardown in 0 1; do
      for i in 1 2 3 4 5; do
        { time GPUBLUR_EXIT_TEARDOWN=$teardown "$here/bin/gpublur" -v blur "$here/testdata/icon_palette.png" \
            -o "/tmp/cold_$b" -b "$b" --overwrite --report "/tmp/cold_$b.json" 2>/tmp/cold_trace.txt; } \
          >>"$out/cold.txt" 2>&1
        grep -E "start-up|initialised" /tmp/cold_trace.txt | sed 's/^/  /' >>"$out/cold.txt"
        # Where it went: before main(), the backend's creation, the image's stages (the report's summary).
        python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["summary"]; print("  startup_ms", s.get("startup_ms"), "stages_ms", s.get("stage_totals_ms"))' \
          "/tmp/cold_$b.json" >>"$out/cold.txt" 2>&1
        echo "  ($b run $i, exit teardown $teardown)" >>"$out/cold.txt"
      done
    done
  done
fi

if want bench || want bench2; then
  tar -C "$json_dir" -cf "$out/bench_json.tar" .
  cat "$out/bench.txt"
fi

if ((${#failed[@]})); then
  echo "GPU CHECK FAILED: ${failed[*]}"
  exit 1
fi
echo "GPU CHECK PASSED"
