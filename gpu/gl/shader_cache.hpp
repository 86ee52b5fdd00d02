// Where the GL drivers keep gpublur's compiled programs between processes. Both drivers we run on cache them on
// disk under the user's home by default, and without a usable home every process starts cold: NVIDIA's driver
// (580, H200) then compiles every program again, seconds in which the GPU idles and lowers its clock (a GL iir bench
// of 30 runs at 4096^2 took 3.09 ms a run and 9-12 s a process against 0.80 ms and 1-2 s with a cache; the clock:
// docs/performance.md, "GL's slow first timing: the clock after the builds"), Mesa's llvmpipe compiles every shader
// again (a GL blur of one small PNG took 1.4-2.0 s against 0.21-0.24 s). docs/performance.md, "The GL drivers'
// shader caches".
#pragma once

#include <functional>
#include <string>

namespace gpublur {

// Free space a cache folder needs to be taken: Mesa maps its cache index (1.3 MB, sparse) and dies of SIGBUS
// when a page of it cannot be had on a full file system.
constexpr long long kShaderCacheMinFree = 64ll << 20;

// gpublur's own cache folder, created 0700 where missing: $XDG_CACHE_HOME/gpublur/gl-shaders, else
// $HOME/.cache/gpublur/gl-shaders, else ${TMPDIR:-/tmp}/gpublur-UID/gl-shaders; the first that is (or can be made
// under an existing $XDG_CACHE_HOME, $HOME or temporary folder) a real folder owned by `uid` (no link) with
// kShaderCacheMinFree bytes free (`free_bytes`, by default statvfs's for unprivileged users; -1: unknown, taken).
// Empty where none is; `note` says what was tried and `low_space` whether a folder was passed over for its space.
// `env` reads a variable (nullptr: unset).
std::string choose_shader_cache_dir(const std::function<const char*(const char*)>& env, unsigned uid,
                                    std::string& note, bool* low_space = nullptr,
                                    const std::function<long long(const std::string&)>& free_bytes = {});

// Points the drivers' caches at that folder, each unless the user chose for it: __GL_SHADER_DISK_CACHE_PATH (NVIDIA;
// not where __GL_SHADER_DISK_CACHE=0) and MESA_SHADER_CACHE_DIR (Mesa; not where MESA_GLSL_CACHE_DIR is set or
// MESA_SHADER_CACHE_DISABLE turns the cache off). Where no folder is taken and one was passed over for its space,
// the drivers' own defaults lie on full file systems too: their caches are turned off (__GL_SHADER_DISK_CACHE=0,
// MESA_SHADER_CACHE_DISABLE=true) and a warning says so. Once a process, before the first EGL display: it changes the
// environment, so call it while no other thread may read it (the CLI does so before its readers start;
// GlContext::create again, then a no-op).
void prepare_gl_shader_cache();

// Whether MESA_SHADER_CACHE_DISABLE's value turns Mesa's cache off, read as Mesa reads it (env_var_as_boolean):
// 1, true, y, yes (any case) do; 0, false, n, no, unset or anything else leave it on.
bool mesa_cache_turned_off(const char* value);

}  // namespace gpublur
