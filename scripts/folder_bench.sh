#!/usr/bin/env bash
# The folder job, end to end (issue 12): makes a folder of 4K images and blurs it with gpublur and its peers,
# printing images/s and ratios. Each tool reads the same inputs and writes PNG at zlib level 6 (EXR: zip).
#   scripts/folder_bench.sh [GPUBLUR_BIN]      (default: build/bin/gpublur, or the bundle's launcher)
# Environment: BENCH_PNGS (32), BENCH_EXRS (16), BENCH_SIZE (3840x2160), BENCH_SIGMA (8),
#   BENCH_BACKENDS ("cpu gl"; add cuda on the GPU machine), BENCH_DIR (a temporary folder; inputs are kept
#   there between runs), BENCH_METHOD (gauss-sep), BENCH_CV_THREADS (16).
# Peers: `vips gaussblur` / `vips copy` in a loop (one process per image, as a shell user would) when vips is
# installed; a BENCH_CV_THREADS-thread OpenCV script (imread, GaussianBlur in sRGB, imwrite at level 6) when
# python3 has cv2. Missing peers are skipped with the reason.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [[ -z $bin ]]; then
  for c in "$root/build/bin/gpublur" "$root/gpublur"; do [[ -x $c ]] && bin=$c && break; done
fi
[[ -x ${bin:-} ]] || { echo "folder_bench: no gpublur binary (pass its path)" >&2; exit 2; }
bindir=$(dirname "$(readlink -f "$bin")")
# Beside the binary (a build), or in the bundle's bin/ with its lib/ (the bundle's launcher is `gpublur`).
make_images=
for c in "$bindir/gpublur_make_bench_images" "$bindir/bin/gpublur_make_bench_images" \
  "$root/build/bin/gpublur_make_bench_images"; do
  [[ -x $c ]] && make_images=$c && break
