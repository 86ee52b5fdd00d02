#!/usr/bin/env bash
# Session 108, call 460: why GL's 8-bit downloads read 22 ms an image in a 4K PNG folder (CUDA 5; call 459): the
# driver's waiting (__GL_YIELD=USLEEP) and fewer I/O threads, against the defaults, two rounds alternated.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c460.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
mkdir -p /tmp/png
timeout 200 $b/bin/gpublur_make_bench_images /tmp/png 32 0 3840 2160 6 >>"$log" 2>&1
run() {  # label VAR=value args...
  local label=$1 e=$2; shift 2
  rm -rf /tmp/op /tmp/rp.json
  timeout 120 env "$e" $b/bin/gpublur -q blur /tmp/png -o /tmp/op --sigma 8 --report /tmp/rp.json "$@" 2>>"$log"
  python3 -c "
import json, statistics as st; r=json.load(open('/tmp/rp.json')); s=r['summary']
d=[i['timings_ms']['download'] for i in r['images']]; u=[i['timings_ms']['upload'] for i in r['images']]
print('$label: %.2f images/s, download median %.2f total %.0f, upload median %.2f total %.0f;' % (s['images_per_second'],
      st.median(d), sum(d), st.median(u), sum(u)), 'stages', {k: round(v) for k, v in s['stage_totals_ms'].items()})" >>"$log" 2>&1
}
run warmup-gl A=1 -b gl
for round in 1 2; do
  run "r$round gl" A=1 -b gl
  run "r$round gl __GL_YIELD=USLEEP" __GL_YIELD=USLEEP -b gl
  run "r$round gl io-threads 8" A=1 -b gl --io-threads 8
  run "r$round gl io-threads 4" A=1 -b gl --io-threads 4
  run "r$round cuda" A=1 -b cuda
  run "r$round cuda io-threads 8" A=1 -b cuda --io-threads 8
done
grep -E "images/s|NVIDIA|rror" "$log" | tail -20
