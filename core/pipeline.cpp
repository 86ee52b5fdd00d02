#include "core/pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <new>
#include <sys/stat.h>
#include <mutex>
#include <poll.h>
#include <pthread.h>
#include <set>
#include <functional>
#include <string_view>
#include <system_error>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/io/image_io.hpp"
#include "core/io/io_common.hpp"
#include "core/output_file.hpp"
#include "core/memory.hpp"
#include "core/nonfinite.hpp"
#include "core/parallel.hpp"
#include "core/warning_capture.hpp"

namespace fs = std::filesystem;

namespace gpublur {

// ---------------------------------------------------------------------------------------------------------
// Inputs and output paths

bool is_image_name(const std::string& path) { return !format_from_extension(path).empty(); }

std::vector<std::string> read_path_list(std::istream& in) {
  std::vector<std::string> out;
  const std::string all{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // No path holds a NUL: a list with one is NUL-separated (find -print0), its names taken as they are (a name may
  // hold a newline). Read line by line, its NULs would have cut names short and run one file under another's name.
  const bool nul = all.find('\0') != std::string::npos;
  size_t at = 0;
  while (at < all.size()) {
    const size_t end = std::min(all.find(nul ? '\0' : '\n', at), all.size());
    std::string name = all.substr(at, end - at);
    at = end + 1;
    if (!nul)
      while (!name.empty() && (name.back() == '\r' || name.back() == ' ' || name.back() == '\t')) name.pop_back();
    if (!name.empty()) out.push_back(std::move(name));
  }
  return out;
}

namespace {
std::atomic<bool> g_stdin_closed{false};
}  // namespace

void note_stdin_closed() { g_stdin_closed = true; }

std::vector<fs::path> missing_folders(const fs::path& dir) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(p, ec) && p != p.parent_path(); p = p.parent_path())
    missing.push_back(p);
  return missing;
}

Status expand_stdin_lists(const std::vector<std::string>& args, std::vector<std::string>& out) {
  out.clear();
  for (const std::string& in : args) {
    if (in != "-") {
      out.push_back(in);
      continue;
    }
    if (g_stdin_closed) return Status::fail("cannot read the list of inputs from stdin: it is closed");
    errno = 0;
    for (auto& p : read_path_list(std::cin)) out.push_back(std::move(p));
    if (std::ferror(stdin))
      return Status::fail(std::string("cannot read the list of inputs from stdin: ") +
                          std::strerror(errno ? errno : EIO));
  }
  return Status::success();
}

namespace {

// Links followed in one path at most (the kernel's own limit is 40; a loop stops here and stays as it is).
constexpr int kMaxLinks = 40;

// p made absolute and resolved a component at a time: a link is replaced by its target, followed whether or not that
// exists (weakly_canonical stopped at the first missing component, so a link to a file not written yet was taken as
// its own name: a report through it landed on an output), and ".." taken from the resolved folder. With final_link
// false a link in the last component is kept (the entry itself). seen, if given, gets each followed link's own entry.
fs::path walk(const fs::path& p, bool final_link, std::vector<fs::path>* seen = nullptr) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  if (ec) return p.lexically_normal();
  const fs::path rel = abs.relative_path();
  std::vector<fs::path> todo(rel.begin(), rel.end());
  std::reverse(todo.begin(), todo.end());
  fs::path cur = abs.root_path();
  int links = 0;
  while (!todo.empty()) {
    const fs::path c = todo.back();
    todo.pop_back();
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      cur = cur.parent_path();
      continue;
    }
    const fs::path next = cur / c;
    const bool last = todo.empty();
    if ((!last || final_link) && links < kMaxLinks && fs::is_symlink(fs::symlink_status(next, ec))) {
      const fs::path target = fs::read_symlink(next, ec);
      if (!ec) {
        ++links;
        if (seen) seen->push_back(next);
        // Only the target's relative part goes on: a target of slashes alone ("//") is one part that named no
        // folder and made every later path "//tmp/..." (no string matched it, and an input was overwritten).
        const fs::path trel = target.relative_path();
        for (auto it = trel.end(); it != trel.begin();) todo.push_back(*--it);
        if (target.has_root_directory()) cur = abs.root_path();
        continue;
      }
    }
    cur = next;
  }
  return cur;
}

// walk for many paths (collect_jobs'), each folder resolved once, and the names' identities.
class PathResolver {
 public:
  // p resolved as real_path does; with final_link false its last component stays as it is, a link there not followed
  // (the folder entry itself: what a rename into place replaces). seen, if given, gets the entry of each link followed.
  fs::path resolve(const fs::path& p, bool final_link, std::vector<fs::path>* seen = nullptr);
  fs::path entry(const fs::path& p) { return resolve(p, false); }
  // A resolved name's identity: the device and inode of the nearest folder above it that exists and the rest of its
  // path (a folder named two ways, by a bind mount too, is one folder, made yet or not).
  std::string key(const fs::path& resolved);
  // The keys of the entries of every link a path's resolution follows (in its folders and at its end), then of where
  // it ends: every name whose replacement changes what the path reads or where a write through it lands.
  std::vector<std::string> chain(const fs::path& p);

 private:
  struct Dir {
    fs::path resolved;
    std::vector<fs::path> links;  // the entries of the links followed on the way
  };
  std::map<std::string, Dir> dirs_;              // folder as given (absolute) -> resolved
  std::map<std::string, std::string> dir_keys_;  // resolved folder -> "dev:ino", or "" where it does not exist
};

fs::path PathResolver::resolve(const fs::path& p, bool final_link, std::vector<fs::path>* seen) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  const fs::path name = abs.filename(), parent = abs.parent_path();
  if (ec || name.empty() || name == "." || name == ".." || parent == abs) return walk(p, final_link, seen);
  auto [it, fresh] = dirs_.try_emplace(parent.string());
  if (fresh) it->second.resolved = walk(parent, true, &it->second.links);
  if (seen) seen->insert(seen->end(), it->second.links.begin(), it->second.links.end());
  const fs::path next = it->second.resolved / name;
  return final_link && fs::is_symlink(fs::symlink_status(next, ec)) ? walk(next, true, seen) : next;
}

std::string PathResolver::key(const fs::path& resolved) {
  // The nearest folder that exists, then the rest as named: a folder made after the checks (the output folder) is
  // one folder however it is reached (a report through a bind mount's name for it landed on an output).
  fs::path dir = resolved.parent_path(), rest = resolved.filename();
  for (;;) {
    auto [it, fresh] = dir_keys_.try_emplace(dir.string());
    if (fresh) {
      struct stat st {};
      if (::stat(it->first.c_str(), &st) == 0) it->second = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    }
    if (!it->second.empty()) return it->second + "/" + rest.string();
    if (dir == dir.parent_path()) return resolved.string();
    rest = dir.filename() / rest;
    dir = dir.parent_path();
  }
}

