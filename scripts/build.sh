#!/usr/bin/env bash
# Configures and builds gpublur (Release). Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
[[ -d /usr/local/cuda/bin ]] && export PATH=$PATH:/usr/local/cuda/bin
jobs=$(nproc)
echo "[build] configuring $build (Release) $*"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
grep -E "^-- gpublur:" "$build.configure.log" || true
echo "[build] building with $jobs jobs"
cmake --build "$build" -j "$jobs"
