#include "tests/test_paths.hpp"
#include "tests/io/io_test_util.hpp"

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gpublur::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/gpublur_io_test_XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  dir_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Image random_image(int w, int h, int c, uint32_t seed, float lo, float hi) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : img.data) v = dist(rng);
  return img;
}

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<std::string> built_adapters() {
  std::vector<std::string> names = {"lean"};
  if (make_oiio_io()) names.push_back("oiio");
  return names;
}

std::string testdata_dir() { return gpublur::testing::testdata_dir_path(); }

namespace {

// Runs `f` with the default logger writing into the returned text.
template <typename F>
std::string logged(F&& f) {
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
  f();
  spdlog::set_default_logger(previous);
  return log.str();
}

}  // namespace

std::string read_logging(ImageIO& io, const std::string& path, Status& status, LoadedImage* out) {
  LoadedImage img;
  return logged([&] { status = io.read(path, {}, out ? *out : img); });
}

std::string write_logging(ImageIO& io, const std::string& path, const Image& img, const ImageMeta& meta,
                          Status& status) {
  return logged([&] { status = io.write(path, img, meta); });
}

}  // namespace gpublur::test
