// A timing prototype of the overlapped 2D iir design (docs/performance.md, iir, "Two designs measured on the H200"):
// its two full-image kernels on 64 x 64-pixel RGBA float32 tiles, with the per-value arithmetic of the real design
// (two terms: one complex pole, one real; causal and anticausal), no borders, no chains, results not checked.
//   stage 1 (aggregates): the tile read once; each row line's sums from zero U = sum p^(63-x) v, W = sum p^x v
//     (the row aggregates); each column line's same sums of the raw values (z), then the tile-local row filter
//     from zero applied to those 6 x 4 vectors (a causal and an anticausal sweep per vector): the column aggregates
//     of the rows' output from zero states. Writes 6 floats per row line and per column line.
//   stage 4 (outputs): the tile read again with its lines' incoming states; rows filtered in place in shared
//     memory (halves of 32, the upper half's anticausal state by a state-only sweep), then columns, each output
//     stored from registers.
// Build: nvcc -O3 -arch=sm_90 -o iir2d_proto h200-iir2d-prototype.cu. Run: ./iir2d_proto [size] (default 4096).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int T = 64, THREADS = 256, PITCH = T * 4 + 4;  // pitch: row lines and column lines both conflict-free
__constant__ float c_co[6];                               // p0 re, p0 im, p1, c0 re, c0 im, c1

