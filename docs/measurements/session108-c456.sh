#!/usr/bin/env bash
# Session 108, call 456: iir's column blocks (GPUBLUR_CUDA_IIR_COLS_BLOCK=0/1 alternated, one binary, two rounds) over
# the shapes where the blocks apply (heights up to 1024) and many lines: Young-van Vliet and Deriche, 1-4 channels;
# then the 4K RGB8 PNG folder's download times (owed since session 104).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c456.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
for round in 1 2; do
  for cb in 0 1; do
    echo "=== round $round cols_block=$cb [$(date +%T)]" >>"$log"
    GPUBLUR_CUDA_IIR_COLS_BLOCK=$cb timeout 120 $b/bin/gpublur bench -b cuda --method copy,iir,iir:impl=deriche \
      --sigma 12 --size 1024,768,2048x1024,4096x1024,4096x512,8192x256,1024x300 --channels 1,2,3,4 --repeat 11 2>&1 |
      grep -E "^(copy|iir)" | sed "s/^/r$round cb$cb: /" >>"$log"
  done
done
mkdir -p /tmp/png
timeout 120 $b/bin/gpublur_make_bench_images /tmp/png 8 0 3840 2160 6 >>"$log" 2>&1
for round in 1 2; do
  for be in cuda gl; do
    rm -rf /tmp/op
    timeout 120 $b/bin/gpublur -q blur /tmp/png -o /tmp/op -b $be --sigma 8 --report /tmp/rp.json 2>>"$log"
    python3 -c "
import json; r=json.load(open('/tmp/rp.json'))
d=[round(i['timings_ms']['download'],2) for i in r['images']]
print('round $round $be download ms', d, 'wall', round(r['summary']['wall_ms'],1))" >>"$log" 2>&1
  done
done
grep -E "^===|download ms|NVIDIA" "$log" | tail -40
