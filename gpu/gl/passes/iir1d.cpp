// iir1d: the recursive filter along one axis, two schedules chosen by the pass's size (iir_tiles_min_pixels,
// gl_tuning.hpp; docs/performance.md "GL tiles" under iir):
//  - tiles (shaders/iir_tiles.comp; images of at least kIirTilesMinPixels, the pair's of kIirPairMinPixels): the
//    CUDA tiles' algorithm, one invocation per (pixel line, tile of 32 positions), lines fastest, in three
//    dispatches (sums from zero states, chains in float64 one invocation per line, term and channel, outputs from
//    the true states). 4096^2 RGBA on an H200: 0.688-0.690 ms (1.9x CUDA's iir, 0.363-0.368; call 329).
//    An iir plan's rows and columns of one or two channels run as the x/y pair (iir1d_tiles_pair): the rows'
//    outputs also make the columns' sums, and the column pass skips its sums dispatch.
//  - segments (shaders/iir_segments.comp; smaller images: RGBA on an H200 1024^2 0.075 ms against the tiles' 0.159,
//    2048^2 0.225 against 0.286): a work group per 4 lines, each cut into at most 32 segments of seg_len positions,
//    one invocation per (segment, line), lines fastest; each runs its segment forwards from zero states (float;
//    the causal outputs into a line buffer), the segments chain by a scan in shared memory (float64) with the
//    border states added, and each runs backwards from its true states adding the rest (float). One dispatch per
//    pass. Measured forms on an H100
//    (docs/performance.md "GL by segments"): one invocation per line 15.4 ms at 4096^2 RGBA; three dispatches
//    with the segments' states in a storage buffer 2.14 ms; one dispatch, a line per group (neighbouring
//    invocations 64 positions apart) 2.48 ms; lines fastest, 4 per group 1.79 ms, 8 per group 1.67 ms.
#include <algorithm>
#include <array>
#include <complex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/iir.hpp"
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// Tiles: positions per tile (the sums' and outputs' registers: a whole tile's or, RGBA and two channels, a half
// tile's outputs per invocation) and invocations per work group. Measured on an H100 at 4096^2 RGBA
// (docs/performance.md "GL tiles"): 32 / 128 1.04 ms; 32 / 64 1.33; 32 / 256 1.26; 16 / 128 1.05 (the outputs'
// dispatch 0.50 against 0.63 ms, but twice the aggregates); the outputs through shared memory instead of registers
// 1.12-1.35. With RGBA outputs a half tile at a time (the shader): 32 / 128 0.955 ms, 32 / 64 0.957, 32 / 256
// 1.044, 16 / 128 1.198, 16 / 64 1.083; tiles of 64 16 ms (the GLSL compiler's code for them falls off a cliff).
constexpr int kIirTile = 32, kIirTileGroup = 128;

// Segments: at most kIirSegs a line, at least 8 positions each; kIirSegLines lines a work group (the shader's SEGS and
// LPG), lines fastest. On an H200, RGBA sigma 12, ms at 512^2 / 724^2 / 1024^2 / 1448^2 (docs/performance.md "GL iir's
// segments in float"; the border quotients then still in the shader): 32 segments x 4 lines 0.060 / 0.075 / 0.107 /
// 0.180; 32 x 2 0.060 / 0.074 / 0.115 / 0.187; 32 x 8 0.069 / 0.079 / 0.112 / 0.189; 64 x 4 0.066 / 0.089 / 0.110 /
// 0.256; 64 x 8 0.088 / 0.097 / 0.125 / 0.271; 16 x 4 0.065 / 0.080 / 0.126 / 0.220; 128 x 2 0.083 / 0.140 / 0.191 /
// 0.290. Fewer, longer segments: a shorter scan between the sweeps. (With the float64 sweeps, 64 x 8 had been the
// fastest: call 67.)
constexpr int kIirSegs = 32, kIirSegLines = 4;
int segment_length(int n) { return std::max(8, (n + kIirSegs - 1) / kIirSegs); }

// A scratch buffer shared by every Iir1d pass of the program is sized for the largest: the most bytes(n, lines,
// terms) over them (n: positions along the pass's axis).
template <typename Bytes>
long long largest_over_passes(GlPassContext& ctx, const Program& program, Bytes bytes) {
  long long most = 0;
  for (const Pass& p : program.passes)
    if (p.op == Op::Iir1d) {
      const GlImage& s = ctx.image(p.src);
      most = std::max(most, (long long)bytes(p.axis == 0 ? s.w : s.h, p.axis == 0 ? s.h : s.w,
                                              (long long)iir_terms_from_taps(p.taps).size()));
    }
  return most;
}

