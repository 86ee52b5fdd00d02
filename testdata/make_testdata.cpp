// Regenerates the files in testdata/ (see testdata/README.md): small synthetic images that look like real
// ones (smooth gradients, shapes with sharp edges, texture, grain) so a blur is visible, plus broken files in
// bad/. Deterministic: its own PRNG and noise, no std distributions, so every run gives the same pixels.
//   usage: gpublur_make_testdata OUTPUT_DIR
#include <png.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"

namespace {

using gpublur::Image;
using gpublur::ImageMeta;
using gpublur::PixelType;

// ---- deterministic randomness --------------------------------------------------------------------------
uint32_t hash32(uint32_t x) {  // integer hash (lowbias32)
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}
float hash01(int x, int y, uint32_t seed) {
  return float(hash32(uint32_t(x) * 0x9E3779B1U ^ hash32(uint32_t(y) + seed * 0x85EBCA77U)) >> 8) / 16777216.0f;
}
float smooth(float t) { return t * t * (3 - 2 * t); }
// Value noise on a lattice of `cell` pixels, in [0,1).
float value_noise(float x, float y, float cell, uint32_t seed) {
  float fx = x / cell, fy = y / cell;
  int ix = int(std::floor(fx)), iy = int(std::floor(fy));
  float tx = smooth(fx - ix), ty = smooth(fy - iy);
  float a = hash01(ix, iy, seed), b = hash01(ix + 1, iy, seed);
  float c = hash01(ix, iy + 1, seed), d = hash01(ix + 1, iy + 1, seed);
  return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
}
float fbm(float x, float y, float cell, uint32_t seed, int octaves = 4) {
  float sum = 0, amp = 0.5f, norm = 0;
  for (int o = 0; o < octaves; ++o, cell *= 0.5f, amp *= 0.5f) {
    sum += amp * value_noise(x, y, cell, seed + o * 101);
    norm += amp;
  }
  return sum / norm;
}
float grain(int x, int y, uint32_t seed) { return hash01(x, y, seed) - 0.5f; }

float clamp01(float v) { return std::min(1.0f, std::max(0.0f, v)); }
float mix(float a, float b, float t) { return a + (b - a) * t; }
float coverage(float signed_dist) { return clamp01(0.5f - signed_dist); }  // 1-pixel antialiased edge

// ---- the images ----------------------------------------------------------------------------------------
// A landscape: sky gradient, sun with glow, clouds, fractal mountains with a sharp ridge, a lake with
// reflections, a house with hard edges and film grain. Values are sRGB-encoded [0,1].
Image landscape(int w, int h) {
  Image img(w, h, 3);
  const float horizon = h * 0.62f, sun_x = w * 0.72f, sun_y = h * 0.28f, sun_r = h * 0.07f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float t = float(y) / horizon;
      float r = mix(0.25f, 0.95f, t), g = mix(0.45f, 0.78f, t), b = mix(0.85f, 0.70f, t);
      float d = std::hypot(x - sun_x, y - sun_y);
      float glow = std::exp(-d / (sun_r * 2.5f));
      r += 0.6f * glow; g += 0.45f * glow; b += 0.15f * glow;
      float sun = coverage(d - sun_r);
      r = mix(r, 1.0f, sun); g = mix(g, 0.95f, sun); b = mix(b, 0.75f, sun);
      float cloud = clamp01((fbm(x * 1.0f, y * 2.2f, 48, 7) - 0.55f) * 4.0f) * clamp01(1.2f - t);
      r = mix(r, 0.97f, cloud); g = mix(g, 0.96f, cloud); b = mix(b, 0.98f, cloud);
      // Mountains: a ridge line from 1D fractal noise; sharp silhouette.
      float ridge = horizon - h * 0.32f * fbm(x * 1.0f, 0.0f, 64, 11, 5);
      float m = coverage(ridge - y);
      float rock = fbm(x * 1.0f, y * 1.0f, 16, 13);
      float snow = clamp01((ridge + h * 0.06f - y) / 3.0f) * clamp01((rock - 0.45f) * 6.0f);
      float mr = mix(0.30f, 0.45f, rock), mg = mix(0.28f, 0.38f, rock), mb = mix(0.33f, 0.40f, rock);
      mr = mix(mr, 0.95f, snow); mg = mix(mg, 0.96f, snow); mb = mix(mb, 1.0f, snow);
      r = mix(r, mr, m); g = mix(g, mg, m); b = mix(b, mb, m);
      if (y >= horizon) {  // lake: mirrored sky with ripples
        float ry = 2 * horizon - y + 3.0f * std::sin(y * 0.9f + x * 0.05f);
        float tt = clamp01(ry / horizon);
        r = mix(0.12f, 0.55f, tt); g = mix(0.25f, 0.60f, tt); b = mix(0.40f, 0.70f, tt);
        float stripe = 0.06f * std::sin(y * 1.7f) * (float(y) - horizon) / (h - horizon);
        r += stripe; g += stripe; b += stripe;
        float sunref = std::exp(-std::fabs(x - sun_x) / 6.0f) * clamp01(1 - (y - horizon) / (h * 0.3f));
        r += 0.5f * sunref; g += 0.4f * sunref; b += 0.2f * sunref;
      }
      // A house: hard-edged walls, a roof, a lit window.
      float hx0 = w * 0.18f, hx1 = w * 0.34f, hy0 = horizon - h * 0.14f, hy1 = horizon + 2;
      if (x >= hx0 && x < hx1 && y >= hy0 && y < hy1) {
        bool plank = (int(y - hy0) % 5) == 0;
        r = plank ? 0.45f : 0.62f; g = plank ? 0.20f : 0.28f; b = plank ? 0.12f : 0.16f;
        if (x >= hx0 + 6 && x < hx0 + 14 && y >= hy0 + 6 && y < hy0 + 14) { r = 1.0f; g = 0.85f; b = 0.4f; }
      }
      float roof = (hy0 - y) - (hx1 - hx0) * 0.5f + std::fabs(x - (hx0 + hx1) * 0.5f) * 0.9f;
      if (y < hy0 && roof < 0) { r = 0.25f; g = 0.08f; b = 0.07f; }
      float n = 0.035f * grain(x, y, 99);
      img.at(x, y, 0) = clamp01(r + n);
      img.at(x, y, 1) = clamp01(g + n);
      img.at(x, y, 2) = clamp01(b + n);
    }
  return img;
}