std::vector<std::string> PathResolver::chain(const fs::path& p) {
  // Every link the resolution follows, in a folder of the path or at its end, is a name an output could replace (a
  // link out/d.png -> ../rdir under --report out/d.png/r.json was replaced by the image, the report then failing).
  std::vector<fs::path> seen;
  const fs::path real = resolve(p, true, &seen);
  std::vector<std::string> keys;
  for (const fs::path& e : seen) keys.push_back(key(e));
  keys.push_back(key(real));
  return keys;
}

}  // namespace

std::string real_path(const fs::path& p) { return walk(p, true).string(); }

namespace {

bool hidden(const fs::path& p) {
  const std::string n = p.filename().string();
  return !n.empty() && n[0] == '.';
}

// rel is the path to mirror under the output folder; with --format the extension is the format's, in lower case
// also where the format stays (x.EXR and x.png under --format exr made x.EXR and x.exr: names apart only by case).
Job make_job(const fs::path& input, const fs::path& rel, const CollectOptions& opts) {
  Job j;
  j.input = input.string();
  const std::string in_format = format_from_extension(j.input);
  if (in_format.empty()) {
    j.error = j.input + ": not an .exr or .png file";
    return j;
  }
  fs::path out = fs::path(opts.output_dir) / rel;
  if (!opts.format.empty()) out.replace_extension("." + opts.format);
  j.output = out.lexically_normal().string();
  j.format = opts.format.empty() ? in_format : opts.format;
  return j;
}

// The folder a recursive scan skips: known by its device and inode where it exists, so that a second name for it (a
// bind mount inside the input folder) is skipped too; by its real path as text where it does not exist yet.
struct SkipFolder {
  std::string real;
  bool exists = false;
  dev_t dev{};
  ino_t ino{};
  explicit SkipFolder(std::string r) : real(std::move(r)) {
    struct stat st {};
    if (!real.empty() && ::stat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      exists = true;
      dev = st.st_dev;
      ino = st.st_ino;
    }
  }
  bool is(const fs::path& folder) const {
    if (!exists) return real_path(folder) == real;
    struct stat st {};
    return ::stat(folder.c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino;
  }
};

// The image files of folder `dir` (and, when recursive, of its sub-folders: not hidden ones, not the output
// folder, not through symbolic links, so a link loop cannot recur), each with its path relative to `root`. A
// folder that cannot be listed, or whose listing fails part way, is a failed job naming it: its images are not
// dropped in silence; so is an image's name that is no regular file (a broken link).
void list_folder(const fs::path& dir, const fs::path& root, bool recursive, const SkipFolder& skip,
                 std::vector<std::pair<fs::path, fs::path>>& found, std::vector<Job>& unlisted) {
  auto fail = [&](const std::error_code& ec) {
    Job j;
    j.input = dir.string();
    j.error = "cannot list folder " + dir.string() + ": " + ec.message();
    unlisted.push_back(std::move(j));
  };
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return fail(ec);
  std::vector<fs::path> folders;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    const fs::path& path = it->path();
    if (hidden(path)) continue;
    if (it->is_directory(e2)) {
      if (recursive && !it->is_symlink(e2)) {
        if (!skip.is(path))
          folders.push_back(path);
        else
          spdlog::debug("{}: the output folder ({}), not scanned", path.string(), skip.real);
      }
    } else if (is_image_name(path.string())) {
      if (it->is_regular_file(e2)) {
        found.emplace_back(path, path.lexically_relative(root));
      } else {
        // An image's name that holds no file (a broken symbolic link: a missing frame, a fifo) is that image's
        // failure, not a file to skip in silence.
        Job j;
        j.input = path.string();
        std::error_code why;  // ENOENT: a missing target; another (ELOOP: a link loop) is said as it is
        const bool target = it->exists(why);
        const bool missing = !why || why == std::errc::no_such_file_or_directory;
        j.error = path.string() + (!it->is_symlink(e2) || target ? ": not a regular file"
                                   : missing ? ": broken symbolic link (its target does not exist)"
                                             : ": symbolic link that cannot be followed: " + why.message());
        unlisted.push_back(std::move(j));
      }
    }
  }
  if (ec) return fail(ec);
  for (const fs::path& f : folders) list_folder(f, root, recursive, skip, found, unlisted);
}

}  // namespace

std::vector<FolderEntry> scan_folder(const fs::path& dir, bool recursive, const std::string& skip_real) {
  std::vector<std::pair<fs::path, fs::path>> files;
  std::vector<Job> failed;
  list_folder(dir, dir, recursive, SkipFolder(skip_real), files, failed);
  if (files.empty() && failed.empty()) spdlog::warn("{}: no .exr or .png files in this folder", dir.string());
  // The failed names among the files (they came after every file, in the folder's raw listing order).
  std::vector<FolderEntry> entries;
  for (auto& [file, rel] : files) entries.push_back({std::move(file), std::move(rel), ""});
  for (Job& j : failed) entries.push_back({j.input, fs::path(j.input).filename(), std::move(j.error)});
  std::stable_sort(entries.begin(), entries.end(),
                   [](const FolderEntry& x, const FolderEntry& y) { return x.file < y.file; });
  return entries;
}

