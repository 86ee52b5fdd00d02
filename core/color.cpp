#include "core/color.hpp"

#include <cmath>

namespace gpublur {

float srgb_to_linear(float v) {
  // Computed in double so the round trip through linear_to_srgb is exact to float precision.
  const double x = v;
  return float(x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float v) {
  const double x = v;
  return float(x <= 0.0031308 ? x * 12.92 : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055);
}

namespace {

template <typename F>
void map_colour(Image& img, int alpha_channel, F f) {
  const int c = img.channels;
  const size_t n = img.pixel_count();
  for (size_t i = 0; i < n; ++i) {
    float* p = img.data.data() + i * c;
    for (int k = 0; k < c; ++k)
      if (k != alpha_channel) p[k] = f(p[k]);
  }
}

}  // namespace

void premultiply_alpha(Image& img, int a) {
  const int c = img.channels;
  for (size_t i = 0, n = img.pixel_count(); i < n; ++i) {
    float* p = img.data.data() + i * c;
    for (int k = 0; k < c; ++k)
      if (k != a) p[k] *= p[a];
  }
}

void unpremultiply_alpha(Image& img, int a) {
  const int c = img.channels;
  for (size_t i = 0, n = img.pixel_count(); i < n; ++i) {
    float* p = img.data.data() + i * c;
    const float alpha = p[a];
    for (int k = 0; k < c; ++k)
      if (k != a) p[k] = alpha > 0 ? p[k] / alpha : 0.0f;
  }
}

ColorState to_working(Image& img, const ImageMeta& meta, const ColorOptions& opt) {
  ColorState s;
  s.alpha_channel = (meta.alpha_channel >= 0 && meta.alpha_channel < img.channels) ? meta.alpha_channel : -1;
  s.srgb_encoded = meta.srgb;
  if (meta.srgb && opt.linear) {
    map_colour(img, s.alpha_channel, srgb_to_linear);
    s.srgb_encoded = false;
  }
  // PNG alpha is straight; EXR alpha is premultiplied by convention.
  const bool straight = meta.format == "png";
  if (s.alpha_channel >= 0) {
    s.premultiplied = !straight;
    if (straight && opt.premultiply) {
      premultiply_alpha(img, s.alpha_channel);
      s.premultiplied = true;
    }
  }
  return s;
}

void from_working(Image& img, const ColorState& s, const std::string& out_format, const ColorOptions& opt,
                  ImageMeta& out_meta) {
  const bool png = out_format == "png";
  // Un-premultiply in linear light, before encoding, the inverse order of to_working.
  if (s.alpha_channel >= 0 && s.premultiplied && png && opt.premultiply)
    unpremultiply_alpha(img, s.alpha_channel);
  bool encoded = s.srgb_encoded;
  if (png && opt.linear && !encoded) {
    map_colour(img, s.alpha_channel, linear_to_srgb);
    encoded = true;
  }
  out_meta.srgb = png && encoded;
}

Image extract_channels(const Image& src, int first, int count) {
  Image out(src.width, src.height, count);
  const size_t n = src.pixel_count();
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < count; ++k) out.data[i * count + k] = src.data[i * src.channels + first + k];
  return out;
}

void insert_channels(const Image& part, int first, Image& dst) {
  const size_t n = dst.pixel_count();
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < part.channels; ++k) dst.data[i * dst.channels + first + k] = part.data[i * part.channels + k];
}

}  // namespace gpublur