// The channels a line of the tiles carries (the shader's VCH: 3 take 4).
int tile_vch(const GlPassContext& ctx) { return line_vch(ctx.channels()); }

// Tiles whose sums a chain loads at once (the shader's AHEAD), by the channels a line carries and the tiles it has.
// Measured on an H200, GL iir at sigma 12, two rounds (docs/performance.md "GL iir: chains per channel, outputs
// fetched ahead"), ms: RGBA 4096^2 (128 tiles, chains per channel) AHEAD 32 0.782-0.784, 16 0.757-0.759, 8
// 0.814-0.815, 4 0.844-0.845; RGBA 2048^2 (64 tiles) 16 0.312, 8 0.300, 4 0.298; one channel 4096^2 (one chain a
// line and term, as before) 16 0.520, 8 0.515-0.516.
int chain_ahead(int vch, int line_tiles) { return vch > 1 && line_tiles >= 128 ? 16 : 8; }

// The shaders' REAL_MASK: bit t set where term t is real (p and c with no imaginary part: Young-van Vliet's real
// pole), whose recursions the shaders run on the real parts only, a third of the complex form's arithmetic.
int real_terms_mask(const std::vector<IirTerm>& terms) {
  int mask = 0;
  for (size_t t = 0; t < terms.size(); ++t)
    if (iir_term_real(terms[t])) mask |= 1 << t;
  return mask;
}

// The border's closed-form coefficients per term for lines of n positions (core/iir.hpp iir_border_form, which every
// backend takes them from), as the shaders' bform: edge, same, other (complex) per term.
std::vector<double> border_forms(const std::vector<IirTerm>& terms, int n, Border b) {
  std::vector<double> f(6 * kMaxIirTerms, 0.0);
  for (size_t t = 0; t < terms.size(); ++t) {
    const IirBorderForm g = iir_border_form(terms[t].p, n, b);
    const std::complex<double> v[3] = {g.edge, g.same, g.other};
    for (size_t i = 0; i < 3; ++i) f[6 * t + 2 * i] = v[i].real(), f[6 * t + 2 * i + 1] = v[i].imag();
  }
  return f;
}

// One dispatch of shaders/iir_tiles.comp: along `axis`, PHASE `phase`, `lx` invocations a group.
struct TileProg {
  int axis = 0, phase = 1, lx = kIirTileGroup;
  int per_line = 1;  // invocations per line: the chains take one per channel
  GLuint id = 0;
  GLint border = -1, coef = -1, ntiles = -1, bform = -1;
  // Builds (once) the program for lines of line_tiles tiles and finds its uniforms.
  Status build(GlPassContext& ctx, const std::vector<IirTerm>& terms, int vch, int line_tiles) {
    const std::string ahead = phase == 2 ? fmt::format("#define AHEAD {}\n", chain_ahead(vch, line_tiles)) : "";
    if (Status s = ctx.program({{"iir_tiles.comp", GL_COMPUTE_SHADER}},
                               fmt::format("#define AXIS {}\n#define TERMS {}\n#define REAL_MASK {}\n#define PHASE {}\n"
                                           "#define TILE {}\n#define LX {}\n#define VCH {}\n",
                                           axis, terms.size(), real_terms_mask(terms), phase, kIirTile, lx, vch) +
                                   ahead,
                               id, true);
        !s)
      return s;
    per_line = phase == 2 ? vch : 1;
    border = GlPassContext::uniform(id, "border"), coef = GlPassContext::uniform(id, "coef");
    ntiles = GlPassContext::uniform(id, "ntiles");
    if (phase == 2) bform = GlPassContext::uniform(id, "bform");
    return Status::success();
  }
  // Work groups along x for `lines` lines.
  GLuint groups_x(int lines) const { return GLuint((lines * per_line + lx - 1) / lx); }
  // Sets the uniforms: in each run, since programs are cached per source and defines, so another iir1d pass of
  // the program (other taps, border or length) may have set them since.
  // forms: border_forms for the pass's line length (the chains' only).
  void set(int b, const std::vector<double>& c, int tiles, const std::vector<double>& forms) const {
    glProgramUniform1i(id, border, b);
    glProgramUniform4dv(id, coef, kMaxIirTerms, c.data());
    glProgramUniform1i(id, ntiles, tiles);
    if (phase == 2) glProgramUniform2dv(id, bform, 3 * kMaxIirTerms, forms.data());
  }
};

