// io::CheckedFile: what the EXR writers stream into. Bytes land where written (sequential writes buffered, writes
// back at earlier offsets as OpenEXR's offset table does, large writes straight through), every failure is kept
// and said by finish(), and only what it created is ever removed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/io/io_common.hpp"
#include "tests/io/io_test_util.hpp"

namespace gpublur {
namespace {

std::vector<char> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(CheckedFile, BytesLandWhereWritten) {
  test::TempDir tmp;
  const std::string path = tmp.path("out.bin");
  std::mt19937 rng(7);
  std::vector<char> expect;
  {
    io::CheckedFile f(path);
    auto put = [&](size_t n, uint64_t at) {
      std::vector<char> b(n);
      for (char& c : b) c = char(rng());
      if (expect.size() < at + n) expect.resize(at + n, 0);
      std::copy(b.begin(), b.end(), expect.begin() + std::ptrdiff_t(at));
      ASSERT_TRUE(f.write_at(b.data(), n, at)) << f.error_text();
    };
    put(64, 0);                  // a placeholder table
    for (int i = 0; i < 300; ++i) put(size_t(rng() % 9000), expect.size());  // chunks, past the 1 MiB buffer
    put(3 << 20, expect.size());  // one large chunk, straight through
    put(17, expect.size());
    put(64, 0);                  // the table written back over the placeholder
    put(5, 100);                 // and somewhere in the middle
    EXPECT_EQ(f.size(), expect.size());
    ASSERT_TRUE(f.finish().ok());
  }
  EXPECT_EQ(slurp(path), expect);
}

TEST(CheckedFile, AFullDiskFailsAtFinishAndRemovesTheFile) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full here";
  test::TempDir tmp;
  const std::string path = tmp.path("full.bin");
  ASSERT_EQ(::symlink("/dev/full", path.c_str()), 0);
  io::CheckedFile f(path);
  const char b[16] = {};
  EXPECT_TRUE(f.write_at(b, sizeof b, 0));  // buffered: the failure shows at the flush
  const Status s = f.finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("cannot write '" + path + "'"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("No space left"), std::string::npos) << s.error;
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(::access("/dev/full", F_OK), 0);
}

TEST(CheckedFile, AFailureStaysAndAnUnfinishedFileIsRemoved) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full here";
  test::TempDir tmp;
  const std::string path = tmp.path("full.bin");
  ASSERT_EQ(::symlink("/dev/full", path.c_str()), 0);
  {
    io::CheckedFile f(path);
    std::vector<char> big(2 << 20);
    EXPECT_FALSE(f.write_at(big.data(), big.size(), 0));  // large: written at once, fails at once
    EXPECT_TRUE(f.failed());
    EXPECT_FALSE(f.write_at(big.data(), 1, 0));  // and stays failed
  }  // destroyed unfinished (a writer threw): removed
  EXPECT_FALSE(std::filesystem::is_symlink(path));

  const std::string kept = tmp.path("kept.bin");
  {
    io::CheckedFile f(kept);
    EXPECT_TRUE(f.write_at("abc", 3, 0));
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

TEST(CheckedFile, WhatItCouldNotCreateIsLeftAlone) {
  test::TempDir tmp;
  const std::string dir = tmp.path("a_folder");
  ASSERT_TRUE(std::filesystem::create_directory(dir));
  {
    io::CheckedFile f(dir);
    EXPECT_TRUE(f.failed());
    EXPECT_FALSE(f.write_at("x", 1, 0));
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  io::CheckedFile f(dir);
  const Status s = f.finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("cannot create '" + dir + "'"), std::string::npos) << s.error;
  EXPECT_TRUE(std::filesystem::is_directory(dir));
}

}  // namespace
}  // namespace gpublur
