#!/usr/bin/env bash
# Builds the portable GPU bundle: Release, sm_90, lean I/O adapter (OpenEXR + libpng, no OpenImageIO),
# gpublur + the test binaries + the shared libraries an Ubuntu 24.04 machine with only the NVIDIA driver and
# CUDA 13 lacks, a launcher that sets the library path, and the GPU check script. At most 64 MiB.
# Usage: scripts/bundle.sh [DEST]   (default: bundle/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/bundle}
build=$root/build-bundle
# Extra CMake arguments (e.g. -DGPUBLUR_GL=OFF for a CUDA-only bundle) in GPUBLUR_BUNDLE_CMAKE_ARGS.
# sm_90 machine code only (90-real), no PTX: the bundle runs on the GPU machine's H100 / H200, and each of its four
# CUDA binaries carries every kernel, so the PTX took the archive past its limit (52 MiB; box1d.cu's object 4.7 -> 3.0
# MB xz'd without it). The default build keeps the PTX (compute_90) for later GPUs.
# shellcheck disable=SC2086
bash "$root/scripts/build.sh" "$build" -DGPUBLUR_IO=lean -DGPUBLUR_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
  -DGPUBLUR_CUDA=ON -DGPUBLUR_GL=ON \
  ${GPUBLUR_BUNDLE_CMAKE_ARGS:-}

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
for f in "$build"/bin/*; do
  [[ -x $f && -f $f ]] && cp "$f" "$dest/bin/"
done
strip --strip-unneeded "$dest"/bin/* 2>/dev/null || true

# Libraries every target has (glibc, the C++ runtime, zlib) or that must come from the target (the NVIDIA
# driver; EGL/GL are loaded at run time by glad, never linked) stay out of the bundle.
system_re='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libstdc\+\+|libgcc_s|libz\.|libcuda\.|libEGL|libGL|libOpenGL)'
for f in "$dest"/bin/*; do
  ldd "$f" | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $system_re ]] && continue
  cp -L "$path" "$dest/lib/$name"
done

cat >"$dest/gpublur" <<'LAUNCH'
#!/bin/sh
# Launcher: runs the bundled gpublur with the bundled libraries.
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/gpublur" "$@"
LAUNCH
chmod +x "$dest/gpublur"
cp "$root/scripts/gpu_check.sh" "$root/scripts/gpu_env.sh" "$root/scripts/folder_bench.sh" "$root/scripts/pass_times.py" "$dest/"
mkdir -p "$dest/testdata" "$dest/docs"
cp -r "$root/testdata/." "$dest/testdata/"
# The e2e tests validate reports against the schema; test_cli_core holds methods.md's parameter table to the registry.
cp "$root/docs/report.schema.json" "$root/docs/methods.md" "$dest/docs/"

size=$(du -sb "$dest" | cut -f1)
echo "[bundle] $dest: $((size / 1024 / 1024)) MiB; libraries: $(ls "$dest/lib" | tr '\n' ' ')"
# What travels to the GPU machine is the xz archive (each binary carries the CUDA kernels; they compress well).
archive=$dest.tar.xz
tar -C "$(dirname "$dest")" -cf - "$(basename "$dest")" | xz -T0 -6 >"$archive"
asize=$(stat -c %s "$archive")
echo "[bundle] $archive: $((asize / 1024 / 1024)) MiB"
if ((asize > 48 * 1024 * 1024)); then
  echo "[bundle] ERROR: the archive is over 48 MiB (the device tool carries at most 64 MiB with the tree)" >&2
  exit 1
fi
