// The CUDA schedules that tuning knobs select beside the defaults, shared by the tests and the timing tool:
// every conv1d pair variant (SepTuning) and every Box1d schedule (BoxTuning).
#pragma once
#include <functional>
#include <vector>

#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::testing {

// conv1d pair variants (radius limits: up to where the variant is a different kernel).
struct SepVariant {
  const char* name;
  int max_radius;
  std::function<void(cuda::SepTuning&)> set;
};

inline std::vector<SepVariant> sep_variants() {
  return {
      {"fused-fixed 64x64", 12, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = 12, t.fused_kind = 1, t.fused_tile_h = 64; }},
      {"fused-fixed 64x32", 12, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = 12, t.fused_kind = 1, t.fused_tile_h = 32; }},
      {"fused-32x32 (old)", 16, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = 16, t.fused_kind = 0, t.fused_tile_h = 32; }},
      {"two-pass", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 0, t.pass_pad_taps = false; }},
      {"two-pass wide 16x256", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 0, t.pass_wide = true; }},
      {"two-pass padded (old)", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 0, t.pass_pad_taps = true; }},
      {"two-pass-pipelined", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 1; }},
      {"two-pass 8x256 k16", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 1; }},
      {"two-pass 8x256 k8", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 2; }},
      {"two-pass tc 2xFP16", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 1, t.fused_max_radius = -1; }},
  };
}

// Box1d schedules. `path` is what RunInfo.path then contains (for the pair's first pass at least, where the
// schedule applies: the fused tiles only up to the reach they fit).
struct BoxVariant {
  const char* name;
  const char* path;
  std::function<void(cuda::BoxTuning&)> set;
};

inline std::vector<BoxVariant> box_variants() {
  return {
      {"separate passes (default)", "box1d-", [](cuda::BoxTuning&) {}},
      {"fused x/y tiles", "box1d-fused-2d", [](cuda::BoxTuning& t) { t.fused_max_radius = 1 << 20; }},
      {"whole lines, 1 block/SM", "box1d-", [](cuda::BoxTuning& t) { t.smem_budget = cuda::max_smem_optin(); }},
      {"short segments", "box1d-", [](cuda::BoxTuning& t) { t.smem_budget = 12 << 10, t.min_segment = 8; }},
      {"global (moving-average kernel)", "box1d-global", [](cuda::BoxTuning& t) { t.force_global = true; }},
      {"16-byte column strips", "box1d-", [](cuda::BoxTuning& t) { t.strip_bytes = 16; }},
      {"128-byte column strips", "box1d-", [](cuda::BoxTuning& t) { t.strip_bytes = 128; }},
      {"one and two channels' rows unpacked", "box1d-", [](cuda::BoxTuning& t) { t.packed_rows = 0; }},
      {"one and two channels' rows packed", "box1d-", [](cuda::BoxTuning& t) { t.packed_rows = 1; }},
  };
}

// Restores the tuning knobs on scope exit.
struct TuningGuard {
  cuda::SepTuning sep = cuda::sep_tuning();
  cuda::BoxTuning box = cuda::box_tuning();
  int diffusion_steps = cuda::diffusion_steps_per_launch();
  ~TuningGuard() {
    cuda::sep_tuning() = sep;
    cuda::box_tuning() = box;
    cuda::diffusion_steps_per_launch() = diffusion_steps;
  }
};

}  // namespace gpublur::testing
