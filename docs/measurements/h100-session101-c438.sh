#!/usr/bin/env bash
# Session 101, fourth call: does the driver's read-back in bands of 64 MiB cost time? Half storage (rgba16f: every
# download is the driver's), blur of five 4096^2 float EXRs with -m copy, the report's per-image download stage, for
# the bundle's gpublur (bands) and gpublur_oneshot (the same build with one call an image, as before), alternated.
set -u
xz -dk .device/bin/gpublur_oneshot.xz && chmod +x .device/bin/gpublur_oneshot
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c438.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
for c in 1 4; do
  mkdir -p /tmp/c$c
  for i in 1 2 3 4 5; do python3 .device/tools/mkexr.py /tmp/c$c/i$i.exr 4096 4096 $c; done
done
for round in 1 2; do
  for bin in $b/bin/gpublur $PWD/.device/bin/gpublur_oneshot; do
    for c in 1 4; do
      rm -rf /tmp/o; LD_LIBRARY_PATH=$b/lib $bin blur /tmp/c$c -o /tmp/o -b gl --gl-storage rgba16f -m copy --report /tmp/r.json -q
      python3 -c "import json; r=json.load(open('/tmp/r.json')); print('round $round $(basename $bin) channels $c download_ms', ' '.join('%.1f' % i['timings_ms']['download'] for i in r['images']))" >>"$log" 2>&1
    done
  done
done
cat "$log"