Status collect_jobs(const std::vector<std::string>& inputs, const CollectOptions& opts, std::vector<Job>& jobs) {
  jobs.clear();
  const std::string out_real = real_path(opts.output_dir);
  for (const std::string& arg : inputs) {
    std::error_code ec;
    const fs::path p(arg);
    if (fs::is_directory(p, ec)) {
      // The failed ones are jobs too: the rest goes on.
      for (const FolderEntry& e : scan_folder(p, opts.recursive, out_real)) {
        if (e.error.empty()) {
          jobs.push_back(make_job(e.file, e.rel, opts));
        } else {
          Job j;
          j.input = e.file.string();
          j.error = e.error;
          jobs.push_back(std::move(j));
        }
      }
    } else if (fs::exists(p, ec)) {
      jobs.push_back(make_job(p, p.filename(), opts));
    } else {
      Job j;
      j.input = arg;
      j.error = arg + ": no such file or folder";
      jobs.push_back(j);
    }
  }

  // An input that fails before reading (a missing file) named twice is one failed job: the report lists it once, as
  // `report merge` expects of each image (an existing file named twice is the usage error below: one output).
  std::set<std::string> failed_inputs;
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                            [&](const Job& j) {
                              return !j.error.empty() && j.output.empty() &&
                                     !failed_inputs.insert(fs::path(j.input).lexically_normal().string()).second;
                            }),
             jobs.end());

  // Never write over an input, and never two inputs into one output: both are usage errors. An output is its folder
  // entry (PathResolver::entry): the rename replaces a link there, not where it leads, so two links to one file are two
  // outputs (a link in the output folder to another output was "both map to output", and blocked --skip-existing).
  // An input is every entry of its link chain and where it ends: an output replacing any of them changes what the
  // user named (in/a.png -> out/a.png -> data.png would read the blurred image next time).
  // Names are compared by their folder's device and inode and their own name (PathResolver::key): a folder named two
  // ways, by a bind mount too, is one folder.
  PathResolver paths;
  std::map<std::string, const Job*> input_reals;
  for (const Job& j : jobs)
    for (const std::string& e : paths.chain(j.input)) input_reals.emplace(e, &j);
  // On a case-insensitive disk (vfat, exFAT, a casefold folder) out/x.exr is the entry in/x.EXR when -o is the input
  // folder (--format writes lower-case extensions): names that differ only by case in one folder, one file (device
  // and inode) already there, are taken as one entry. (On a case-sensitive disk that is two hard links, refused
  // alike.)
  std::map<std::pair<dev_t, ino_t>, std::vector<std::pair<fs::path, const Job*>>> input_inodes;
  for (const Job& j : jobs) {
    const fs::path e = paths.entry(j.input);
    struct stat st {};
    if (::lstat(e.c_str(), &st) == 0) input_inodes[{st.st_dev, st.st_ino}].emplace_back(e, &j);
  }
  const auto same_but_case = [](const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  std::map<std::string, const Job*> by_output;
  for (const Job& j : jobs) {
    if (j.output.empty()) continue;
    const fs::path entry = paths.entry(j.output);
    const std::string r = paths.key(entry);
    const Job* overwritten = nullptr;
    if (auto hit = input_reals.find(r); hit != input_reals.end()) overwritten = hit->second;
    struct stat st {};
    if (!overwritten && ::lstat(entry.c_str(), &st) == 0)
      if (auto hit = input_inodes.find({st.st_dev, st.st_ino}); hit != input_inodes.end())
        for (const auto& [e, job] : hit->second)
          if (e.parent_path() == entry.parent_path() && same_but_case(e.filename(), entry.filename()))
            overwritten = job;
    if (overwritten)  // the input hit named where it is another
      return Status::fail("output " + j.output + " for input " + j.input + " would overwrite an input" +
                          (overwritten != &j ? " (" + overwritten->input + ")" : std::string()) +
                          "; choose another -o folder or --format");
    auto [it, inserted] = by_output.emplace(r, &j);
    if (!inserted)
      return Status::fail("inputs " + it->second->input + " and " + j.input + " both map to output " +
                          j.output);
  }
  // Nor the report over either (every shard's jobs: this runs before --shard picks).
  // The report is written where its link chain ends when it is written, after the outputs: an output replacing any
  // link of the chain would take the report (out/a.png -> r.json, --report out/a.png wrote the report over the image).
  if (!opts.report.empty() && opts.report != "-") {
    for (const std::string& r : paths.chain(opts.report)) {
      if (auto it = input_reals.find(r); it != input_reals.end())
        return Status::fail("--report " + opts.report + " would overwrite the input " + it->second->input);
      if (auto it = by_output.find(r); it != by_output.end())
        return Status::fail("--report " + opts.report + " would overwrite the output of " + it->second->input);
    }
  }
  return Status::success();
}

Status parse_shard(const std::string& text, int& k, int& n) {
  const auto slash = text.find('/');
  auto number = [](const std::string& s, int& out) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoi(s);
    return true;
  };
  if (slash == std::string::npos || !number(text.substr(0, slash), k) || !number(text.substr(slash + 1), n) ||
      n < 1 || k < 1 || k > n)
    return Status::fail("--shard '" + text + "' is not K/N with 1 <= K <= N (e.g. 3/8)");
  return Status::success();
}

std::vector<Job> shard_jobs(const std::vector<Job>& jobs, int k, int n) {
  // By input name, so shards given one list in different orders (`ls | sort -r`, files named in another order) still
  // split it: in the given order, two such shards wrote the same half and lost the other, both exiting 0.
  std::vector<const Job*> sorted;
  for (const Job& j : jobs) sorted.push_back(&j);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Job* a, const Job* b) {
    return a->input != b->input ? a->input < b->input : a->output < b->output;
  });
  std::vector<Job> out;
  for (size_t i = size_t(k - 1); i < sorted.size(); i += size_t(n)) out.push_back(*sorted[i]);
  return out;
}

bool pixel_type_fits(const std::string& format, PixelType t) {
  if (format == "png") return t == PixelType::UInt8 || t == PixelType::UInt16;
  if (format == "exr") return t == PixelType::Half || t == PixelType::Float;
  return false;
}

Status output_pixel_type(const std::string& out_format, const ImageMeta& in, const PixelType* forced,
                         PixelType& out) {
  if (forced) {
    if (!pixel_type_fits(out_format, *forced))
      return Status::fail(std::string("pixel type ") + pixel_type_name(*forced) + " cannot be written as " +
                          out_format + " (png: uint8, uint16; exr: half, float)");
    out = *forced;
    return Status::success();
  }
  if (pixel_type_fits(out_format, in.pixel_type)) {
    out = in.pixel_type;
  } else if (out_format == "exr") {
    out = in.pixel_type == PixelType::UInt8 ? PixelType::Half : PixelType::Float;
  } else {
    out = PixelType::UInt16;
  }
  return Status::success();
}

// ---------------------------------------------------------------------------------------------------------
// Temporary outputs and interruption

