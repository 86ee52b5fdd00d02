// The "lean" adapter: OpenEXR and libpng called directly, for deployments without OpenImageIO.
#include "core/io/image_io.hpp"
#include "core/io/io_common.hpp"
#include "core/io/lean_formats.hpp"

namespace gpublur {

namespace {

class LeanIO final : public ImageIO {
 public:
  std::string name() const override { return "lean"; }

  Status read(const std::string& path, const ReadLimits& limits, LoadedImage& out) override {
    std::string format;
    if (Status st = io::preflight_read(path, format); !st) return st;
    if (format != "png") return io::read_exr_lean(path, limits, out);
    Status st = io::read_png_lean(path, limits, out);
    if (st) io::warn_non_srgb_png(path, out.meta.png_chunks);
    return st;
  }

  Status write(const std::string& path, const Image& img, const ImageMeta& meta) override {
    std::string format;
    std::vector<std::string> names;
    if (Status st = io::prepare_write(path, img, meta, format, names); !st) return st;
    return format == "png" ? io::write_png_lean(path, img, meta) : io::write_exr_lean(path, img, meta, names);
  }
};

}  // namespace

std::unique_ptr<ImageIO> make_lean_io() { return std::make_unique<LeanIO>(); }

bool probe_image(const std::string& path, int& width, int& height, int& channels) {
  std::string format;
  if (!io::preflight_read(path, format)) return false;
  return format == "png" ? io::probe_png(path, width, height, channels) : io::probe_exr(path, width, height, channels);
}

}  // namespace gpublur
