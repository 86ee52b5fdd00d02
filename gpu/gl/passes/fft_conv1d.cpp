// fft-conv1d: Conv1d along the pass's axis by FFT. Where a segment fits shared memory (fft_segments.hpp), as
// overlap-save segments, one work group per (segment, lines) transforming them in shared memory
// (shaders/fft_segments.comp): the image is read about once and written once. Else the line forms
// (shaders/fft_conv1d.comp): one work group per line: load the line extended with the border mode (zero beyond),
// forward transform, multiply by the kernel's spectrum, inverse transform, store the line's n outputs. Transform
// lengths are powers of two (core/fft.hpp fft_line: wrap natively where the line's length is one). Lines that fit
// shared memory run there; longer ones in a storage buffer slice per group, in batches of lines
// (docs/performance.md, fft). GPUBLUR_GL_FFT_FORM=segments|line forces one (segments fails where none fits).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "core/fft.hpp"
#include "gpu/gl/gl_fft.hpp"
#include "gpu/gl/pass_table.hpp"
#include "gpu/gl/passes/fft_segments.hpp"

namespace gpublur {
namespace {

constexpr long long kWorkBudget = 256LL << 20;  // bytes of the storage-buffer form's line slices per dispatch

int log2_int(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

int bitrev(int i, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

// exp(-2 pi i m / N) for m < count (the line forms: N/2, one entry for N = 1; the segments: N), from float64.
std::vector<float> twiddles(int n_fft, int count) {
  const double pi = std::acos(-1.0);
  std::vector<float> t(size_t(count) * 2);
  for (int m = 0; m < count; ++m) {
    t[size_t(2 * m)] = float(std::cos(2.0 * pi * m / n_fft));
    t[size_t(2 * m + 1)] = float(-std::sin(2.0 * pi * m / n_fft));
  }
  return t;
}

// The kernel's spectrum (core/fft.hpp) as float pairs, in bit-reversed order for the line forms (natural for the
// segments: bits 0), computed once per (taps, N): it costs N (2r + 1) multiply-adds, too much to redo every run
// for large kernels.
std::vector<float> spectrum(const std::vector<float>& taps, int n_fft, bool bit_reversed) {
  static std::mutex mu;
  static std::map<std::pair<std::vector<float>, int>, std::vector<float>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_pair(taps, bit_reversed ? n_fft : -n_fft);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= 16) cache.clear();  // bounded: programs come and go
  const std::vector<std::complex<double>> g = fft_kernel_spectrum(taps, n_fft);
  const int bits = bit_reversed ? log2_int(n_fft) : 0;
  std::vector<float> out(size_t(2 * n_fft));
  for (int i = 0; i < n_fft; ++i) {
    const std::complex<double> v = g[size_t(bits ? bitrev(i, bits) : i)];
    out[size_t(2 * i)] = float(v.real());
    out[size_t(2 * i + 1)] = float(v.imag());
  }
  return cache[key] = std::move(out);
}

void upload(GLuint buf, const std::vector<float>& v) {
  glNamedBufferData(buf, GLsizeiptr(v.size() * sizeof(float)), v.data(), GL_STATIC_DRAW);
}

std::string defines(int n_fft, const GlFftShape& shape, int mode, int axis) {
  return fmt::format("#define FFT_N {}\n#define LOG_N {}\n#define THREADS {}\n#define SHARED {}\n#define MODE {}\n"
                     "#define AXIS {}\n",
                     n_fft, log2_int(n_fft), shape.threads, shape.shared ? 1 : 0, mode, axis);
}

long long work_bytes(int n_fft, const GlFftShape& shape) { return shape.shared ? 0 : 16LL * n_fft * shape.batch; }

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The segments for this pass where they fit the device: one line per work group on both axes and radix-8 passes
// (on the H100, two columns per group lost at sigma 12, 0.809 against 0.728 ms at 4096^2, and radix 4/2 at sigma
// 200, 3.18 against 2.24 ms: docs/performance.md, "GL fft segments").
bool segments_plan(const GlPassContext& ctx, int n, int radius, Border border, glfft::SegPlan& p) {
  const GlLimits& lim = ctx.limits();
  static const int kOne[] = {1};
  return glfft::plan_segments(n, radius, kOne, 1, 8, lim.max_shared, lim.max_invocations, p, border);
}

Status segments_step(GlPassContext& ctx, const Pass& pass, size_t index, const glfft::SegPlan& sp, GlStep& step) {
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const int lines = pass.axis == 0 ? src.h : src.w;
  GLuint prog = 0;
  // One- and two-channel images: 4 / 2 lines an element (the shader's LPE), nb x lpe lines a group.
  const int lpe = 4 / line_vch(ctx.channels());
  const std::string defs =
      fmt::format("#define LOG_M {}\n#define NB {}\n#define ELEMS {}\n#define NBIG {}\n#define NSMALL {}\n"
                  "#define AXIS {}\n#define LPE {}\n",
                  sp.log2m, sp.nb, sp.elems, glfft::seg_big_passes(sp.log2m, sp.elems),
                  glfft::seg_passes(sp.log2m, sp.elems) - glfft::seg_big_passes(sp.log2m, sp.elems), pass.axis, lpe);
  if (Status s = ctx.program({{"fft_segments.comp", GL_COMPUTE_SHADER}}, defs, prog); !s) return s;
  const GLuint tw = ctx.buffer(fmt::format("fft.twiddles.{}", index)),
               spec = ctx.buffer(fmt::format("fft.spectrum.{}", index));
  upload(tw, twiddles(sp.m, sp.m));
  upload(spec, spectrum(pass.taps, sp.m, false));
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_radius = GlPassContext::uniform(prog, "radius"),
              u_len = GlPassContext::uniform(prog, "len");
  // An unpadded line loads from position 0 (clamp: with zeros past the line, its constants added after).
  const int load_border = int(sp.unpadded ? fft_unpadded_load(pass.border) : pass.border);
  GLuint tails_prog = 0, tails = 0;
  GLint u_tails_radius = -1;
  if (sp.unpadded && pass.border == Border::Clamp && sp.radius > 0) {
    const std::string axis = fmt::format("#define AXIS {}\n", pass.axis);
    if (Status s = ctx.program({{"fft_clamp_tails.comp", GL_COMPUTE_SHADER}}, axis, tails_prog); !s) return s;
    const std::vector<double> t = fft_clamp_tails(pass.taps);
    tails = ctx.buffer(fmt::format("fft.tails.{}", index));
    upload(tails, std::vector<float>(t.begin(), t.end()));
    u_tails_radius = GlPassContext::uniform(tails_prog, "radius");
  }
  const int tail_positions = fft_clamp_tail_positions(pass.axis == 0 ? src.w : src.h, sp.radius);
  step.form = fmt::format("fft-segments-{}-{}{}{}", pass.axis == 0 ? "rows" : "cols", sp.m,
                          sp.nseg > 1 ? fmt::format("x{}", sp.nseg) : "", sp.unpadded ? "-unpadded" : "");
  step.work = [&ctx, prog, tw, spec, sp, lines, lpe, load_border, u_border, u_radius, u_len, src, dst, tails_prog,
               tails, u_tails_radius, tail_positions, axis = pass.axis] {
    glProgramUniform1i(prog, u_border, load_border);
    glProgramUniform1i(prog, u_radius, sp.shift());
    glProgramUniform1i(prog, u_len, sp.len);
    ctx.bind_io(prog, src.tex, dst.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, tw);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, spec);
    glDispatchCompute(GLuint(sp.nseg), GLuint((lines + sp.nb * lpe - 1) / (sp.nb * lpe)), 1);
    if (!tails_prog) return;
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);  // the tails read the transform's outputs
    glProgramUniform1i(tails_prog, u_tails_radius, sp.radius);
    glUseProgram(tails_prog);
    ctx.bind_src(tails_prog, src.tex);
    glBindImageTexture(0, dst.tex, 0, GL_FALSE, 0, GL_READ_WRITE, ctx.store_format());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, tails);
    if (axis == 0) glDispatchCompute(GLuint((tail_positions + 255) / 256), GLuint(lines), 1);
    else glDispatchCompute(GLuint((lines + 255) / 256), GLuint(tail_positions), 1);
  };
  return Status::success();
}

}  // namespace

