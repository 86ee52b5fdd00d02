// The built-in test images of `gpublur quality`: generated, deterministic (fixed seeds and a hash of their own,
// no <random> distributions, so the pixels are the same with every standard library), RGB float in [0,1],
// taken as working-space values (linear light, no alpha). Natural statistics the thesis's 4.1.2 set covers
// with photos and synthetic drawings:
//   "pink-noise"  1/f amplitude spectrum: octaves of B-spline-smoothed random grids, amplitude ~ cell size;
//   "edges"       hard-edged flat-colour rectangles, disks and thin lines, many small and a few large;
//   "texture"     fine texture: patches of white noise, 1-3 px stripes and checkers, gratings and a zone plate;
//   "mixed"       a landscape-like scene: sky gradient, a 1/f ridge with a hard silhouette, a textured
//                 ground shaded by 1/f noise, a hard disc, soft blobs and thin wires.
//
// Size: 512 by default (kQualityImageSize). The fit compares blurs of the whole image, clamp border included,
// so the images need structure at the scale of sigma for the mean absolute difference to have a clear
// minimum: pink-noise and mixed have octaves up to the image size, which keeps the fit meaningful up to
// sigma ~200 (a kernel of 6 sigma ~2.3x the image, still changing the large octaves). Beyond that, or to
// lower the clamp border's share, use 768 or 1024 (`--size`); the CPU cost grows with the area times sigma.
// Smaller sizes (tests) keep every kind of content, scaled.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace gpublur {

constexpr int kQualityImageSize = 512;

struct GeneratedImage {
  std::string name;  // "pink-noise", "edges", "texture", "mixed"
  std::string what;  // one line for people
  Image image;
};

// The built-in set, size x size (size >= 16), in the order above.
std::vector<GeneratedImage> quality_test_images(int size = kQualityImageSize);

// Building blocks, also used by the tests.
// A random grid (one per channel) with a value every `cell` pixels (uniform in [0,1]), interpolated with the
// cubic B-spline: smooth (C2), its spectrum falling off above 1 / cell. Values stay in [0,1], mostly near 0.5.
Image smooth_noise_image(int width, int height, int channels, double cell, uint32_t seed);
// Sum of smooth_noise octaves with cells 2, 4, ... up to the image size, each with amplitude proportional
// to its cell (a 1/f amplitude spectrum), scaled to [0,1] over all channels together. Each channel is a
// common such sum plus 0.35 times one of its own, so colours are correlated as in photos.
Image pink_noise_image(int width, int height, int channels, uint32_t seed);

}  // namespace gpublur
