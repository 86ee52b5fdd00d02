# The GPU machine's environment for the bundle's binaries, sourced (from the unpacked bundle) by gpu_check.sh and by
# one-off device scripts (docs/measurements/*.sh): the bundle's libraries, the tests' files and gpublur, GL and CUDA
# required (a missing EGL display or CUDA device is a failure there, not a skip), the registry-driven test at full
# size. GPUBLUR_GL_DEBS=DIR: the glvnd .debs (scripts/fetch_gl_debs.sh) unpacked for NVIDIA's EGL vendor library.
# Sets `here` to the bundle's folder.
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
export PATH="$PATH:/usr/local/cuda/bin"  # compute-sanitizer
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The test binaries find their files and gpublur in the bundle, not where they were built.
export GPUBLUR_TESTDATA="$here/testdata" GPUBLUR_SOURCE_DIR="$here" GPUBLUR_BIN="$here/bin/gpublur"
export GPUBLUR_REQUIRE_GL=1  # on the GPU machine a missing EGL display is a failure, not a skip
export GPUBLUR_REQUIRE_CUDA=1  # likewise for the registry-driven test's CUDA cases
export GPUBLUR_MATRIX_LARGE=1  # the registry-driven test at 1023x517 (CI: 203x117)
if [[ -n ${GPUBLUR_GL_DEBS:-} ]]; then
  for f in "$GPUBLUR_GL_DEBS"/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [[ -f $vendor ]]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor; fi
