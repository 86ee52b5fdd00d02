// iir1d: the recursive filter along an axis (core/program.hpp Op::Iir1d; core/reference/passes/iir1d.cpp is
// the definition). Schedule: one thread per value line (one channel of one row or column: 4x the threads of
// a thread per pixel line for RGBA), walking it in float64 (iir_line.cuh): [wrap/mirror: a backward and a
// forward sweep for the periodic initial states], a causal sweep that stores its sum into dst, an anticausal
// sweep that adds its own. Columns: the threads of a warp read 32 neighbouring floats of a row (coalesced).
// Rows: a warp holds 32 / ch rows, each of its ch lanes per row reading one channel of the same pixel; the
// rows' 32-byte sectors are reused from L1 over the next positions (the moving-average kernel's pattern).
// That kernel is now the fallback: where the block's lines fit in shared memory, the segment-parallel scan of
// iir_scan.cuh runs instead (rows: one block per row; columns: strips of 8 or 4 value columns), one read and
// one write of the image per axis (measured 1.8x faster than the line kernel on an H100: 1.54 against 2.79 ms at
// 4096^2 RGBA). docs/performance.md has the numbers.
#include <algorithm>
#include <string>

#include "core/iir.hpp"
#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/iir_line.cuh"
#include "gpu/cuda/passes/iir_scan.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kThreads = 64;  // small blocks: 4096 x 4 lines are only 256 blocks

__global__ void __launch_bounds__(kThreads) iir1d_kernel(const float* __restrict__ src, float* __restrict__ dst,
                                                          int w, int h, int ch, int axis, Border b, IirCoeffs co) {
  const int lines = axis == 0 ? h * ch : w * ch;
  const int line = int(blockIdx.x) * kThreads + int(threadIdx.x);
  if (line >= lines) return;
  size_t base = 0, step = 0;
  int n = 0;
  iir_line_place(axis, w, h, ch, line, base, step, n);
  iir_value_line(src, dst, base, step, n, b, co);
}

// The segment scan on one block's lines: load (cp.async, 16 B where the places allow), the three phases of
// iir_scan.cuh, store. 2 blocks per SM where their shared memory allows (the plan's budget); registers: the
// segment's kIirSegMax inputs (float64) and the states (~109 at 25, no spills).
template <int NL, int KT, bool REAL1>
__global__ void __launch_bounds__(kIirScanThreads, 2)
    iir1d_scan_kernel(const float* __restrict__ src, float* __restrict__ dst, int rowv, bool rows, IirScanPlan P,
                      Border b, IirCoeffs co) {
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  float* s = reinterpret_cast<float*>(sm);
  Cplx* cu = reinterpret_cast<Cplx*>(sm + P.carry_off);
  Cplx* cw = cu + size_t(P.k) * size_t(P.items());
  Cplx* ends = cw + size_t(P.k) * size_t(P.items());
  const IirScanPlace pl = iir_scan_place(rows, int(blockIdx.x), NL, rowv);
  const int tid = int(threadIdx.x), nth = int(blockDim.x), total = P.n * NL;
  // 16-byte pieces: 4 consecutive values of one position (NL % 4 == 0, aligned, all or none of them there) or,
  // for rows, 4 consecutive values of the contiguous row.
  const bool vec4 = (pl.base % 4 == 0) && (rows ? total % 4 == 0 : (NL % 4 == 0 && pl.step % 4 == 0));
  if (vec4) {
    for (int e = tid * 4; e < total; e += nth * 4) {
      const int q = e / NL, l = e % NL;
      const bool ok = l < pl.lanes;
      cp_async_pixel(reinterpret_cast<float4*>(s + e),
                     reinterpret_cast<const float4*>(ok ? src + pl.base + size_t(q) * pl.step + l : src), ok);
    }
  } else {
    for (int e = tid; e < total; e += nth) {
      const int q = e / NL, l = e % NL;
      const bool ok = l < pl.lanes;
      cp_async_pixel(s + e, ok ? src + pl.base + size_t(q) * pl.step + l : src, ok);
    }
  }
  cp_async_wait_all();
  __syncthreads();
  iir_scan_local<NL, KT, REAL1>(tid, nth, s, cu, cw, P, co);
  __syncthreads();
  iir_scan_chunk_local<NL>(tid, cu, cw, P, co);
  __syncthreads();
  iir_scan_chain<NL>(tid, s, cu, cw, ends, P, b, co);
  __syncthreads();
  iir_scan_chunk_spread<NL>(tid, cu, cw, P, co);
  __syncthreads();
  if (b == Border::Wrap || b == Border::Mirror) {  // uniform over the block
    iir_scan_borders<NL>(tid, cu, cw, ends, P, b, co);
    __syncthreads();
  }
  iir_scan_final<NL, KT, REAL1>(tid, nth, s, cu, cw, P, co);
  __syncthreads();
  if (vec4) {
    for (int e = tid * 4; e < total; e += nth * 4) {
      const int q = e / NL, l = e % NL;
      if (l < pl.lanes)
        *reinterpret_cast<float4*>(dst + pl.base + size_t(q) * pl.step + l) = *reinterpret_cast<const float4*>(s + e);
    }
  } else {
    for (int e = tid; e < total; e += nth) {
      const int q = e / NL, l = e % NL;
      if (l < pl.lanes) dst[pl.base + size_t(q) * pl.step + l] = s[e];
    }
  }
}

