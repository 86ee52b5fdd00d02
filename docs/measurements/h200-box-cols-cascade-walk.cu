// Microbenchmark (2026-11-30): the box column pass as a cascade walk (v5-v9) beside the sparse-tap walk (v4, v4b,
// v4c; v4 was the product at sigma 100-200 before call 110, v4b is). docs/performance.md, "Box columns as a cascade walk".
// nvcc -O3 -arch=sm_90 -cudart static -o cwalk h200-box-cols-cascade-walk.cu
// ./cwalk [H] [sigma]: the variants at sigma 3-200 on 4096 x H RGBA, or (with sigma) v4, v6, v7, v4b, v8 alone (profiling).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include <cstdlib>

constexpr int S = 16;       // floats a strip (64 B): a half warp per row group
constexpr int NT = 256;
constexpr int P = NT / S;   // row groups a step
constexpr int MAXT = 8;     // taps

struct Taps { int n; int off[MAXT]; double coef[MAXT]; };
__constant__ Taps c_taps;

__device__ __forceinline__ void cp_async16(void* s, const void* g) {
  unsigned sa = unsigned(__cvta_generic_to_shared(s));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }
__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

// float -> double through integer ops (F2F.F64.F32 issues at 16 a clock an SM); zero and subnormals become
// +-2^-127-ish (harmless here), inf / nan are not handled.
__device__ __forceinline__ double f2d_bits(float f) {
  unsigned u = __float_as_uint(f);
  unsigned hi = (((u & 0x7fffffffu) >> 3) + 0x38000000u) | (u & 0x80000000u);
  return __hiloint2double(int(hi), int(u << 29));
}


// v4: v3 with the taps' coefficients compile-time ((1 - z^wl)^M1 (1 - z^wu)^M2: +-1, +-2 as adds and subtracts, no
// float64 multiplies), each step's store pointer made once (a per-row test only in the steps at the column's ends),
// and MINB blocks an SM (register cap).
template <int M1, int M2> struct Coefs {
  int v[(M1 + 1) * (M2 + 1)];
  constexpr Coefs() : v() {
    int b1[M1 + 1] = {}, b2[M2 + 1] = {};
    for (int i = 0; i <= M1; ++i) b1[i] = i == 0 ? 1 : b1[i - 1] * (M1 - i + 1) / i;
    for (int j = 0; j <= M2; ++j) b2[j] = j == 0 ? 1 : b2[j - 1] * (M2 - j + 1) / j;
    for (int i = 0; i <= M1; ++i)
      for (int j = 0; j <= M2; ++j) v[i * (M2 + 1) + j] = ((i + j) & 1 ? -1 : 1) * b1[i] * b2[j];
  }
};
template <int RT, int CVT, int M1, int M2, int MINB>
__global__ void __launch_bounds__(NT, MINB)
walk4_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int RL, double inv, int wl, int wu) {
  constexpr int T = P * RT, NTAPS = (M1 + 1) * (M2 + 1);
  constexpr Coefs<M1, M2> kc;
  extern __shared__ __align__(16) unsigned char smem[];
  float* ring = reinterpret_cast<float*>(smem);                          // (RL + RT) x S
  double* st = reinterpret_cast<double*>(ring + size_t(RL + RT) * S);  // P x S x 3
  const int c = threadIdx.x % S, g = threadIdx.x / S;
  const int x0 = blockIdx.x * S;
  for (int i = threadIdx.x; i < (RL + RT) * S; i += NT) ring[i] = 0.f;
  __syncthreads();
  const int j0 = -R, nsteps = (H + 2 * R + T - 1) / T;
  auto load_step = [&](int s) {
    for (int i = threadIdx.x; i < T * (S / 4); i += NT) {
      const int r = i / (S / 4), q = i % (S / 4), p = j0 + s * T + r;
      const int src = min(max(p, 0), H - 1), slot = (s * T + r) % RL;
      const float* gp = &in[size_t(src) * W4 + x0 + q * 4];
      cp_async16(&ring[size_t(slot) * S + q * 4], gp);
      if (slot < RT) cp_async16(&ring[size_t(slot + RL) * S + q * 4], gp);
    }
    cp_commit();
  };
  double C1 = 0, C2 = 0, C3 = 0;
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int base = (s * T + g * RT) % RL;
    const float* tp[NTAPS];
#pragma unroll
    for (int i = 0; i <= M1; ++i)
#pragma unroll
      for (int j = 0; j <= M2; ++j) {
        int v = base - (i * wl + j * wu);
        v += v < 0 ? RL : 0;
        tp[i * (M2 + 1) + j] = ring + v * S + c;
      }
    double l1 = 0, l2 = 0, l3 = 0, L3[RT];
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      double y = 0;
#pragma unroll
      for (int i = 0; i <= M1; ++i)
#pragma unroll
        for (int j = 0; j <= M2; ++j) {
          const int t = i * (M2 + 1) + j;
          const float v = tp[t][r * S];
          const bool bits = CVT == 1 || (CVT == 2 && (t & 1));
          const double d = bits ? f2d_bits(v) : double(v);
          const int cf = kc.v[t];
          if (cf == 1) y += d;
          else if (cf == -1) y -= d;
          else y = fma(double(cf), d, y);
        }
      l1 += y, l2 += l1, l3 += l2;
      L3[r] = l3;
    }
    double* e = st + (g * S + c) * 3;
    e[0] = l1, e[1] = l2, e[2] = l3;
    __syncthreads();
    if (g == 0) {
      constexpr double LL = double(RT) * (RT + 1) / 2;
      for (int k = 0; k < P; ++k) {
        double* f = st + (k * S + c) * 3;
        const double e1 = f[0], e2 = f[1], e3 = f[2];
        f[0] = C1, f[1] = C2, f[2] = C3;
        C3 = C3 + LL * C1 + RT * C2 + e3;
        C2 = C2 + RT * C1 + e2;
        C1 = C1 + e1;
      }
    }
    __syncthreads();
    const double A1 = e[0], A2 = e[1], A3 = e[2];
    const int row0 = s * T + g * RT - 2 * R;
    float* op = out + (long long)row0 * W4 + x0 + c;
    const bool inside = row0 >= 0 && row0 + RT <= H;
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      const double k1 = r + 1, k2 = double(r + 1) * (r + 2) / 2;
      const float v = float((L3[r] + k2 * A1 + k1 * A2 + A3) * inv);
      if (inside || (row0 + r >= 0 && row0 + r < H)) op[(long long)r * W4] = v;
    }
  }
}