bool gl_fft_segments_fit(const GlPassContext& ctx, const Pass& pass) {
  if (env_or_empty("GPUBLUR_GL_FFT_FORM") == "line") return false;
  const GlImage& src = ctx.image(pass.src);
  glfft::SegPlan sp;
  return segments_plan(ctx, pass.axis == 0 ? src.w : src.h, pass.radius(), pass.border, sp);
}

GlFftShape gl_fft_shape(const GlPassContext& ctx, int n_fft, int lines) {
  const GlLimits& lim = ctx.limits();
  GlFftShape s;
  s.threads = std::max(1, std::min({n_fft / 2, 256, lim.max_invocations}));
  long long shared_max = lim.max_shared / 16;
  if (const char* env = std::getenv("GPUBLUR_GL_FFT_SHARED_MAX"); env && *env) shared_max = std::atoll(env);
  s.shared = n_fft <= shared_max;
  const long long budget = std::min<long long>(kWorkBudget, lim.max_ssbo);
  s.batch = s.shared ? lines : int(std::max<long long>(1, std::min<long long>(lines, budget / (16LL * n_fft))));
  return s;
}

Status gl_fft_conv1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const int n = pass.axis == 0 ? src.w : src.h, lines = pass.axis == 0 ? src.h : src.w;
  const std::string form = env_or_empty("GPUBLUR_GL_FFT_FORM");
  if (glfft::SegPlan sp; form != "line" && segments_plan(ctx, n, pass.radius(), pass.border, sp))
    return segments_step(ctx, pass, index, sp, step);
  if (form == "segments")
    return Status::fail(fmt::format("GL fft: no segment fits radius {} on this device", pass.radius()));
  const FftLine fl = fft_line(n, pass.radius(), pass.border, FftSizes::PowerOfTwo);
  const GlFftShape shape = gl_fft_shape(ctx, fl.n_fft, lines);
  GLuint prog = 0;
  if (Status s = ctx.program({{"fft_conv1d.comp", GL_COMPUTE_SHADER}}, defines(fl.n_fft, shape, 0, pass.axis), prog);
      !s)
    return s;
  const GLuint tw = ctx.buffer(fmt::format("fft.twiddles.{}", index)),
               spec = ctx.buffer(fmt::format("fft.spectrum.{}", index));
  upload(tw, twiddles(fl.n_fft, std::max(1, fl.n_fft / 2)));
  upload(spec, spectrum(pass.taps, fl.n_fft, true));
  GLuint work = 0;
  if (!shape.shared) {
    long long bytes = 0;  // one buffer for every fft pass of the program: the largest asks
    for (const Pass& p : program.passes)
      if (p.op == Op::FftConv1d) {
        const GlImage& im = ctx.image(p.src);
        const int pn = p.axis == 0 ? im.w : im.h, pl = p.axis == 0 ? im.h : im.w;
        const int pf = fft_line(pn, p.radius(), p.border, FftSizes::PowerOfTwo).n_fft;
        bytes = std::max(bytes, work_bytes(pf, gl_fft_shape(ctx, pf, pl)));
      }
    if (Status s = ctx.scratch_buffer("fft work", bytes, work); !s) return s;
  }
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_ext = GlPassContext::uniform(prog, "ext"),
              u_line0 = GlPassContext::uniform(prog, "line0");
  step.form = shape.shared ? "fft-shared" : "fft-global";
  step.work = [&ctx, prog, tw, spec, work, shape, lines, ext = fl.ext, border = int(pass.border), u_border, u_ext,
               u_line0, src, dst] {
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_ext, ext);
    ctx.bind_io(prog, src.tex, dst.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, tw);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, spec);
    if (work) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, work);
    for (int line0 = 0; line0 < lines; line0 += shape.batch) {
      if (line0 > 0) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // the work slices are reused
      glProgramUniform1i(prog, u_line0, line0);
      glDispatchCompute(GLuint(std::min(shape.batch, lines - line0)), 1, 1);
    }
  };
  return Status::success();
}