// A buffer of tile aggregates shared by every iir1d pass of the program (sized for the largest): 2 k complex
// values of VCH floats per tile and line.
Status tile_aggregates(GlPassContext& ctx, const Program& program, int vch, const char* name, GLuint& agg) {
  const long long bytes = largest_over_passes(ctx, program, [&](long long pn, long long plines, long long pk) {
    return 8LL * vch * 2 * pk * ((pn + kIirTile - 1) / kIirTile) * plines;
  });
  return ctx.scratch_buffer(name, bytes, agg);
}

// The tile schedule (shaders/iir_tiles.comp): sums, chains, outputs.
Status iir1d_tiles(GlPassContext& ctx, const Program& program, const Pass& pass, const std::vector<IirTerm>& terms,
                   const std::vector<double>& coef, GlStep& step) {
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const int k = int(terms.size()), vch = tile_vch(ctx);
  std::array<TileProg, 3> pr = {{{pass.axis, 1}, {pass.axis, 2}, {pass.axis, 3}}};
  const int n = pass.axis == 0 ? src.w : src.h, lines = pass.axis == 0 ? src.h : src.w;
  const int ntiles = (n + kIirTile - 1) / kIirTile;
  for (TileProg& t : pr)
    if (Status s = t.build(ctx, terms, vch, ntiles); !s) return s;
  GLuint agg = 0;
  if (Status s = tile_aggregates(ctx, program, vch, "iir1d aggregates", agg); !s) return s;
  const std::vector<double> forms = border_forms(terms, n, pass.border);
  step.form = "iir1d-tiles";
  step.work = [&ctx, pr, agg, lines, ntiles, k, border = int(pass.border), coef, forms, src, dst] {
    for (const TileProg& t : pr) {
      t.set(border, coef, ntiles, forms);
      ctx.bind_io(t.id, src.tex, dst.tex);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, agg);
      glDispatchCompute(t.groups_x(lines), GLuint(t.phase == 2 ? k : ntiles), 1);
      glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
  };
  return Status::success();
}

// The x/y pair (core/program.hpp iir_pair: rows then columns, the same filter and border) as tiles in one step:
// the rows' sums and chains, the rows' outputs with the columns' sums of each group's square (PHASE 4: LX rows x
// a tile of columns through shared memory), the columns' chains and outputs. The column pass's sums dispatch
// (one read of the image) is gone. Measured on an H200 at 4096^2 (docs/performance.md "GL iir as the x/y
// pair"): one channel 0.576 -> 0.520 ms, two 0.622 -> 0.584, RGBA 0.795 -> 1.12 (in groups of 64 rows or 32), so
// RGBA and three channels keep the passes apart. The shared tile is what costs there: declared and unused it took
// the RGBA pair 0.66 -> 0.90 ms; a half tile with weighted column sums measured 0.95 against the passes' 0.75
// (docs/performance.md "GL programs' first runs; the GL iir pair for RGBA taken apart"). Likely why: NVIDIA's GL holds
// 48 KB of shared memory an SM, so a group's tile bytes cap the groups an SM runs (docs/performance.md "GL's groups an
// SM", measured on box1d.comp).
Status iir1d_tiles_pair(GlPassContext& ctx, const Program& program, size_t index, const std::vector<IirTerm>& terms,
                        const std::vector<double>& coef, GlStep& step) {
  const Pass &p = program.passes[index], &q = program.passes[index + 1];
  const GlImage &src = ctx.image(p.src), &mid = ctx.image(p.dst), &dst = ctx.image(q.dst);
  const int k = int(terms.size()), vch = tile_vch(ctx);
  // The pair's group: 64 rows of one channel, 32 of two (a shared tile of 8.4 KiB either way). H200, 4096^2: one
  // channel 0.520 ms in groups of 32 or 64, 0.523 in 128; two channels 0.584 in 32, 0.604 in 64.
  const int lx4 = vch == 1 ? 64 : 32;
  // rows sums, rows chains, rows outputs + column sums, column chains, column outputs
  std::array<TileProg, 5> pr = {{{0, 1}, {0, 2}, {0, 4, lx4}, {1, 2}, {1, 3}}};
  const int w = src.w, h = src.h, ntx = (w + kIirTile - 1) / kIirTile, nty = (h + kIirTile - 1) / kIirTile;
  for (TileProg& t : pr)
    if (Status s = t.build(ctx, terms, vch, t.axis == 0 ? ntx : nty); !s) return s;
  GLuint agg = 0, aggc = 0;
  // The rows' aggregates and the columns' (both alive from the pair's third dispatch on).
  if (Status s = tile_aggregates(ctx, program, vch, "iir1d aggregates", agg); !s) return s;
  if (Status s = tile_aggregates(ctx, program, vch, "iir1d pair column aggregates", aggc); !s) return s;
  const std::vector<double> forms_r = border_forms(terms, w, p.border), forms_c = border_forms(terms, h, p.border);
  step.form = "iir1d-tiles-pair";
  step.passes = 2;
  step.work = [&ctx, pr, agg, aggc, ntx, nty, w, h, k, border = int(p.border), coef, forms_r, forms_c, src, mid, dst] {
    for (const TileProg& t : pr) {
      const bool rows = t.axis == 0;
      t.set(border, coef, rows ? ntx : nty, rows ? forms_r : forms_c);
      ctx.bind_io(t.id, rows ? src.tex : mid.tex, rows ? mid.tex : dst.tex);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, rows ? agg : aggc);
      if (t.phase == 4) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, aggc);
      const int lines = rows ? h : w;
      glDispatchCompute(t.groups_x(lines), GLuint(t.phase == 2 ? k : rows ? ntx : nty), 1);
      // After the rows' outputs the columns read the middle image through texture fetches.
      glMemoryBarrier(t.phase == 4 ? GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT
                                   : GL_SHADER_STORAGE_BARRIER_BIT);
    }
  };
  return Status::success();
}

}  // namespace

