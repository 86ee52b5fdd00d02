#include "core/output_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <vector>

namespace fs = std::filesystem;

namespace gpublur {

namespace {

uint32_t random_token() {
  static std::mutex mutex;
  static std::mt19937_64 rng = [] {
    std::random_device rd;
    return std::mt19937_64((uint64_t(rd()) << 32) ^ rd() ^ uint64_t(getpid()));
  }();
  std::lock_guard<std::mutex> lock(mutex);
  return uint32_t(rng() >> 32);
}

// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
std::string utf8_prefix(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/<pid>/fd/N name a descriptor already open: it is written, never
// replaced (other paths under /dev, /dev/shm's files say, are files like any other).
bool names_open_descriptor(const std::string& path) {
  return path == "/dev/stdout" || path == "/dev/stderr" || path.rfind("/dev/fd/", 0) == 0 ||
         (path.rfind("/proc/", 0) == 0 && path.find("/fd/") != std::string::npos);
}

// Writes all of `text` to `fd` and closes it; the first failure, if any (a full disk may show only at close).
Status write_and_close(int fd, const std::string& text, const std::string& what) {
  Status s;
  for (size_t done = 0; done < text.size() && s.ok();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      s = Status::fail(what + ": cannot write: " + std::strerror(n < 0 ? errno : EIO));
    else
      done += size_t(n);
  }
  if (::close(fd) != 0 && s.ok()) s = Status::fail(what + ": cannot write: " + std::strerror(errno));
  return s;
}

bool g_stdout_closed = false;

// write_text_file's temporaries while they exist (remove_text_temporaries).
std::mutex g_temps_mutex;
std::set<std::string> g_temps;

// Whether path names this process's descriptor 1 (/dev/null, where main holds a closed stdout, is written as asked).
bool names_stdout(const std::string& path) {
  return path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1" ||
         path == "/proc/" + std::to_string(::getpid()) + "/fd/1";
}

std::atomic<bool> g_interrupted{false};

Status write_directly(const std::string& path, const std::string& text, const std::string& what, bool append,
                      bool fifo = false) {
  if (g_stdout_closed && names_stdout(path)) return Status::fail(what + ": stdout was closed: the text would be lost");
  // A FIFO is opened without waiting, again every 20 ms until a reader has it open, so that a signal ends the wait
  // (note_interrupted): a blocking open() waited on for good, the first signal waiting for it in turn.
  const int flags = O_WRONLY | O_CLOEXEC | (append ? O_APPEND : 0) | (fifo ? O_NONBLOCK : 0);
  int fd;
  while ((fd = ::open(path.c_str(), flags)) < 0 && fifo && errno == ENXIO) {
    if (g_interrupted) return Status::fail(what + ": no reader on the FIFO; not written");
    ::usleep(20000);
  }
  if (fd < 0) return Status::fail(what + ": cannot open it for writing: " + std::strerror(errno));
  if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a reader is there: write it all
  return write_and_close(fd, text, what);
}

// The file at the end of `path`'s chain of links (a dangling link's target too), or `path` itself.
std::string link_target(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) break;
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return p.string();
}

}  // namespace

void note_stdout_closed() { g_stdout_closed = true; }

void note_interrupted() { g_interrupted = true; }

void remove_text_temporaries() {
  // The names are copied under the lock and removed outside it: an unlink that blocks (a stalled network filesystem)
  // holds no lock another remover waits for. They stay listed: one whose create was under way is removed again by a
  // later call (each name is unique: removing one already renamed or removed does nothing).
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(g_temps_mutex);
    names.assign(g_temps.begin(), g_temps.end());
  }
  for (const auto& t : names) ::unlink(t.c_str());
}

std::string temp_path_for(const std::string& output) {
  const fs::path p(output);
  char token[24];
  std::snprintf(token, sizeof token, ".tmp-%d-%08x", int(getpid()), random_token());
  const std::string ext = p.extension().string();
  const size_t fixed = 1 + std::strlen(token) + ext.size();  // "." + token + ext
  const size_t room = NAME_MAX > fixed ? NAME_MAX - fixed : 0;
  return (p.parent_path() / ("." + utf8_prefix(p.stem().string(), room) + token + ext)).string();
}

Status write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return write_directly(path, text, what, false, S_ISFIFO(st.st_mode));
  if (names_open_descriptor(path)) return write_directly(path, text, what, true);
  const std::string target = link_target(path);  // a link's target is replaced, the link kept
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    tmp = temp_path_for(target);
    // Listed before it is made: a signal that ends the process while open() creates it (a slow network filesystem)
    // removes it too. (Where the name is another's, EEXIST, it is unlisted at once.)
    {
      std::lock_guard<std::mutex> lock(g_temps_mutex);
      g_temps.insert(tmp);
    }
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const int open_errno = errno;
    // Test hook: the file made, open() not yet returned, as in a slow create (a network filesystem's): the window that
    // listing the name only after open() left unguarded.
    if (const char* ms = std::getenv("GPUBLUR_TEST_TEXT_CREATE_DELAY_MS"); ms && fd >= 0)
      ::usleep(useconds_t(std::atoi(ms)) * 1000);
    if (fd < 0) {
      std::lock_guard<std::mutex> lock(g_temps_mutex);
      g_temps.erase(tmp);
    }
    errno = open_errno;
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return Status::fail(what + ": cannot create its temporary " + tmp + ": " + std::strerror(errno));
  // Test hook: a pause with the temporary made, so a test can interrupt the write.
  if (const char* ms = std::getenv("GPUBLUR_TEST_TEXT_WRITE_DELAY_MS")) ::usleep(useconds_t(std::atoi(ms)) * 1000);
  Status s = write_and_close(fd, text, what);
  if (s.ok() && std::rename(tmp.c_str(), target.c_str()) != 0)
    s = Status::fail(what + ": cannot rename its temporary " + tmp + " into place: " + std::strerror(errno));
  if (!s.ok()) ::unlink(tmp.c_str());
  std::lock_guard<std::mutex> lock(g_temps_mutex);
  g_temps.erase(tmp);
  return s;
}

bool text_target_is_stdout(const std::string& path) {
  if (path == "-") return true;
  if (path.empty() || g_stdout_closed) return false;
  struct stat target {}, out {}, null {};
  if (names_stdout(path)) return true;
  if (::stat(path.c_str(), &target) != 0 || ::fstat(1, &out) != 0) return false;
  // /dev/null for both is no stdout the JSON shares (the table stayed on stdout, unseen, as before).
  if (S_ISCHR(target.st_mode) && ::stat("/dev/null", &null) == 0 && target.st_rdev == null.st_rdev) return false;
  return target.st_dev == out.st_dev && target.st_ino == out.st_ino;
}

Status check_text_file_target(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-") return Status::success();
  if (g_stdout_closed && names_stdout(path)) return Status::fail(option + " " + path + ": stdout was closed");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::fail(option + " " + path + " is a folder");
    if (!S_ISREG(st.st_mode) || names_open_descriptor(path)) {
      if (::access(path.c_str(), W_OK) != 0)
        return Status::fail(option + " " + path + ": cannot write it: " + std::strerror(errno));
      return Status::success();
    }
  }
  std::error_code ec;
  const fs::path parent = fs::absolute(link_target(path), ec).parent_path();
  if (!fs::is_directory(parent, ec))
    return Status::fail(option + " " + path + ": its folder " + parent.string() + " does not exist");
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return Status::fail(option + " " + path + ": cannot write in its folder " + parent.string() + ": " +
                        std::strerror(errno));
  return Status::success();
}

}  // namespace gpublur
