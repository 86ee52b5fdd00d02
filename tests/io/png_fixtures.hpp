// PNG files the adapters never write themselves (palette, low bit depth, forged headers), made with libpng.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpublur::test {

struct PaletteFixture {
  int width = 0, height = 0, bit_depth = 8;       // bit depth 1, 2, 4 or 8
  std::vector<std::array<uint8_t, 3>> palette;     // RGB entries
  std::vector<uint8_t> trns;                       // alpha per entry (may be shorter than the palette, or empty)
  std::vector<uint8_t> indices;                    // width * height (may point past the palette: an invalid file)
  bool interlaced = false;                         // Adam7
};

// Writes a palette PNG; returns false on failure.
bool write_palette_png(const std::string& path, const PaletteFixture& p);
// Writes a gray PNG with bit depth 1, 2 or 4 from samples in [0, 2^depth - 1].
bool write_low_depth_gray_png(const std::string& path, int w, int h, int depth, const std::vector<uint8_t>& v);
// An 8-bit gray (channels 1) or RGB (channels 3) PNG with a tRNS chunk marking `key` (one value per channel)
// as transparent.
bool write_color_key_png(const std::string& path, int w, int h, int channels, const std::vector<uint8_t>& v,
                         const std::vector<uint8_t>& key);
// A PNG whose IHDR claims width x height RGBA 8-bit with only a few rows of data: a decompression-bomb header.
void write_png_header_only(const std::string& path, uint32_t width, uint32_t height);

}  // namespace gpublur::test
