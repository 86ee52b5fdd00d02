#!/usr/bin/env bash
# Session 108, call 459: the 8-bit path's download on a folder of 32 4K RGB8 PNGs (the folder bench's inputs: grain,
# zlib 6), gauss-sep sigma 8: GL with HEAD's pack8.comp (clip counts, alpha-0 colour, division in double) against the
# first one (78dc831, through GPUBLUR_GL_SHADER_DIR), alternated, two rounds; CUDA beside them. The report's per-image
# download stage, its median and total, and the stage totals.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
d=$PWD/.device
log=$OUT/c459.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
mkdir -p /tmp/png
t=$SECONDS
timeout 200 $b/bin/gpublur_make_bench_images /tmp/png 32 0 3840 2160 6 >>"$log" 2>&1
echo "made in $((SECONDS - t)) s" >>"$log"
for round in 1 2; do
  for form in cuda gl-head gl-78dc831; do
    be=${form%%-*}
    if [ $form = gl-78dc831 ]; then export GPUBLUR_GL_SHADER_DIR=$d/old_pack8; else unset GPUBLUR_GL_SHADER_DIR; fi
    rm -rf /tmp/op
    timeout 120 $b/bin/gpublur -q blur /tmp/png -o /tmp/op -b $be --sigma 8 --report /tmp/rp.json 2>>"$log"
    python3 -c "
import json, statistics as st; r=json.load(open('/tmp/rp.json'))
d=[i['timings_ms']['download'] for i in r['images']]
print('round $round $form download ms median %.2f min %.2f max %.2f total %.1f;' % (st.median(d), min(d), max(d), sum(d)),
      'stages', {k: round(v, 1) for k, v in r['summary']['stage_totals_ms'].items()}, 'images/s %.2f' % r['summary']['images_per_second'])" >>"$log" 2>&1
  done
done
unset GPUBLUR_GL_SHADER_DIR
grep -E "download ms|made|NVIDIA|rror" "$log" | tail -20
