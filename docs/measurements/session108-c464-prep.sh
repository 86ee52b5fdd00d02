#!/usr/bin/env bash
# Session 108, for call 464 (run here, before the call): two mutant test_gl binaries into .device/mutants/, each with
# one of GlStaging's waits removed, so that the device call can show that
# GlStagingTest.WaitsForTheGpuBehindASlowDispatch fails on NVIDIA's GL without them (on llvmpipe each copy runs at
# once and the mutants pass). Restores the source.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=$PATH:/usr/local/cuda/bin
src=gpu/gl/gl_staging.cpp
cp $src /tmp/gl_staging_good.cpp
trap 'cp /tmp/gl_staging_good.cpp $src' EXIT
mkdir -p .device/mutants
sed -i 's|    if (Status s = wait(b); !s) return s;  // (its last chunk copied out)|    // MUTANT: no wait|' $src
grep -q "MUTANT" $src
ninja -C build-bundle test_gl >/dev/null
cp build-bundle/bin/test_gl .device/mutants/test_gl_upload_nowait
cp /tmp/gl_staging_good.cpp $src
python3 - "$src" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
a = """    const int b = int(i & 1);
    if (Status s = wait(b); !s) return s;
    const size_t off = i * chunk_, n = std::min(chunk_, bytes - off);
    std::memcpy(dst + off, maps_[b], n);"""
b = """    const int b = int(i & 1);
    if (fences_[b]) glDeleteSync(fences_[b]), fences_[b] = nullptr;  // MUTANT: no wait
    const size_t off = i * chunk_, n = std::min(chunk_, bytes - off);
    std::memcpy(dst + off, maps_[b], n);"""
assert a in s; open(p, "w").write(s.replace(a, b))
PY
ninja -C build-bundle test_gl >/dev/null
cp build-bundle/bin/test_gl .device/mutants/test_gl_download_nowait
cp /tmp/gl_staging_good.cpp $src
ninja -C build-bundle test_gl >/dev/null
xz -T2 -9 -f .device/mutants/test_gl_upload_nowait .device/mutants/test_gl_download_nowait  # (the carry: 64 MiB)
ls -la .device/mutants