// A sprite sheet on transparent ground: soft discs (alpha falls off), a hard-edged ring, a checker
// square with half alpha, a vertical alpha ramp, each with colour texture.
Image sprites(int w, int h) {
  Image img(w, h, 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float r = 0, g = 0, b = 0, a = 0;
      auto over = [&](float cr, float cg, float cb, float ca) {  // straight-alpha "over"
        float na = ca + a * (1 - ca);
        if (na > 0) {
          r = (cr * ca + r * a * (1 - ca)) / na;
          g = (cg * ca + g * a * (1 - ca)) / na;
          b = (cb * ca + b * a * (1 - ca)) / na;
        }
        a = na;
      };
      // Alpha ramp strip at the bottom.
      if (y >= h - 24) over(0.2f, 0.6f, 0.9f, float(x) / (w - 1));
      // Soft discs.
      struct Disc { float cx, cy, rad, r, g, b; };
      const Disc discs[] = {{0.28f, 0.30f, 0.20f, 0.95f, 0.35f, 0.20f}, {0.66f, 0.34f, 0.16f, 0.25f, 0.85f, 0.35f},
                            {0.45f, 0.58f, 0.14f, 0.60f, 0.30f, 0.90f}};
      for (const Disc& d : discs) {
        float dist = std::hypot(x - d.cx * w, y - d.cy * h) / (d.rad * w);
        float alpha = clamp01(1.0f - dist * dist) * 0.9f;
        float tex = fbm(float(x), float(y), 12, 17);
        if (alpha > 0) over(clamp01(d.r * (0.7f + 0.6f * tex)), clamp01(d.g * (0.7f + 0.6f * tex)), d.b, alpha);
      }
      // Hard-edged ring, opaque.
      float ring = std::fabs(std::hypot(x - w * 0.75f, y - h * 0.70f) - w * 0.11f) - w * 0.025f;
      float cov = coverage(ring);
      if (cov > 0) over(1.0f, 0.85f, 0.1f, cov);
      // Checker square, half transparent, sharp edges.
      if (x >= w * 0.08f && x < w * 0.30f && y >= h * 0.60f && y < h * 0.82f) {
        bool c = ((x / 6) + (y / 6)) % 2 == 0;
        over(c ? 0.95f : 0.1f, c ? 0.95f : 0.1f, c ? 0.95f : 0.1f, 0.5f);
      }
      float n = 0.02f * grain(x, y, 5);
      img.at(x, y, 0) = clamp01(r + n);
      img.at(x, y, 1) = clamp01(g + n);
      img.at(x, y, 2) = clamp01(b + n);
      img.at(x, y, 3) = clamp01(a);
    }
  return img;
}

