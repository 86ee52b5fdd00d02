// What the GL backend lends each primitive's setup (gpu/gl/passes/): the device's limits, the running program's
// images on the device, compiled programs, buffers and textures kept across runs, samplers and framebuffers.
// Every call needs the backend's GL context current. Internal to gpu/gl.
#pragma once
#include <glad/gl.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/border.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "gpu/gl/gl_tiles.hpp"

namespace gpublur {

// One image of the running program on the device. Pixel (x, y) of the image's frame (core/program.hpp) is
// stored at (x + pad, y + pad).
struct GlImage {
  GLuint tex = 0;  // float32 images: a texture of the padded size in the context's store_format()
  GLuint buf = 0;  // float64 images: a storage buffer of one dvec4 per pixel, rows of stored_w() pixels
  int w = 0, h = 0, pad = 0;
  bool f64 = false;
  int stored_w() const { return w + 2 * pad; }
  int stored_h() const { return h + 2 * pad; }
};

// One step of a schedule: `work` issues its dispatches/draws (with the memory barriers between its own
// dispatches; the backend puts step_barriers' barriers between steps and GL_ALL_BARRIER_BITS after the last); it covers
// `passes` passes of the program (2 where a setup fuses a pair); `form` names what it runs (RunInfo.path is
// the steps' forms).
struct GlStep {
  std::function<void()> work;
  int passes = 1;
  std::string form;
};

// Between two steps: steps read the earlier steps' images through texture fetches. step_barriers
// (step_barriers.hpp) adds the image-access and storage bits where a step needs them.
constexpr GLbitfield kStepBarrier = GL_TEXTURE_FETCH_BARRIER_BIT;

struct GlLimits {
  int max_shared = 0, max_invocations = 0, max_texture = 0, max_ubo = 0;
  long long max_ssbo = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
  // The largest draw: GL_MAX_VIEWPORT_DIMS and GL_MAX_FRAMEBUFFER_WIDTH / HEIGHT, the lesser of each (the fragment
  // form draws whole images; a driver may allow textures larger than either).
  int max_draw_w = 0, max_draw_h = 0;
  bool llvmpipe = false;   // Mesa's CPU driver: it ends a shader's loops after 65535 iterations in all
  std::string renderer;
};

// Whether one draw covers a w x h target (GlLimits::max_draw_w / h).
inline bool draw_fits(const GlLimits& l, int w, int h) { return w <= l.max_draw_w && h <= l.max_draw_h; }

// Loop iterations per invocation and dispatch on llvmpipe (see GlLimits::llvmpipe), counted as if no loop
// were unrolled; setups whose loops grow with a kernel split their work over dispatches to stay under it.
constexpr long kLoopBudget = 16384;

inline GLuint groups(int n, int per_group) { return GLuint((n + per_group - 1) / per_group); }
// n work groups as x, y counts, split over y where n exceeds a dispatch's 65535 in x: the shader's group is
// x + 65535 y, and groups past n return.
struct SplitGroups {
  GLuint x, y;
};
inline SplitGroups split_groups(long long n) { return {GLuint(n < 65535 ? n : 65535), GLuint((n + 65534) / 65535)}; }
// Dispatches n work groups so split.
inline void dispatch_split(long long n) {
  const SplitGroups g = split_groups(n);
  glDispatchCompute(g.x, g.y, 1);
}

// The protocol of shaders whose window loop is split over dispatches on llvmpipe (kLoopBudget): uniforms for
// the window rows [begin, end) of this dispatch, `resume` (add to the partial sums kept from the previous
// one) and `last` (finish and store). On GPUs one dispatch takes every row.
struct RowChunks {
  GLint begin = -1, end = -1, resume = -1, last = -1;
  RowChunks(GLuint prog, const char* begin_name, const char* end_name);
  // Dispatches gx x gy groups per chunk of `rows` of the `total` window rows, with `barrier` between chunks.
  void dispatch(GLuint prog, int total, int rows, GLuint gx, GLuint gy, GLbitfield barrier) const;
};

class GlPassContext {
 public:
  explicit GlPassContext(bool half) : half_(half) {}
  ~GlPassContext();  // the GL context must be current, unless abandon() was called
  void abandon();    // forgets every GL object without deleting it (the context is gone or not current)
  GlPassContext(const GlPassContext&) = delete;
  GlPassContext& operator=(const GlPassContext&) = delete;

  Status init(const std::string& renderer);
  const GlLimits& limits() const { return limits_; }
  bool half() const { return half_; }
  // The images' texture format: as many channels as the uploaded image has (three take RGBA: there is no
  // three-channel image format for image stores), so one- and two-channel images move a quarter and a half of
  // RGBA's bytes. A fetch fills the missing channels with G, B = 0, A = 1, as the RGBA upload did.
  GLenum store_format() const;
  const char* store_format_name() const;  // "RGBA32F", "R16F", ...
  const char* store_format_glsl() const;  // the layout qualifier: "rgba32f", "r16f", ...
  // conv1d.comp's default tiles per axis (device limits), checked once at init.
  const SepTile& sep_tile_default(int axis) const { return axis == 0 ? tile_h_ : tile_v_; }

