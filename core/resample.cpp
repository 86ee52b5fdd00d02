#include "core/resample.hpp"

namespace gpublur {

bool parse_down_filter(const std::string& s, DownFilter& f) {
  for (DownFilter g : {DownFilter::Quasi, DownFilter::Box2, DownFilter::Box4, DownFilter::Mipmap})
    if (s == down_filter_name(g)) return f = g, true;
  return false;
}

const char* down_filter_name(DownFilter f) {
  switch (f) {
    case DownFilter::Quasi: return "quasi";
    case DownFilter::Box2: return "box2";
    case DownFilter::Box4: return "box4";
    case DownFilter::Mipmap: return "mipmap";
  }
  return "?";
}

std::vector<float> analysis_taps(DownFilter f) {
  switch (f) {
    case DownFilter::Quasi: return {13.f / 64, 19.f / 64, 19.f / 64, 13.f / 64};
    case DownFilter::Box4: return {0.25f, 0.25f, 0.25f, 0.25f};
    default: return {0.5f, 0.5f};
  }
}

double analysis_variance(const std::vector<float>& taps) {
  const double first = -(double(taps.size()) / 2 - 1), centre = 0.5;
  double sum = 0, var = 0;
  for (size_t i = 0; i < taps.size(); ++i) {
    const double d = first + double(i) - centre;
    sum += taps[i], var += taps[i] * d * d;
  }
  return var / sum;
}

double pyramid_variance(double v, int levels) {
  double total = 0, scale = 1;
  for (int l = 0; l < levels; ++l, scale *= 4) total += scale * (v + kUp2Variance);
  return total;
}

Pass down2_pass(const std::vector<float>& taps, Border border, int src, int dst) {
  Pass p;
  p.op = Op::Down2;
  p.taps = taps;
  p.widths = {-(int(taps.size()) / 2 - 1)};
  p.border = border;
  p.src = src, p.dst = dst;
  return p;
}

Pass up2_pass(Border border, int src, int dst) {
  Pass p;
  p.op = Op::Up2;
  p.border = border;
  p.src = src, p.dst = dst;
  return p;
}

}  // namespace gpublur
