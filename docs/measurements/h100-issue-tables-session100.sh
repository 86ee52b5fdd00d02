#!/usr/bin/env bash
# Session 100: the issue tables of issues 8 and 9 on the default kind (H100) at HEAD 027f51e: CUDA, GL, CUDA in one
# call (the last H100 tables were call 401's, seventy-seventh session, before GL box's last-group rule of call 408).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c427.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
T="--method copy,box,integral,iir,iir:impl=deriche,fft --sigma 3,12,48,100,200 --size 1024,4096 --channels 4 --repeat 11"
step $B bench -b cuda $T --json $OUT/c427_cuda1.json
step $B bench -b gl $T --json $OUT/c427_gl.json
step $B bench -b cuda $T --json $OUT/c427_cuda2.json
grep -E "^===" "$log"
