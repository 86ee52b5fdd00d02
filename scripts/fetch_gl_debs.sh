#!/usr/bin/env bash
# Downloads (does not install) the glvnd loader .debs into .gl/ for the GPU machine, which has NVIDIA's EGL
# vendor library but no libEGL loader. gpu_check.sh unpacks them there. Network: Debian's archive only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/.gl" /tmp/gpublur-apt-amd64/partial
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/gpublur-apt-amd64)
apt-get "${o[@]}" update -q
cd "$root/.gl" && apt-get "${o[@]}" download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2
ls -l "$root/.gl"
