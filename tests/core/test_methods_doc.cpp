// docs/methods.md's parameter table is the registry's: every method's parameters, their values and defaults, as
// `gpublur methods` lists them. A parameter added, renamed or given another range fails here until the table is
// written again (the failure prints the table to paste).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/registry.hpp"
#include "tests/test_paths.hpp"

namespace gpublur {
namespace {

constexpr const char* kBegin = "<!-- parameters: generated from the registry (tests/core/test_methods_doc.cpp) -->";
constexpr const char* kEnd = "<!-- end of parameters -->";

// A markdown table cell: '|' would end it.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string registry_table() {
  std::ostringstream o;
  o << "| method | parameter | values | default |\n|---|---|---|---|\n";
  for (const MethodSpec& m : method_registry())
    for (const ParamSpec& p : m.params)
      o << "| " << m.name << " | --" << p.name << " | " << cell(param_values_text(p)) << " | "
        << cell(param_default_text(p)) << " |\n";
  return o.str();
}

TEST(MethodsDoc, ParameterTableIsTheRegistrys) {
  const std::string path = testing::source_dir() + "/docs/methods.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t b = doc.find(kBegin), e = doc.find(kEnd);
  ASSERT_NE(b, std::string::npos) << path << " has no line " << kBegin;
  ASSERT_NE(e, std::string::npos) << path << " has no line " << kEnd;
  ASSERT_LT(b, e);
  const size_t from = b + std::string(kBegin).size() + 1;  // after the marker's line
  EXPECT_EQ(doc.substr(from, e - from), registry_table())
      << "docs/methods.md's parameter table differs from the registry; between the two markers it should read:\n"
      << registry_table();
}

}  // namespace
}  // namespace gpublur
