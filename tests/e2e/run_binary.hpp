// Running the built gpublur binary from tests: shell quoting, reading files back, and one run with its exit
// status, stdout and stderr. Shared by the end-to-end tests and the quality tests' CLI check.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "tests/test_paths.hpp"

namespace gpublur::testing {

struct RunResult {
  int rc = -1;  // exit status; -1 if killed by a signal (a crash)
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

#ifdef GPUBLUR_BIN
// Runs the binary with `args` (already shell-quoted where needed); stdin from `stdin_text`; `env` is put
// before the command ("NAME=value ..."). stdout/stderr go through files in `scratch`, removed afterwards.
inline RunResult run_gpublur(const std::string& args, const std::filesystem::path& scratch,
                             const std::string& stdin_text = "", const std::string& env = "") {
  const std::filesystem::path out = scratch / ".stdout", err = scratch / ".stderr", in = scratch / ".stdin";
  std::ofstream(in) << stdin_text;
  const std::string cmd = env + " " + quote(gpublur_bin()) + " " + args + " <" + quote(in.string()) + " >" +
                          quote(out.string()) + " 2>" + quote(err.string());
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out), std::filesystem::remove(err), std::filesystem::remove(in);
  return r;
}
#endif

}  // namespace gpublur::testing
