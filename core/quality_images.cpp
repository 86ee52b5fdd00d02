#include "core/quality_images.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpublur {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A 32-bit integer hash (Chris Wellons' lowbias32), chained over the arguments: the same on every machine.
uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
uint32_t hash(uint32_t a, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0) {
  return mix(mix(mix(mix(a) ^ b) ^ c) ^ d);
}
// 24 bits of a hash as a float in [0,1).
float unit(uint32_t h) { return float(h >> 8) * (1.0f / 16777216.0f); }

// A sequential generator for drawing shapes: splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0,1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  int below(int n) { return int(uniform() * n); }

 private:
  uint64_t s_;
};

struct Rgb {
  float r = 0, g = 0, b = 0;
};
Rgb lerp(const Rgb& a, const Rgb& b, float t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}
Rgb random_colour(Rng& rng) {
  // Mostly mid-tones, some near black or white: hard edges of every contrast.
  const double k = rng.uniform();
  auto c = [&] {
    const double v = rng.uniform();
    return float(k < 0.15 ? 0.05 * v : k > 0.85 ? 0.9 + 0.1 * v : v);
  };
  return {c(), c(), c()};
}
void put(Image& img, int x, int y, const Rgb& c) {
  img.at(x, y, 0) = c.r, img.at(x, y, 1) = c.g, img.at(x, y, 2) = c.b;
}

// Cubic B-spline weights for fraction t, taps at -1, 0, 1, 2.
void bspline(double t, double w[4]) {
  const double t2 = t * t, t3 = t2 * t;
  w[0] = (1 - t) * (1 - t) * (1 - t) / 6;
  w[1] = (3 * t3 - 6 * t2 + 4) / 6;
  w[2] = (-3 * t3 + 3 * t2 + 3 * t + 1) / 6;
  w[3] = t3 / 6;
}

// Scales all values of img to [0,1] together.
void normalise(Image& img) {
  const auto [lo, hi] = std::minmax_element(img.data.begin(), img.data.end());
  const float a = *lo, span = *hi - *lo;
  for (float& v : img.data) v = span > 0 ? (v - a) / span : 0.5f;
}

// One channel of smooth noise: grid values unit(hash(seed, i, j)) every `cell` pixels, the grid shifted by a
// random fraction of a cell, interpolated separably with the cubic B-spline.
void smooth_channel(int width, int height, double cell, uint32_t seed, std::vector<double>& out) {
  const double ox = unit(hash(seed, 0xA1)), oy = unit(hash(seed, 0xB2));
  const int gy = int(std::floor((height - 0.5) / cell + oy)) + 4;  // grid rows needed, from index -1
  // Horizontal: each grid row j interpolated at every pixel column.
  std::vector<double> rows(size_t(gy) * width);
  for (int x = 0; x < width; ++x) {
    const double u = (x + 0.5) / cell + ox;
    const int i = int(std::floor(u));
    double w[4];
    bspline(u - i, w);
    for (int j = 0; j < gy; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += w[k] * unit(hash(seed, uint32_t(i - 1 + k), uint32_t(j - 1)));
      rows[size_t(j) * width + x] = s;
    }
  }
  out.assign(size_t(width) * height, 0.0);
  for (int y = 0; y < height; ++y) {
    const double v = (y + 0.5) / cell + oy;
    const int j = int(std::floor(v));
    double w[4];
    bspline(v - j, w);
    for (int k = 0; k < 4; ++k) {
      const double* row = &rows[size_t(j + k) * width];  // grid row j - 1 + k, stored at index j + k
      for (int x = 0; x < width; ++x) out[size_t(y) * width + x] += w[k] * row[x];
    }
  }
}

// Sum of octaves, cells 2, 4, ... up to max(width, height), amplitude proportional to the cell.
void pink_channel(int width, int height, uint32_t seed, std::vector<double>& out) {
  out.assign(size_t(width) * height, 0.0);
  std::vector<double> octave;
  uint32_t k = 0;
  for (double cell = 2; cell <= std::max(width, height); cell *= 2, ++k) {
    smooth_channel(width, height, cell, hash(seed, 0x5EED, k), octave);
    for (size_t i = 0; i < out.size(); ++i) out[i] += cell * (octave[i] - 0.5);
  }
}

void check_size(int w, int h) {
  if (w < 1 || h < 1) throw std::invalid_argument("generated image size must be positive");
}

// ---------------------------------------------------------------------------------------------------------