// A thread's share of a step's row loads (T rows of SS floats, 16 bytes a load), kept from step to step: the ring slot
// and walk index of each of its rows advance by T, so a load is a clamp, an address and the copy (v4 / v7's loops
// computed a division and a modulo with a run-time divisor per load).
template <int SS, int NTT, int T, int RT>
struct StepLoads {
  static constexpr int Q4 = SS / 4, NL = T * Q4, LPT = (NL + NTT - 1) / NTT;
  int slot[LPT], n[LPT], col[LPT];
  bool on[LPT];
  __device__ void init(int tid, int x0, int RL) {
#pragma unroll
    for (int j = 0; j < LPT; ++j) {
      const int i = tid + j * NTT;
      on[j] = i < NL;
      n[j] = i / Q4;
      slot[j] = n[j] % RL;
      col[j] = x0 + (i % Q4) * 4;
    }
  }
  // Issue this step's loads (rows n - R + base of the input, clamped), then advance to the next step.
  __device__ void issue(float* ring, const float* in, int W4, int H, int N, int base, int RL) {
#pragma unroll
    for (int j = 0; j < LPT; ++j) {
      if (on[j] && n[j] < N) {
        const int src = min(max(base + n[j], 0), H - 1);
        const float* gp = in + (size_t(src) * W4 + col[j]);
        float* d = ring + slot[j] * SS + (col[j] & (SS - 1));
        cp_async16(d, gp);
        if (slot[j] < RT) cp_async16(d + RL * SS, gp);
      }
      n[j] += T;
      slot[j] += T;
      slot[j] -= slot[j] >= RL ? RL : 0;
    }
    cp_commit();
  }
};

// v4b: v4 with StepLoads.
template <int RT, int CVT, int M1, int M2, int MINB>
__global__ void __launch_bounds__(NT, MINB)
walk4b_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int RL, double inv, int wl, int wu) {
  constexpr int T = P * RT, NTAPS = (M1 + 1) * (M2 + 1);
  constexpr Coefs<M1, M2> kc;
  extern __shared__ __align__(16) unsigned char smem[];
  float* ring = reinterpret_cast<float*>(smem);                          // (RL + RT) x S
  double* st = reinterpret_cast<double*>(ring + size_t(RL + RT) * S);  // P x S x 3
  const int c = threadIdx.x % S, g = threadIdx.x / S;
  const int x0 = blockIdx.x * S;
  for (int i = threadIdx.x; i < (RL + RT) * S; i += NT) ring[i] = 0.f;
  __syncthreads();
  const int j0 = -R, nsteps = (H + 2 * R + T - 1) / T;
  StepLoads<S, NT, T, RT> ld;
  ld.init(threadIdx.x, x0, RL);
  auto load_step = [&](int) { ld.issue(ring, in, W4, H, H + 2 * R, j0, RL); };
  double C1 = 0, C2 = 0, C3 = 0;
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int base = (s * T + g * RT) % RL;
    const float* tp[NTAPS];
#pragma unroll
    for (int i = 0; i <= M1; ++i)
#pragma unroll
      for (int j = 0; j <= M2; ++j) {
        int v = base - (i * wl + j * wu);
        v += v < 0 ? RL : 0;
        tp[i * (M2 + 1) + j] = ring + v * S + c;
      }
    double l1 = 0, l2 = 0, l3 = 0, L3[RT];
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      double y = 0;
#pragma unroll
      for (int i = 0; i <= M1; ++i)
#pragma unroll
        for (int j = 0; j <= M2; ++j) {
          const int t = i * (M2 + 1) + j;
          const float v = tp[t][r * S];
          const bool bits = CVT == 1 || (CVT == 2 && (t & 1));
          const double d = bits ? f2d_bits(v) : double(v);
          const int cf = kc.v[t];
          if (cf == 1) y += d;
          else if (cf == -1) y -= d;
          else y = fma(double(cf), d, y);
        }
      l1 += y, l2 += l1, l3 += l2;
      L3[r] = l3;
    }
    double* e = st + (g * S + c) * 3;
    e[0] = l1, e[1] = l2, e[2] = l3;
    __syncthreads();
    if (g == 0) {
      constexpr double LL = double(RT) * (RT + 1) / 2;
      for (int k = 0; k < P; ++k) {
        double* f = st + (k * S + c) * 3;
        const double e1 = f[0], e2 = f[1], e3 = f[2];
        f[0] = C1, f[1] = C2, f[2] = C3;
        C3 = C3 + LL * C1 + RT * C2 + e3;
        C2 = C2 + RT * C1 + e2;
        C1 = C1 + e1;
      }
    }
    __syncthreads();
    const double A1 = e[0], A2 = e[1], A3 = e[2];
    const int row0 = s * T + g * RT - 2 * R;
    float* op = out + (long long)row0 * W4 + x0 + c;
    const bool inside = row0 >= 0 && row0 + RT <= H;
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      const double k1 = r + 1, k2 = double(r + 1) * (r + 2) / 2;
      const float v = float((L3[r] + k2 * A1 + k1 * A2 + A3) * inv);
      if (inside || (row0 + r >= 0 && row0 + r < H)) op[(long long)r * W4] = v;
    }
  }
}



__device__ __forceinline__ void cp_async16_sa(unsigned sa, const void* g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g));
}
// StepLoads with the shared address kept as a 32-bit value from step to step (StepLoads converted a generic pointer
// per load: S2R SR_CgaCtaId and LEAs) and the column's base pointer made once.
template <int SS, int NTT, int T, int RT>
struct StepLoads2 {
  static constexpr int Q4 = SS / 4, NL = T * Q4, LPT = (NL + NTT - 1) / NTT;
  unsigned sa[LPT];
  int slot[LPT], n[LPT];
  const float* colp[LPT];
  bool on[LPT];
  __device__ void init(int tid, int x0, int RL, float* ring, const float* in) {
    const unsigned base = unsigned(__cvta_generic_to_shared(ring));
#pragma unroll
    for (int j = 0; j < LPT; ++j) {
      const int i = tid + j * NTT;
      on[j] = i < NL;
      n[j] = i / Q4;
      slot[j] = n[j] % RL;
      colp[j] = in + x0 + (i % Q4) * 4;
      sa[j] = base + unsigned((slot[j] * SS + (i % Q4) * 4) * 4);
    }
  }
  __device__ void issue(int W4, int H, int N, int base, int RL) {
#pragma unroll
    for (int j = 0; j < LPT; ++j) {
      if (on[j] && n[j] < N) {
        const unsigned src = unsigned(min(max(base + n[j], 0), H - 1));
        const float* gp = colp[j] + size_t(src) * unsigned(W4);
        cp_async16_sa(sa[j], gp);
        if (slot[j] < RT) cp_async16_sa(sa[j] + unsigned(RL * SS * 4), gp);
      }
      n[j] += T;
      slot[j] += T;
      sa[j] += unsigned(T * SS * 4);
      if (slot[j] >= RL) slot[j] -= RL, sa[j] -= unsigned(RL * SS * 4);
    }
    cp_commit();
  }
};