Status gl_fft_lines(GlPassContext& ctx, std::vector<float>& data, int n_fft, bool inverse) {
  const int lines = int(data.size() / (4 * size_t(n_fft)));
  if (n_fft < 1 || (n_fft & (n_fft - 1)) != 0 || data.size() != 4 * size_t(n_fft) * size_t(lines))
    return Status::fail("gl_fft_lines: n_fft must be a power of two and data whole lines of vec4s");
  const GlFftShape shape = gl_fft_shape(ctx, n_fft, lines);
  GLuint prog = 0;
  if (Status s = ctx.program({{"fft_conv1d.comp", GL_COMPUTE_SHADER}}, defines(n_fft, shape, inverse ? 2 : 1, 0), prog);
      !s)
    return s;
  const GLuint tw = ctx.buffer("fft.test.twiddles"), buf = ctx.buffer("fft.test.lines");
  upload(tw, twiddles(n_fft, std::max(1, n_fft / 2)));
  upload(buf, data);
  GLuint work = 0;
  if (!shape.shared)
    if (Status s = ctx.scratch_buffer("fft work", work_bytes(n_fft, shape), work); !s) return s;
  glUseProgram(prog);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, tw);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, buf);
  if (work) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, work);
  const GLint u_line0 = GlPassContext::uniform(prog, "line0");
  for (int line0 = 0; line0 < lines; line0 += shape.batch) {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glProgramUniform1i(prog, u_line0, line0);
    glDispatchCompute(GLuint(std::min(shape.batch, lines - line0)), 1, 1);
  }
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
  glGetNamedBufferSubData(buf, 0, GLsizeiptr(data.size() * sizeof(float)), data.data());
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status::fail(fmt::format("gl_fft_lines: GL error {:#x}", e));
  return Status::success();
}

}  // namespace gpublur