namespace {

struct TempRegistry {
  std::mutex mutex;
  std::condition_variable idle;
  std::set<std::string> temps;
  int writing = 0;
  int reports_writing = 0;  // of `writing`, the report's (InterruptHold(true))
  bool cancelled = false;
  std::function<void()> on_interrupt;  // the running pipeline's (run_pipeline sets and clears it)
  std::vector<std::string> made_folders;  // the output folders the writers made, outermost first
};

TempRegistry& temps() {
  static TempRegistry r;
  return r;
}

// Test hook: a pause inside each write, so tests can interrupt a run while a temporary file exists.
int write_delay_ms() {
  static const int ms = [] {
    const char* s = std::getenv("GPUBLUR_TEST_WRITE_DELAY_MS");
    return s ? std::atoi(s) : 0;
  }();
  return ms;
}

// The folder an output goes in (-r mirrors the input's sub-folders), noting the ones it makes: a folder whose every
// write failed or was interrupted is removed at the run's end, not left behind empty.
void make_output_folder(const fs::path& dir) {
  if (dir.empty()) return;
  TempRegistry& r = temps();
  std::lock_guard<std::mutex> lock(r.mutex);
  const std::vector<fs::path> missing = missing_folders(dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    if (fs::is_directory(*it, ec)) r.made_folders.push_back(it->string());
}
// Removes the folders make_output_folder made that are empty, innermost first (the registry's mutex held).
void remove_empty_made_folders(TempRegistry& r) {
  for (auto it = r.made_folders.rbegin(); it != r.made_folders.rend(); ++it) ::rmdir(it->c_str());
  r.made_folders.clear();
}

// Moves tmp to final; without overwrite, refuses an existing final atomically where the filesystem can.
Status move_into_place(const std::string& tmp, const std::string& final_path, bool overwrite) {
  if (!overwrite) {
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE) == 0)
      return Status::success();
    if (errno == EEXIST) return Status::fail("output " + final_path + " exists (use --overwrite to replace it)");
    if (errno != EINVAL && errno != ENOSYS)
      return Status::fail(final_path + ": cannot rename " + tmp + " into place: " + std::strerror(errno));
#endif
    std::error_code ec;
    if (fs::exists(final_path, ec))
      return Status::fail("output " + final_path + " exists (use --overwrite to replace it)");
  }
  if (std::rename(tmp.c_str(), final_path.c_str()) != 0)
    return Status::fail(final_path + ": cannot rename " + tmp + " into place: " + std::strerror(errno));
  return Status::success();
}

// A write in flight, as the interrupt thread counts them: from before its temporary exists until its result is
// recorded (released by the destructor, after the caller's `finish`), so an interrupted report holds every image
// whose write the signal stopped.
class WriteSlot {
 public:
  WriteSlot() = default;
  WriteSlot(const WriteSlot&) = delete;
  WriteSlot& operator=(const WriteSlot&) = delete;
  ~WriteSlot() {
    if (!held_) return;
    TempRegistry& r = temps();
    std::lock_guard<std::mutex> lock(r.mutex);
    --r.writing;
    r.idle.notify_all();
  }
  // False once interrupted (nothing more is written); call with the registry's mutex held.
  bool take(TempRegistry& r) {
    if (r.cancelled) return false;
    ++r.writing;
    held_ = true;
    return true;
  }

 private:
  bool held_ = false;
};

// Writes through `write` to a registered temporary name, then renames. The temporary is removed on any
// error, and by the interrupt thread if a signal comes while it exists.
template <typename F>
Status guarded_write(WriteSlot& slot, const std::string& output, bool overwrite, F write) {
  TempRegistry& r = temps();
  const std::string tmp = temp_path_for(output);
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!slot.take(r)) return Status::fail(output + ": interrupted");
    r.temps.insert(tmp);
  }
  // The folder itself, held while the temporary exists: a failed write removes its temporary there even where the
  // folder was moved meanwhile (by its path, the temporary stayed in the moved folder).
  const fs::path parent = fs::path(tmp).parent_path();
  const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  const std::string tmp_name = fs::path(tmp).filename().string();
  Status s;
  try {
    s = write(tmp);
  } catch (const std::exception& e) {  // (out of memory in an encoder): the temporary goes like any failure's
    s = Status::fail(e.what());
  }
  // Adapters name the file they were given; say the output's name, not the temporary's.
  for (size_t at; !s.ok() && (at = s.error.find(tmp)) != std::string::npos;) s.error.replace(at, tmp.size(), output);
  std::unique_lock<std::mutex> lock(r.mutex);
  if (s.ok() && write_delay_ms() > 0)
    r.idle.wait_for(lock, std::chrono::milliseconds(write_delay_ms()), [&] { return r.cancelled; });
  if (r.cancelled) s = Status::fail(output + ": interrupted");
  if (s.ok()) s = move_into_place(tmp, output, overwrite);
  if (!s.ok()) dir >= 0 ? ::unlinkat(dir, tmp_name.c_str(), 0) : ::unlink(tmp.c_str());
  if (dir >= 0) ::close(dir);
  r.temps.erase(tmp);
  return s;
}

// Whether the interrupt thread's report hook has returned: its report is written whole (or its error said).
std::atomic<bool> g_interrupt_report_done{false};

// From now on the next of these signals ends the process at once, 130: the interrupt thread, which runs the report's
// hook and flushes stdout next, may block in a write (a FIFO whose reader never reads, a full pipe, a stalled network
// filesystem) and then waits for no signal (only SIGKILL ended it). A thread of its own, not a handler on the
// interrupt thread: _exit from another thread also ends a thread stuck in a call that only a fatal signal interrupts
// (NFS, FUSE). Without a thread (a process limit) it runs as before.
// A signal counts only from 100 ms after the hook starts: one sent with the first (Ctrl-C and a wrapper forwarding its
// own SIGTERM) is still pending here, or comes a moment later, and ended the run before its report was written. Those
// are taken and dropped, a pending one even where this thread starts late; a second signal from a person comes later.
// The text temporaries are removed by another thread, waited for at most 200 ms: their unlink on a stalled filesystem
// blocks as the write does.
void exit_on_another_signal(const sigset_t& set, bool report) {
  using std::chrono::steady_clock;
  const steady_clock::time_point counts_from = steady_clock::now() + std::chrono::milliseconds(100);
  try {
    std::thread([set, report, counts_from] {
      for (;;) {  // until counts_from, then once more without waiting (one still pending)
        const auto left = std::max(counts_from - steady_clock::now(), steady_clock::duration::zero());
        const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec wait{time_t(ns / 1000000000), long(ns % 1000000000)};
        if (sigtimedwait(&set, nullptr, &wait) < 0 && errno == EAGAIN && ns == 0) break;
      }
      int sig = 0;
      sigwait(&set, &sig);
      static std::atomic<bool> removed{false};
      try {
        std::thread([] {
          remove_text_temporaries();
          removed = true;
        }).detach();
      } catch (const std::system_error&) {
        remove_text_temporaries();
        removed = true;
      }
      for (int i = 0; i < 40 && !removed; ++i) ::usleep(5000);
      // The report is whole where the hook returned (the interrupt thread flushing stdout next, a full pipe).
      const std::string_view say = report && !g_interrupt_report_done
                                       ? "gpublur: interrupted again; exiting without finishing the report\n"
                                       : "gpublur: interrupted again; exiting now\n";
      pollfd err{STDERR_FILENO, POLLOUT, 0};  // said only where it cannot block (stderr a full pipe too)
      if (::poll(&err, 1, 0) == 1 && (err.revents & POLLOUT)) {
        [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, say.data(), say.size());
      }
      _exit(130);
    }).detach();
  } catch (const std::system_error&) {
  }
}

}  // namespace