// v4c: v4 with StepLoads2.
template <int RT, int CVT, int M1, int M2, int MINB>
__global__ void __launch_bounds__(NT, MINB)
walk4c_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int RL, double inv, int wl, int wu) {
  constexpr int T = P * RT, NTAPS = (M1 + 1) * (M2 + 1);
  constexpr Coefs<M1, M2> kc;
  extern __shared__ __align__(16) unsigned char smem[];
  float* ring = reinterpret_cast<float*>(smem);                          // (RL + RT) x S
  double* st = reinterpret_cast<double*>(ring + size_t(RL + RT) * S);  // P x S x 3
  const int c = threadIdx.x % S, g = threadIdx.x / S;
  const int x0 = blockIdx.x * S;
  for (int i = threadIdx.x; i < (RL + RT) * S; i += NT) ring[i] = 0.f;
  __syncthreads();
  const int j0 = -R, nsteps = (H + 2 * R + T - 1) / T;
  StepLoads2<S, NT, T, RT> ld;
  ld.init(threadIdx.x, x0, RL, ring, in);
  auto load_step = [&](int) { ld.issue(W4, H, H + 2 * R, j0, RL); };
  double C1 = 0, C2 = 0, C3 = 0;
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int base = (s * T + g * RT) % RL;
    const float* tp[NTAPS];
#pragma unroll
    for (int i = 0; i <= M1; ++i)
#pragma unroll
      for (int j = 0; j <= M2; ++j) {
        int v = base - (i * wl + j * wu);
        v += v < 0 ? RL : 0;
        tp[i * (M2 + 1) + j] = ring + v * S + c;
      }
    double l1 = 0, l2 = 0, l3 = 0, L3[RT];
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      double y = 0;
#pragma unroll
      for (int i = 0; i <= M1; ++i)
#pragma unroll
        for (int j = 0; j <= M2; ++j) {
          const int t = i * (M2 + 1) + j;
          const float v = tp[t][r * S];
          const bool bits = CVT == 1 || (CVT == 2 && (t & 1));
          const double d = bits ? f2d_bits(v) : double(v);
          const int cf = kc.v[t];
          if (cf == 1) y += d;
          else if (cf == -1) y -= d;
          else y = fma(double(cf), d, y);
        }
      l1 += y, l2 += l1, l3 += l2;
      L3[r] = l3;
    }
    double* e = st + (g * S + c) * 3;
    e[0] = l1, e[1] = l2, e[2] = l3;
    __syncthreads();
    if (g == 0) {
      constexpr double LL = double(RT) * (RT + 1) / 2;
      for (int k = 0; k < P; ++k) {
        double* f = st + (k * S + c) * 3;
        const double e1 = f[0], e2 = f[1], e3 = f[2];
        f[0] = C1, f[1] = C2, f[2] = C3;
        C3 = C3 + LL * C1 + RT * C2 + e3;
        C2 = C2 + RT * C1 + e2;
        C1 = C1 + e1;
      }
    }
    __syncthreads();
    const double A1 = e[0], A2 = e[1], A3 = e[2];
    const int row0 = s * T + g * RT - 2 * R;
    float* op = out + (long long)row0 * W4 + x0 + c;
    const bool inside = row0 >= 0 && row0 + RT <= H;
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      const double k1 = r + 1, k2 = double(r + 1) * (r + 2) / 2;
      const float v = float((L3[r] + k2 * A1 + k1 * A2 + A3) * inv);
      if (inside || (row0 + r >= 0 && row0 + r < H)) op[(long long)r * W4] = v;
    }
  }
}



__global__ void copy_k(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}

template <typename F> float med(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> v;
  for (int i = 0; i < 15; ++i) {
    cudaEventRecord(a), f(), cudaEventRecord(b), cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b), v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  if (cudaError_t e = cudaGetLastError()) printf("err %s\n", cudaGetErrorString(e));
  return v[7];
}

std::vector<int> kovesi(double sigma, int n) {
  const double ideal = std::sqrt(12.0 * sigma * sigma / n + 1.0);
  int wl = int(std::floor(ideal));
  if (wl % 2 == 0) --wl;
  wl = std::max(wl, 1);
  int best_m = 0;
  double best = 1e300;
  for (int m = 0; m <= n; ++m) {
    const double var = (m * (double(wl) * wl - 1) + (n - m) * (double(wl + 2) * (wl + 2) - 1)) / 12.0;
    if (std::abs(var - sigma * sigma) < best) best = std::abs(var - sigma * sigma), best_m = m;
  }
  std::vector<int> w(size_t(n), wl + 2);
  for (int i = 0; i < best_m; ++i) w[size_t(i)] = wl;
  return w;
}

// v5: the cascade walk. Three causal boxes one after another, each a float32 running sum over a thread's RT rows
// (b_k[n] = sum of b_{k-1}[n - w_k + 1 .. n]), the thread's outputs of box k its inputs of box k + 1 (registers);
// the values leaving each window come from a ring of box k - 1's outputs (x's ring for box 1); each chunk's window
// starts from float64 prefixes Q_{k-1} of box k - 1's outputs at group boundaries (chained per step from the
// groups' float32 totals, as the walk's end states) less a partial sum of at most RT / 2 ring values. Nothing is
// summed in float32 over more than RT steps (or RT / 2 values), as the segments' cascade.
template <int SS, int PP, int RT, int MINB>
__global__ void __launch_bounds__(SS * PP, MINB)
cwalk_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int w1, int w2, int w3, int RL0,
        int RL1, int RL2, int QL, float inv) {
  constexpr int NTT = SS * PP, T = PP * RT;
  extern __shared__ __align__(16) unsigned char smem[];
  double* Q = reinterpret_cast<double*>(smem);       // 3 x QL x SS
  float* tot = reinterpret_cast<float*>(Q + 3 * QL * SS);  // PP x SS
  float* ring0 = tot + PP * SS;                             // (RL0 + RT) x SS
  float* ring1 = ring0 + (RL0 + RT) * SS;                   // (RL1 + RT) x SS
  float* ring2 = ring1 + (RL1 + RT) * SS;                   // (RL2 + RT) x SS
  const int tid = threadIdx.x, c = tid % SS, g = tid / SS;
  const int x0 = blockIdx.x * SS;
  {
    const int nz = 3 * QL * SS * 2 + PP * SS + (RL0 + RL1 + RL2 + 3 * RT) * SS;  // in floats
    float* z = reinterpret_cast<float*>(smem);
    for (int i = tid; i < nz; i += NTT) z[i] = 0.f;
  }
  __syncthreads();
  const int N = H + 2 * R, nsteps = (N + T - 1) / T;
  auto load_step = [&](int s) {
    for (int i = tid; i < T * (SS / 4); i += NTT) {
      const int r = i / (SS / 4), q = i % (SS / 4), n = s * T + r;
      if (n >= N) continue;
      const int src = min(max(n - R, 0), H - 1), slot = n % RL0;
      const float* gp = &in[size_t(src) * W4 + x0 + q * 4];
      cp_async16(&ring0[size_t(slot) * SS + q * 4], gp);
      if (slot < RT) cp_async16(&ring0[size_t(slot + RL0) * SS + q * 4], gp);
    }
    cp_commit();
  };
  const auto wrap = [](int n, int m) {
    int v = n % m;
    return v < 0 ? v + m : v;
  };
  // The chain of box k - 1's totals: Q_{k-1} at this step's group boundaries.
  double C[3] = {0.0, 0.0, 0.0};
  const auto chain = [&](int k, int s) {
    __syncthreads();
    if (tid < SS) {
      float e[PP];
#pragma unroll
      for (int kk = 0; kk < PP; ++kk) e[kk] = tot[kk * SS + tid];
      double* q = Q + (k * QL + wrap(s * PP, QL)) * SS + tid;
      double acc = C[k];
#pragma unroll
      for (int kk = 0; kk < PP; ++kk) {
        q[kk * SS] = acc;
        acc += double(e[kk]);
      }
      C[k] = acc;
    }
    __syncthreads();
  };
  // The window sum at i0 - 1 of box k (width w) over box k - 1's values (ring rb of RLb slots, prefixes Q_{k-1}).
  const auto win_start = [&](int k, const float* rb, int RLb, int i0, int w) -> float {
    const int a = i0 - w;
    const int ra = wrap(a, RT), ga = (a - ra) / RT;  // a = ga RT + ra
    const double* qk = Q + k * QL * SS + c;
    const double Qi0 = qk[wrap(i0 / RT, QL) * SS];
    double Qa;
    if (2 * ra <= RT) {
      float p = 0.f;
      const float* b = rb + wrap(a - ra, RLb) * SS + c;
      for (int j = 0; j < ra; ++j) p += b[j * SS];
      Qa = qk[wrap(ga, QL) * SS] + double(p);
    } else {
      float p = 0.f;
      const float* b = rb + wrap(a, RLb) * SS + c;
      for (int j = 0; j < RT - ra; ++j) p += b[j * SS];
      Qa = qk[wrap(ga + 1, QL) * SS] - double(p);
    }
    return float(Qi0 - Qa);
  };
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int i0 = s * T + g * RT;
    float v[RT];
    {
      const float* xp = ring0 + (i0 % RL0) * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) v[r] = xp[r * SS], e += v[r];
      tot[g * SS + c] = e;
    }
    chain(0, s);
    // Boxes 1 and 2: outputs into their rings, totals chained.