Image edges_image(int size, uint32_t seed) {
  Image img(size, size, 3);
  Rng rng(seed);
  const Rgb bg = random_colour(rng);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) put(img, x, y, bg);
  const int shapes = 70;
  for (int n = 0; n < shapes; ++n) {
    const Rgb c = random_colour(rng);
    const double u = rng.uniform();
    const double extent = size * (0.015 + 0.35 * u * u * u);  // many small, a few large
    const double cx = rng.uniform(-0.05, 1.05) * size, cy = rng.uniform(-0.05, 1.05) * size;
    const int kind = rng.below(4);
    const double angle = rng.uniform(0, kPi);
    const double ca = std::cos(angle), sa = std::sin(angle);
    const double hw = extent * rng.uniform(0.3, 1.0), hh = extent * rng.uniform(0.3, 1.0);
    const double line_half = 0.5 * (1 + rng.below(3));  // 1..3 px wide
    const double reach = extent * 1.5 + 4;
    const int x0 = std::max(0, int(cx - reach)), x1 = std::min(size - 1, int(cx + reach));
    const int y0 = std::max(0, int(cy - reach)), y1 = std::min(size - 1, int(cy + reach));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
        bool inside = false;
        switch (kind) {
          case 0:  // axis-aligned rectangle
            inside = std::abs(dx) <= hw && std::abs(dy) <= hh;
            break;
          case 1: {  // rotated rectangle
            const double rx = ca * dx + sa * dy, ry = -sa * dx + ca * dy;
            inside = std::abs(rx) <= hw && std::abs(ry) <= hh;
            break;
          }
          case 2:  // disk
            inside = dx * dx + dy * dy <= hw * hw;
            break;
          default: {  // thin line segment
            const double along = ca * dx + sa * dy, across = -sa * dx + ca * dy;
            inside = std::abs(along) <= extent * 1.5 && std::abs(across) <= line_half;
            break;
          }
        }
        if (inside) put(img, x, y, c);
      }
  }
  return img;
}

Image texture_image(int size, uint32_t seed) {
  Image img(size, size, 3);
  Rng rng(seed);
  std::vector<double> fine;
  smooth_channel(size, size, 1.5, hash(seed, 0xF1E), fine);
  const int tiles = 4, patterns = 10;
  const int tile = std::max(1, size / tiles);
  // Each patch: a pattern t(x, y) in [0,1] between two random colours.
  std::vector<Rgb> a(tiles * tiles), b(tiles * tiles);
  for (int i = 0; i < tiles * tiles; ++i) {  // a dark and a light colour: every patch has real contrast
    const Rgb u = random_colour(rng), v = random_colour(rng);
    a[i] = {0.35f * u.r, 0.35f * u.g, 0.35f * u.b};
    b[i] = {0.6f + 0.4f * v.r, 0.6f + 0.4f * v.g, 0.6f + 0.4f * v.b};
  }
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const int tx = std::min(tiles - 1, x / tile), ty = std::min(tiles - 1, y / tile);
      const int patch = ty * tiles + tx;
      const int lx = x - tx * tile, ly = y - ty * tile;  // position inside the patch
      float t = 0;
      switch ((patch * 3) % patterns) {  // neighbouring patches get different patterns
        case 0: t = unit(hash(seed, uint32_t(x), uint32_t(y))); break;  // white noise
        case 1: t = float(y % 2); break;                                   // 1 px horizontal stripes
        case 2: t = float(x % 3 == 0); break;                              // 1 of 3 px vertical lines
        case 3: t = float(((x + y) / 2) % 2); break;                       // 2 px diagonal stripes
        case 4: t = float((x + y) % 2); break;                             // 1 px checker
        case 5: t = float((x / 2 + y / 2) % 2); break;                     // 2 px checker
        case 6: t = float(0.5 + 0.5 * std::sin(2 * kPi * (x * 0.866 + y * 0.5) / 5)); break;  // grating
        case 7: {  // zone plate: a chirp reaching the Nyquist frequency at the patch's edge midpoints
          const double half = 0.5 * tile, dx = lx + 0.5 - half, dy = ly + 0.5 - half;
          t = float(0.5 + 0.5 * std::cos(kPi * (dx * dx + dy * dy) / (2 * half)));
          break;
        }
        case 8: t = float(fine[size_t(y) * size + x]); t = std::clamp((t - 0.5f) * 4 + 0.5f, 0.0f, 1.0f); break;
        default: t = float(x % 2) * float(y % 3 != 0); break;  // woven: 1 px columns broken every 3 rows
      }
      put(img, x, y, lerp(a[patch], b[patch], t));
    }
  return img;
}

