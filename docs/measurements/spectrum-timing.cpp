// Times core/fft.cpp fft_kernel_spectrum (docs/performance.md, session 102): g++ -O2 -std=c++20 -I. \
//   docs/measurements/spectrum-timing.cpp build-bundle/lib/libgpublur_core.a; the old form was core/fft.cpp at 6851e18.
#include "core/fft.hpp"
#include <chrono>
#include <cstdio>
#include <cmath>
using namespace gpublur;
int main() {
  struct C { int N, r; } cs[] = {{8192, 600}, {6561, 600}, {20480, 3072}, {1 << 22, 3072}, {1 << 28, 3072}};
  for (auto c : cs) {
    std::vector<float> t(2 * c.r + 1);
    for (int k = -c.r; k <= c.r; ++k) t[k + c.r] = std::exp(-0.5 * k * k / (c.r * c.r / 9.0));
    auto a = std::chrono::steady_clock::now();
    auto g = fft_kernel_spectrum(t, c.N);
    auto b = std::chrono::steady_clock::now();
    std::printf("N %d r %d: %.3f s (g[1] %.6g)\n", c.N, c.r, std::chrono::duration<double>(b - a).count(), g[1].real());
  }
}
