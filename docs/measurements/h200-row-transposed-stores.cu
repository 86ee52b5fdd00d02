// Microbenchmark: a row-per-block pass whose output goes out transposed, gathered across a thread-block cluster
// so that each store is C pixels (C*16 bytes) of one transposed row. 4096^2 float4.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include <algorithm>
namespace cg = cooperative_groups;

__global__ void copy_k(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}
// one row per block, stored normally (the rows kernel's shape without its math)
__global__ void rowcopy_k(const float4* __restrict__ in, float4* __restrict__ out, int W) {
  extern __shared__ float4 s[];
  const float4* src = in + size_t(blockIdx.x) * W;
  for (int x = threadIdx.x; x < W; x += blockDim.x) s[x] = src[x];
  __syncthreads();
  for (int x = threadIdx.x; x < W; x += blockDim.x) out[size_t(blockIdx.x) * W + x] = s[x];
}
template <int C>
__global__ void rowT_k(const float4* __restrict__ in, float4* __restrict__ out, int W, int H) {
  extern __shared__ float4 s[];
  cg::cluster_group cl = cg::this_cluster();
  const int y = blockIdx.x;
  const float4* src = in + size_t(y) * W;
  for (int x = threadIdx.x; x < W; x += blockDim.x) s[x] = src[x];
  cl.sync();
  const int k = cl.block_rank(), y0 = y - k;
  const int j = threadIdx.x % C, xi = threadIdx.x / C;
  const float4* rs = cl.map_shared_rank(s, j);
  const int slice = W / C, x0 = k * slice;
  #pragma unroll 4
  for (int x = x0 + xi; x < x0 + slice; x += blockDim.x / C) out[size_t(x) * H + y0 + j] = rs[x];
  cl.sync();
}
// plain tiled transpose, 32x32 float4 tiles
__global__ void transpose_k(const float4* __restrict__ in, float4* __restrict__ out, int W, int H) {
  __shared__ float4 t[32][33];
  const int bx = blockIdx.x * 32, by = blockIdx.y * 32;
  for (int i = threadIdx.y; i < 32; i += blockDim.y) t[i][threadIdx.x] = in[size_t(by + i) * W + bx + threadIdx.x];
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y) out[size_t(bx + i) * H + by + threadIdx.x] = t[threadIdx.x][i];
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
template <int C> void runT(const float4* a, float4* b, int W, int H, int smem, float cp) {
  cudaFuncSetAttribute(rowT_k<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(rowT_k<C>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(H); cfg.blockDim = dim3(256); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  float t = med([&] { cudaLaunchKernelEx(&cfg, rowT_k<C>, a, b, W, H); });
  // check
  std::vector<float4> h(size_t(W) * H), g(size_t(W) * H);
  cudaMemcpy(h.data(), a, h.size() * 16, cudaMemcpyDeviceToHost); cudaMemcpy(g.data(), b, g.size() * 16, cudaMemcpyDeviceToHost);
  size_t bad = 0; for (int y = 0; y < H; y += 7) for (int x = 0; x < W; x += 5) if (g[size_t(x) * H + y].x != h[size_t(y) * W + x].x) ++bad;
  printf("rowT C=%d smem=%d: %.4f ms (%.2fx copy) bad=%zu\n", C, smem, t, t / cp, bad);
}
int main() {
  const int W = 4096, H = 4096; size_t n = size_t(W) * H;
  float4 *a, *b; cudaMalloc(&a, n * 16); cudaMalloc(&b, n * 16);
  std::vector<float4> h(n); for (size_t i = 0; i < n; ++i) h[i] = make_float4(i % 9973, i % 7, 1, 2);
  cudaMemcpy(a, h.data(), n * 16, cudaMemcpyHostToDevice);
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); printf("%s\n", p.name);
  float cp = med([&] { copy_k<<<p.multiProcessorCount * 8, 256>>>(a, b, n); });
  printf("copy: %.4f ms\n", cp);
  for (int smem : {65536, 80000}) {
    cudaFuncSetAttribute(rowcopy_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    float t = med([&] { rowcopy_k<<<H, 256, smem>>>(a, b, W); });
    printf("rowcopy smem=%d: %.4f ms (%.2fx)\n", smem, t, t / cp);
    runT<1>(a, b, W, H, smem, cp); runT<2>(a, b, W, H, smem, cp); runT<4>(a, b, W, H, smem, cp); runT<8>(a, b, W, H, smem, cp); runT<16>(a, b, W, H, smem, cp);
  }
  float t = med([&] { transpose_k<<<dim3(W / 32, H / 32), dim3(32, 8)>>>(a, b, W, H); });
  printf("tiled transpose: %.4f ms (%.2fx)\n", t, t / cp);
}
