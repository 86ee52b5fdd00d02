// PNG codec comparison for docs/performance.md: decode and encode one PNG with libpng (+zlib), libspng
// (+zlib) and gpublur's libdeflate path (core/io/png_fast), timed in thread CPU time (robust on a shared
// machine), sizes at each zlib level. Usage: gpublur_png_codec_bench FILE.png [REPEAT]
#include <png.h>
#include <spng.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "core/io/lean_formats.hpp"
#include "core/io/png_fast.hpp"

namespace {

double cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double best_of(int n, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    const double t0 = cpu_ms();
    f();
    best = std::min(best, cpu_ms() - t0);
  }
  return best;
}

struct Mem {
  std::vector<unsigned char> out;
};
void mem_write(png_structp p, png_bytep d, png_size_t n) {
  auto* m = static_cast<Mem*>(png_get_io_ptr(p));
  m->out.insert(m->out.end(), d, d + n);
}
void mem_flush(png_structp) {}

std::vector<unsigned char> libpng_encode(const gpublur::io::PngRaw& raw, int level) {
  Mem m;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_set_write_fn(png, &m, mem_write, mem_flush);
  png_set_compression_level(png, level);
  static const int types[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_IHDR(png, info, raw.width, raw.height, raw.bit_depth, types[raw.channels], 0, 0, 0);
  png_write_info(png, info);
  const size_t row = size_t(raw.width) * raw.channels * raw.bit_depth / 8;
  for (uint32_t y = 0; y < raw.height; ++y) png_write_row(png, raw.samples.data() + y * row);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return m.out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: %s FILE.png [REPEAT]\n", argv[0]), 2;
  const int rep = argc > 2 ? std::atoi(argv[2]) : 3;
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) return 1;
  std::vector<unsigned char> file;
  unsigned char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) file.insert(file.end(), buf, buf + n);
  std::fclose(f);

  gpublur::io::PngRaw raw;
  std::vector<unsigned char> samples;
  const double t_libpng = best_of(rep, [&] {
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    png_image_begin_read_from_memory(&img, file.data(), file.size());
    img.format = PNG_FORMAT_RGB;
    samples.resize(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, nullptr, samples.data(), 0, nullptr)) std::printf("libpng: %s\n", img.message);
    raw.width = img.width, raw.height = img.height, raw.channels = 3, raw.bit_depth = 8;
  });
  raw.samples = samples;
  const double t_spng = best_of(rep, [&] {
    spng_ctx* ctx = spng_ctx_new(0);
    spng_set_png_buffer(ctx, file.data(), file.size());
    size_t n = 0;
    spng_decoded_image_size(ctx, SPNG_FMT_PNG, &n);
    std::vector<unsigned char> out(n);
    spng_decode_image(ctx, out.data(), n, SPNG_FMT_PNG, 0);
    spng_ctx_free(ctx);
  });
  bool same = false;
  const double t_fast = best_of(rep, [&] {
    gpublur::io::PngRaw r;
    std::vector<std::pair<std::string, std::string>> text;
    bool srgb;
    same = gpublur::io::decode_png_fast(file.data(), file.size(), r, text, srgb);
  });
  std::printf("%s: %ux%u x%d, %zu bytes; thread CPU ms, best of %d\n", argv[1], raw.width, raw.height, raw.channels,
              file.size(), rep);
  std::printf("decode  libpng %.0f  libspng %.0f  libdeflate-path (chunks only: %s)\n", t_libpng, t_spng,
              same ? "ok" : "not handled");
  // Full decode through the fast path: write the file to a temp and use read_png_fast.
  {
    char tmp[] = "/tmp/gpublur_codec_XXXXXX";
    int fd = mkstemp(tmp);
    FILE* w = fdopen(fd, "wb");
    fwrite(file.data(), 1, file.size(), w);
    fclose(w);
    gpublur::LoadedImage li;
    gpublur::Status st;
    const double t = best_of(rep, [&] { gpublur::io::read_png_fast(tmp, gpublur::ReadLimits{}, li, st); });
    const double tl = best_of(rep, [&] { gpublur::io::read_png_lean(tmp, gpublur::ReadLimits{}, li); });
    size_t diff = 0;
    for (size_t i = 0; i < raw.samples.size() && i < li.image.data.size(); ++i)
      diff += li.image.data[i] != float(raw.samples[i]) / 255.0f;
    std::printf("decode to float32 (the adapters' read): libdeflate path %.0f, lean adapter (fast path unless "
                "GPUBLUR_PNG_LIBPNG) %.0f; %zu values differ from libpng's\n", t, tl, diff);
    std::remove(tmp);
  }
  for (int level : {1, 6}) {
    std::vector<unsigned char> a, b, c;
    const double ta = best_of(rep, [&] { a = libpng_encode(raw, level); });
    const double tb = best_of(rep, [&] {
      spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
      spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
      spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, level);
      spng_ihdr ihdr{raw.width, raw.height, 8, SPNG_COLOR_TYPE_TRUECOLOR, 0, 0, 0};
      spng_set_ihdr(ctx, &ihdr);
      spng_encode_image(ctx, raw.samples.data(), raw.samples.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
      size_t n = 0;
      int err = 0;
      void* p = spng_get_png_buffer(ctx, &n, &err);
      b.assign(static_cast<unsigned char*>(p), static_cast<unsigned char*>(p) + n);
      std::free(p);
      spng_ctx_free(ctx);
    });
    const double tc = best_of(rep, [&] { gpublur::io::encode_png_fast(raw, true, {}, level, c); });
    std::printf("encode level %d  libpng %.0f ms %zu B  libspng %.0f ms %zu B  libdeflate-path %.0f ms %zu B (%.1f%% of libpng)\n",
                level, ta, a.size(), tb, b.size(), tc, c.size(), 100.0 * c.size() / a.size());
  }
  return 0;
}