#pragma unroll
    for (int k = 1; k <= 2; ++k) {
      const float* rb = k == 1 ? ring0 : ring1;
      const int RLb = k == 1 ? RL0 : RL1, w = k == 1 ? w1 : w2;
      float* ro = k == 1 ? ring1 : ring2;
      const int RLo = k == 1 ? RL1 : RL2;
      float win = win_start(k - 1, rb, RLb, i0, w);
      const float* lp = rb + wrap(i0 - w, RLb) * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        v[r] = win;
        e += win;
      }
      const int so = i0 % RLo;  // RLo is a multiple of RT: a chunk never wraps
      float* op = ro + so * SS + c;
#pragma unroll
      for (int r = 0; r < RT; ++r) op[r * SS] = v[r];
      if (so == 0) {
#pragma unroll
        for (int r = 0; r < RT; ++r) op[(RLo + r) * SS] = v[r];
      }
      tot[g * SS + c] = e;
      chain(k, s);
    }
    // Box 3: out row i0 + r - 2R.
    const int row0 = i0 - 2 * R;
    if (row0 + RT > 0 && row0 < H) {
      float win = win_start(2, ring2, RL2, i0, w3);
      const float* lp = ring2 + wrap(i0 - w3, RL2) * SS + c;
      float* op = out + (long long)row0 * W4 + x0 + c;
      const bool inside = row0 >= 0 && row0 + RT <= H;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        if (inside || (row0 + r >= 0 && row0 + r < H)) op[(long long)r * W4] = win * inv;
      }
    }
  }
}

template <int SS, int PP, int RT, int MINB>
void run_cwalk(const float* din, float* dout, const std::vector<float>& h, int W, int H, double sigma, float copy_ms) {
  const std::vector<int> w = kovesi(sigma, 3);
  constexpr int T = PP * RT;
  int R = 0;
  double prod = 1;
  for (int wk : w) R += (wk - 1) / 2, prod *= wk;
  const auto up = [](int a, int m) { return (a + m - 1) / m * m; };
  const int RL0 = up(w[0] + RT + 2 * T + 1, RT), RL1 = up(w[1] + RT + T + 1, RT), RL2 = up(w[2] + RT + T + 1, RT);
  const int wmax = std::max(w[0], std::max(w[1], w[2]));
  const int QL = up((wmax + 2 * RT) / RT + 2 + PP, PP);
  const size_t smem = size_t(3 * QL * SS) * 8 + size_t(PP * SS) * 4 + size_t(RL0 + RL1 + RL2 + 3 * RT) * SS * 4;
  const int W4 = W * 4;
  cudaMemset(dout, 0, size_t(W4) * H * 4);
  int per_sm = 0;
  auto k = cwalk_k<SS, PP, RT, MINB>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, SS * PP, smem);
  float ms = 0;
  if (per_sm > 0)
    ms = med([&] { k<<<W4 / SS, SS * PP, smem>>>(din, dout, W4, H, R, w[0], w[1], w[2], RL0, RL1, RL2, QL, float(1.0 / prod)); });
  std::vector<float> o(size_t(W4) * H);
  cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost);
  std::vector<double> kk{1.0};
  for (int wk : w) {
    std::vector<double> nk(kk.size() + size_t(wk) - 1, 0.0);
    for (size_t i = 0; i < kk.size(); ++i)
      for (int j = 0; j < wk; ++j) nk[i + size_t(j)] += kk[i] / wk;
    kk.swap(nk);
  }
  double err = 0;
  for (int x : {0, 7, W4 / 2 + 3, W4 - 16, W4 - 1}) {
    for (int y = 0; y < H; ++y) {
      double acc = 0;
      for (int d = -R; d <= R; ++d) acc += kk[size_t(d + R)] * h[size_t(std::min(std::max(y + d, 0), H - 1)) * W4 + x];
      err = std::max(err, std::abs(acc - o[size_t(y) * W4 + x]));
    }
  }
  printf("cwalk v5 S %2d P %2d RT %2d minb %d sigma %5.1f widths %d,%d,%d smem %6zu B, %d blocks/SM: %.4f ms = %.2fx copy, "
         "max abs err %.2e\n",
         SS, PP, RT, MINB, sigma, w[0], w[1], w[2], smem, per_sm, ms, ms / copy_ms, err);
}

