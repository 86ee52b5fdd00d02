#!/usr/bin/env bash
# Session 102, third call: the cpu backend's row-thread pool on 16 cores against the binary before it (5dd2e4e,
# threads started per pass), alternated: bench -b cpu at 64^2, 256^2, 2048^2 RGBA, and a folder of 400 small PNGs.
set -u
tar -xJf bundle.tar.xz
xz -dc .device/old/gpublur-5dd2e4e.xz >old-gpublur && chmod +x old-gpublur
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c446.txt
nproc >>"$log"
mkdir -p /tmp/thumbs
for i in $(seq 1 400); do cp $b/testdata/icon_palette.png /tmp/thumbs/t$i.png; done
for round in 1 2; do
  for bin in $PWD/old-gpublur $b/bin/gpublur; do
    echo "=== $bin round $round" >>"$log"
    $bin bench -b cpu --method copy,gauss-sep,box,iir --sigma 3 --size 64,256,2048 --channels 4 --repeat 5 \
      --warmup 1 >>"$log" 2>&1
    rm -rf /tmp/ot
    $bin -q blur /tmp/thumbs -o /tmp/ot -b cpu --report /tmp/rt.json 2>>"$log"
    python3 -c "
import json; s=json.load(open('/tmp/rt.json'))['summary']
print('folder of 400: compute %.1f ms, wall %.1f ms' % (s['stage_totals_ms']['compute'], s['wall_ms']))" >>"$log"
  done
done
cat "$log" | grep -E "^===|^copy|^gauss|^box|^iir|folder|^[0-9]+$"