Status gl_iir1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const std::vector<IirTerm> terms = iir_terms_from_taps(pass.taps);
  if (terms.empty() || terms.size() > size_t(kMaxIirTerms)) return Status::fail("GL iir1d: bad term count");
  std::vector<double> coef(4 * kMaxIirTerms, 0.0);
  for (size_t t = 0; t < terms.size(); ++t) {
    coef[4 * t + 0] = terms[t].p.real(), coef[4 * t + 1] = terms[t].p.imag();
    coef[4 * t + 2] = terms[t].c.real(), coef[4 * t + 3] = terms[t].c.imag();
  }
  // The segments' line buffer ([group][step][segment][lpg lines] vec4, shared by the program's iir1d passes):
  // about the largest pass's image, segments times their length.
  const int lpg = kIirSegLines;
  const long long partial_bytes = largest_over_passes(ctx, program, [&](long long pn, long long plines, long long) {
    const long long len = segment_length(int(pn)), nsegs = (pn + len - 1) / len;
    return 16LL * nsegs * lpg * len * ((plines + lpg - 1) / lpg);
  });
  // The pair for one and two channels only: RGBA's took GL iir 0.79 -> 1.12 ms (H200; groups of 64 or 32 rows).
  // The tiles also where the line buffer would exceed the device's storage blocks (llvmpipe's 128 MiB: 2896^2).
  const bool pair = pass.axis == 0 && ctx.channels() <= 2 && iir_pair(program, index);
  if (const long long min_px = iir_tiles_min_pixels(pair);
      min_px >= 0 && ((long long)src.w * src.h >= min_px || partial_bytes > ctx.limits().max_ssbo)) {
    if (pair) return iir1d_tiles_pair(ctx, program, index, terms, coef, step);
    return iir1d_tiles(ctx, program, pass, terms, coef, step);
  }
  const int n = pass.axis == 0 ? src.w : src.h, lines = pass.axis == 0 ? src.h : src.w;
  const int L = segment_length(n), segs = (n + L - 1) / L, groups = (lines + lpg - 1) / lpg;
  GLuint prog = 0;
  if (Status s = ctx.program({{"iir_segments.comp", GL_COMPUTE_SHADER}},
                             fmt::format("#define AXIS {}\n#define TERMS {}\n#define LPG {}\n#define SEGS {}\n"
                                         "#define REAL_MASK {}\n",
                                         pass.axis, terms.size(), lpg, kIirSegs, real_terms_mask(terms)),
                             prog, true);
      !s)
    return s;
  GLuint partial = 0;
  if (Status s = ctx.scratch_buffer("iir1d partial", partial_bytes, partial); !s) return s;
  // The border's coefficients (border_forms) and 1 / p per term, made here so that the shader multiplies. On an
  // H200, RGBA sigma 12 (docs/performance.md "GL iir's segments in float"): the border quotients in the shader took
  // 0.060 / 0.106 / 0.179 ms at 512^2 / 1024^2 / 1448^2, products by a reciprocal made there 0.042 / 0.088 /
  // 0.201-0.207, constants from the host 0.040 / 0.084 / 0.155.
  const std::vector<double> forms = border_forms(terms, n, pass.border);
  std::vector<double> pinv(2 * kMaxIirTerms, 0.0);
  for (size_t t = 0; t < terms.size(); ++t) {
    const std::complex<double> ip = 1.0 / terms[t].p;
    pinv[2 * t] = ip.real(), pinv[2 * t + 1] = ip.imag();
  }
  // p^m per term for m = 0..L (float pairs, [m][term]): the powers that carry U0's outputs to the true ones and make
  // V's zero-start sums in the shader's one forward sweep. Made here in float64 as the reference's std::pow.
  std::vector<float> pw(size_t(2 * (L + 1)) * terms.size());
  for (int m = 0; m <= L; ++m)
    for (size_t t = 0; t < terms.size(); ++t) {
      const std::complex<double> q = std::pow(terms[t].p, double(m));
      const size_t at = 2 * (size_t(m) * terms.size() + t);
      pw[at] = float(q.real()), pw[at + 1] = float(q.imag());
    }
  const GLuint powers = ctx.buffer(fmt::format("iir1d.powers.{}", index));
  glNamedBufferData(powers, GLsizeiptr(pw.size() * sizeof(float)), pw.data(), GL_STATIC_DRAW);
  // Per term and segment slot (kIirSegs): p^(b - a), p^a and p^(N - b) in float64 ((1, 0), 0, 0 past the line), for
  // the chains and the border states, where the shader had raised p by squaring in every invocation. On an H200 (RGBA
  // sigma 12, docs/performance.md "GL iir by whole lines; the segments' powers from the host"): 512^2 0.0334-0.0337 ->
  // 0.0321-0.0322 ms, 1024^2 0.0734-0.0737 -> 0.0720-0.0725, Deriche 2-4%; 1448^2 and 2048^2 within 1%.
  std::vector<double> sp(size_t(6 * kIirSegs) * terms.size(), 0.0);
  for (size_t t = 0; t < terms.size(); ++t)
    for (int j = 0; j < kIirSegs; ++j) {
      const int a = j * L, b = std::min(n, a + L);
      const std::complex<double> q[3] = {j < segs ? std::pow(terms[t].p, double(b - a)) : 1.0,
                                         j < segs ? std::pow(terms[t].p, double(a)) : 0.0,
                                         j < segs ? std::pow(terms[t].p, double(n - b)) : 0.0};
      for (int k = 0; k < 3; ++k) {
        const size_t at = 2 * ((t * kIirSegs + size_t(j)) * 3 + size_t(k));
        sp[at] = q[k].real(), sp[at + 1] = q[k].imag();
      }
    }
  const GLuint segpow = ctx.buffer(fmt::format("iir1d.segpow.{}", index));
  glNamedBufferData(segpow, GLsizeiptr(sp.size() * sizeof(double)), sp.data(), GL_STATIC_DRAW);
  // Uniform values are set in each run: programs are cached per source and defines, so another iir1d pass of
  // the program (other taps, border or segment length) may have set them since.
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_coef = GlPassContext::uniform(prog, "coef"),
              u_seg_len = GlPassContext::uniform(prog, "seg_len"), u_segs = GlPassContext::uniform(prog, "segs"),
              u_bform = GlPassContext::uniform(prog, "bform"), u_pinv = GlPassContext::uniform(prog, "pinv");
  step.form = "iir1d-segments";
  step.work = [&ctx, prog, partial, powers, segpow, groups, segs, border = int(pass.border), coef, forms, pinv, L,
               u_border, u_coef, u_seg_len, u_segs, u_bform, u_pinv, src, dst] {
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform4dv(prog, u_coef, kMaxIirTerms, coef.data());
    glProgramUniform2dv(prog, u_bform, 3 * kMaxIirTerms, forms.data());
    glProgramUniform2dv(prog, u_pinv, kMaxIirTerms, pinv.data());
    glProgramUniform1i(prog, u_seg_len, L);
    glProgramUniform1i(prog, u_segs, segs);
    ctx.bind_io(prog, src.tex, dst.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, partial);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, powers);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, segpow);
    dispatch_split(groups);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  };
  return Status::success();
}

}  // namespace gpublur
