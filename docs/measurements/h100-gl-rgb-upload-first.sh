#!/usr/bin/env bash
# Session 100: GL three-channel upload, the storage-buffer path against the driver's GL_RGB upload plus the in-place
# A = 0 pass (a temporary knob, not landed), in steady state: blur of four 4096^2 float EXRs each (RGB, RGBA) with
# -m copy, the report's per-image upload stage (the first image of a process pays one-time costs).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c431.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
mkdir -p /tmp/rgb /tmp/rgba
for i in 1 2 3 4; do
  python3 .device/tools/mkexr.py /tmp/rgb/i$i.exr 4096 4096 3
  python3 .device/tools/mkexr.py /tmp/rgba/i$i.exr 4096 4096 4
done
for round in 1 2; do
  for mode in buffer driver; do
    if [ $mode = driver ]; then export GPUBLUR_TEMP_RGB_DRIVER=1; else unset GPUBLUR_TEMP_RGB_DRIVER; fi
    for set in rgb rgba; do
      rm -rf /tmp/o; $B blur /tmp/$set -o /tmp/o -b gl -m copy --report /tmp/r.json -q
      python3 -c "import json; r=json.load(open('/tmp/r.json')); print('round $round $mode $set upload_ms', ' '.join('%.1f' % i['timings_ms']['upload'] for i in r['images']))" >>"$log" 2>&1
    done
  done
done
cat "$log"