Image mixed_image(int size, uint32_t seed) {
  Image img(size, size, 3);
  Rng rng(seed);
  const double s = size;
  std::vector<double> clouds, shade, grain, ridge_noise;
  pink_channel(size, size, hash(seed, 1), clouds);
  pink_channel(size, size, hash(seed, 2), shade);
  smooth_channel(size, size, 1.5, hash(seed, 3), grain);
  pink_channel(size, 1, hash(seed, 4), ridge_noise);
  auto scale01 = [](std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const double a = *lo, span = *hi - *lo;
    for (double& x : v) x = span > 0 ? (x - a) / span : 0.5;
  };
  scale01(clouds), scale01(shade), scale01(ridge_noise);
  const Rgb sky_top{0.25f, 0.42f, 0.85f}, sky_low{0.80f, 0.82f, 0.80f};
  const Rgb rock{0.30f, 0.32f, 0.30f}, meadow{0.22f, 0.45f, 0.12f};
  const double sun_x = s * rng.uniform(0.55, 0.85), sun_y = s * rng.uniform(0.12, 0.25), sun_r = s * 0.06;
  struct Blob {
    double x, y, r;
  };
  std::vector<Blob> trees;
  for (int i = 0; i < 5; ++i) trees.push_back({s * rng.uniform(0.05, 0.95), s * rng.uniform(0.68, 0.9),
                                               s * rng.uniform(0.03, 0.08)});
  const double wire0 = s * rng.uniform(0.08, 0.2), wire_slope = rng.uniform(-0.1, 0.1);
  const int house_x0 = int(s * 0.18), house_x1 = int(s * 0.33), house_y0 = int(s * 0.62), house_y1 = int(s * 0.76);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const size_t i = size_t(y) * size + x;
      const double fy = (y + 0.5) / s;
      const double ridge = s * (0.38 + 0.2 * ridge_noise[size_t(x)]);
      Rgb c;
      if (y < ridge) {  // sky with clouds
        c = lerp(sky_top, sky_low, float(fy / 0.6));
        const float cloud = float(std::max(0.0, clouds[i] - 0.55) * 2.2);
        c = lerp(c, Rgb{0.95f, 0.95f, 0.95f}, std::min(1.0f, cloud));
        const double dx = x + 0.5 - sun_x, dy = y + 0.5 - sun_y;
        if (dx * dx + dy * dy <= sun_r * sun_r) c = {1.0f, 0.95f, 0.8f};
      } else if (fy < 0.62) {  // mountain: shaded rock with grain
        c = lerp(rock, Rgb{0.55f, 0.55f, 0.5f}, float(shade[i]));
      } else {  // meadow: 1/f shading and fine texture
        c = lerp(meadow, Rgb{0.5f, 0.6f, 0.2f}, float(shade[i]));
      }
      const float g = float(grain[i] - 0.5) * (fy < 0.62 && y >= ridge ? 0.5f : fy >= 0.62 ? 0.8f : 0.0f);
      c = {c.r + g, c.g + g, c.b + g};
      for (const Blob& t : trees) {  // soft-edged dark blobs
        const double d = std::hypot(x + 0.5 - t.x, y + 0.5 - t.y) / t.r;
        if (d < 1) c = lerp(c, Rgb{0.05f, 0.15f, 0.05f}, float(1 - d * d * (3 - 2 * d)));
      }
      if (x >= house_x0 && x < house_x1 && y >= house_y0 && y < house_y1) {  // hard-edged house, a window
        const bool window = x >= house_x0 + (house_x1 - house_x0) / 3 && x < house_x0 + 2 * (house_x1 - house_x0) / 3 &&
                            y >= house_y0 + (house_y1 - house_y0) / 4 && y < house_y0 + (house_y1 - house_y0) / 2;
        c = window ? Rgb{0.9f, 0.8f, 0.3f} : Rgb{0.6f, 0.2f, 0.15f};
      }
      for (int w = 0; w < 2; ++w) {  // thin wires across the sky
        const double wy = wire0 + w * s * 0.03 + wire_slope * x;
        if (std::abs(y + 0.5 - wy) < 0.5 + 0.25 * w) c = {0.05f, 0.05f, 0.05f};
      }
      put(img, x, y, {std::clamp(c.r, 0.0f, 1.0f), std::clamp(c.g, 0.0f, 1.0f), std::clamp(c.b, 0.0f, 1.0f)});
    }
  return img;
}

}  // namespace

Image smooth_noise_image(int width, int height, int channels, double cell, uint32_t seed) {
  check_size(width, height);
  Image img(width, height, channels);
  std::vector<double> ch;
  for (int c = 0; c < channels; ++c) {
    smooth_channel(width, height, std::max(1.0, cell), hash(seed, uint32_t(c)), ch);
    for (size_t i = 0; i < ch.size(); ++i) img.data[i * channels + c] = float(ch[i]);
  }
  return img;
}

Image pink_noise_image(int width, int height, int channels, uint32_t seed) {
  check_size(width, height);
  Image img(width, height, channels);
  std::vector<double> common, own;
  pink_channel(width, height, hash(seed, 0xC0), common);
  for (int c = 0; c < channels; ++c) {
    pink_channel(width, height, hash(seed, uint32_t(c)), own);
    for (size_t i = 0; i < own.size(); ++i) img.data[i * channels + c] = float(common[i] + 0.35 * own[i]);
  }
  normalise(img);
  return img;
}

std::vector<GeneratedImage> quality_test_images(int size) {
  if (size < 16) throw std::invalid_argument("built-in quality images need a size of at least 16");
  std::vector<GeneratedImage> v;
  v.push_back({"pink-noise", "1/f amplitude spectrum, colour channels correlated", pink_noise_image(size, size, 3, 101)});
  v.push_back({"edges", "hard-edged flat rectangles, disks and thin lines", edges_image(size, 202)});
  v.push_back({"texture", "noise, 1-3 px stripes and checkers, a grating and a zone plate", texture_image(size, 303)});
  v.push_back({"mixed", "landscape: gradient sky, 1/f ridge, textured ground, hard and soft shapes", mixed_image(size, 404)});
  return v;
}

}  // namespace gpublur