  // Images 0 (input) and 1 (output) as w x h textures of store_format() (set_channels first); a new size or
  // format frees every image-sized object.
  Status ensure_io(int w, int h);
  int width() const { return width_; }
  int height() const { return height_; }
  // The uploaded image's channel count (it chooses store_format(); a step's work reads it at run time).
  int channels() const { return channels_; }
  void set_channels(int c) { channels_ = c; }
  GLuint input() const { return io_[0]; }
  GLuint output() const { return io_[1]; }
  void free_sized();  // every object sized by the image (io textures included)

  // Gives the program's images their device objects: float32 images textures, float64 ones storage buffers,
  // each of its padded size. Objects are pooled by kind and size and kept across runs; within a program an
  // object serves several images whose lifetimes (first to last pass using them) do not overlap.
  Status assign_images(const Program& p);
  const GlImage& image(int i) const { return images_[size_t(i)]; }

  // Builds (once) the program of `files` with `defines` (after "#define STORE_FORMAT ..."); NVIDIA's unroll
  // pragma first where unroll_pragma(unroll_by_default) says so (gl_tuning.hpp).
  Status program(const std::vector<std::pair<std::string, GLenum>>& files, const std::string& defines,
                 GLuint& out, bool unroll_by_default = false);
  // A buffer named by its user, created once and kept (contents are the user's, e.g. a pass's weights).
  GLuint buffer(const std::string& name);
  // A storage buffer of at least `bytes`, named by its user, kept across runs, freed with the image size. A
  // larger request replaces it: every step that shares a name within a program asks for the program's
  // largest size (the handle an earlier step's work holds must stay valid).
  Status scratch_buffer(const std::string& name, long long bytes, GLuint& out);
  // A w x h texture of `format`, named by its user, kept across runs, freed with the image size.
  Status scratch_texture(const std::string& name, int w, int h, GLenum format, GLuint& out);
  // The scratch textures handed out so far, in order, and how many scratch_buffer calls there have been: the
  // backend's barriers (step_barriers.hpp) count a step's scratch textures among the textures it writes, and a
  // step with scratch buffers as using storage buffers.
  const std::vector<GLuint>& scratch_texture_log() const { return scratch_log_; }
  void clear_scratch_texture_log() { scratch_log_.clear(); }
  int scratch_buffer_requests() const { return scratch_buffer_requests_; }
  // Bilinear samplers with the wrap mode of each border mode (zero: a zero border colour).
  GLuint sampler(Border b) const { return samplers_[int(b)]; }
  // A framebuffer drawing into `tex` (kept while the texture lives).
  Status framebuffer(GLuint tex, GLuint& fbo);
  GLuint vertex_array() const { return vao_; }

  // Uses `prog`, samples `in` at unit 0, writes `out` as image unit 0 (the storage format).
  void bind_io(GLuint prog, GLuint in, GLuint out) const;
  // Binds `tex` at unit 0 (every shader's `src`) and sets `prog`'s gpublur_src_size (common.glsl) to its size,
  // which the shaders read instead of textureSize(src, 0).
  void bind_src(GLuint prog, GLuint tex) const;
  // bind_io with `sampler` at unit 0 (bilinear lookups with a border's wrap mode), then one dispatch over
  // out_w x out_h in 16x16 groups; unit 0's sampler is unbound after.
  void dispatch_sampled(GLuint prog, GLuint sampler, GLuint in, GLuint out, int out_w, int out_h) const;
  // A uniform's location (-1 where the program does not use it: setting it is then a no-op). Programs are
  // shared by every pass with the same #defines, so a step sets its uniforms in its work closure.
  static GLint uniform(GLuint prog, const char* name) { return glGetUniformLocation(prog, name); }

 private:
  Status make_texture(int w, int h, GLenum format, GLuint& out, const std::string& what);

  bool half_ = false;
  GlLimits limits_;
  SepTile tile_h_, tile_v_;
  int width_ = 0, height_ = 0, channels_ = 0;
  GLenum io_format_ = 0;  // the format io_ and the pooled images were made with
  GLuint io_[2] = {0, 0};
  // Pools of program images, by (f64, stored w, stored h).
  std::map<std::tuple<bool, int, int>, std::vector<GLuint>> pool_;
  std::vector<GlImage> images_;
  std::map<std::string, GLuint> programs_;
  std::map<std::string, GLuint> buffers_;
  std::map<std::string, std::pair<GLuint, long long>> scratch_buffers_;
  std::map<std::string, GLuint> scratch_textures_;
  std::vector<GLuint> scratch_log_;
  int scratch_buffer_requests_ = 0;
  std::map<GLuint, GLuint> fbos_;  // texture -> framebuffer
  std::map<GLuint, std::pair<int, int>> tex_sizes_;   // every texture make_texture made (a reused name overwrites)
  mutable std::map<GLuint, GLint> src_size_uniform_;  // program -> gpublur_src_size's location
  GLuint samplers_[4] = {0, 0, 0, 0};
  GLuint vao_ = 0;
};

}  // namespace gpublur