void install_interrupt_handler() {
  // A file-size limit (ulimit -f) fails the write that meets it (EFBIG, reported for that file) instead of
  // killing the process with its temporaries left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  int waited = 0;
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {  // SIGHUP: the terminal closed, stop as for Ctrl-C
    // One the caller ignores (nohup, `trap '' INT`, a shell's background job) stays ignored: blocked and waited
    // for, it would still come (a nohup'd batch stopped when its terminal closed).
    struct sigaction was {};
    if (sigaction(sig, nullptr, &was) == 0 && was.sa_handler == SIG_IGN) continue;
    sigaddset(&set, sig);
    ++waited;
  }
  if (waited == 0) return;
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  try {
    std::thread([set] {
      int sig = 0;
      sigwait(&set, &sig);
      TempRegistry& r = temps();
      std::unique_lock<std::mutex> lock(r.mutex);
      r.cancelled = true;
      note_interrupted();  // a report's write to a FIFO (the hook's, or one under way) does not wait for a reader
      if (::isatty(2)) std::fputs("\r\033[K", stderr);  // off a progress bar's line
      spdlog::warn("interrupted ({}): removing temporary outputs and stopping",
                   sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
      // Writes under way finish their current call, see `cancelled`, remove their own temporary and record their
      // image. A second signal stops waiting: the temporaries are removed now (one being created this instant
      // could survive).
      r.idle.notify_all();
      const timespec no_wait{0, 0};
      while (r.writing > 0) {
        r.idle.wait_for(lock, std::chrono::milliseconds(50));
        if (sigtimedwait(&set, nullptr, &no_wait) > 0) break;
      }
      for (const auto& t : r.temps) ::unlink(t.c_str());
      remove_text_temporaries();
      remove_empty_made_folders(r);
      // Not where a second signal cut a report's write short: the two would write at once (stdout interleaved).
      const bool report = r.on_interrupt && r.reports_writing == 0;
      exit_on_another_signal(set, report);
      // Still holding the lock: run_pipeline clears the hook under it, so what the hook reads outlives the call.
      if (report) r.on_interrupt();
      g_interrupt_report_done = true;
      // stdout and stderr only, and only where free: fflush(nullptr) waited for stdin's lock, which a main thread
      // reading a list from it (`blur -`) holds, and the process never exited.
      for (std::FILE* f : {stdout, stderr})
        if (ftrylockfile(f) == 0) {
          fflush_unlocked(f);
          funlockfile(f);
        }
      _exit(130);
    }).detach();
  } catch (const std::system_error& e) {
    // No thread to wait for the signals (a process limit): they act as before, ending the process at once.
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    std::fprintf(stderr, "gpublur: warning: cannot start the interrupt thread (%s): a signal ends the run without "
                 "removing its temporary outputs\n", e.what());
  }
}

bool interrupted() {
  TempRegistry& r = temps();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.cancelled;
}

namespace {

// Sets (or, with an empty function, clears) what the interrupt thread runs before it exits; clearing waits for
// a hook that is running. Once a signal has come, clearing never returns: the interrupt thread, waiting for the last
// writes, runs the hook (which reads the caller's state) and ends the process. (Cleared there, the pipeline's last
// write could end, the hook go, and the run exit 130 with an earlier report at its path: 3 of 40 runs of
// E2E.InterruptLeavesNoPartialOutput on a 2-core machine.)
void set_interrupt_hook(std::function<void()> hook) {
  TempRegistry& r = temps();
  std::unique_lock<std::mutex> lock(r.mutex);
  if (!hook && r.cancelled)
    for (;;) r.idle.wait(lock);  // releases the lock to the interrupt thread, which _exits
  r.on_interrupt = std::move(hook);
}

}  // namespace

void arm_interrupt_report(std::function<void()> hook) { set_interrupt_hook(std::move(hook)); }

InterruptReportScope::~InterruptReportScope() { set_interrupt_hook(nullptr); }

void InterruptReportScope::report_written() {
  TempRegistry& r = temps();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.on_interrupt = nullptr;  // never waits: a signal waiting for the caller's hold then exits with no report of its own
}

InterruptHold::InterruptHold(bool report) : report_(report) {
  TempRegistry& r = temps();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.cancelled) return;
  ++r.writing;
  r.reports_writing += report_;
  held_ = true;
}

InterruptHold::~InterruptHold() {
  if (!held_) return;
  TempRegistry& r = temps();
  std::lock_guard<std::mutex> lock(r.mutex);
  --r.writing;
  r.reports_writing -= report_;
  r.idle.notify_all();
}

// ---------------------------------------------------------------------------------------------------------
// The pipeline

