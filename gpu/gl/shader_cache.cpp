#include "gpu/gl/shader_cache.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <spdlog/spdlog.h>

namespace gpublur {
namespace {

// `path` and the folder holding it are folders (not links) owned by uid that no one else may write (so no one
// else can swap what the drivers read); made 0700 where missing, with their missing parents.
bool own_folder(const std::string& path, unsigned uid, std::string& why) {
  std::vector<std::string> missing;
  std::string p = path;
  struct stat st {};
  while (!p.empty() && lstat(p.c_str(), &st) != 0) {
    missing.push_back(p);
    const size_t slash = p.find_last_of('/');
    p = slash == std::string::npos || slash == 0 ? std::string() : p.substr(0, slash);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    if (mkdir(it->c_str(), 0700) != 0 && lstat(it->c_str(), &st) != 0) {
      why = "cannot make " + *it;
      return false;
    }
  for (const std::string& f : {path, path.substr(0, path.find_last_of('/'))}) {
    if (lstat(f.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      why = f + " is not a folder";
      return false;
    }
    if (st.st_uid != uid || (st.st_mode & (S_IWGRP | S_IWOTH))) {
      why = f + " is not this user's own";
      return false;
    }
  }
  if (access(path.c_str(), W_OK | X_OK) != 0) {
    why = path + " is not writable";
    return false;
  }
  return true;
}

}  // namespace

std::string choose_shader_cache_dir(const std::function<const char*(const char*)>& env, unsigned uid,
                                    std::string& note, bool* low_space,
                                    const std::function<long long(const std::string&)>& free_bytes) {
  note.clear();
  if (low_space) *low_space = false;
  const auto space = [&](const std::string& dir) -> long long {
    if (free_bytes) return free_bytes(dir);
    struct statvfs v {};
    return statvfs(dir.c_str(), &v) == 0 ? (long long)v.f_bavail * (long long)v.f_frsize : -1;
  };
  const auto absolute = [&](const char* name) {
    const char* v = env(name);
    return v && v[0] == '/' ? std::string(v) : std::string();
  };
  // (base, the folder under it): the base must be a folder already. A service account's HOME (/nonexistent) or
  // a stale XDG_CACHE_HOME is passed over, not made (as root, a whole home was).
  std::vector<std::pair<std::string, std::string>> candidates;
  if (const std::string x = absolute("XDG_CACHE_HOME"); !x.empty()) candidates.push_back({x, "/gpublur/gl-shaders"});
  if (const std::string h = absolute("HOME"); !h.empty()) candidates.push_back({h, "/.cache/gpublur/gl-shaders"});
  std::string tmp = absolute("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  candidates.push_back({tmp, "/gpublur-" + std::to_string(uid) + "/gl-shaders"});
  for (const auto& [base, under] : candidates) {
    std::string why;
    struct stat st {};
    if (stat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      why = base + " is not a folder";
    else if (own_folder(base + under, uid, why)) {
      const long long free = space(base + under);
      if (free < 0 || free >= kShaderCacheMinFree) return base + under;
      why = base + under + " has " + std::to_string(free >> 20) + " MiB free";
      if (low_space) *low_space = true;
    }
    note += (note.empty() ? "" : "; ") + why;
  }
  return {};
}

bool mesa_cache_turned_off(const char* value) {
  if (!value) return false;
  std::string v(value);
  for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
  return v == "1" || v == "true" || v == "y" || v == "yes";
}

void prepare_gl_shader_cache() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto set = [](const char* name) {
      const char* v = std::getenv(name);
      return v && *v;
    };
    const char* nv_cache = std::getenv("__GL_SHADER_DISK_CACHE");
    const bool nvidia = !set("__GL_SHADER_DISK_CACHE_PATH") && !(nv_cache && std::string(nv_cache) == "0");
    const bool mesa = !set("MESA_SHADER_CACHE_DIR") && !set("MESA_GLSL_CACHE_DIR") &&
                      !mesa_cache_turned_off(std::getenv("MESA_SHADER_CACHE_DISABLE"));
    if (!nvidia && !mesa) return;
    std::string note;
    bool low_space = false;
    const std::string dir =
        choose_shader_cache_dir([](const char* n) { return std::getenv(n); }, getuid(), note, &low_space);
    // No usable folder: the drivers' defaults lie under the same homes (Mesa made /nonexistent/mesa_shader_cache as
    // root where HOME, XDG_CACHE_HOME and TMPDIR were all /nonexistent), so the caches are turned off.
    if (dir.empty()) {
      if (nvidia) setenv("__GL_SHADER_DISK_CACHE", "0", 1);
      if (mesa) setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
      if (low_space)
        spdlog::warn("GL shader cache off: no folder with {} MiB free ({}); every program is compiled again",
                     kShaderCacheMinFree >> 20, note);
      else
        spdlog::warn("GL shader cache off: no folder to keep it in ({}); every program is compiled again", note);
      return;
    }
    // NVIDIA's driver uses the folder only where it exists (it adds GLCache/ there); Mesa makes its own below it.
    if (nvidia) setenv("__GL_SHADER_DISK_CACHE_PATH", dir.c_str(), 1);
    if (mesa) setenv("MESA_SHADER_CACHE_DIR", dir.c_str(), 1);
    // Only for the drivers whose cache the environment did not already place.
    spdlog::debug("GL shader cache: {} for {}{}", dir, nvidia && mesa ? "NVIDIA and Mesa" : nvidia ? "NVIDIA" : "Mesa",
                  note.empty() ? "" : " (" + note + ")");
  });
}

}  // namespace gpublur