// v6: v5 with window starts from float32 chunk totals (no float64 chains: the segments' DIRECT form, at most MAXM
// totals and RT / 2 values a start), ring slots advanced by a step instead of computed by modulo, the partial sums
// unrolled and predicated; 4 barriers a step instead of 7.
template <int SS, int PP, int RT, int MINB, int MAXM>
__global__ void __launch_bounds__(SS * PP, MINB)
cwalk6_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int w1, int w2, int w3, int RL0,
         int RL1, int RL2, int TL, float inv, int L) {
  constexpr int NTT = SS * PP, T = PP * RT, HALF = RT / 2;
  // Segment blockIdx.y: output rows q0 .. q1 - 1, walked from walk index q0 (a lead-in of 2R rows; the rings' zeros
  // stand for b_k before it, which no output of the segment reads).
  const int q0 = blockIdx.y * L, q1 = min(H, q0 + L);
  extern __shared__ __align__(16) unsigned char smem[];
  float* tr = reinterpret_cast<float*>(smem);  // 3 x (TL + MAXM) x SS: chunk totals of x, b1, b2
  float* ring0 = tr + 3 * (TL + MAXM) * SS;    // (RL0 + RT) x SS
  float* ring1 = ring0 + (RL0 + RT) * SS;
  float* ring2 = ring1 + (RL1 + RT) * SS;
  const int tid = threadIdx.x, c = tid % SS, g = tid / SS;
  const int x0 = blockIdx.x * SS;
  {
    const int nz = 3 * (TL + MAXM) * SS + (RL0 + RL1 + RL2 + 3 * RT) * SS;
    for (int i = tid; i < nz; i += NTT) tr[i] = 0.f;
  }
  __syncthreads();
  const int N = q1 - q0 + 2 * R, nsteps = (N + T - 1) / T;
  const auto wrap = [](int n, int m) {
    int v = n % m;
    return v < 0 ? v + m : v;
  };
  const auto adv = [](int& v, int d, int m) {
    v += d;
    v -= v >= m ? m : 0;
  };
  auto load_step = [&](int s) {
    for (int i = tid; i < T * (SS / 4); i += NTT) {
      const int r = i / (SS / 4), q = i % (SS / 4), n = s * T + r;
      if (n >= N) continue;
      const int src = min(max(q0 + n - R, 0), H - 1), slot = n % RL0;
      const float* gp = &in[size_t(src) * W4 + x0 + q * 4];
      cp_async16(&ring0[size_t(slot) * SS + q * 4], gp);
      if (slot < RT) cp_async16(&ring0[size_t(slot + RL0) * SS + q * 4], gp);
    }
    cp_commit();
  };
  // Stage k + 1 reads b_k (ring k, totals k) with width w: window at i0 - 1 = rows i0 - w .. i0 - 1.
  int mt[3], np[3], own[3], leave[3], part[3], tstart[3];
  bool minus[3];
  const int RLs[3] = {RL0, RL1, RL2}, ws[3] = {w1, w2, w3};
  const int i00 = g * RT;  // step 0's first row
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int w = ws[k], RLk = RLs[k];
    const int ra = wrap(-w, RT);
    minus[k] = 2 * ra <= RT;
    mt[k] = (w + ra) / RT - (minus[k] ? 0 : 1);
    np[k] = minus[k] ? ra : RT - ra;
    own[k] = wrap(i00, RLk);
    leave[k] = wrap(i00 - w, RLk);
    part[k] = wrap(i00 - w - (minus[k] ? ra : 0), RLk);
    tstart[k] = wrap(g - mt[k], TL);
  }
  int town = g;  // this chunk's totals slot (TL is a multiple of PP and > PP)
  const auto window = [&](int k, const float* rb) -> float {
    const float* t = tr + (k * (TL + MAXM) + tstart[k]) * SS + c;
    float win = 0.f;
#pragma unroll
    for (int j = 0; j < MAXM; ++j)
      if (j < mt[k]) win += t[j * SS];
    float p = 0.f;
    const float* b = rb + part[k] * SS + c;
#pragma unroll
    for (int j = 0; j < HALF + 1; ++j)
      if (j < np[k]) p += b[j * SS];
    return minus[k] ? win - p : win + p;
  };
  const auto put_total = [&](int k, float e) {
    float* t = tr + k * (TL + MAXM) * SS + c;
    t[town * SS] = e;
    if (town < MAXM) t[(town + TL) * SS] = e;
  };
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int i0 = s * T + g * RT;
    float v[RT];
    {
      const float* xp = ring0 + own[0] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) v[r] = xp[r * SS], e += v[r];
      put_total(0, e);
    }
    __syncthreads();
#pragma unroll
    for (int k = 1; k <= 2; ++k) {
      const float* rb = k == 1 ? ring0 : ring1;
      float* ro = k == 1 ? ring1 : ring2;
      const int RLo = k == 1 ? RL1 : RL2;
      float win = window(k - 1, rb);
      const float* lp = rb + leave[k - 1] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        v[r] = win;
        e += win;
      }
      float* op = ro + own[k] * SS + c;
#pragma unroll
      for (int r = 0; r < RT; ++r) op[r * SS] = v[r];
      if (own[k] == 0) {
#pragma unroll
        for (int r = 0; r < RT; ++r) op[(RLo + r) * SS] = v[r];
      }
      put_total(k, e);
      __syncthreads();
    }
    const int row0 = q0 + i0 - 2 * R;
    if (row0 + RT > q0 && row0 < q1) {
      float win = window(2, ring2);
      const float* lp = ring2 + leave[2] * SS + c;
      float* op = out + (long long)row0 * W4 + x0 + c;
      const bool inside = row0 >= q0 && row0 + RT <= q1;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        if (inside || (row0 + r >= q0 && row0 + r < q1)) op[(long long)r * W4] = win * inv;
      }
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      adv(own[k], T, RLs[k]), adv(leave[k], T, RLs[k]), adv(part[k], T, RLs[k]);
      adv(tstart[k], PP, TL);
    }
    adv(town, PP, TL);
  }
}

// v7: v6 with the window starts as plain loops (uniform counts, nothing predicated) and the stores by a pointer
// advanced a row at a time.
template <int SS, int PP, int RT, int MINB, int MAXM>
__global__ void __launch_bounds__(SS * PP, MINB)
cwalk7_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int w1, int w2, int w3, int RL0,
         int RL1, int RL2, int TL, float inv, int L) {
  constexpr int NTT = SS * PP, T = PP * RT;
  // Segment blockIdx.y: output rows q0 .. q1 - 1, walked from walk index q0 (a lead-in of 2R rows; the rings' zeros
  // stand for b_k before it, which no output of the segment reads).
  const int q0 = blockIdx.y * L, q1 = min(H, q0 + L);
  extern __shared__ __align__(16) unsigned char smem[];
  float* tr = reinterpret_cast<float*>(smem);  // 3 x (TL + MAXM) x SS: chunk totals of x, b1, b2
  float* ring0 = tr + 3 * (TL + MAXM) * SS;    // (RL0 + RT) x SS
  float* ring1 = ring0 + (RL0 + RT) * SS;
  float* ring2 = ring1 + (RL1 + RT) * SS;
  const int tid = threadIdx.x, c = tid % SS, g = tid / SS;
  const int x0 = blockIdx.x * SS;
  {
    const int nz = 3 * (TL + MAXM) * SS + (RL0 + RL1 + RL2 + 3 * RT) * SS;
    for (int i = tid; i < nz; i += NTT) tr[i] = 0.f;
  }
  __syncthreads();
  const int N = q1 - q0 + 2 * R, nsteps = (N + T - 1) / T;
  const auto wrap = [](int n, int m) {
    int v = n % m;
    return v < 0 ? v + m : v;
  };
  const auto adv = [](int& v, int d, int m) {
    v += d;
    v -= v >= m ? m : 0;
  };
  auto load_step = [&](int s) {
    for (int i = tid; i < T * (SS / 4); i += NTT) {
      const int r = i / (SS / 4), q = i % (SS / 4), n = s * T + r;
      if (n >= N) continue;
      const int src = min(max(q0 + n - R, 0), H - 1), slot = n % RL0;
      const float* gp = &in[size_t(src) * W4 + x0 + q * 4];
      cp_async16(&ring0[size_t(slot) * SS + q * 4], gp);
      if (slot < RT) cp_async16(&ring0[size_t(slot + RL0) * SS + q * 4], gp);
    }
    cp_commit();
  };
  // Stage k + 1 reads b_k (ring k, totals k) with width w: window at i0 - 1 = rows i0 - w .. i0 - 1.
  int mt[3], np[3], own[3], leave[3], part[3], tstart[3];
  bool minus[3];
  const int RLs[3] = {RL0, RL1, RL2}, ws[3] = {w1, w2, w3};
  const int i00 = g * RT;  // step 0's first row
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int w = ws[k], RLk = RLs[k];
    const int ra = wrap(-w, RT);
    minus[k] = 2 * ra <= RT;
    mt[k] = (w + ra) / RT - (minus[k] ? 0 : 1);
    np[k] = minus[k] ? ra : RT - ra;
    own[k] = wrap(i00, RLk);
    leave[k] = wrap(i00 - w, RLk);
    part[k] = wrap(i00 - w - (minus[k] ? ra : 0), RLk);
    tstart[k] = wrap(g - mt[k], TL);
  }
  int town = g;  // this chunk's totals slot (TL is a multiple of PP and > PP)
  const auto window = [&](int k, const float* rb) -> float {
    const float* t = tr + (k * (TL + MAXM) + tstart[k]) * SS + c;
    float win = 0.f;
#pragma unroll 1
    for (int j = 0; j < mt[k]; ++j) win += t[j * SS];
    float p = 0.f;
    const float* b = rb + part[k] * SS + c;
#pragma unroll 1
    for (int j = 0; j < np[k]; ++j) p += b[j * SS];
    return minus[k] ? win - p : win + p;
  };
  const auto put_total = [&](int k, float e) {
    float* t = tr + k * (TL + MAXM) * SS + c;
    t[town * SS] = e;
    if (town < MAXM) t[(town + TL) * SS] = e;
  };
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int i0 = s * T + g * RT;
    float v[RT];
    {
      const float* xp = ring0 + own[0] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) v[r] = xp[r * SS], e += v[r];
      put_total(0, e);
    }
    __syncthreads();
