#include "core/program.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/integral.hpp"

namespace gpublur {

const char* op_name(Op op) {
  switch (op) {
    case Op::Copy: return "copy";
    case Op::Conv1d: return "conv1d";
    case Op::Conv2d: return "conv2d";
    case Op::Bilinear1d: return "bilinear1d";
    case Op::Box1d: return "box1d";
    case Op::MovingAverage: return "moving-average";
    case Op::Sat: return "sat";
    case Op::SatBox: return "sat-box";
    case Op::Box2d: return "box2d";
    case Op::Integral1d: return "integral1d";
    case Op::Bilateral: return "bilateral";
    case Op::Bilateral1d: return "bilateral1d";
    case Op::Diffusion: return "diffusion";
    case Op::FftConv1d: return "fft-conv1d";
    case Op::Iir1d: return "iir1d";
    case Op::Kawase: return "kawase";
    case Op::Spread: return "spread";
    case Op::Scale: return "scale";
    case Op::Conv2dMatrix: return "conv2d-matrix";
    case Op::Reshuffle: return "reshuffle";
    case Op::DualDown: return "dual-down";
    case Op::DualUp: return "dual-up";
    case Op::Down2: return "down2";
    case Op::Up2: return "up2";
    default: return "?";
  }
}

int op_resamples(Op op) {
  switch (op) {
    case Op::Down2:
    case Op::DualDown: return 1;
    case Op::Up2:
    case Op::DualUp: return -1;
    default: return 0;
  }
}

int Pass::radius() const {
  switch (op) {
    case Op::Conv1d:
    case Op::FftConv1d:
    case Op::Conv2d:
    case Op::Bilateral:
    case Op::Bilateral1d: return int(taps.size() / 2);
    case Op::Bilinear1d: {
      int r = 0;
      for (float o : offsets) r = std::max(r, int(std::ceil(o)));
      return r;
    }
    case Op::Box1d:
    case Op::MovingAverage:
    case Op::SatBox:
    case Op::Box2d: {
      int r = 0;
      for (int w : widths) r += w / 2;
      return r;
    }
    case Op::Integral1d: return frac_cascade_reach(taps);
    case Op::Diffusion: return widths.empty() ? 0 : widths[0];  // one pixel per step
    case Op::Kawase: return widths.empty() ? 0 : widths[0] + 1;
    case Op::Conv2dMatrix: return widths.size() == 2 ? std::max(widths[0], widths[1]) / 2 : 0;
    case Op::Reshuffle: return widths.empty() ? 0 : widths[0];
    case Op::DualDown:
    case Op::DualUp: return 2;  // in source pixels: a 4 x 4 footprint about the output's centre
    case Op::Down2: return int(taps.size());  // in src pixels, a bound
    case Op::Up2: return 1;
    default: return 0;
  }
}

Program::Program() : images{ImageDecl{}, ImageDecl{}} {}

int Program::add_image(ImageDecl d) {
  images.push_back(d);
  return int(images.size()) - 1;
}

void image_size(const Program& p, int i, int w, int h, int& iw, int& ih) {
  const int d = p.images[size_t(i)].divisor;
  iw = (w + d - 1) / d;
  ih = (h + d - 1) / d;
}

Status validate_program(const Program& p) {
  auto fail = [](size_t i, const std::string& what) {
    return Status::fail("program pass " + std::to_string(i) + ": " + what);
  };
  if (p.images.size() < 2) return Status::fail("program: no input/output images");
  for (int i : {0, 1}) {
    const ImageDecl& d = p.images[size_t(i)];
    if (d.pad != 0 || d.divisor != 1 || d.f64) return Status::fail("program: input/output must be plain images");
  }
  for (const ImageDecl& d : p.images)
    if (d.pad < 0 || d.divisor < 1) return Status::fail("program: bad image declaration");
  if (p.passes.empty()) return Status::fail("program: no passes");
  const int n = int(p.images.size());
  for (size_t i = 0; i < p.passes.size(); ++i) {
    const Pass& s = p.passes[i];
    if (s.src < 0 || s.src >= n || s.dst < 0 || s.dst >= n) return fail(i, "image index out of range");
    if (s.src == s.dst) return fail(i, "reads and writes the same image");
    if (s.dst == 0) return fail(i, "writes the input");
    if (s.axis != 0 && s.axis != 1) return fail(i, "axis must be 0 or 1");
    const ImageDecl &src = p.images[size_t(s.src)], &dst = p.images[size_t(s.dst)];
    const bool f64_out = s.op == Op::Sat || s.op == Op::Spread;
    if (dst.f64 != f64_out) return fail(i, std::string(op_name(s.op)) + " writes a wrong element type");
    const bool f64_in = s.op == Op::SatBox || s.op == Op::Scale;
    if (s.op == Op::Sat ? (src.f64 && s.extend != 0) : src.f64 != f64_in)
      return fail(i, std::string(op_name(s.op)) + " reads a wrong element type");
    // Resolution: an op keeps it, or resamples by 2 (op_resamples says which way); nothing else changes it.
    const int way = op_resamples(s.op);
    const bool res_ok = way == 0   ? src.divisor == dst.divisor
                        : way > 0 ? dst.divisor == 2 * src.divisor
                                  : 2 * dst.divisor == src.divisor;
    if (!res_ok)
      return fail(i, std::string(op_name(s.op)) + " reads divisor " + std::to_string(src.divisor) + " and writes " +
                         std::to_string(dst.divisor) + (way == 0 ? " (it keeps the resolution)" : way > 0 ? " (it halves the resolution)" : " (it doubles the resolution)"));
    if ((s.op == Op::DualDown || s.op == Op::DualUp) && (src.pad != 0 || dst.pad != 0))
      return fail(i, std::string(op_name(s.op)) + " takes unpadded images");
    const bool odd_taps = s.taps.size() % 2 == 1;
    switch (s.op) {
      case Op::Conv1d:
      case Op::FftConv1d:
      case Op::Conv2d:
        if (!odd_taps) return fail(i, "needs an odd number of taps");
        break;
      case Op::Bilateral:
      case Op::Bilateral1d:
        if (!odd_taps) return fail(i, "needs an odd number of taps");
        if (!(s.range >= 0.f)) return fail(i, "a bilateral range coefficient must be >= 0");
        break;
      case Op::Bilinear1d:
        if (s.offsets.empty() || s.offsets.size() != s.taps.size() || s.offsets[0] != 0.0f)
          return fail(i, "bilinear taps need matching offsets and weights, offset 0 first");
        break;
      case Op::Box1d:
      case Op::MovingAverage:
      case Op::SatBox:
      case Op::Box2d:
        if (s.widths.empty()) return fail(i, "needs box widths");
        for (int w : s.widths)
          if (w < 1 || w % 2 == 0) return fail(i, "box widths must be odd and positive");
        if ((s.op == Op::SatBox || s.op == Op::Box2d) && s.widths.size() != 1)
          return fail(i, "a 2D box pass takes one width");
        break;
      case Op::Integral1d:
        if (s.taps.empty()) return fail(i, "needs box widths");
        for (float w : s.taps)
          if (!(w >= 1.0f && w < 8388608.0f)) return fail(i, "real box widths must be in [1, 2^23)");
        break;
      case Op::Conv2dMatrix:
        if (s.widths.size() != 2 || s.widths[0] < 1 || s.widths[1] < 1 || s.widths[0] % 2 == 0 ||
            s.widths[1] % 2 == 0)
          return fail(i, "a matrix pass takes an odd width and height");
        if (s.taps.size() != size_t(s.widths[0]) * size_t(s.widths[1]))
          return fail(i, "a matrix pass needs width x height taps");
        break;
      case Op::Reshuffle: {
        if (s.widths.size() != 1 || s.widths[0] < 0 || s.widths[0] > kMaxReshuffleRadius)
          return fail(i, "a reshuffle pass takes one reach in 0.." + std::to_string(kMaxReshuffleRadius));
        if (s.taps.empty()) return fail(i, "a reshuffle pass needs unique weights");
        const long R = s.widths[0];
        size_t at = 0;
        for (size_t u = 0; u < s.taps.size(); ++u) {
          if (at >= s.links.size() || s.links[at] < 1) return fail(i, "a reshuffle linkage set needs offsets");
          const size_t n = size_t(s.links[at++]);
          if (n > (s.links.size() - at) / 2) return fail(i, "reshuffle links end inside a linkage set");
          for (size_t k = 0; k < 2 * n; ++k)
            if (std::abs(long(s.links[at + k])) > R) return fail(i, "a reshuffle offset beyond the pass's reach");
          at += 2 * n;
        }
        if (at != s.links.size()) return fail(i, "reshuffle links beyond the last unique weight");
        break;
      }
      case Op::Kawase:
        if (s.widths.size() != 1 || s.widths[0] < 0) return fail(i, "a kawase pass takes one offset k >= 0");
        break;
      case Op::Spread:
        if (s.widths.size() != 1 || s.widths[0] < 1) return fail(i, "a spread pass takes one radius >= 1");
        if (s.extend < 0) return fail(i, "a spread pass extends by >= 0 pixels");
        if (src.pad != 0) return fail(i, "a spread pass reads an unpadded source");
        break;
      case Op::Scale:
        if (s.taps.size() != 1) return fail(i, "a scale pass takes one factor");
        if (s.extend < 0 || dst.pad + s.extend > src.pad) return fail(i, "a scale pass reads beyond its source");
        break;
      case Op::Diffusion:
        if (s.taps.size() != 1 || !(s.taps[0] > 0.0f && s.taps[0] <= 0.25f))
          return fail(i, "a diffusion pass takes one rate in (0, 0.25]");
        if (s.widths.size() != 1 || s.widths[0] < 1) return fail(i, "a diffusion pass takes a step count >= 1");
        break;
      case Op::Iir1d: {
        if (s.taps.empty() || s.taps.size() % 4 != 0 || s.taps.size() > 4 * kMaxIirTerms)
          return fail(i, "iir1d takes 1 to " + std::to_string(kMaxIirTerms) + " terms of 4 values");
        for (size_t k = 0; k < s.taps.size(); k += 4)
          if (std::hypot(double(s.taps[k]), double(s.taps[k + 1])) >= 1.0) return fail(i, "iir1d pole outside the unit circle");
        break;
      }
      case Op::Down2:
        if (s.taps.size() < 2 || s.taps.size() % 2 != 0 || s.widths.size() != 1 ||
            s.widths[0] != -(int(s.taps.size()) / 2 - 1))
          return fail(i, "a down2 pass takes an even analysis kernel and its first offset -(taps / 2 - 1)");
        break;
      default: break;
    }
    // Padding. The line and tap primitives work on unpadded images; the 2D box and the table primitives
    // carry cascades in padded intermediates. A padded source is read only inside its area (a table lookup
    // before its first row/column reads 0, the inclusive table's empty sum).
    const bool padded_op = s.op == Op::Copy || s.op == Op::Box2d || s.op == Op::Sat || s.op == Op::SatBox;
    if (op_resamples(s.op) != 0) continue;  // any padding: the border mode applies over src's stored area
    if (s.op == Op::Diffusion) {  // its domain is the stored area, whatever the padding
      if (src.pad != dst.pad) return fail(i, "diffusion keeps the padding of its source");
      continue;
    }
    if (s.op == Op::Spread || s.op == Op::Scale) continue;  // checked above
    if (!padded_op && (src.pad != 0 || dst.pad != 0)) return fail(i, std::string(op_name(s.op)) + " takes unpadded images");
    if (s.op == Op::Sat) {
      if (s.extend < 0 || (s.extend > 0 && src.pad != 0)) return fail(i, "only an unpadded source is extended");
      if (dst.pad != src.pad + s.extend) return fail(i, "table padding must be source padding + extend");
    } else if (s.op == Op::SatBox && dst.pad + s.radius() > src.pad) {
      return fail(i, "a table lookup reads beyond its table");
    } else if (src.pad > 0 && dst.pad + s.radius() > src.pad) {
      return fail(i, "reads beyond its padded source");
    }
  }
  return Status::success();
}

bool xy_pair(const Program& p, size_t i) {
  if (i + 1 >= p.passes.size()) return false;
  const Pass &a = p.passes[i], &b = p.passes[i + 1];
  if (b.op != a.op || a.axis != 0 || b.axis != 1 || a.dst != b.src || a.dst < 2) return false;
  if (a.taps != b.taps || a.offsets != b.offsets || a.widths != b.widths || a.border != b.border ||
      a.extend != b.extend || a.range != b.range || a.hint != b.hint || a.links != b.links)
    return false;
  const ImageDecl& mid = p.images[size_t(a.dst)];
  if (mid.pad != 0 || mid.f64 || p.images[size_t(a.src)].divisor != mid.divisor) return false;
  for (size_t j = 0; j < p.passes.size(); ++j)
    if (j != i + 1 && p.passes[j].src == a.dst) return false;
  return true;
}

bool separable_pair(const Program& p, size_t i) {
  return p.passes.size() > i && p.passes[i].op == Op::Conv1d && xy_pair(p, i);
}

bool box_pair(const Program& p, size_t i) {
  if (i >= p.passes.size()) return false;
  const Op op = p.passes[i].op;
  return (op == Op::Box1d || op == Op::MovingAverage) && xy_pair(p, i);
}

bool cascade_pair(const Program& p, size_t i) {
  if (i >= p.passes.size()) return false;
  const Op op = p.passes[i].op;
  return (op == Op::Box1d || op == Op::Integral1d) && xy_pair(p, i);
}

bool bilinear_pair(const Program& p, size_t i) {
  return p.passes.size() > i && p.passes[i].op == Op::Bilinear1d && xy_pair(p, i);
}

bool iir_pair(const Program& p, size_t i) {
  return p.passes.size() > i && p.passes[i].op == Op::Iir1d && xy_pair(p, i);
}

bool sat_pair(const Program& p, size_t i) {
  if (i + 1 >= p.passes.size()) return false;
  const Pass &a = p.passes[i], &b = p.passes[i + 1];
  if (a.op != Op::Sat || b.op != Op::Sat || a.dst != b.src || a.dst < 2 || a.src == a.dst || b.dst == a.dst ||
      a.extend != 0 || b.extend != 0)
    return false;
  const ImageDecl &s = p.images[size_t(a.src)], &m = p.images[size_t(a.dst)], &d = p.images[size_t(b.dst)];
  if (!s.f64 || !m.f64 || !d.f64 || s.pad != m.pad || d.pad != m.pad || s.divisor != m.divisor ||
      d.divisor != m.divisor)
    return false;
  for (size_t j = 0; j < p.passes.size(); ++j)
    if (j != i + 1 && p.passes[j].src == a.dst) return false;
  return true;
}

bool down2_fusable(const Pass& p, const Pass& q) {
  return (p.taps.size() == 2 || p.taps.size() == 4) && q.taps.size() <= size_t(kResamplePairMaxTaps) &&
         p.hint == q.hint;
}

bool resample_pair(const Program& prog, size_t i) {
  if (i + 1 >= prog.passes.size()) return false;
  const Pass &p = prog.passes[i], &q = prog.passes[i + 1];
  if ((p.op != Op::Down2 && p.op != Op::Up2) || q.op != p.op || p.dst != q.src || p.dst < 2 || q.dst == p.src ||
      q.dst == p.dst || p.src == p.dst)
    return false;
  if (p.op == Op::Down2 && !down2_fusable(p, q)) return false;
  if (prog.images[size_t(p.dst)].f64) return false;
  for (size_t j = 0; j < prog.passes.size(); ++j)
    if (j != i + 1 && prog.passes[j].src == p.dst) return false;
  if (p.op == Op::Up2) {
    // Up chains pair from their end: the last two passes (the largest images) are the pair that pays most.
    size_t more = 0;
    for (size_t j = i + 2; j < prog.passes.size() && prog.passes[j].op == Op::Up2 &&
                           prog.passes[j].src == prog.passes[j - 1].dst;
         ++j)
      ++more;
    if (more % 2 != 0) return false;
  }
  return true;
}

bool dual_pair(const Program& prog, size_t i) {
  if (i + 1 >= prog.passes.size()) return false;
  const Pass &p = prog.passes[i], &q = prog.passes[i + 1];
  if (p.op != Op::DualDown || q.op != p.op || p.dst != q.src || p.dst < 2 || q.dst == p.src || q.dst == p.dst ||
      p.src == p.dst)
    return false;
  if (prog.images[size_t(p.dst)].f64) return false;
  // The middle content (written by pass i, never by the fused kernel) must be dead after pass i + 1: no later
  // pass reads it before one writes the image again.
  for (size_t j = i + 2; j < prog.passes.size(); ++j) {
    if (prog.passes[j].src == p.dst) return false;
    if (prog.passes[j].dst == p.dst) break;
  }
  // The chain pairs from its start (the full-resolution level).
  size_t more = 0;
  for (size_t j = i; j > 0 && prog.passes[j - 1].op == Op::DualDown && prog.passes[j - 1].dst == prog.passes[j].src;
       --j)
    ++more;
  return more % 2 == 0;
}

}  // namespace gpublur