// Backend and I/O messages usually name the file; where one does not, say which file it was. The name counts only
// as a whole path in the message: "in/a.png" inside "out/in/a.png: interrupted" is the output's name, not the input's.
std::string error_naming_input(const std::string& input, const std::string& msg) {
  auto bounds = [](char c) {
    return c == ' ' || c == '\'' || c == '"' || c == '(' || c == ':' || c == ',' || c == ')';
  };
  for (size_t at = msg.find(input); !input.empty() && at != std::string::npos; at = msg.find(input, at + 1)) {
    const size_t end = at + input.size();
    if ((at == 0 || bounds(msg[at - 1])) && (end == msg.size() || bounds(msg[end]))) return msg;
  }
  return input + ": " + msg;
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Work {
  size_t index = 0;
  LoadedImage loaded;
  ColorState colour;
  ImageRecord rec;
  // An 8-bit PNG kept as its samples (loaded.packed): the backend converts it with these tables, and gives
  // samples back (`result`) when the output is an 8-bit PNG too, else float pixels (loaded.image).
  bool packed = false, packed_out = false;
  PackedColour packed_colour;
  PackedImage result;
  // Non-finite inputs taken out by the reader and put back by the writer (Plan::nonfinite_reach, core/nonfinite.hpp):
  // both scans on the I/O threads, none in the backend's stage.
  NonfiniteMarks nonfinite;
};

// The packed form of run_backend: 8-bit samples up, the plan, samples (or float pixels) down.
Status run_backend_packed(Backend& backend, const Plan& plan, Work& w) {
  Plan scratch;  // (plan_for_channels)
  double ms = 0;
  if (Status s = backend.upload_packed(w.loaded.packed, w.packed_colour, ms); !s) return s;
  w.loaded.packed = PackedImage{};
  w.rec.ms.upload += ms;
  RunInfo info;
  const Plan& run = plan_for_channels(plan, alpha_channels(w.loaded.meta), 0, 4, scratch);
  if (Status s = backend.run(run, info); !s) return s;
  w.rec.ms.compute += info.compute_ms + info.prepare_ms;
  if (!info.path.empty()) w.rec.path = info.path;
  const int width = w.loaded.image.width, height = w.loaded.image.height, channels = w.loaded.image.channels;
  int ow = 0, oh = 0, oc = 0;
  if (w.packed_out) {
    if (Status s = backend.download_packed(w.result, w.packed_colour, ms); !s) return s;
    ow = w.result.width, oh = w.result.height, oc = w.result.channels;
  } else {
    if (Status s = backend.download_take(w.loaded.image, ms); !s) return s;
    ow = w.loaded.image.width, oh = w.loaded.image.height, oc = w.loaded.image.channels;
  }
  w.rec.ms.download += ms;
  if (ow != width || oh != height || oc != channels)
    return Status::fail("backend returned a " + std::to_string(ow) + "x" + std::to_string(oh) + "x" +
                        std::to_string(oc) + " image");
  return Status::success();
}

Status run_backend(Backend& backend, const Plan& plan, Image& img, const std::vector<int>& alphas, ImageRecord& rec) {
  // Backends take 1..4 channels: wider images go through in groups, all channels blurred, each group with its alpha
  // (plan_for_channels: bilateral's colour difference leaves it out).
  Plan scratch;
  const bool whole = img.channels <= 4;
  const int width = img.width, height = img.height, channels = img.channels;  // img is handed over whole
  for (int first = 0; first < channels; first += 4) {
    const int count = std::min(4, channels - first);
    Image part = whole ? Image() : extract_channels(img, first, count);
    Image& src = whole ? img : part;
    double ms = 0;
    // The _take calls let a host backend (cpu) move the buffers instead of copying them.
    if (Status s = backend.upload_take(src, ms); !s) return s;
    rec.ms.upload += ms;
    RunInfo info;
    if (Status s = backend.run(plan_for_channels(plan, alphas, first, count, scratch), info); !s) return s;
    rec.ms.compute += info.compute_ms + info.prepare_ms;
    if (!info.path.empty()) rec.path = info.path;
    // A whole image comes back into its own buffer (a GPU backend's upload left it as it was): no allocation.
    Image part_out;
    Image& out = whole ? img : part_out;
    if (Status s = backend.download_take(out, ms); !s) return s;
    rec.ms.download += ms;
    if (out.width != width || out.height != height || out.channels != count)
      return Status::fail("backend returned a " + std::to_string(out.width) + "x" + std::to_string(out.height) +
                          "x" + std::to_string(out.channels) + " image");
    if (!whole) insert_channels(out, first, img);
  }
  return Status::success();
}

void log_result(const ImageRecord& r) {
  if (r.skipped)
    spdlog::info("{}: output {} exists: skipped", r.input, r.output);
  else if (r.ok)
    spdlog::info("{} -> {}  ({}x{}x{}, {:.1f} ms)", r.input, r.output, r.width, r.height, r.channels,
                 r.ms.total());
  else
    spdlog::error("{}", r.error);
}

}  // namespace

int auto_io_threads(const std::vector<Job>& jobs, std::string* why) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  // The largest of the first few inputs stands for all: float32 working copy plus the codec's buffers.
  double image_bytes = 0;
  int probed = 0;
  for (const Job& j : jobs) {
    if (!j.error.empty()) continue;
    int w = 0, h = 0, c = 0;
    if (probe_image(j.input, w, h, c)) image_bytes = std::max(image_bytes, double(w) * h * c * 4.0 * 1.5);
    if (++probed == 8) break;
  }
  const double budget = available_memory_bytes() / 2;
  int by_memory = cores;
  if (image_bytes > 0) by_memory = int(std::max(1.0, std::floor((budget / image_bytes - 2) / 4)));
  const int n = std::max(1, std::min(cores, by_memory));
  if (why)
    *why = fmt::format("{} decode + {} encode threads ({} cores; ~{:.0f} MB per image in flight, {:.0f} MB of "
                       "memory for them)",
                       n, n, cores, image_bytes / 1e6, budget / 1e6);
  return n;
}

Status read_working(ImageIO& io, const std::string& path, const ReadLimits& limits, const ColorOptions& color,
                    LoadedImage& out, ColorState& state, PackedColour* packed) {
  out = LoadedImage{};
  state = ColorState{};
  if (Status s = io.read(path, limits, out); !s) {
    out = LoadedImage{};  // nothing half-read is passed on
    return s;
  }
  const Image& img = out.image;
  if (!out.packed.samples.empty()) {  // asked for (limits.keep_packed): converted where the backend is
    if (img.channels < 1 || img.channels > 4 || out.packed.samples.size() != img.value_count() ||
        out.packed.value_count() != img.value_count() || !img.data.empty())
      return Status::fail("reader returned an inconsistent image");
    const PackedColour tables = packed_colour(out.meta, img.channels, color, state);
    if (packed) *packed = tables;
    return Status::success();
  }
  if (img.channels < 1 || img.value_count() != img.data.size())
    return Status::fail("reader returned an inconsistent image");
  state = to_working(out.image, out.meta, color);
  return Status::success();
}

void run_pipeline(const std::vector<Job>& jobs, Backend& backend, const Plan& plan, const PipelineOptions& opts,
                  RunRecord& run) {
  run_pipeline(jobs, std::vector<Backend*>{&backend}, plan, opts, run);
}

void run_pipeline(const std::vector<Job>& jobs, const std::vector<Backend*>& backends, const Plan& plan,
                  const PipelineOptions& opts, RunRecord& run) {
  std::promise<std::vector<Backend*>> opened;
  opened.set_value(backends);
  run_pipeline(jobs, PendingBackends{opened.get_future().share(), false, {}}, plan, opts, run);
}