#pragma unroll
    for (int k = 1; k <= 2; ++k) {
      const float* rb = k == 1 ? ring0 : ring1;
      float* ro = k == 1 ? ring1 : ring2;
      const int RLo = k == 1 ? RL1 : RL2;
      float win = window(k - 1, rb);
      const float* lp = rb + leave[k - 1] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        v[r] = win;
        e += win;
      }
      float* op = ro + own[k] * SS + c;
#pragma unroll
      for (int r = 0; r < RT; ++r) op[r * SS] = v[r];
      if (own[k] == 0) {
#pragma unroll
        for (int r = 0; r < RT; ++r) op[(RLo + r) * SS] = v[r];
      }
      put_total(k, e);
      __syncthreads();
    }
    const int row0 = q0 + i0 - 2 * R;
    if (row0 + RT > q0 && row0 < q1) {
      float win = window(2, ring2);
      const float* lp = ring2 + leave[2] * SS + c;
      float* op = out + (long long)row0 * W4 + x0 + c;
      if (row0 >= q0 && row0 + RT <= q1) {
#pragma unroll
        for (int r = 0; r < RT; ++r) {
          win += v[r] - lp[r * SS];
          *op = win * inv;
          op += W4;
        }
      } else {
#pragma unroll
        for (int r = 0; r < RT; ++r) {
          win += v[r] - lp[r * SS];
          if (row0 + r >= q0 && row0 + r < q1) op[(long long)r * W4] = win * inv;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      adv(own[k], T, RLs[k]), adv(leave[k], T, RLs[k]), adv(part[k], T, RLs[k]);
      adv(tstart[k], PP, TL);
    }
    adv(town, PP, TL);
  }
}

// v8: v7 with StepLoads.
template <int SS, int PP, int RT, int MINB, int MAXM>
__global__ void __launch_bounds__(SS * PP, MINB)
cwalk8_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int w1, int w2, int w3, int RL0,
         int RL1, int RL2, int TL, float inv, int L) {
  constexpr int NTT = SS * PP, T = PP * RT;
  // Segment blockIdx.y: output rows q0 .. q1 - 1, walked from walk index q0 (a lead-in of 2R rows; the rings' zeros
  // stand for b_k before it, which no output of the segment reads).
  const int q0 = blockIdx.y * L, q1 = min(H, q0 + L);
  extern __shared__ __align__(16) unsigned char smem[];
  float* tr = reinterpret_cast<float*>(smem);  // 3 x (TL + MAXM) x SS: chunk totals of x, b1, b2
  float* ring0 = tr + 3 * (TL + MAXM) * SS;    // (RL0 + RT) x SS
  float* ring1 = ring0 + (RL0 + RT) * SS;
  float* ring2 = ring1 + (RL1 + RT) * SS;
  const int tid = threadIdx.x, c = tid % SS, g = tid / SS;
  const int x0 = blockIdx.x * SS;
  {
    const int nz = 3 * (TL + MAXM) * SS + (RL0 + RL1 + RL2 + 3 * RT) * SS;
    for (int i = tid; i < nz; i += NTT) tr[i] = 0.f;
  }
  __syncthreads();
  const int N = q1 - q0 + 2 * R, nsteps = (N + T - 1) / T;
  const auto wrap = [](int n, int m) {
    int v = n % m;
    return v < 0 ? v + m : v;
  };
  const auto adv = [](int& v, int d, int m) {
    v += d;
    v -= v >= m ? m : 0;
  };
  StepLoads<SS, NTT, T, RT> ld;
  ld.init(tid, x0, RL0);
  auto load_step = [&](int) { ld.issue(ring0, in, W4, H, N, q0 - R, RL0); };
  // Stage k + 1 reads b_k (ring k, totals k) with width w: window at i0 - 1 = rows i0 - w .. i0 - 1.
  int mt[3], np[3], own[3], leave[3], part[3], tstart[3];
  bool minus[3];
  const int RLs[3] = {RL0, RL1, RL2}, ws[3] = {w1, w2, w3};
  const int i00 = g * RT;  // step 0's first row
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int w = ws[k], RLk = RLs[k];
    const int ra = wrap(-w, RT);
    minus[k] = 2 * ra <= RT;
    mt[k] = (w + ra) / RT - (minus[k] ? 0 : 1);
    np[k] = minus[k] ? ra : RT - ra;
    own[k] = wrap(i00, RLk);
    leave[k] = wrap(i00 - w, RLk);
    part[k] = wrap(i00 - w - (minus[k] ? ra : 0), RLk);
    tstart[k] = wrap(g - mt[k], TL);
  }
  int town = g;  // this chunk's totals slot (TL is a multiple of PP and > PP)
  const auto window = [&](int k, const float* rb) -> float {
    const float* t = tr + (k * (TL + MAXM) + tstart[k]) * SS + c;
    float win = 0.f;
#pragma unroll 1
    for (int j = 0; j < mt[k]; ++j) win += t[j * SS];
    float p = 0.f;
    const float* b = rb + part[k] * SS + c;
#pragma unroll 1
    for (int j = 0; j < np[k]; ++j) p += b[j * SS];
    return minus[k] ? win - p : win + p;
  };
  const auto put_total = [&](int k, float e) {
    float* t = tr + k * (TL + MAXM) * SS + c;
    t[town * SS] = e;
    if (town < MAXM) t[(town + TL) * SS] = e;
  };
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int i0 = s * T + g * RT;
    float v[RT];
    {
      const float* xp = ring0 + own[0] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) v[r] = xp[r * SS], e += v[r];
      put_total(0, e);
    }
    __syncthreads();
#pragma unroll
    for (int k = 1; k <= 2; ++k) {
      const float* rb = k == 1 ? ring0 : ring1;
      float* ro = k == 1 ? ring1 : ring2;
      const int RLo = k == 1 ? RL1 : RL2;
      float win = window(k - 1, rb);
      const float* lp = rb + leave[k - 1] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        v[r] = win;
        e += win;
      }
      float* op = ro + own[k] * SS + c;