// A height field / depth map: smooth hills, concentric ripples, a sharp plateau and fine sensor noise
// that only 16 bits resolve.
Image heightfield(int w, int h) {
  Image img(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = 0.15f + 0.55f * fbm(float(x), float(y), 80, 23, 5);
      float d = std::hypot(x - w * 0.35f, y - h * 0.55f);
      v += 0.12f * std::cos(d * 0.35f) * std::exp(-d / 60.0f);
      if (x > w * 0.62f && x < w * 0.88f && y > h * 0.18f && y < h * 0.48f) v = 0.92f;
      v += 0.004f * grain(x, y, 31);
      img.at(x, y, 0) = clamp01(v);
    }
  return img;
}

// A linear-light HDR render with coverage alpha: a shaded sphere, an emitter brighter than 1, a floor with
// soft shadow, background transparent.
Image render(int w, int h, bool with_depth) {
  Image img(w, h, with_depth ? 5 : 4);
  const float cx = w * 0.42f, cy = h * 0.45f, rad = h * 0.30f;
  const float lx = w * 0.80f, ly = h * 0.18f, lr = h * 0.06f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float r = 0, g = 0, b = 0, a = 0, z = 1e4f;
      float floor_y = h * 0.68f;
      if (y >= floor_y) {  // floor: checker texture, shadow under the sphere
        float u = (x - w * 0.5f) / (y - floor_y + 8) * 40, v = 400.0f / (y - floor_y + 8);
        bool c = (int(std::floor(u / 10)) + int(std::floor(v / 2))) % 2 == 0;
        float shade = c ? 0.6f : 0.25f;
        float sh = 1 - 0.8f * std::exp(-std::pow(std::hypot((x - cx) / rad, (y - floor_y - 10) / 10.0f), 2.0f));
        r = g = b = shade * sh;
        b *= 1.1f;
        a = 1;
        z = 10 + v * 3;
      }
      float dx = (x - cx) / rad, dy = (y - cy) / rad, d2 = dx * dx + dy * dy;
      float cov = coverage((std::sqrt(d2) - 1) * rad);
      if (cov > 0) {
        float nz = std::sqrt(std::max(0.0f, 1 - std::min(d2, 1.0f)));
        float ldx = 0.6f, ldy = -0.5f, ldz = 0.62f;
        float diff = std::max(0.0f, dx * ldx + dy * ldy + nz * ldz);
        float spec = std::pow(std::max(0.0f, nz * 0.95f + dx * 0.2f - dy * 0.2f), 60.0f) * 8.0f;
        float tex = fbm(float(x), float(y), 10, 41);
        float sr = (0.8f * diff + 0.05f) * (0.6f + 0.5f * tex) + spec;
        float sg = (0.35f * diff + 0.03f) + spec, sb = (0.2f * diff + 0.03f) + spec;
        r = mix(r, sr, cov); g = mix(g, sg, cov); b = mix(b, sb, cov);
        a = mix(a, 1.0f, cov);
        z = 5 - nz * 2;
      }
      float ld = std::hypot(x - lx, y - ly);
      float lc = coverage(ld - lr);
      float glow = 2.0f * std::max(0.0f, std::exp(-ld / 12.0f) - 0.01f);  // cut off: background stays clear
      r += 40 * lc + glow; g += 36 * lc + glow * 0.9f; b += 25 * lc + glow * 0.6f;
      a = std::max(a, std::max(lc, clamp01(glow)));
      float n = 0.01f * grain(x, y, 77);
      img.at(x, y, 0) = std::max(0.0f, r + n);
      img.at(x, y, 1) = std::max(0.0f, g + n);
      img.at(x, y, 2) = std::max(0.0f, b + n);
      img.at(x, y, 3) = a;
      if (with_depth) img.at(x, y, 4) = z;
    }
  return img;
}

// A palette image (32 colours, some transparent): flat-shaded shapes, as in icons and GIF-era graphics.
bool write_palette_png(const std::string& path, int w, int h) {
  std::vector<uint8_t> cmap;  // RGBA entries
  for (int i = 0; i < 32; ++i) {
    float t = i / 31.0f;
    cmap.push_back(uint8_t(255 * clamp01(0.5f + 0.5f * std::sin(6.28f * t))));
    cmap.push_back(uint8_t(255 * clamp01(0.5f + 0.5f * std::sin(6.28f * t + 2.1f))));
    cmap.push_back(uint8_t(255 * clamp01(0.5f + 0.5f * std::sin(6.28f * t + 4.2f))));
    cmap.push_back(uint8_t(i == 0 ? 0 : (i < 4 ? 96 : 255)));  // entry 0 transparent, 1-3 translucent
  }
  std::vector<uint8_t> idx(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int v = 0;  // transparent background
      float d = std::hypot(x - w * 0.5f, y - h * 0.5f);
      if (d < h * 0.45f) v = 4 + int(std::min(27.0f, d / (h * 0.45f) * 28));  // banded disc
      if (std::fabs(x - w * 0.5f) < w * 0.06f || std::fabs(y - h * 0.5f) < h * 0.06f) v = 1 + (x / 8) % 3;
      if (x > w * 0.05f && x < w * 0.25f && y > h * 0.05f && y < h * 0.3f) v = ((x / 4 + y / 4) % 2) ? 31 : 8;
      idx[size_t(y) * w + x] = uint8_t(v);
    }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = w;
  image.height = h;
  image.format = PNG_FORMAT_RGBA_COLORMAP;
  image.colormap_entries = 32;
  if (!png_image_write_to_file(&image, path.c_str(), 0, idx.data(), w, cmap.data())) {
    std::fprintf(stderr, "cannot write '%s': %s\n", path.c_str(), image.message);
    return false;
  }
  return true;
}

