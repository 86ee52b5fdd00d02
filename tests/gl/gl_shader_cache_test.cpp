// Where the GL drivers keep gpublur's compiled programs (gpu/gl/shader_cache.hpp): the folder chosen from the
// environment, made 0700, and the folders refused (links, others' folders, files). The CLI's use of it, with the
// driver writing its cache there, is E2E.GlShaderCacheLivesInGpublursFolder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "gpu/gl/shader_cache.hpp"

namespace gpublur {
namespace {

namespace fs = std::filesystem;

class ShaderCache : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpublur-shader-cache-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string choose(std::string& note) {
    return choose_shader_cache_dir(
        [this](const char* n) {
          auto it = env_.find(n);
          return it == env_.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
        },
        getuid(), note);
  }
  static unsigned mode(const std::string& p) {
    struct stat st {};
    return lstat(p.c_str(), &st) == 0 ? unsigned(st.st_mode & 0777) : 0u;
  }
  fs::path root_;
  std::map<std::string, std::string> env_;
};

TEST_F(ShaderCache, XdgThenHomeThenTmp) {
  env_ = {{"XDG_CACHE_HOME", (root_ / "xdg").string()}, {"HOME", (root_ / "home").string()},
          {"TMPDIR", (root_ / "tmp").string()}};
  std::string note;
  // Bases that do not exist are passed over, not made (a service account's HOME=/nonexistent).
  EXPECT_EQ(choose(note), "") << note;
  EXPECT_FALSE(fs::exists(root_ / "xdg") || fs::exists(root_ / "home") || fs::exists(root_ / "tmp"));
  EXPECT_NE(note.find((root_ / "home").string() + " is not a folder"), std::string::npos) << note;
  for (const char* base : {"xdg", "home", "tmp"}) fs::create_directories(root_ / base);
  const std::string xdg = choose(note);
  EXPECT_EQ(xdg, (root_ / "xdg/gpublur/gl-shaders").string()) << note;
  EXPECT_EQ(mode(xdg), 0700u);
  EXPECT_EQ(mode((root_ / "xdg/gpublur").string()), 0700u);
  EXPECT_EQ(choose(note), xdg) << "an existing folder of ours is taken again";

  env_.erase("XDG_CACHE_HOME");
  EXPECT_EQ(choose(note), (root_ / "home/.cache/gpublur/gl-shaders").string()) << note;
  env_["XDG_CACHE_HOME"] = "relative/path";  // not absolute: ignored, as the XDG spec says
  EXPECT_EQ(choose(note), (root_ / "home/.cache/gpublur/gl-shaders").string()) << note;

  std::ofstream(root_ / "file") << "x";
  env_["HOME"] = (root_ / "file").string();  // a home that is a file: nothing can be made under it
  const std::string tmp = choose(note);
  EXPECT_EQ(tmp, (root_ / ("tmp/gpublur-" + std::to_string(getuid())) / "gl-shaders").string()) << note;
  EXPECT_NE(note.find((root_ / "file").string() + " is not a folder"), std::string::npos) << note;
  EXPECT_EQ(mode(tmp), 0700u);
}

TEST_F(ShaderCache, RefusesLinksAndFoldersOthersMayWrite) {
  const std::string uid = std::to_string(getuid());
  env_ = {{"TMPDIR", (root_ / "tmp").string()}};
  fs::create_directories(root_ / "elsewhere");
  fs::create_directories(root_ / ("tmp/gpublur-" + uid));
  fs::permissions(root_ / ("tmp/gpublur-" + uid), fs::perms::owner_all);
  fs::create_directory_symlink(root_ / "elsewhere", root_ / ("tmp/gpublur-" + uid) / "gl-shaders");
  std::string note;
  EXPECT_EQ(choose(note), "") << "a link planted where the folder goes";
  EXPECT_NE(note.find("is not a folder"), std::string::npos) << note;

  fs::remove(root_ / ("tmp/gpublur-" + uid) / "gl-shaders");
  fs::permissions(root_ / ("tmp/gpublur-" + uid), fs::perms::owner_all | fs::perms::others_all);
  EXPECT_EQ(choose(note), "") << "a parent anyone may write (the folder could be swapped)";
  EXPECT_NE(note.find("is not this user's own"), std::string::npos) << note;

  fs::permissions(root_ / ("tmp/gpublur-" + uid), fs::perms::owner_all);
  EXPECT_EQ(choose(note), (root_ / ("tmp/gpublur-" + uid) / "gl-shaders").string()) << note;
}

// MESA_SHADER_CACHE_DISABLE as Mesa reads it: =0 or =false leave the cache on, and gpublur still places it (it
// took any value for "off", and every such process compiled every program again).
TEST(ShaderCacheEnv, MesaDisableIsReadAsMesaReadsIt) {
  for (const char* off : {"1", "true", "TRUE", "y", "yes", "Yes"}) EXPECT_TRUE(mesa_cache_turned_off(off)) << off;
  for (const char* on : {"0", "false", "n", "no", "", "2", "off"}) EXPECT_FALSE(mesa_cache_turned_off(on)) << on;
  EXPECT_FALSE(mesa_cache_turned_off(nullptr));
}

TEST_F(ShaderCache, NothingUsable) {
  std::ofstream(root_ / "file") << "x";
  env_ = {{"HOME", (root_ / "file").string()}, {"TMPDIR", (root_ / "file").string()}};
  std::string note;
  EXPECT_EQ(choose(note), "");
  EXPECT_EQ(note, (root_ / "file").string() + " is not a folder; " + (root_ / "file").string() + " is not a folder");
}

// A folder on a full file system is passed over (Mesa died of SIGBUS on its mapped index there, exit 135 with the
// run's temporaries left); where none has room, low_space tells prepare_gl_shader_cache to turn the caches off.
TEST_F(ShaderCache, FullFileSystemsArePassedOver) {
  for (const char* base : {"xdg", "tmp"}) fs::create_directories(root_ / base);
  env_ = {{"XDG_CACHE_HOME", (root_ / "xdg").string()}, {"TMPDIR", (root_ / "tmp").string()}};
  long long xdg_free = 1 << 20, tmp_free = kShaderCacheMinFree;
  const auto free_bytes = [&](const std::string& dir) {
    return dir.rfind((root_ / "xdg").string(), 0) == 0 ? xdg_free : tmp_free;
  };
  const auto pick = [&](std::string& note, bool& low) {
    return choose_shader_cache_dir(
        [this](const char* n) {
          auto it = env_.find(n);
          return it == env_.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
        },
        getuid(), note, &low, free_bytes);
  };
  std::string note;
  bool low = false;
  EXPECT_EQ(pick(note, low), (root_ / ("tmp/gpublur-" + std::to_string(getuid())) / "gl-shaders").string()) << note;
  EXPECT_TRUE(low);
  EXPECT_NE(note.find("gl-shaders has 1 MiB free"), std::string::npos) << note;
  tmp_free = kShaderCacheMinFree - 1;
  EXPECT_EQ(pick(note, low), "") << note;
  EXPECT_TRUE(low);
  xdg_free = tmp_free = -1;  // unknown (statvfs failed): taken
  EXPECT_EQ(pick(note, low), (root_ / "xdg/gpublur/gl-shaders").string()) << note;
  EXPECT_FALSE(low);
}

}  // namespace
}  // namespace gpublur