void run_pipeline(const std::vector<Job>& jobs, const PendingBackends& pending, const Plan& plan,
                  const PipelineOptions& opts, RunRecord& run) {
  const auto t0 = Clock::now();
  const size_t n = jobs.size();
  run.images.assign(n, ImageRecord{});
  std::mutex log_mutex;  // one line per finished image, whole
  size_t done = 0;
  std::vector<char> finished(n, 0);
  // The header fields a backend settles while it runs (GL's storage is the texture format of its last image, r32f for
  // one channel), as of its last image: an interrupted run's report says those, not the ones seen at open. Read on
  // the backend's own thread, kept under log_mutex for the interrupt hooks.
  std::string ran_storage, ran_timer_clock;
  auto finish = [&](size_t i, ImageRecord rec) {
    rec.ok = rec.error.empty();
    std::lock_guard<std::mutex> lock(log_mutex);
    finished[i] = 1;
    if (!rec.ok && opts.on_progress && !opts.log_each_ok) std::fputs("\r\033[K", stderr);  // clear the bar's line
    if (!rec.ok || opts.log_each_ok) log_result(rec);
    run.images[i] = std::move(rec);
    if (opts.on_progress) opts.on_progress(++done, n);
  };

  if (opts.on_interrupt)
    set_interrupt_hook([&] {
      RunRecord partial;
      {
        std::lock_guard<std::mutex> lock(log_mutex);
        for (size_t i = 0; i < n; ++i)
          if (finished[i]) partial.images.push_back(run.images[i]);
        partial.storage = ran_storage, partial.timer_clock = ran_timer_clock;
      }
      partial.io_threads = run.io_threads;
      partial.wall_ms = ms_since(t0);
      partial.interrupted = true;
      opts.on_interrupt(partial);
    });
  int threads = opts.io_threads;
  if (threads <= 0) {
    std::string why;
    threads = auto_io_threads(jobs, &why);
    spdlog::debug("I/O: {}", why);
  }
  run.io_threads = threads;
  BoundedQueue<Work> decoded{size_t(threads)}, computed{size_t(threads)};
  std::atomic<size_t> next{0};
  std::atomic<int> readers_left{threads};

  // Whether 8-bit PNGs stay bytes: every backend converts on a device (or GPUBLUR_PACKED_IO says); before the
  // backends are open, the caller's guess.
  std::mutex packed_mutex;
  int packed_known = -1;  // -1: backends not open yet
  auto keep_packed = [&]() -> bool {
    if (opts.packed_io != -1) return opts.packed_io == 1;
    std::lock_guard<std::mutex> lock(packed_mutex);
    if (packed_known < 0) {
      if (pending.ready.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return pending.packed_guess;
      bool all = true;
      for (Backend* b : pending.ready.get()) all = all && b->prefers_packed();
      packed_known = all ? 1 : 0;
    }
    return packed_known == 1;
  };
  auto reader = [&] {
    std::unique_ptr<ImageIO> io = opts.make_io ? opts.make_io() : nullptr;
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      const Job& job = jobs[i];
      Work w;
      w.index = i;
      w.rec.input = job.input;
      w.rec.output = job.output;
      if (!job.error.empty()) {
        w.rec.error = job.error;
        finish(i, std::move(w.rec));
        continue;
      }
      // The path itself, not where a link leads: a link to nothing is there for the rename, which would refuse it
      // after the blur. Only a file (or a link to one) is a finished output to skip.
      std::error_code ec;
      if (!opts.overwrite && fs::exists(fs::symlink_status(job.output, ec))) {
        const fs::file_status target = fs::status(job.output, ec);
        if (opts.skip_existing && fs::is_regular_file(target))
          w.rec.skipped = true;
        else if (opts.skip_existing)
          w.rec.error = job.input + ": output " + job.output + " exists and is no file (" +
                        (fs::is_directory(target) ? "a folder" : fs::exists(target) ? "not a regular file"
                                                                                   : "a link to nothing") +
                        "): not a finished output to skip; remove it";
        else
          w.rec.error = job.input + ": output " + job.output + " exists (use --overwrite to replace it)";
        finish(i, std::move(w.rec));
        continue;
      }
      if (!io) {
        w.rec.error = job.input + ": no image I/O adapter";
        finish(i, std::move(w.rec));
        continue;
      }
      const auto tr = Clock::now();
      try {
        ReadLimits limits = opts.limits;
        limits.keep_packed = keep_packed();
        Status s;
        {
          WarningCapture capture(w.rec.warnings);
          s = read_working(*io, job.input, limits, opts.color, w.loaded, w.colour, &w.packed_colour);
        }
        if (w.loaded.image.width > 0 || w.loaded.image.channels > 0) {  // read, if inconsistent
          const Image& img = w.loaded.image;
          w.rec.width = img.width, w.rec.height = img.height, w.rec.channels = img.channels;
          w.rec.pixel_type = pixel_type_name(w.loaded.meta.pixel_type);
        }
        // An output PNG cannot take (more than four channels, colours out of PNG's order) fails here, before the
        // blur, with the message the writer would give (a hunt's layered EXRs were blurred, then refused).
        if (s && job.format == "png")
          s = io::png_layout_fits(job.output, w.loaded.image.channels, w.loaded.meta.channel_names);
        if (!s) {
          w.rec.error = error_naming_input(job.input, s.error);
          w.rec.ms.read = ms_since(tr);  // a failed read took its time too
          finish(i, std::move(w.rec));
          continue;
        }
        if (!w.loaded.packed.samples.empty()) {
          w.packed = true;
          PixelType out_type;
          w.packed_out = job.format == "png" &&
                         output_pixel_type(job.format, w.loaded.meta, opts.has_pixel_type ? &opts.pixel_type : nullptr,
                                           out_type) &&
                         out_type == PixelType::UInt8;
        }
        // Only float files hold non-finite values (PNG decodes to finite ones).
        if (!w.packed && plan.nonfinite_reach >= 0 && w.loaded.meta.format == "exr" &&
            take_nonfinite(w.loaded.image, w.nonfinite))
          spdlog::info("{}: {} non-finite input value(s) (NaN, Inf): their footprints come out as the direct "
                       "convolution's", job.input, w.nonfinite.count);
        w.rec.ms.read = ms_since(tr);
      } catch (const std::bad_alloc&) {  // its what() says only "std::bad_alloc"
        w.rec.error = job.input + ": out of memory reading it";
        w.rec.ms.read = ms_since(tr);
        finish(i, std::move(w.rec));
        continue;
      } catch (const std::exception& e) {
        w.rec.error = error_naming_input(job.input, e.what());
        w.rec.ms.read = ms_since(tr);
        finish(i, std::move(w.rec));
        continue;
      }
      decoded.push(std::move(w));
    }
    if (--readers_left == 0) decoded.close();
  };

  auto writer = [&] {
    std::unique_ptr<ImageIO> io = opts.make_io ? opts.make_io() : nullptr;
    while (auto item = computed.pop()) {
      Work& w = *item;
      const Job& job = jobs[w.index];
      WriteSlot slot;  // held until `finish` below has recorded the result
      if (!io) {
        w.rec.error = job.input + ": no image I/O adapter";
        finish(w.index, std::move(w.rec));
        continue;
      }
      try {
        WarningCapture capture(w.rec.warnings);  // ends before `finish` moves the record
        const auto tw = Clock::now();
        ImageMeta meta = w.loaded.meta;
        meta.format = job.format;
        meta.shown_name = job.output;  // the writers' warnings name the output, not its temporary
        meta.png_compression = opts.png_compression;
        if (!opts.exr_compression.empty()) meta.exr_compression = opts.exr_compression;
        Status s = output_pixel_type(job.format, w.loaded.meta, opts.has_pixel_type ? &opts.pixel_type : nullptr,
                                     meta.pixel_type);
        if (opts.has_pixel_type || job.format != w.loaded.meta.format) meta.channel_types.clear();
        if (job.format == "exr" && w.loaded.meta.format == "png") io::png_text_to_utf8(meta);
        if (job.format == "png" && w.loaded.meta.format == "exr") io::exr_text_keys_to_latin1(meta, job.output);
        if (s) make_output_folder(fs::path(job.output).parent_path());
        if (s && w.packed_out) {
          meta.srgb = w.packed_colour.out_srgb;
          meta.clipped = w.result.clipped;  // what the backend's packing clipped, said by the writer
          s = guarded_write(slot, job.output, opts.overwrite,
                            [&](const std::string& tmp) { return write_packed_png(*io, tmp, std::move(w.result), meta); });
        } else if (s) {
          if (plan.nonfinite_taps)
            put_nonfinite(w.nonfinite, *plan.nonfinite_taps, plan.border, w.loaded.image);
          else
            put_nonfinite(w.nonfinite, plan.nonfinite_reach, plan.border, w.loaded.image);
          from_working(w.loaded.image, w.colour, job.format, opts.color, meta);
          s = guarded_write(slot, job.output, opts.overwrite,
                            [&](const std::string& tmp) { return io->write(tmp, w.loaded.image, meta); });
        }
        w.rec.ms.write = ms_since(tw);
        if (!s) w.rec.error = error_naming_input(job.input, s.error);
      } catch (const std::exception& e) {
        w.rec.error = error_naming_input(job.input, e.what());
      }
      w.loaded = LoadedImage{};  // free the pixels before the next image
      w.result = PackedImage{};
      finish(w.index, std::move(w.rec));
    }
  };

  // Writers first, then readers; a process limit (ulimit -u) that refuses a thread leaves fewer of them, and none
  // of one kind fails the run (after joining those started) instead of ending the process.
  std::vector<std::thread> pool;
  int writers = 0, readers = 0;
  std::string refused;
  try {
    for (; writers < threads; ++writers) pool.emplace_back(writer);
    for (; readers < threads; ++readers) pool.emplace_back(reader);
  } catch (const std::system_error& e) {
    refused = e.what();
  }
  if (readers < threads && (readers_left -= threads - readers) == 0) decoded.close();
  if (!refused.empty()) {
    if (readers == 0) {
      computed.close();
      for (auto& t : pool) t.join();
      if (opts.on_interrupt) set_interrupt_hook(nullptr);
      throw std::runtime_error("cannot start the I/O threads: " + refused);
    }
    spdlog::warn("{} reader(s) and {} writer(s) of {} each started: {}", readers, writers, threads, refused);
  }
  run.io_threads = std::min(readers, writers);

  // A backend stage per backend (one GPU context, one thread each); the first runs on this thread.
  auto stage = [&](Backend& backend) {
    while (auto item = decoded.pop()) {
      Work& w = *item;
      Status s;
      {
        WarningCapture capture(w.rec.warnings);
        s = guarded_run(backend, plan, w.rec.width, w.rec.height, [&] {
          return w.packed ? run_backend_packed(backend, plan, w)
                          : run_backend(backend, plan, w.loaded.image, alpha_channels(w.loaded.meta), w.rec);
        });
      }
      if (!s) {
        w.rec.error = error_naming_input(w.rec.input, s.error);
        finish(w.index, std::move(w.rec));
        continue;
      }
      {
        std::string storage = backend.storage(), clock = backend.timer_clock();
        std::lock_guard<std::mutex> lock(log_mutex);
        ran_storage = std::move(storage), ran_timer_clock = std::move(clock);
      }
      computed.push(std::move(w));
    }
  };
  // The readers decode meanwhile. An open that throws (PendingBackends::open should keep its promise whatever it
  // meets) runs no backend: the readers stop and are joined below, not left running into std::terminate.
  std::vector<Backend*> backends;
  try {
    if (pending.open) pending.open();
    backends = pending.ready.get();
  } catch (const std::exception& e) {
    spdlog::error("the backends did not open: {}", e.what());
  }
  if (backends.empty()) {
    next = n;  // no more reads; drop what was read (the caller reports why the backends did not open)
    while (decoded.pop()) {
    }
  } else {
    std::vector<std::thread> stages;
    for (size_t b = 1; b < backends.size(); ++b) {
      try {
        stages.emplace_back(stage, std::ref(*backends[b]));
      } catch (const std::system_error& e) {  // the queue is shared: the backends that run take its images
        spdlog::warn("{} of {} backends run: {}", b, backends.size(), e.what());
        break;
      }
    }
    stage(*backends[0]);
    for (auto& t : stages) t.join();
  }
  computed.close();
  for (auto& t : pool) t.join();
  {
    std::lock_guard<std::mutex> lock(temps().mutex);
    remove_empty_made_folders(temps());
  }
  run.wall_ms = ms_since(t0);
  // Armed on with the whole run until the caller's InterruptReportScope ends (the report is written after this).
  // Its images only: the caller's hook takes the header, which its thread may still change.
  if (opts.on_interrupt)
    set_interrupt_hook([&run, report = opts.on_interrupt, storage = ran_storage, clock = ran_timer_clock] {
      RunRecord whole;
      whole.storage = storage, whole.timer_clock = clock;
      whole.images = run.images;
      whole.io_threads = run.io_threads;
      whole.wall_ms = run.wall_ms;
      whole.interrupted = true;
      report(whole);
    });
}

}  // namespace gpublur