bool write(gpublur::ImageIO& io, const std::string& path, const Image& img, const ImageMeta& meta) {
  gpublur::Status st = io.write(path, img, meta);
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.error.c_str());
  return st.ok();
}

ImageMeta png_meta(PixelType t, const std::string& description) {
  ImageMeta m;
  m.format = "png";
  m.pixel_type = t;
  m.srgb = true;
  m.attributes = {{"Description", description}, {"Software", "gpublur_make_testdata"}};
  return m;
}

ImageMeta exr_meta(PixelType t, std::vector<std::string> names, const std::string& comment) {
  ImageMeta m;
  m.format = "exr";
  m.pixel_type = t;
  m.channel_names = std::move(names);
  m.attributes = {{"comments", comment}, {"owner", "gpublur testdata (public domain)"},
                  {"gpublur:generator", "gpublur_make_testdata"}};
  return m;
}

bool copy_prefix(const std::string& src, const std::string& dst, double fraction) {
  std::ifstream in(src, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return false;
  std::ofstream out(dst, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size() * fraction));
  return bool(out);
}

}  // namespace

int main(int argc, char** argv) {
  const bool help = argc == 2 && (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help");
  if (argc != 2 || help || argv[1][0] == '-') {  // never a folder named like an option
    std::fprintf(help ? stdout : stderr, "usage: %s OUTPUT_DIR   (writes the testdata files and OUTPUT_DIR/bad/)\n",
                 argv[0]);
    return help ? 0 : 2;
  }
  const std::string dir = argv[1], bad = dir + "/bad";
  ::mkdir(dir.c_str(), 0755);
  ::mkdir(bad.c_str(), 0755);
  auto io = gpublur::make_lean_io();  // the lean writer: same bytes whichever adapter the build defaults to
  bool ok = true;
  ok &= write(*io, dir + "/landscape_rgb8.png", landscape(256, 192),
              png_meta(PixelType::UInt8, "synthetic landscape: sky, sun, mountains, lake, house, grain"));
  ok &= write(*io, dir + "/sprites_rgba8.png", sprites(192, 192),
              png_meta(PixelType::UInt8, "soft discs, hard ring, checker and alpha ramp on transparent ground"));
  ok &= write(*io, dir + "/heightfield_gray16.png", heightfield(256, 192),
              png_meta(PixelType::UInt16, "16-bit height field: hills, ripples, plateau, fine noise"));
  ok &= write_palette_png(dir + "/icon_palette.png", 160, 120);
  ok &= write(*io, dir + "/render_half_rgba.exr", render(256, 192, false),
              exr_meta(PixelType::Half, {"R", "G", "B", "A"}, "HDR render: shaded sphere, emitter up to 40, floor"));
  ok &= write(*io, dir + "/render_float_rgbaz.exr", render(160, 120, true),
              exr_meta(PixelType::Float, {"R", "G", "B", "A", "Z"}, "HDR render with depth (Z) channel"));

  // Broken files, only in bad/ so that globs over testdata/*.png and *.exr find good files only.
  std::ofstream(bad + "/empty.png", std::ios::trunc).close();
  ok &= copy_prefix(dir + "/landscape_rgb8.png", bad + "/truncated.png", 0.5);
  ok &= copy_prefix(dir + "/render_half_rgba.exr", bad + "/truncated.exr", 0.5);
  ok &= write(*io, bad + "/png_named.exr", heightfield(24, 16), [] {
    ImageMeta m = png_meta(PixelType::UInt8, "a PNG file with an .exr name");
    m.format = "png";  // PNG content, mislabelled by its name
    return m;
  }());
  if (!ok) return 1;
  std::printf("wrote testdata to %s\n", dir.c_str());
  return 0;
}