#pragma unroll
      for (int r = 0; r < RT; ++r) op[r * SS] = v[r];
      if (own[k] == 0) {
#pragma unroll
        for (int r = 0; r < RT; ++r) op[(RLo + r) * SS] = v[r];
      }
      put_total(k, e);
      __syncthreads();
    }
    const int row0 = q0 + i0 - 2 * R;
    if (row0 + RT > q0 && row0 < q1) {
      float win = window(2, ring2);
      const float* lp = ring2 + leave[2] * SS + c;
      float* op = out + (long long)row0 * W4 + x0 + c;
      if (row0 >= q0 && row0 + RT <= q1) {
#pragma unroll
        for (int r = 0; r < RT; ++r) {
          win += v[r] - lp[r * SS];
          *op = win * inv;
          op += W4;
        }
      } else {
#pragma unroll
        for (int r = 0; r < RT; ++r) {
          win += v[r] - lp[r * SS];
          if (row0 + r >= q0 && row0 + r < q1) op[(long long)r * W4] = win * inv;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      adv(own[k], T, RLs[k]), adv(leave[k], T, RLs[k]), adv(part[k], T, RLs[k]);
      adv(tstart[k], PP, TL);
    }
    adv(town, PP, TL);
  }
}

// v9: v7 with StepLoads2.
template <int SS, int PP, int RT, int MINB, int MAXM>
__global__ void __launch_bounds__(SS * PP, MINB)
cwalk9_k(const float* __restrict__ in, float* __restrict__ out, int W4, int H, int R, int w1, int w2, int w3, int RL0,
         int RL1, int RL2, int TL, float inv, int L) {
  constexpr int NTT = SS * PP, T = PP * RT;
  // Segment blockIdx.y: output rows q0 .. q1 - 1, walked from walk index q0 (a lead-in of 2R rows; the rings' zeros
  // stand for b_k before it, which no output of the segment reads).
  const int q0 = blockIdx.y * L, q1 = min(H, q0 + L);
  extern __shared__ __align__(16) unsigned char smem[];
  float* tr = reinterpret_cast<float*>(smem);  // 3 x (TL + MAXM) x SS: chunk totals of x, b1, b2
  float* ring0 = tr + 3 * (TL + MAXM) * SS;    // (RL0 + RT) x SS
  float* ring1 = ring0 + (RL0 + RT) * SS;
  float* ring2 = ring1 + (RL1 + RT) * SS;
  const int tid = threadIdx.x, c = tid % SS, g = tid / SS;
  const int x0 = blockIdx.x * SS;
  {
    const int nz = 3 * (TL + MAXM) * SS + (RL0 + RL1 + RL2 + 3 * RT) * SS;
    for (int i = tid; i < nz; i += NTT) tr[i] = 0.f;
  }
  __syncthreads();
  const int N = q1 - q0 + 2 * R, nsteps = (N + T - 1) / T;
  const auto wrap = [](int n, int m) {
    int v = n % m;
    return v < 0 ? v + m : v;
  };
  const auto adv = [](int& v, int d, int m) {
    v += d;
    v -= v >= m ? m : 0;
  };
  StepLoads2<SS, NTT, T, RT> ld;
  ld.init(tid, x0, RL0, ring0, in);
  auto load_step = [&](int) { ld.issue(W4, H, N, q0 - R, RL0); };
  // Stage k + 1 reads b_k (ring k, totals k) with width w: window at i0 - 1 = rows i0 - w .. i0 - 1.
  int mt[3], np[3], own[3], leave[3], part[3], tstart[3];
  bool minus[3];
  const int RLs[3] = {RL0, RL1, RL2}, ws[3] = {w1, w2, w3};
  const int i00 = g * RT;  // step 0's first row
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int w = ws[k], RLk = RLs[k];
    const int ra = wrap(-w, RT);
    minus[k] = 2 * ra <= RT;
    mt[k] = (w + ra) / RT - (minus[k] ? 0 : 1);
    np[k] = minus[k] ? ra : RT - ra;
    own[k] = wrap(i00, RLk);
    leave[k] = wrap(i00 - w, RLk);
    part[k] = wrap(i00 - w - (minus[k] ? ra : 0), RLk);
    tstart[k] = wrap(g - mt[k], TL);
  }
  int town = g;  // this chunk's totals slot (TL is a multiple of PP and > PP)
  const auto window = [&](int k, const float* rb) -> float {
    const float* t = tr + (k * (TL + MAXM) + tstart[k]) * SS + c;
    float win = 0.f;
#pragma unroll 1
    for (int j = 0; j < mt[k]; ++j) win += t[j * SS];
    float p = 0.f;
    const float* b = rb + part[k] * SS + c;
#pragma unroll 1
    for (int j = 0; j < np[k]; ++j) p += b[j * SS];
    return minus[k] ? win - p : win + p;
  };
  const auto put_total = [&](int k, float e) {
    float* t = tr + k * (TL + MAXM) * SS + c;
    t[town * SS] = e;
    if (town < MAXM) t[(town + TL) * SS] = e;
  };
  load_step(0);
  for (int s = 0; s < nsteps; ++s) {
    cp_wait_all();
    __syncthreads();
    if (s + 1 < nsteps) load_step(s + 1);
    const int i0 = s * T + g * RT;
    float v[RT];
    {
      const float* xp = ring0 + own[0] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) v[r] = xp[r * SS], e += v[r];
      put_total(0, e);
    }
    __syncthreads();
#pragma unroll
    for (int k = 1; k <= 2; ++k) {
      const float* rb = k == 1 ? ring0 : ring1;
      float* ro = k == 1 ? ring1 : ring2;
      const int RLo = k == 1 ? RL1 : RL2;
      float win = window(k - 1, rb);
      const float* lp = rb + leave[k - 1] * SS + c;
      float e = 0.f;
#pragma unroll
      for (int r = 0; r < RT; ++r) {
        win += v[r] - lp[r * SS];
        v[r] = win;
        e += win;
      }
      float* op = ro + own[k] * SS + c;
#pragma unroll
      for (int r = 0; r < RT; ++r) op[r * SS] = v[r];
      if (own[k] == 0) {
#pragma unroll
        for (int r = 0; r < RT; ++r) op[(RLo + r) * SS] = v[r];
      }
      put_total(k, e);
      __syncthreads();
    }
    const int row0 = q0 + i0 - 2 * R;
    if (row0 + RT > q0 && row0 < q1) {
      float win = window(2, ring2);
      const float* lp = ring2 + leave[2] * SS + c;
      float* op = out + (long long)row0 * W4 + x0 + c;
      if (row0 >= q0 && row0 + RT <= q1) {
#pragma unroll
        for (int r = 0; r < RT; ++r) {
          win += v[r] - lp[r * SS];
          *op = win * inv;
          op += W4;
        }
      } else {
#pragma unroll
        for (int r = 0; r < RT; ++r) {
          win += v[r] - lp[r * SS];
          if (row0 + r >= q0 && row0 + r < q1) op[(long long)r * W4] = win * inv;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      adv(own[k], T, RLs[k]), adv(leave[k], T, RLs[k]), adv(part[k], T, RLs[k]);
      adv(tstart[k], PP, TL);
    }
    adv(town, PP, TL);
  }
}

