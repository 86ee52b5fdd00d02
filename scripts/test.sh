#!/usr/bin/env bash
# Sets up, builds Release and runs the whole test suite with ctest. GPU tests skip themselves (with the
# reason) where no CUDA device is present; GL tests run for real on Mesa's llvmpipe.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" "$root/build"
echo "[test] ctest"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" --timeout 900
