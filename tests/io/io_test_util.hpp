// Helpers for the I/O tests: temporary folders, random images, raw file bytes, the adapters built.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/io/image_io.hpp"

namespace gpublur::test {

// A fresh folder under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// Values uniform in [lo, hi), reproducible from `seed`.
Image random_image(int w, int h, int c, uint32_t seed, float lo = 0.0f, float hi = 1.0f);

std::vector<unsigned char> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes);

// "lean" always; "oiio" where this build has it.
std::vector<std::string> built_adapters();

std::string testdata_dir();

// The warnings (and other log lines) a read logs, with its status; the image into `out` where given.
std::string read_logging(ImageIO& io, const std::string& path, Status& status, LoadedImage* out = nullptr);
// What a write logs.
std::string write_logging(ImageIO& io, const std::string& path, const Image& img, const ImageMeta& meta,
                          Status& status);

}  // namespace gpublur::test
