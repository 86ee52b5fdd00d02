// Where tests find the project's files and the gpublur binary. The build's paths are compiled in; the
// environment overrides them so the same test binaries run from the portable bundle on another machine
// (GPUBLUR_SOURCE_DIR, GPUBLUR_TESTDATA, GPUBLUR_BIN).
#pragma once
#include <cstdlib>
#include <string>

namespace gpublur::testing {

inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

#ifdef GPUBLUR_SOURCE_DIR
inline std::string source_dir() { return env_or("GPUBLUR_SOURCE_DIR", GPUBLUR_SOURCE_DIR); }
#endif
#ifdef GPUBLUR_BIN
inline std::string gpublur_bin() { return env_or("GPUBLUR_BIN", GPUBLUR_BIN); }
#endif
#ifdef GPUBLUR_TESTDATA_DIR
inline std::string testdata_dir_path() { return env_or("GPUBLUR_TESTDATA", GPUBLUR_TESTDATA_DIR); }
#endif

}  // namespace gpublur::testing