// Shared memory a block may take: two per SM (half an SM less the 1 KiB reserved per block), else the opt-in
// maximum at one per SM.
size_t half_sm_budget() { return std::min(size_t(smem_per_sm()) / 2 - 1024, size_t(max_smem_optin())); }

// The scan's shape for this pass, or false where no block holds its lines (the line kernel then). Rows: NL =
// channels. Columns: 8-value strips (32 B per position: whole sectors) at two blocks per SM, else 4-value
// strips (16 B) at two per SM, else 8 then 4 at one per SM (IirTuning::strip forces one width).
bool plan_scan(const DevImage& img, int axis, int k, IirScanPlan& P) {
  const size_t half = half_sm_budget(), whole = size_t(max_smem_optin());
  if (axis == 0) {
    if (img.channels != 1 && img.channels != 2 && img.channels != 4) return false;  // the kernels' NL
    P = iir_scan_plan(img.width, img.channels, k, kIirScanThreads);
    return P.bytes <= whole;
  }
  const int force = iir_tuning().strip;
  for (const size_t budget : {half, whole})
    for (const int nl : {8, 4}) {
      if (force != 0 && force != nl) continue;
      P = iir_scan_plan(img.height, nl, k, kIirScanThreads);
      if (P.bytes <= budget) return true;
    }
  return false;
}

template <int NL, int KT, bool REAL1>
Status run_scan_nl(const DevImage& src, const DevImage& dst, bool rows, const IirScanPlan& P, Border b,
                   const IirCoeffs& co, cudaStream_t s) {
  const int rowv = src.width * src.channels;
  const long long blocks = rows ? (long long)src.height : (long long)(rowv + NL - 1) / NL;
  if (blocks > 0x7fffffffLL) return Status::fail("CUDA iir1d: image too large");
  if (blocks == 0) return Status::success();
  auto k = iir1d_scan_kernel<NL, KT, REAL1>;
  if (Status st = allow_smem(k, P.bytes, true); !st) return st;
  k<<<unsigned(blocks), kIirScanThreads, P.bytes, s>>>(static_cast<const float*>(src.data),
                                                       static_cast<float*>(dst.data), rowv, rows, P, b, co);
  return cuda_status(cudaGetLastError(), "launching iir1d (segment scan)");
}

template <int KT, bool REAL1>
Status run_scan(const DevImage& src, const DevImage& dst, bool rows, const IirScanPlan& P, Border b,
                const IirCoeffs& co, cudaStream_t s) {
  switch (P.nl) {
    case 1: return run_scan_nl<1, KT, REAL1>(src, dst, rows, P, b, co, s);
    case 2: return run_scan_nl<2, KT, REAL1>(src, dst, rows, P, b, co, s);
    case 4: return run_scan_nl<4, KT, REAL1>(src, dst, rows, P, b, co, s);
    case 8: return run_scan_nl<8, KT, REAL1>(src, dst, rows, P, b, co, s);
    default: return Status::fail("CUDA iir1d: no scan kernel for " + std::to_string(P.nl) + " lines per block");
  }
}

}  // namespace

IirTuning& iir_tuning() {
  static IirTuning t;
  return t;
}

Status iir_coeffs(const std::vector<float>& taps, IirCoeffs& co) {
  const std::vector<IirTerm> terms = iir_terms_from_taps(taps);
  if (terms.empty() || terms.size() > size_t(kMaxIirTerms)) return Status::fail("CUDA iir1d: bad term count");
  co.k = int(terms.size());
  for (int t = 0; t < kMaxIirTerms; ++t) {
    const bool on = t < co.k;
    co.pr[t] = on ? terms[size_t(t)].p.real() : 0.0;
    co.pi[t] = on ? terms[size_t(t)].p.imag() : 0.0;
    co.cr[t] = on ? terms[size_t(t)].c.real() : 0.0;
    co.ci[t] = on ? terms[size_t(t)].c.imag() : 0.0;
  }
  return Status::success();
}

Status launch_iir1d(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.pad != 0 || dst.pad != 0 || src.f64 || dst.f64) return Status::fail("CUDA iir1d: padded or float64 image");
  IirCoeffs co;
  if (Status st = iir_coeffs(pass.taps, co); !st) return st;
  const long long lines = (long long)(pass.axis == 0 ? src.height : src.width) * src.channels;
  if (lines == 0) return Status::success();
  if (lines > 0x7fffffffLL) return Status::fail("CUDA iir1d: image too large");
  IirScanPlan P;
  if (!iir_tuning().lines && plan_scan(src, pass.axis, co.k, P)) {
    const bool rows = pass.axis == 0;
    path = rows ? "iir1d-scan-rows" : P.nl == 8 ? "iir1d-scan-cols" : "iir1d-scan-cols-strip16";
    if (P.bytes > half_sm_budget()) path += "-1sm";
    if (co.k > 2) return run_scan<kMaxIirTerms, false>(src, dst, rows, P, pass.border, co, s);
    return iir_term1_real(co) ? run_scan<2, true>(src, dst, rows, P, pass.border, co, s)
                              : run_scan<2, false>(src, dst, rows, P, pass.border, co, s);
  }
  const unsigned blocks = unsigned((lines + kThreads - 1) / kThreads);
  iir1d_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const float*>(src.data), static_cast<float*>(dst.data),
                                          src.width, src.height, src.channels, pass.axis, pass.border, co);
  path = pass.axis == 0 ? "iir1d-rows" : "iir1d-cols";
  return cuda_status(cudaGetLastError(), "launching iir1d");
}

}  // namespace gpublur::cuda
