// Microbenchmark: one row per block (4096 float4 = 64 KiB), loaded into shared memory and stored back, the rows
// kernels' shape without their math: per-thread loads/stores against TMA bulk copies (cp.async.bulk), at 2 and 3
// blocks per SM (smem 80000 / 65536+).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>

__global__ void copy_k(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}
__global__ void rowcopy_k(const float4* __restrict__ in, float4* __restrict__ out, int W) {
  extern __shared__ float4 s[];
  const float4* src = in + size_t(blockIdx.x) * W;
  for (int x = threadIdx.x; x < W; x += blockDim.x) s[x] = src[x];
  __syncthreads();
  for (int x = threadIdx.x; x < W; x += blockDim.x) out[size_t(blockIdx.x) * W + x] = s[x];
}
__global__ void rowcopy_cpasync(const float4* __restrict__ in, float4* __restrict__ out, int W) {
  extern __shared__ float4 s[];
  const float4* src = in + size_t(blockIdx.x) * W;
#pragma unroll 4
  for (int x = threadIdx.x; x < W; x += blockDim.x)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(uint32_t(__cvta_generic_to_shared(s + x))), "l"(src + x) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
#pragma unroll 4
  for (int x = threadIdx.x; x < W; x += blockDim.x) out[size_t(blockIdx.x) * W + x] = s[x];
}
__device__ __forceinline__ uint32_t sa(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
// TMA in (NP pieces, one thread each), plain or TMA out.
template <int NP, bool TMA_OUT>
__global__ void rowcopy_tma(const float4* __restrict__ in, float4* __restrict__ out, int W) {
  extern __shared__ __align__(128) float4 s[];
  __shared__ __align__(8) unsigned long long bar;
  const uint32_t bytes = uint32_t(W) * 16, piece = bytes / NP;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sa(&bar)), "r"(bytes));
  __syncthreads();
  if (threadIdx.x < NP) {
    const char* g = reinterpret_cast<const char*>(in + size_t(blockIdx.x) * W) + threadIdx.x * piece;
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(sa(reinterpret_cast<char*>(s) + threadIdx.x * piece)), "l"(g), "r"(piece), "r"(sa(&bar)) : "memory");
  }
  uint32_t done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(sa(&bar)) : "memory");
  if (TMA_OUT) {
    __syncthreads();
    if (threadIdx.x < NP) {
      char* g = reinterpret_cast<char*>(out + size_t(blockIdx.x) * W) + threadIdx.x * piece;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(g), "r"(sa(reinterpret_cast<char*>(s) + threadIdx.x * piece)), "r"(piece) : "memory");
      asm volatile("cp.async.bulk.commit_group;");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  } else {
    for (int x = threadIdx.x; x < W; x += blockDim.x) out[size_t(blockIdx.x) * W + x] = s[x];
  }
}

template <typename F> float med(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> v;
  for (int i = 0; i < 21; ++i) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); v.push_back(ms); }
  std::sort(v.begin(), v.end());
  cudaError_t e = cudaGetLastError(); if (e) printf("err %s\n", cudaGetErrorString(e));
  return v[10];
}
template <typename K> void run(const char* name, K k, const float4* a, float4* b, int W, int H, int smem, float cp) {
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaMemset(b, 0, size_t(W) * H * 16);
  float t = med([&] { k<<<H, 256, smem>>>(a, b, W); });
  std::vector<float4> h(size_t(W) * H), g(size_t(W) * H);
  cudaMemcpy(h.data(), a, h.size() * 16, cudaMemcpyDeviceToHost); cudaMemcpy(g.data(), b, g.size() * 16, cudaMemcpyDeviceToHost);
  size_t bad = 0; for (size_t i = 0; i < h.size(); i += 97) if (g[i].x != h[i].x) ++bad;
  printf("%-24s smem=%6d: %.4f ms (%.2fx copy) bad=%zu\n", name, smem, t, t / cp, bad);
}
int main() {
  const int W = 4096, H = 4096; size_t n = size_t(W) * H;
  float4 *a, *b; cudaMalloc(&a, n * 16); cudaMalloc(&b, n * 16);
  std::vector<float4> h(n); for (size_t i = 0; i < n; ++i) h[i] = make_float4(i % 9973, i % 7, 1, 2);
  cudaMemcpy(a, h.data(), n * 16, cudaMemcpyHostToDevice);
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); printf("%s\n", p.name);
  float cp = med([&] { copy_k<<<p.multiProcessorCount * 8, 256>>>(a, b, n); });
  printf("copy: %.4f ms\n", cp);
  for (int smem : {66000, 80000}) {
    run("rowcopy plain", rowcopy_k, a, b, W, H, smem, cp);
    run("cp.async in, plain out", rowcopy_cpasync, a, b, W, H, smem, cp);
    run("tma in 1, plain out", rowcopy_tma<1, false>, a, b, W, H, smem, cp);
    run("tma in 4, plain out", rowcopy_tma<4, false>, a, b, W, H, smem, cp);
    run("tma in 4, tma out 4", rowcopy_tma<4, true>, a, b, W, H, smem, cp);
    run("tma in 16, tma out 16", rowcopy_tma<16, true>, a, b, W, H, smem, cp);
  }
}
