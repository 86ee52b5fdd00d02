// core/output_file: temporary names (hidden, unique across process-id namespaces, within NAME_MAX) and whole
// text files written into place without replacing what is not a regular file.
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/output_file.hpp"

namespace gpublur {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpublur-outfile-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Names in the folder other than `keep`: temporaries left behind.
  std::vector<std::string> others(const std::vector<std::string>& keep) const {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (std::find(keep.begin(), keep.end(), n) == keep.end()) v.push_back(n);
    }
    return v;
  }
  fs::path dir_;
};

TEST(TempName, HiddenBesideTheOutputWithItsExtensionAndARandomPart) {
  const std::string a = temp_path_for("out/sub/pic.png"), b = temp_path_for("out/sub/pic.png");
  const std::regex form("out/sub/\\.pic\\.tmp-" + std::to_string(getpid()) + "-[0-9a-f]{8}\\.png");
  EXPECT_TRUE(std::regex_match(a, form)) << a;
  EXPECT_TRUE(std::regex_match(b, form)) << b;
  EXPECT_NE(a, b) << "two temporaries of one output (another process with this pid) would share a name";
}

// An output name legal on its own (up to 255 bytes) never fails for its temporary's length; the stem is cut on
// a character boundary.
TEST(TempName, StaysWithinNameMaxWithoutSplittingACharacter) {
  for (const std::string& stem : {std::string(251, 'a'), std::string(244, 'b'), std::string(10, 'c')}) {
    const std::string t = fs::path(temp_path_for("d/" + stem + ".exr")).filename().string();
    EXPECT_LE(t.size(), size_t(NAME_MAX)) << t;
    EXPECT_EQ(t.substr(0, 2), "." + stem.substr(0, 1));
    EXPECT_EQ(t.substr(t.size() - 4), ".exr");
    if (stem.size() == 10) EXPECT_EQ(t.substr(0, 12), "." + stem + ".");
  }
  std::string wide;
  for (int i = 0; i < 125; ++i) wide += "\xC3\xA9";  // 125 x U+00E9, 250 bytes
  const std::string t = fs::path(temp_path_for(wide + ".png")).filename().string();
  EXPECT_LE(t.size(), size_t(NAME_MAX));
  const size_t cut = t.find(".tmp-");
  ASSERT_NE(cut, std::string::npos);
  EXPECT_EQ((cut - 1) % 2, 0u) << "a two-byte character was split";
  EXPECT_EQ(t.substr(1, cut - 1), wide.substr(0, cut - 1));
}

TEST_F(OutputFile, NewAndExistingFilesAreWrittenWholeThroughATemporary) {
  const fs::path p = dir_ / "r.json";
  ASSERT_TRUE(write_text_file(p.string(), "first\n", "--report").ok());
  EXPECT_EQ(slurp(p), "first\n");
  ASSERT_TRUE(write_text_file(p.string(), "second, longer\n", "--report").ok());
  EXPECT_EQ(slurp(p), "second, longer\n");
  EXPECT_TRUE(others({"r.json"}).empty()) << others({"r.json"}).front();
}

// A link's target gets the text and the link stays a link (a report path that points into a shared folder).
TEST_F(OutputFile, ALinkKeepsPointingAtItsTargetWhichGetsTheText) {
  fs::create_directories(dir_ / "real");
  std::ofstream(dir_ / "real/r.json") << "old";
  fs::create_symlink(dir_ / "real/r.json", dir_ / "link.json");
  fs::create_symlink(dir_ / "real/new.json", dir_ / "dangling.json");
  ASSERT_TRUE(write_text_file((dir_ / "link.json").string(), "new", "--report").ok());
  ASSERT_TRUE(write_text_file((dir_ / "dangling.json").string(), "made", "--report").ok());
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.json"));
  EXPECT_EQ(slurp(dir_ / "real/r.json"), "new");
  EXPECT_EQ(slurp(dir_ / "real/new.json"), "made");
  EXPECT_TRUE(others({"real", "link.json", "dangling.json"}).empty());
}

// A FIFO (a reader waiting on it) and a device get the text; neither is replaced by a regular file.
TEST_F(OutputFile, AFifoOrADeviceIsWrittenNotReplaced) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  const Status s = write_text_file(fifo.string(), "through the pipe\n", "--report");
  reader.join();
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(got, "through the pipe\n");
  struct stat st {};
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(check_text_file_target("--report", fifo.string()).ok());
  ASSERT_TRUE(write_text_file("/dev/null", "gone\n", "--report").ok());
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_TRUE(others({"pipe"}).empty());
}

// A descriptor the shell opened on a regular file (--report /dev/stdout > file) is appended to, never replaced.
TEST_F(OutputFile, AnOpenDescriptorsPathIsAppendedTo) {
  const fs::path p = dir_ / "stdout.txt";
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "before\n", 7), 7);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  ASSERT_TRUE(write_text_file(path, "report\n", "--report").ok());
  ::close(fd);
  EXPECT_EQ(slurp(p), "before\nreport\n");
  EXPECT_TRUE(others({"stdout.txt"}).empty());
  // Other paths under /dev are files like any other: /dev/shm's are replaced whole, not appended to.
  const fs::path shm = "/dev/shm/gpublur-outfile-" + std::to_string(getpid()) + ".json";
  if (fs::is_directory("/dev/shm") && std::ofstream(shm) << "old report\n") {
    ASSERT_TRUE(write_text_file(shm.string(), "new\n", "--report").ok());
    EXPECT_EQ(slurp(shm), "new\n");
    fs::remove(shm);
    ASSERT_TRUE(write_text_file(shm.string(), "made\n", "--report").ok()) << "a new file there is created";
    EXPECT_EQ(slurp(shm), "made\n");
    fs::remove(shm);
  }
}

TEST_F(OutputFile, TargetsThatCannotBeWrittenAreRefusedBeforeTheWork) {
  Status s = check_text_file_target("--json", (dir_ / "no/such/b.json").string());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("does not exist"), std::string::npos) << s.error;
  s = check_text_file_target("--json", dir_.string());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("is a folder"), std::string::npos) << s.error;
  EXPECT_TRUE(check_text_file_target("--json", (dir_ / "b.json").string()).ok());
  EXPECT_TRUE(check_text_file_target("--json", "-").ok());
  s = write_text_file((dir_ / "no/such/b.json").string(), "x", "--json b.json");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.error.rfind("--json b.json: cannot create its temporary", 0), 0u) << s.error;
}

// A folder the user may not write in is refused up front (not after the whole run, as the rename's failure was).
TEST_F(OutputFile, AFolderTheUserMayNotWriteInIsRefusedUpFront) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to check as another user";
  fs::create_directories(dir_ / "locked");
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir_ / "locked", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  const std::string path = (dir_ / "locked/r.json").string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // as nobody: 0 when refused with the reason, else 1
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    const Status s = check_text_file_target("--report", path);
    _exit(!s.ok() && s.error.find("cannot write in its folder") != std::string::npos &&
                  s.error.find("Permission denied") != std::string::npos
              ? 0
              : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(check_text_file_target("--report", path).ok()) << "root may write there";
}

}  // namespace
}  // namespace gpublur