done
[[ -n $make_images ]] || { echo "folder_bench: no gpublur_make_bench_images beside $bin" >&2; exit 2; }
[[ -d $bindir/lib ]] && export LD_LIBRARY_PATH=$bindir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
npng=${BENCH_PNGS:-32}
nexr=${BENCH_EXRS:-16}
size=${BENCH_SIZE:-3840x2160}
sigma=${BENCH_SIGMA:-8}
method=${BENCH_METHOD:-gauss-sep}
backends=${BENCH_BACKENDS:-cpu gl}
cv_threads=${BENCH_CV_THREADS:-16}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/gpublur_folder_bench}
w=${size%x*}
h=${size#*x}

in_png=$dir/in_png_${npng}_${size}
in_exr=$dir/in_exr_${nexr}_${size}
mkdir -p "$dir"
if [[ ! -f $in_png/.done ]]; then
  echo "[bench] making $npng PNGs ($size RGB8, grain, zlib 6) in $in_png"
  rm -rf "$in_png" && mkdir -p "$in_png"
  "$make_images" "$in_png" "$npng" 0 "$w" "$h" 6 && touch "$in_png/.done" || exit 1
fi
if ((nexr > 0)) && [[ ! -f $in_exr/.done ]]; then
  echo "[bench] making $nexr EXRs ($size RGBA half, zip) in $in_exr"
  rm -rf "$in_exr" && mkdir -p "$in_exr"
  "$make_images" "$in_exr" 0 "$nexr" "$w" "$h" 6 && touch "$in_exr/.done" || exit 1
fi

now() { date +%s.%N; }
calc() { awk "BEGIN { print $* }"; }
results=()  # "label|count|seconds"
record() { results+=("$1|$2|$3"); printf '[bench] %-34s %3d images %8.2f s %7.2f images/s\n' "$1" "$2" "$3" "$(calc "$2 / $3")"; }

run_gpublur() {  # label input count args...
  local label=$1 input=$2 count=$3
  shift 3
  local out=$dir/out
  rm -rf "$out"
  local t0 t1
  t0=$(now)
  if ! "$bin" -q blur "$input" -o "$out" --report "$dir/report.json" "$@"; then
    echo "[bench] $label: gpublur failed" >&2
    return
  fi
  t1=$(now)
  record "$label" "$count" "$(calc "$t1 - $t0")"
  stages "$dir/report.json"
}

# Where the time went (the report's per-stage totals over all images, and the bottleneck stage).
stages() {
  python3 - "$1" <<'PY' 2>/dev/null || true
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
t = s.get("stage_totals_ms") or {}
if t:
    print("[bench]     stage totals ms: " + ", ".join(f"{k} {v:.0f}" for k, v in t.items()) +
          f"; {s.get('io_threads', '?')} I/O threads; bottleneck: {s.get('bottleneck', '?')}")
PY
}

echo "[bench] $(nproc) cores; gpublur: $bin; sigma $sigma, method $method"
for b in $backends; do
  run_gpublur "gpublur $b $method png" "$in_png" "$npng" -b "$b" -m "$method" --sigma "$sigma"
  run_gpublur "gpublur $b copy png" "$in_png" "$npng" -b "$b" -m copy
  # The float path (8-bit PNGs converted on the host, float32 over the bus), for the 8-bit path's gain.
  GPUBLUR_PACKED_IO=0 run_gpublur "gpublur $b $method png float-path" "$in_png" "$npng" -b "$b" -m "$method" \
    --sigma "$sigma"
  if ((nexr > 0)); then
    run_gpublur "gpublur $b $method exr" "$in_exr" "$nexr" -b "$b" -m "$method" --sigma "$sigma"
  fi
done

if command -v vips >/dev/null; then
  for op in gaussblur copy; do
    out=$dir/out_vips
    rm -rf "$out" && mkdir -p "$out"
    t0=$(now)
    for f in "$in_png"/*.png; do
      if [[ $op == gaussblur ]]; then
        vips gaussblur "$f" "$out/$(basename "$f")" "$sigma" || echo "[bench] vips failed on $f" >&2
      else
        vips copy "$f" "$out/$(basename "$f")" || echo "[bench] vips failed on $f" >&2
      fi
    done
    t1=$(now)
    record "vips $op png (loop)" "$npng" "$(calc "$t1 - $t0")"
  done
else
  echo "[bench] vips: skipped (not installed; Debian: libvips-tools)"
fi

if python3 -c "import cv2" 2>/dev/null; then
  out=$dir/out_cv
  rm -rf "$out" && mkdir -p "$out"
  t0=$(now)
  python3 - "$in_png" "$out" "$sigma" "$cv_threads" <<'PY'
import cv2, glob, os, sys
from concurrent.futures import ThreadPoolExecutor
src, dst, sigma, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
cv2.setNumThreads(1)  # one image per thread, as the 16-thread script of issue 12
def one(f):
    img = cv2.imread(f, cv2.IMREAD_UNCHANGED)
    out = cv2.GaussianBlur(img, (0, 0), sigma)
    cv2.imwrite(os.path.join(dst, os.path.basename(f)), out, [cv2.IMWRITE_PNG_COMPRESSION, 6])
with ThreadPoolExecutor(threads) as ex:
    list(ex.map(one, sorted(glob.glob(os.path.join(src, "*.png")))))
PY
  t1=$(now)
  record "opencv $cv_threads threads png" "$npng" "$(calc "$t1 - $t0")"
else
  echo "[bench] opencv: skipped (python3 has no cv2)"
fi

echo "[bench] ratios (images/s over images/s):"
rate() { for r in "${results[@]}"; do IFS='|' read -r l n s <<<"$r"; [[ $l == "$1" ]] && calc "$n / $s" && return; done; }
pair() {
  local a b
  a=$(rate "$1")
  b=$(rate "$2")
  # A peer that did not run (vips or cv2 missing) leaves its ratios out; that is not a failure of the bench.
  [[ -n $a && -n $b ]] || return 0
  printf '[bench]   %-34s / %-28s = %.2f\n' "$1" "$2" "$(calc "$a / $b")"
}
for b in $backends; do
  pair "gpublur $b $method png" "vips gaussblur png (loop)"
  pair "gpublur $b $method png" "opencv $cv_threads threads png"
  pair "gpublur $b $method png" "gpublur $b copy png"
  pair "gpublur $b $method png" "gpublur $b $method png float-path"
  [[ $b == cpu ]] || pair "gpublur $b $method png" "gpublur cpu $method png"
done
pair "gpublur cpu copy png" "vips copy png (loop)"