template <int SS, int PP, int RT, int MINB, int MAXM = 14, int V = 6>
void run_cwalk6(const float* din, float* dout, const std::vector<float>& h, int W, int H, double sigma, float copy_ms,
                int nseg = 1) {
  const int L = (H + nseg - 1) / nseg;
  const std::vector<int> w = kovesi(sigma, 3);
  constexpr int T = PP * RT;
  int R = 0;
  double prod = 1;
  for (int wk : w) R += (wk - 1) / 2, prod *= wk;
  const auto up = [](int a, int m) { return (a + m - 1) / m * m; };
  const int RL0 = up(w[0] + RT + 2 * T + 1, RT), RL1 = up(w[1] + RT + T + 1, RT), RL2 = up(w[2] + RT + T + 1, RT);
  const int wmax = std::max(w[0], std::max(w[1], w[2]));
  if ((wmax + RT) / RT > MAXM) {
    printf("cwalk v6: sigma %.1f needs %d totals > %d\n", sigma, (wmax + RT) / RT, MAXM);
    return;
  }
  const int TL = up((wmax + 2 * RT) / RT + 2 + PP, PP);
  const size_t smem = size_t(3 * (TL + MAXM) * SS) * 4 + size_t(RL0 + RL1 + RL2 + 3 * RT) * SS * 4;
  const int W4 = W * 4;
  cudaMemset(dout, 0, size_t(W4) * H * 4);
  int per_sm = 0;
  auto k = V == 9 ? cwalk9_k<SS, PP, RT, MINB, MAXM> : V == 8 ? cwalk8_k<SS, PP, RT, MINB, MAXM> : V == 7 ? cwalk7_k<SS, PP, RT, MINB, MAXM> : cwalk6_k<SS, PP, RT, MINB, MAXM>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, SS * PP, smem);
  float ms = 0;
  if (per_sm > 0)
    ms = med([&] {
      k<<<dim3(W4 / SS, nseg), SS * PP, smem>>>(din, dout, W4, H, R, w[0], w[1], w[2], RL0, RL1, RL2, TL, float(1.0 / prod), L);
    });
  std::vector<float> o(size_t(W4) * H);
  cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost);
  std::vector<double> kk{1.0};
  for (int wk : w) {
    std::vector<double> nk(kk.size() + size_t(wk) - 1, 0.0);
    for (size_t i = 0; i < kk.size(); ++i)
      for (int j = 0; j < wk; ++j) nk[i + size_t(j)] += kk[i] / wk;
    kk.swap(nk);
  }
  double err = 0;
  for (int x : {0, 7, W4 / 2 + 3, W4 - 16, W4 - 1}) {
    for (int y = 0; y < H; ++y) {
      double acc = 0;
      for (int d = -R; d <= R; ++d) acc += kk[size_t(d + R)] * h[size_t(std::min(std::max(y + d, 0), H - 1)) * W4 + x];
      err = std::max(err, std::abs(acc - o[size_t(y) * W4 + x]));
    }
  }
  printf("cwalk v%d seg %d S %2d P %2d RT %2d minb %d sigma %5.1f widths %d,%d,%d smem %6zu B, %d blocks/SM: %.4f ms = %.2fx copy, "
         "max abs err %.2e\n",
         V, nseg, SS, PP, RT, MINB, sigma, w[0], w[1], w[2], smem, per_sm, ms, ms / copy_ms, err);
}

template <int RT, int MINB, int B = 0>
void run_v4(const float* din, float* dout, int W, int H, double sigma, float copy_ms) {
  const std::vector<int> w = kovesi(sigma, 3);
  int R = 0, sumw = 0, m1 = 0;
  double prod = 1;
  for (int wk : w) R += (wk - 1) / 2, sumw += wk, prod *= wk, m1 += wk == w[0] ? 1 : 0;
  if (m1 != 1 || w[0] + 2 != w[2]) {
    printf("walk v4: sigma %.1f has %d of %d\n", sigma, m1, w[0]);
    return;
  }
  constexpr int T = P * RT;
  const int RL = sumw + 2 * T + 1;
  const size_t smem = size_t(RL + RT) * S * 4 + P * S * 3 * 8;
  int per_sm = 0;
  auto k = B == 2 ? walk4c_k<RT, 0, 1, 2, MINB> : B == 1 ? walk4b_k<RT, 0, 1, 2, MINB> : walk4_k<RT, 0, 1, 2, MINB>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, NT, smem);
  const int W4 = W * 4;
  const float ms = med([&] { k<<<W4 / S, NT, smem>>>(din, dout, W4, H, R, RL, 1.0 / prod, w[0], w[2]); });
  printf("walk v4%s RT %2d minb %d sigma %5.1f smem %6zu B, %d blocks/SM: %.4f ms = %.2fx copy\n", B == 2 ? "c" : B == 1 ? "b" : "", RT, MINB, sigma, smem,
         per_sm, ms, ms / copy_ms);
}

int main(int argc, char** argv) {
  const int W = 4096, H = argc > 1 ? atoi(argv[1]) : 4096;
  const size_t n = size_t(W) * H * 4;
  std::vector<float> h(n);
  unsigned s = 12345;
  for (auto& v : h) s = s * 1664525u + 1013904223u, v = float(s >> 8) / 16777216.0f;
  float *a, *b;
  cudaMalloc(&a, n * 4), cudaMalloc(&b, n * 4);
  cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice);
  const float cp = med([&] { copy_k<<<132 * 16, 256>>>((const float4*)a, (float4*)b, n / 4); });
  printf("copy %.4f ms (%dx%d RGBA)\n", cp, W, H);
  if (argc > 2) {  // profiling: one sigma, the two walks
    const double sigma = atof(argv[2]);
    run_v4<15, 3>(a, b, W, H, sigma, cp);
    run_cwalk6<16, 8, 15, 4>(a, b, h, W, H, sigma, cp);
    run_cwalk6<16, 8, 15, 4, 14, 7>(a, b, h, W, H, sigma, cp);
    run_v4<15, 3, 1>(a, b, W, H, sigma, cp);
    run_cwalk6<16, 8, 15, 4, 14, 8>(a, b, h, W, H, sigma, cp);
    return 0;
  }
  for (double sigma : {3.0, 12.0, 48.0, 100.0, 200.0}) {
    run_v4<15, 3, 1>(a, b, W, H, sigma, cp);
    run_v4<15, 3, 2>(a, b, W, H, sigma, cp);
    if (sigma > 100) continue;
    run_cwalk6<16, 8, 15, 4, 14, 8>(a, b, h, W, H, sigma, cp);
    run_cwalk6<16, 8, 15, 4, 14, 9>(a, b, h, W, H, sigma, cp);
    run_cwalk6<32, 4, 15, 4, 14, 8>(a, b, h, W, H, sigma, cp);
    run_cwalk6<32, 4, 15, 4, 14, 9>(a, b, h, W, H, sigma, cp);
    run_cwalk6<8, 16, 15, 4, 14, 9>(a, b, h, W, H, sigma, cp);
    run_cwalk6<16, 8, 21, 3, 10, 9>(a, b, h, W, H, sigma, cp);
  }
  return 0;
}
