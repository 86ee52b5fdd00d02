// The batch pipeline of `gpublur blur`: inputs -> jobs (output paths decided up front, so collisions and
// "output == input" are usage errors before any work), then per image:
//   read + to working colour space (I/O threads) -> upload/run/download per <=4-channel group (the calling
//   thread, which owns the backend) -> back to the file's colour space + write to a temporary name + rename
//   (I/O threads).
// The stages hand over through bounded queues, so memory stays flat for any number of files.
// A bad file is an error for that file; the batch goes on.
#pragma once
#include <filesystem>
#include <functional>
#include <future>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/color.hpp"
#include "core/image.hpp"
#include "core/io/image_io.hpp"
#include "core/output_file.hpp"
#include "core/plan.hpp"
#include "core/report.hpp"
#include "core/status.hpp"

namespace gpublur {

struct Job {
  std::string input;
  std::string output;  // may be "" when error is set
  std::string format;  // output format: "exr" or "png" ("" when error is set)
  std::string error;   // set when the job is known to fail before reading (missing file, wrong extension)
};

struct CollectOptions {
  std::string output_dir;
  bool recursive = false;
  std::string format;  // "" keeps each file's format and name; "exr"/"png" sets format and extension (lower case)
  std::string report;  // the --report file ("" or "-": none), which must be no input's or output's file
};

// True for names ending in .exr or .png (any case): what folder scans pick up.
bool is_image_name(const std::string& path);
// A path's real form (absolute, symbolic links followed whether or not their targets exist yet, . and .. resolved): one
// file named two ways gives one string (outputs against inputs, inputs given twice).
std::string real_path(const std::filesystem::path& p);
// A newline-separated list of paths (stdin for "-"): trailing CR/spaces trimmed, empty lines skipped; or, where it
// holds a NUL byte, a NUL-separated one (find -print0): names as they are, empty ones skipped.
std::vector<std::string> read_path_list(std::istream& in);
// The inputs as given, each `-` replaced by the list read_path_list reads from stdin (blur and quality take it).
// Fails where stdin cannot be read (stdin a folder: `< dir`, or closed: `<&-`), which is not an empty list.
Status expand_stdin_lists(const std::vector<std::string>& args, std::vector<std::string>& out);
// An image's error message as the report gives it: msg, prefixed with the input's name unless msg names the input
// as a whole path.
std::string error_naming_input(const std::string& input, const std::string& msg);
// `dir` and those of its parents that do not exist, innermost first: the folders creating `dir` would make.
std::vector<std::filesystem::path> missing_folders(const std::filesystem::path& dir);
// main() found stdin closed and holds /dev/null there (so that no file the run opens takes descriptor 0): a `-` list
// is then an error, not an empty list.
void note_stdin_closed();

// One entry of a folder scan: an image file, or a name that cannot be read as one, with its error.
struct FolderEntry {
  std::filesystem::path file, rel;  // rel: the path relative to the folder scanned
  std::string error;                // set: not an image to read
};
// The image files of folder `dir` as blur and quality scan it: .exr/.png names, dot-files skipped; when recursive, its
// sub-folders too (not hidden ones, not through symbolic links, not the folder whose real path is skip_real, by its
// device and inode where it exists: a bind mount of it is skipped too). An
// image's name that holds no regular file (a broken symbolic link: a missing frame) and a folder that cannot be listed
// are entries with their error, never skipped in silence, sorted by path among the files, so that blur and quality
// list them alike. An empty scan is warned about.
std::vector<FolderEntry> scan_folder(const std::filesystem::path& dir, bool recursive,
                                     const std::string& skip_real = "");

// Expands files and folders into jobs with their output paths. Folder scans are non-recursive unless
// opts.recursive (then the relative structure under the folder is kept), pick only .exr/.png files, skip
// dot-files and the output folder itself, and are sorted; a folder that cannot be listed is a job with its error.
// Returns a usage error (nothing processed) when an
// output path equals any input (compared as real paths), two inputs map to the same output, or opts.report is an
// input's or an output's file.
Status collect_jobs(const std::vector<std::string>& inputs, const CollectOptions& opts, std::vector<Job>& jobs);

// --shard K/N: "K/N" with 1 <= K <= N parsed into k, n (usage error text otherwise).
Status parse_shard(const std::string& text, int& k, int& n);
// Shard K of N of the jobs sorted by input name (whatever order the inputs came in): every N-th job starting
// with the K-th. Deterministic, so N independent processes (Slurm array tasks, GNU parallel, Kubernetes
// indexed jobs) given K = 1..N cover every input exactly once with no coordinator; round-robin keeps shards
// balanced when file sizes drift along the sorted names.
std::vector<Job> shard_jobs(const std::vector<Job>& jobs, int k, int n);

// The pixel type written: `forced` if given (must fit the format), else the input's when the format is kept,
// else uint8 -> half, uint16 -> float (png -> exr) and half/float -> uint16 (exr -> png).
bool pixel_type_fits(const std::string& format, PixelType t);
Status output_pixel_type(const std::string& out_format, const ImageMeta& in, const PixelType* forced,
                         PixelType& out);


struct PipelineOptions {
  ColorOptions color;
  bool has_pixel_type = false;
  PixelType pixel_type = PixelType::Float;
  bool overwrite = false;  // replace existing outputs; without it an existing output is an error for that file
  bool skip_existing = false;  // an existing output's input is not read: recorded as skipped (resuming a batch)
  int png_compression = 6;      // zlib level of PNG outputs (libvips's default too)
  std::string exr_compression;  // EXR outputs: "" keeps the input's (zip for PNG inputs), else OpenEXR's name
  int io_threads = 0;      // decode threads and, as many again, encode threads; 0: auto_io_threads()
  // Makes one I/O adapter per I/O thread (e.g. make_image_io(name)); passed in so core does not link the
  // adapters.
  std::function<std::unique_ptr<ImageIO>()> make_io;
  ReadLimits limits;
  // 8-bit PNGs stay 8-bit until the backend, which converts them on its device (core/packed.hpp): -1 where
  // every backend prefers it (Backend::prefers_packed), 1 always (the host forms where a backend has no device
  // form), 0 never: every image is converted to float on the host first. The files written are the same.
  int packed_io = -1;
  // Called (from any pipeline thread, serialised) after each image finishes, with the count done so far.
  std::function<void(size_t done, size_t total)> on_progress;
  bool log_each_ok = true;  // an info line per finished image (a progress bar turns it off; errors always log)
  // Called once on the interrupt thread (SIGINT/SIGTERM during the run), after the temporaries are removed and
  // before the process exits 130, with the images finished so far (no other field of the run is set; wall_ms
  // and interrupted are, and storage and timer_clock as the backend gave them after its last image, "" before
  // any), so the caller can write a report that says what was done. Still called with the whole run after
  // run_pipeline returns, until the caller's InterruptReportScope ends (which it must hold).
  std::function<void(RunRecord& finished)> on_interrupt;
};

// The default number of decode (and of encode) threads for these jobs: one per core, fewer where memory
// would not hold the images in flight (about 4N+2 of them, sized from the first inputs' headers, within half
// of the available memory). `why` (optional) says how it was decided.
int auto_io_threads(const std::vector<Job>& jobs, std::string* why = nullptr);

// Reads `path` with `io` and converts it to the blur's working space as `opts` says (linear light,
// premultiplied alpha; core/color.hpp): what the pipeline does to every input before the backend sees it, so
// other tools (`gpublur quality`) read images exactly as the blur does. out.image is kept when the reader
// returned an inconsistent image (so callers can still report its size) and cleared on a failed read.
// With limits.keep_packed an 8-bit PNG stays in out.packed; its colour tables (core/packed.hpp) go to
// `packed` where given.
Status read_working(ImageIO& io, const std::string& path, const ReadLimits& limits, const ColorOptions& color,
                    LoadedImage& out, ColorState& state, PackedColour* packed = nullptr);

// Runs every job; fills run.images (in job order) and run.wall_ms. The backend is used from the calling
// thread only.
void run_pipeline(const std::vector<Job>& jobs, Backend& backend, const Plan& plan, const PipelineOptions& opts,
                  RunRecord& run);
// The same with one backend stage per backend (one per GPU, `--device all`), all taking decoded images from
// one queue: each image goes to whichever stage is free.
void run_pipeline(const std::vector<Job>& jobs, const std::vector<Backend*>& backends, const Plan& plan,
                  const PipelineOptions& opts, RunRecord& run);

// Backends that are still being opened when the pipeline starts, so that the readers decode the first images
// while the driver starts (a CUDA context takes ~215 ms, a 4K PNG's decode ~240 ms: docs/performance.md, cold
// start). `ready` gives the backends once open, or none where opening failed: the readers then stop and the
// images read so far are dropped unrecorded (the caller reports the failure). Images read before the backends
// are known keep their 8-bit samples as `packed_guess` says (either form gives the same result).
// `open`, where given, is run by run_pipeline on its calling thread once the readers have started, and makes
// `ready` ready: the backends are then opened on the thread that runs the first backend's stage, so a GL
// context never moves between threads (with an opener thread of its own, NVIDIA's GL took ~40 ms more per
// process on an H100, gone with this: docs/performance.md, cold start).
struct PendingBackends {
  std::shared_future<std::vector<Backend*>> ready;
  bool packed_guess = false;
  std::function<void()> open;
};
void run_pipeline(const std::vector<Job>& jobs, const PendingBackends& pending, const Plan& plan,
                  const PipelineOptions& opts, RunRecord& run);

// Blocks SIGINT/SIGTERM in this thread (call before any other thread starts, so all inherit it) and starts
// a thread that waits for them: it removes every temporary output in flight, waits for writes under way to
// stop, runs the pipeline's PipelineOptions::on_interrupt if a run is under way, and exits the process with
// status 130. No partial output is left. A second signal while it waits for writes stops the waiting; one while the
// hook runs (its write may block: a FIFO nobody reads, a full pipe) ends the process at once, 130, without the report
// (one still pending when the hook starts, or coming in its first 100 ms, is taken as sent with the first: dropped).
void install_interrupt_handler();
// A caller that sets PipelineOptions::on_interrupt holds one of these from before run_pipeline until its report is
// written: run_pipeline returns with the hook still armed, then with the whole run (interrupted: true), so a signal
// before the report is written still ends in a report that says so. report_written() (under the report's
// InterruptHold) disarms it: a signal after that changes the exit status only, the report whole; the destructor too.
class InterruptReportScope {
 public:
  InterruptReportScope() = default;
  InterruptReportScope(const InterruptReportScope&) = delete;
  InterruptReportScope& operator=(const InterruptReportScope&) = delete;
  ~InterruptReportScope();
  static void report_written();
};

// For a command with no pipeline (bench): from now on a signal runs `hook` on the interrupt thread before the process
// exits 130, until the caller's InterruptReportScope ends or report_written() is called (the final write under an
// InterruptHold(true)). The hook may run while the caller works: what it reads needs a lock of its own.
void arm_interrupt_report(std::function<void()> hook);

// While one lives, a signal waits for it before the interrupt thread acts (as it waits for image writes under way):
// a report's write is not cut off with its temporary left behind. False where a signal came first (the interrupt
// thread is reporting: write nothing). `report`: the report itself, or what its hook reads, is being written; a
// second signal that stops the waiting then writes no report of its own (the two would write at once).
class InterruptHold {
 public:
  explicit InterruptHold(bool report = false);
  InterruptHold(const InterruptHold&) = delete;
  InterruptHold& operator=(const InterruptHold&) = delete;
  ~InterruptHold();
  explicit operator bool() const { return held_; }

 private:
  bool held_ = false, report_ = false;
};

// Whether SIGINT/SIGTERM has arrived: the process's exit status is then 130 whichever thread exits first (the
// main thread can finish the pipeline, its writers having removed their temporaries, before the handler exits).
bool interrupted();

}  // namespace gpublur