__device__ __forceinline__ void cp16(float* s, const float* g) {
  const unsigned d = unsigned(__cvta_generic_to_shared(s));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(g) : "memory");
}
__device__ __forceinline__ void load_tile(float* s, const float* img, int w, int tx, int ty) {
  for (int e = threadIdx.x; e < T * T; e += THREADS) {  // 64 rows x 64 float4
    const int r = e >> 6, x = e & 63;
    cp16(s + r * PITCH + x * 4, img + ((size_t(ty * T + r) * w) + size_t(tx * T + x)) * 4);
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
}

// One line's causal + anticausal sweep from zero over n values at v[i * stride], output added to out[i * ostride].
__device__ void sweep_line(const float* v, int stride, float* out, int ostride) {
  const float pr = c_co[0], pi = c_co[1], p1 = c_co[2], cr = c_co[3], ci = c_co[4], c1 = c_co[5];
  float ur = 0, ui = 0, u1 = 0;
  for (int i = 0; i < T; ++i) {
    const float x = v[i * stride];
    const float r = cr * x + pr * ur - pi * ui;
    ui = ci * x + pr * ui + pi * ur, ur = r, u1 = c1 * x + p1 * u1;
    out[i * ostride] = ur + u1;
  }
  float vr = 0, vi = 0, v1 = 0;
  for (int i = T - 1; i >= 0; --i) {
    const float x = v[i * stride];
    out[i * ostride] += vr + v1;
    const float sr = cr * x + vr, si = ci * x + vi;
    vr = pr * sr - pi * si, vi = pr * si + pi * sr, v1 = p1 * (c1 * x + v1);
  }
}

// A line's sums from zero: U = sum p^(63-i) v_i (forward recursion U = p U + v) and W = sum p^i v_i (backward,
// W = p W + v), for the complex and the real term: a[0..2] U, a[3..5] W.
__device__ __forceinline__ void sums(const float* v, int stride, float (&a)[6]) {
  const float pr = c_co[0], pi = c_co[1], p1 = c_co[2];
  float ur = 0, ui = 0, u1 = 0, wr = 0, wi = 0, w1 = 0;
#pragma unroll 8
  for (int i = 0; i < T; ++i) {
    const float x = v[i * stride], y = v[(T - 1 - i) * stride];
    const float r = x + pr * ur - pi * ui;
    ui = pr * ui + pi * ur, ur = r, u1 = x + p1 * u1;
    const float q = y + pr * wr - pi * wi;
    wi = pr * wi + pi * wr, wr = q, w1 = y + p1 * w1;
  }
  a[0] = ur, a[1] = ui, a[2] = u1, a[3] = wr, a[4] = wi, a[5] = w1;
}

__global__ void __launch_bounds__(THREADS, 3) stage1(const float* img, int w, int h, float* rowagg, float* colagg) {
  extern __shared__ float s[];
  float* z = s;             // 6 kinds x 256 column lines (over the tile, once it is read)
  float* zf = z + 6 * 256;  // their row-filtered values
  const int tx = blockIdx.x, ty = blockIdx.y, t = threadIdx.x;
  load_tile(s, img, w, tx, ty);
  {  // row line (r, c): its sums from zero, U forward and W backward in one loop (register operands only)
    const int r = t >> 2, c = t & 3;
    float a[6];
    sums(s + r * PITCH + c, 4, a);
    const size_t line = size_t(ty * T + r) * 4 + c;
#pragma unroll
    for (int k = 0; k < 6; ++k) rowagg[(size_t(tx) * 6 + k) * size_t(h) * 4 + line] = a[k];
  }
  {  // column line (x, c): the same sums of the raw values along r
    const int x = t >> 2, c = t & 3;
    float a[6];
    sums(s + x * 4 + c, PITCH, a);
    __syncthreads();  // the tile read: z goes over it
#pragma unroll
    for (int k = 0; k < 6; ++k) z[k * 256 + t] = a[k];
  }
  __syncthreads();
  if (t < 24) sweep_line(z + (t >> 2) * 256 + (t & 3), 4, zf + (t >> 2) * 256 + (t & 3), 4);  // 6 kinds x 4 ch
  __syncthreads();
  const size_t line = size_t(tx * T + (t >> 2)) * 4 + (t & 3);
#pragma unroll
  for (int k = 0; k < 6; ++k) colagg[(size_t(ty) * 6 + k) * size_t(w) * 4 + line] = zf[k * 256 + t];
}

// Half a line (32 values at v[(q0 + i) * stride]) from causal state u and anticausal state a (both advanced),
// outputs to dst(i).
template <typename Out>
__device__ __forceinline__ void half_line(float* v, int stride, int q0, float (&u)[3], float (&a)[3], Out dst) {
  const float pr = c_co[0], pi = c_co[1], p1 = c_co[2], cr = c_co[3], ci = c_co[4], c1 = c_co[5];
  float ys[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const float x = v[(q0 + i) * stride];
    const float r = cr * x + pr * u[0] - pi * u[1];
    u[1] = ci * x + pr * u[1] + pi * u[0], u[0] = r, u[2] = c1 * x + p1 * u[2];
    ys[i] = u[0] + u[2];
  }
#pragma unroll
  for (int i = 31; i >= 0; --i) {
    const float x = v[(q0 + i) * stride];
    ys[i] += a[0] + a[2];
    const float sr = cr * x + a[0], si = ci * x + a[1];
    a[0] = pr * sr - pi * si, a[1] = pr * si + pi * sr, a[2] = p1 * (c1 * x + a[2]);
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) dst(i, ys[i]);
}
// The anticausal state at the lower half's top: a state-only sweep over the upper half.
__device__ __forceinline__ void skip_upper(const float* v, int stride, float (&a)[3]) {
  const float pr = c_co[0], pi = c_co[1], p1 = c_co[2], cr = c_co[3], ci = c_co[4], c1 = c_co[5];
#pragma unroll 8
  for (int i = T - 1; i >= 32; --i) {
    const float x = v[i * stride];
    const float sr = cr * x + a[0], si = ci * x + a[1];
    a[0] = pr * sr - pi * si, a[1] = pr * si + pi * sr, a[2] = p1 * (c1 * x + a[2]);
  }
}

__global__ void __launch_bounds__(THREADS, 3) stage4(const float* img, float* out, int w, int h, const float* rowst,
                                                     const float* colst) {
  extern __shared__ float s[];
  const int tx = blockIdx.x, ty = blockIdx.y, t = threadIdx.x;
  load_tile(s, img, w, tx, ty);
  {  // rows in place
    const int r = t >> 2, c = t & 3;
    const size_t line = size_t(ty * T + r) * 4 + c;
    float u[3], a[3], a_hi[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      u[k] = rowst[(size_t(tx) * 6 + k) * size_t(h) * 4 + line];
      a_hi[k] = a[k] = rowst[(size_t(tx) * 6 + 3 + k) * size_t(h) * 4 + line];
    }
    float* v = s + r * PITCH + c;
    skip_upper(v, 4, a);
    half_line(v, 4, 0, u, a, [&](int i, float y) { v[i * 4] = y; });
    half_line(v, 4, 32, u, a_hi, [&](int i, float y) { v[(32 + i) * 4] = y; });
  }
  __syncthreads();
  {  // columns, outputs stored from registers
    const int x = t >> 2, c = t & 3;
    const size_t line = size_t(tx * T + x) * 4 + c;
    float u[3], a[3], a_hi[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      u[k] = colst[(size_t(ty) * 6 + k) * size_t(w) * 4 + line];
      a_hi[k] = a[k] = colst[(size_t(ty) * 6 + 3 + k) * size_t(w) * 4 + line];
    }
    float* v = s + x * 4 + c;
    float* o = out + (size_t(ty * T) * w + size_t(tx * T + x)) * 4 + c;
    skip_upper(v, PITCH, a);
    half_line(v, PITCH, 0, u, a, [&](int i, float y) { o[size_t(i) * w * 4] = y; });
    half_line(v, PITCH, 32, u, a_hi, [&](int i, float y) { o[size_t(32 + i) * w * 4] = y; });
  }
}

__global__ void copy_kernel(const float4* a, float4* b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}

template <typename F>
float median_ms(F f, int reps = 30) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float m = 0;
    cudaEventElapsedTime(&m, e0, e1);
    ms.push_back(m);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const size_t vals = size_t(n) * n * 4, bytes = vals * sizeof(float), agg = size_t(n / T) * 6 * size_t(n) * 4;
  float *a, *b, *ra, *ca;
  cudaMalloc(&a, bytes), cudaMalloc(&b, bytes), cudaMalloc(&ra, agg * 4), cudaMalloc(&ca, agg * 4);
  std::vector<float> host(vals);
  for (size_t i = 0; i < vals; ++i) host[i] = float((i * 2654435761u) % 1000) / 1000.0f;
  cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(ra, 0, agg * 4), cudaMemset(ca, 0, agg * 4);
  // Young-van Vliet-like poles (sigma ~12): p0 = 0.86 e^(0.12 i), p1 = 0.84.
  const double p0r = 0.86 * cos(0.12), p0i = 0.86 * sin(0.12), p1 = 0.84;
  const float co[6] = {float(p0r), float(p0i), float(p1), 0.3f, -0.1f, 0.2f};
  cudaMemcpyToSymbol(c_co, co, sizeof co);
  const size_t sm1 = T * PITCH * sizeof(float), sm4 = T * PITCH * sizeof(float);
  cudaFuncSetAttribute(stage1, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm1));
  cudaFuncSetAttribute(stage4, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm4));
  const dim3 grid(n / T, n / T);
  const float tc = median_ms([&] { copy_kernel<<<132 * 16, 256>>>((const float4*)a, (float4*)b, vals / 4); });
  const float t1 = median_ms([&] { stage1<<<grid, THREADS, sm1>>>(a, n, n, ra, ca); });
  const float t4 = median_ms([&] { stage4<<<grid, THREADS, sm4>>>(a, b, n, n, ra, ca); });
  const float tb = median_ms([&] {
    stage1<<<grid, THREADS, sm1>>>(a, n, n, ra, ca);
    stage4<<<grid, THREADS, sm4>>>(a, b, n, n, ra, ca);
  });
  const cudaError_t e = cudaDeviceSynchronize();
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %dx%d RGBA float32, medians of 30: copy %.4f ms; stage 1 %.4f (%.2fx copy); stage 4 %.4f (%.2fx); "
              "both %.4f (%.2fx); aggregates %.1f MB per axis; %s\n",
              prop.name, n, n, tc, t1, t1 / tc, t4, t4 / tc, tb, tb / tc, agg * 4 / 1e6, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
