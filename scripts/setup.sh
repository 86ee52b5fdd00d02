#!/usr/bin/env bash
# Installs what gpublur needs on Debian 12, as root. Idempotent: installs only missing packages.
# The CUDA toolkit is used where it is already installed (/usr/local/cuda or nvcc on PATH); without it the
# CUDA backend is simply not built. GPUBLUR_INSTALL_CUDA=1 installs Debian's nvidia-cuda-toolkit (non-free).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libopenimageio-dev openimageio-tools python3-imath   # OIIO's CMake config names iconvert and PyImath
  libopenexr-dev libimath-dev libpng-dev zlib1g-dev
  libdeflate-dev libspng-dev                           # PNG encoding (libdeflate); libspng: codec bench only
  libvips-tools                                        # the folder benchmark's peer (scripts/folder_bench.sh)
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri python3-glad
)
if [[ "${GPUBLUR_INSTALL_CUDA:-0}" == 1 ]] && ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  packages+=(nvidia-cuda-toolkit)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "[setup] installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "[setup] all ${#packages[@]} packages already installed"
fi

if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "[setup] CUDA compiler: $(PATH=$PATH:/usr/local/cuda/bin nvcc --version | tail -1)"
else
  echo "[setup] no CUDA compiler: the CUDA backend will not be built (GPUBLUR_INSTALL_CUDA=1 installs one)"
fi
