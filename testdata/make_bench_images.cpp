// Makes the folder benchmark's inputs (scripts/folder_bench.sh): PNGs of RGB 8-bit and EXRs of RGBA half
// that look like photographs to a codec: a smooth scene (gradients, soft discs) under sensor-like grain
// (Gaussian noise, stronger in the shadows, per channel), so they compress like camera images, not like
// flat synthetic ones. PNGs are written by libpng itself at the zlib level given, as other tools would.
// Usage: gpublur_make_bench_images DIR PNG_COUNT EXR_COUNT [WIDTH HEIGHT LEVEL]
#include <ImfChannelList.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>
#include <ImfFrameBuffer.h>
#include <Imath/half.h>
#include <png.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

// Scene value in [0,1] for channel c at (x, y) of image `seed`: linear light.
struct Scene {
  float gx, gy, cx[3], cy[3], r[3], tint[3];
  explicit Scene(int seed) {
    std::mt19937 rng(seed * 7919 + 1);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    gx = u(rng), gy = u(rng);
    for (int i = 0; i < 3; ++i) cx[i] = u(rng), cy[i] = u(rng), r[i] = 0.1f + 0.25f * u(rng), tint[i] = 0.5f + 0.5f * u(rng);
  }
  float at(float x, float y, int c) const {
    float v = 0.15f + 0.5f * (gx * x + gy * y) / (gx + gy + 1e-3f);
    for (int i = 0; i < 3; ++i) {
      const float d = std::hypot(x - cx[i], y - cy[i]) / r[i];
      v += 0.35f * tint[(i + c) % 3] / (1.0f + std::pow(d, 6.0f));
    }
    return std::clamp(v * (0.8f + 0.1f * c), 0.0f, 1.0f);
  }
};

// Sensor-like grain: shot noise (grows with the signal's root) plus read noise, in linear light.
float grain(float v, std::mt19937& rng) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  return std::clamp(v + n(rng) * (0.004f + 0.02f * std::sqrt(v)), 0.0f, 1.0f);
}

float to_srgb(float v) { return v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1 / 2.4f) - 0.055f; }

bool write_png(const std::string& path, int w, int h, int seed, int level) {
  const Scene s(seed);
  std::mt19937 rng(seed);
  std::vector<unsigned char> px(size_t(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        px[(size_t(y) * w + x) * 3 + c] =
            (unsigned char)std::lround(255 * to_srgb(grain(s.at(float(x) / w, float(y) / h, c), rng)));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    std::fclose(f);
    return false;
  }
  png_init_io(png, f);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y) png_write_row(png, px.data() + size_t(y) * w * 3);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return std::fclose(f) == 0;
}

bool write_exr(const std::string& path, int w, int h, int seed) {
  const Scene s(seed + 1000);
  std::mt19937 rng(seed + 1000);
  std::vector<Imath::half> px(size_t(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float a = std::clamp(0.6f + 0.4f * s.at(float(y) / h, float(x) / w, 0), 0.0f, 1.0f);
      for (int c = 0; c < 3; ++c) px[(size_t(y) * w + x) * 4 + c] = grain(s.at(float(x) / w, float(y) / h, c), rng) * a;
      px[(size_t(y) * w + x) * 4 + 3] = a;
    }
  try {
    Imf::Header header(w, h);
    header.compression() = Imf::ZIP_COMPRESSION;
    Imf::FrameBuffer fb;
    const char* names[4] = {"R", "G", "B", "A"};
    for (int c = 0; c < 4; ++c) {
      header.channels().insert(names[c], Imf::Channel(Imf::HALF));
      fb.insert(names[c], Imf::Slice(Imf::HALF, reinterpret_cast<char*>(px.data() + c), 4 * sizeof(Imath::half),
                                     4 * sizeof(Imath::half) * w));
    }
    Imf::OutputFile file(path.c_str(), header);
    file.setFrameBuffer(fb);
    file.writePixels(h);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DIR PNG_COUNT EXR_COUNT [WIDTH HEIGHT LEVEL]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int npng = std::atoi(argv[2]), nexr = std::atoi(argv[3]);
  const int w = argc > 5 ? std::atoi(argv[4]) : 3840, h = argc > 5 ? std::atoi(argv[5]) : 2160;
  const int level = argc > 6 ? std::atoi(argv[6]) : 6;
  std::atomic<int> next{0}, failed{0};
  auto work = [&] {
    for (int i; (i = next++) < npng + nexr;) {
      char name[64];
      bool ok;
      if (i < npng) {
        std::snprintf(name, sizeof name, "/grain_%03d.png", i);
        ok = write_png(dir + name, w, h, i, level);
      } else {
        std::snprintf(name, sizeof name, "/grain_%03d.exr", i - npng);
        ok = write_exr(dir + name, w, h, i - npng);
      }
      if (!ok) ++failed, std::fprintf(stderr, "failed: %s%s\n", dir.c_str(), name);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return failed ? 1 : 0;
}
