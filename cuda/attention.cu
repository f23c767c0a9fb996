// CUDA causal attention in the FlashAttention-2 style (Backend::flash_attention), the twin of
// core/cpu/attention.cpp, which keeps the (L, S) weights instead.
//
//   forward, per tile of kTile queries:  for each tile of kTile keys j0 <= the tile's last query:
//     s = scale q k^T (masked j > i),  m' = max(m, rowmax s),  p = exp(s - m'),
//     l = l e^(m - m') + rowsum p,  acc = acc e^(m - m') + p v        (online softmax)
//   out = acc / l,  lse = m + log l: all that backward keeps besides q, k and v.
//   backward, with p = exp(s - lse) recomputed and dp_ij = dout_i . v_j:
//     D_i = sum_j p_ij dp_ij,  ds_ij = p_ij (dp_ij - D_i),  dq_i = scale sum_j ds_ij k_j
//         (one block per query tile, two passes over the key tiles it sees; it writes D)
//     dv_j = sum_i p_ij dout_i,  dk_j = scale sum_i ds_ij q_i
//         (then one block per key tile, over the query tiles that see it)
//   D is computed from the weights, as the CPU does, so out need not be kept.
// Dropout (core/philox.h): weight (bh, i, j) is multiplied by z_ij = keep ? 1 / (1 - p) : 0, keep
// drawn from Philox word offset + (bh L + i) S + j, after the row's sum l (which sees every weight):
//   acc += (p z) v;  backward: dp_ij = z_ij dout_i . v_j, dv_j = sum_i p_ij z_ij dout_i, and
//   D_i = sum_j p_ij dp_ij as before. The backward redraws z from the same words: no mask is stored.
// Tiles of q, k, v and dout sit in shared memory, with the (kTile, kTile) scores of the current pair
// of tiles; the running max and sum of a row live in the registers of the thread that owns the row,
// the output and gradient accumulators in registers spread over the block. No (L, S) matrix reaches
// global memory, tiles above the diagonal are never visited, and there are no atomics: dq and
// dk/dv come from separate passes, so every run gives the same bits. Not here: head dims over
// kMaxHeadDim (the op composes then).
// Shared-memory rows are padded to an odd number of elements (`padded`): the score loops have the
// 16 threads of a half-warp read column e of 16 different rows of k (and v), and with rows of 64
// floats those 16 words sat in one bank. On the H200 ncu measured a 5.7-way average conflict on the
// forward's shared loads (81% of its load wavefronts) before the padding; with an odd stride the 16
// rows fall in 16 banks (for doubles, in 16 bank pairs).
#include <cmath>

#include "core/philox.h"
#include "cuda/block_reduce.cuh"  // shared_scratch
#include "cuda/kernels.h"
#include "cuda/launchers.h"

// Loops over a thread's accumulators are unrolled, so acc[a] has constant indices and lives in
// registers rather than local memory (nvcc's pragma; the emulator's compiler needs no hint).
// EMBER_UNROLL_FLOAT_ONLY: unrolled in float32 (as measured on the H200) and rolled in float64,
// where the softmax row loop of exp unrolled eight times made ptxas spill on sm_90
// (scripts/check_cuda_build.sh).
#ifdef __CUDACC__
#define EMBER_UNROLL _Pragma("unroll")
#define EMBER_UNROLL_FLOAT_ONLY _Pragma("unroll (sizeof(T) == 4 ? 16 : 1)")
#else
#define EMBER_UNROLL
#define EMBER_UNROLL_FLOAT_ONLY
#endif

namespace ember::cuda {

namespace {

constexpr int kFlashThreads = 128;  // threads per block of every kernel here
// Queries and keys per tile: 16 floats or 8 doubles, so that four (kTile, kMaxHeadDim) tiles fit
// the 48 KiB of shared memory a launch gets without opting in.
template <typename T>
constexpr int kTile = sizeof(T) == 4 ? 16 : 8;
// Accumulator values each thread holds: a (kTile, kMaxHeadDim) tile over the block.
template <typename T>
constexpr int kAccPerThread = (kTile<T> * kMaxHeadDim) / kFlashThreads;

// The row stride, in elements, of a tile of rows of n elements in shared memory: odd, so that
// threads reading one column of consecutive rows hit different banks.
__host__ __device__ constexpr int padded(int64_t n) { return static_cast<int>(n) | 1; }

template <typename T>
__device__ T* row_of(const AttentionHeads& t, int64_t b, int64_t h, int64_t r) {
  return static_cast<T*>(t.data) + b * t.batch_stride + h * t.head_stride + r * t.row_stride;
}

// dst (kTile, cols), rows padded(cols) apart = rows [r0, r0 + kTile) of head (b, h) of `src`, zero past `rows`.
template <typename T>
__device__ void load_tile(T* dst, const AttentionHeads& src, int64_t b, int64_t h, int64_t r0, int64_t rows, int cols) {
  const int stride = padded(cols);
  for (int idx = threadIdx.x; idx < kTile<T> * cols; idx += kFlashThreads) {
    const int r = idx / cols, c = idx % cols;
    dst[r * stride + c] = r0 + r < rows ? row_of<T>(src, b, h, r0 + r)[c] : T(0);
  }
}

// Dropout's factor z_ij of weight (bh, i, j): 1 / (1 - p) where Philox keeps it, else 0; 1 without dropout.
template <typename T>
struct DropoutFactor {
  PhiloxDropout dropout;
  int64_t L, S;
  T scale;
  __device__ DropoutFactor(const PhiloxDropout& d, int64_t L_, int64_t S_)
      : dropout(d), L(L_), S(S_), scale(static_cast<T>(d.scale())) {}
  __device__ T at(int64_t bh, int64_t i, int64_t j) const {
    if (!dropout.active()) return T(1);
    return dropout.keeps(static_cast<uint64_t>((bh * L + i) * S + j)) ? scale : T(0);
  }
};

// a (n) . b (n), both in shared memory.
template <typename T>
__device__ T dot(const T* a, const T* b, int n) {
  T acc = 0;
  for (int e = 0; e < n; ++e) acc += a[e] * b[e];
  return acc;
}

template <typename T>
__global__ void __launch_bounds__(kFlashThreads)
    flash_attention_forward_kernel(AttentionHeads out, T* lse, AttentionHeads q, AttentionHeads k, AttentionHeads v,
                                   int64_t H, int64_t L, int64_t S, int E, int Ev, T scale, PhiloxDropout dropout) {
  constexpr int kT = kTile<T>;
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kT;
  const int tid = threadIdx.x;
  const DropoutFactor<T> drop(dropout, L, S);
  const int sE = padded(E), sEv = padded(Ev);  // row strides in shared memory
  constexpr int sT = padded(kT);
  T* qs = shared_scratch<T>();  // (kT, E)
  T* ks = qs + kT * sE;         // (kT, E)
  T* vs = ks + kT * sE;         // (kT, Ev)
  T* ps = vs + kT * sEv;        // (kT, kT): scores, then weights
  T* zs = ps + kT * sT;         // (kT, kT): dropout's factors
  T* rescale = zs + kT * sT;    // (kT): e^(m - m') of each row, then its final sum l
  load_tile<T>(qs, q, b, h, i0, L, E);
  T acc[kAccPerThread<T>];
  EMBER_UNROLL
  for (int a = 0; a < kAccPerThread<T>; ++a) acc[a] = 0;
  T m = -INFINITY, l = 0;  // row tid's running max and sum (threads tid < kT)
  const int64_t i_last = (i0 + kT < L ? i0 + kT : L) - 1;
  for (int64_t j0 = 0; j0 <= i_last && j0 < S; j0 += kT) {
    __syncthreads();  // the previous tile's reads of ks, vs, ps are done
    load_tile<T>(ks, k, b, h, j0, S, E);
    load_tile<T>(vs, v, b, h, j0, S, Ev);
    __syncthreads();
    for (int idx = tid; idx < kT * kT; idx += kFlashThreads) {
      const int r = idx / kT, c = idx % kT;
      const int64_t i = i0 + r, j = j0 + c;
      const bool visible = i < L && j < S && j <= i;
      ps[r * sT + c] = visible ? scale * dot(qs + r * sE, ks + c * sE, E) : T(-INFINITY);
      zs[r * sT + c] = visible ? drop.at(bh, i, j) : T(0);
    }
    __syncthreads();
    if (tid < kT) {
      T* p = ps + tid * sT;
      const T* z = zs + tid * sT;
      T m_new = m;
      for (int c = 0; c < kT; ++c) m_new = p[c] > m_new ? p[c] : m_new;
      T alpha = 1, sum = 0;
      if (m_new != -INFINITY) {  // a row with no visible key so far keeps m = -inf, l = 0
        alpha = exp(m - m_new);
        EMBER_UNROLL_FLOAT_ONLY
        for (int c = 0; c < kT; ++c) {
          p[c] = exp(p[c] - m_new);
          sum += p[c];  // l sums every weight; only out sees the dropped ones
          p[c] *= z[c];
        }
      } else {
        for (int c = 0; c < kT; ++c) p[c] = 0;
      }
      l = l * alpha + sum;
      m = m_new;
      rescale[tid] = alpha;
    }
    __syncthreads();
    EMBER_UNROLL
    for (int a = 0; a < kAccPerThread<T>; ++a) {
      const int idx = tid + a * kFlashThreads;
      if (idx < kT * Ev) {
        const int r = idx / Ev, c = idx % Ev;
        T x = acc[a] * rescale[r];
        for (int j = 0; j < kT; ++j) x += ps[r * sT + j] * vs[j * sEv + c];
        acc[a] = x;
      }
    }
  }
  __syncthreads();
  if (tid < kT) {
    rescale[tid] = l;
    if (i0 + tid < L) lse[bh * L + i0 + tid] = m + log(l);
  }
  __syncthreads();
  EMBER_UNROLL
  for (int a = 0; a < kAccPerThread<T>; ++a) {
    const int idx = tid + a * kFlashThreads;
    if (idx < kT * Ev) {
      const int r = idx / Ev, c = idx % Ev;
      if (i0 + r < L) row_of<T>(out, b, h, i0 + r)[c] = acc[a] / rescale[r];
    }
  }
}

// The weight p and score gradient ds of query row r (of qs, dos) and key c (of ks, vs) in tile (i0, j0).
template <typename T>
struct WeightAndGrad {
  T p, ds;
};
// With dropout, p is the dropped weight p z (what dv sums) and ds = p (z dp - D).
template <typename T>
__device__ WeightAndGrad<T> weight_and_grad(const T* qs, const T* dos, const T* ks, const T* vs, const T* lse_s,
                                            const T* delta_s, int r, int c, int64_t bh, int64_t i, int64_t j,
                                            const DropoutFactor<T>& drop, int E, int Ev, T scale) {
  if (i >= drop.L || j >= drop.S || j > i) return {T(0), T(0)};
  const int sE = padded(E), sEv = padded(Ev);
  const T p = exp(scale * dot(qs + r * sE, ks + c * sE, E) - lse_s[r]);
  const T z = drop.at(bh, i, j);
  const T dp = z * dot(dos + r * sEv, vs + c * sEv, Ev);
  return {p * z, p * (dp - delta_s[r])};
}

// delta (B * H * L) and dq for one tile of kTile queries, over the key tiles it sees.
template <typename T>
__global__ void __launch_bounds__(kFlashThreads)
    flash_attention_dq_kernel(AttentionHeads dq, T* delta, AttentionHeads dout, AttentionHeads q, AttentionHeads k,
                              AttentionHeads v, const T* lse, int64_t H, int64_t L, int64_t S, int E, int Ev, T scale,
                              PhiloxDropout dropout) {
  constexpr int kT = kTile<T>;
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kT;
  const int tid = threadIdx.x;
  const DropoutFactor<T> drop(dropout, L, S);
  const int sE = padded(E), sEv = padded(Ev);  // row strides in shared memory
  constexpr int sT = padded(kT);
  T* qs = shared_scratch<T>();  // (kT, E)
  T* dos = qs + kT * sE;        // (kT, Ev)
  T* ks = dos + kT * sEv;       // (kT, E)
  T* vs = ks + kT * sE;         // (kT, Ev)
  T* dss = vs + kT * sEv;       // (kT, kT)
  T* lse_s = dss + kT * sT;     // (kT)
  T* delta_s = lse_s + kT;      // (kT)
  load_tile<T>(qs, q, b, h, i0, L, E);
  load_tile<T>(dos, dout, b, h, i0, L, Ev);
  if (tid < kT) {
    lse_s[tid] = i0 + tid < L ? lse[bh * L + i0 + tid] : T(0);
    delta_s[tid] = 0;
  }
  const int64_t i_last = (i0 + kT < L ? i0 + kT : L) - 1;
  // First pass: D_i = sum_j p_ij dp_ij (weight_and_grad's ds while delta_s is still zero), summed
  // in the registers of row tid's thread.
  T row_delta = 0;
  for (int64_t j0 = 0; j0 <= i_last && j0 < S; j0 += kT) {
    __syncthreads();
    load_tile<T>(ks, k, b, h, j0, S, E);
    load_tile<T>(vs, v, b, h, j0, S, Ev);
    __syncthreads();
    for (int idx = tid; idx < kT * kT; idx += kFlashThreads) {
      const int r = idx / kT, c = idx % kT;
      dss[r * sT + c] =
          weight_and_grad(qs, dos, ks, vs, lse_s, delta_s, r, c, bh, i0 + r, j0 + c, drop, E, Ev, scale).ds;
    }
    __syncthreads();
    if (tid < kT)
      for (int c = 0; c < kT; ++c) row_delta += dss[tid * sT + c];
  }
  if (tid < kT) {
    delta_s[tid] = row_delta;  // read after the second pass's first __syncthreads
    if (i0 + tid < L) delta[bh * L + i0 + tid] = row_delta;
  }
  // Second pass: dq.
  T acc[kAccPerThread<T>];
  EMBER_UNROLL
  for (int a = 0; a < kAccPerThread<T>; ++a) acc[a] = 0;
  for (int64_t j0 = 0; j0 <= i_last && j0 < S; j0 += kT) {
    __syncthreads();
    load_tile<T>(ks, k, b, h, j0, S, E);
    load_tile<T>(vs, v, b, h, j0, S, Ev);
    __syncthreads();
    for (int idx = tid; idx < kT * kT; idx += kFlashThreads) {
      const int r = idx / kT, c = idx % kT;
      dss[r * sT + c] =
          weight_and_grad(qs, dos, ks, vs, lse_s, delta_s, r, c, bh, i0 + r, j0 + c, drop, E, Ev, scale).ds;
    }
    __syncthreads();
    EMBER_UNROLL
    for (int a = 0; a < kAccPerThread<T>; ++a) {
      const int idx = tid + a * kFlashThreads;
      if (idx < kT * E) {
        const int r = idx / E, e = idx % E;
        T x = acc[a];
        for (int c = 0; c < kT; ++c) x += dss[r * sT + c] * ks[c * sE + e];
        acc[a] = x;
      }
    }
  }
  EMBER_UNROLL
  for (int a = 0; a < kAccPerThread<T>; ++a) {
    const int idx = tid + a * kFlashThreads;
    if (idx < kT * E) {
      const int r = idx / E, e = idx % E;
      if (i0 + r < L) row_of<T>(dq, b, h, i0 + r)[e] = scale * acc[a];
    }
  }
}

// dk and dv for one tile of kTile keys, over the query tiles that see it (queries i >= the tile's first key).
template <typename T>
__global__ void __launch_bounds__(kFlashThreads)
    flash_attention_dkdv_kernel(AttentionHeads dk, AttentionHeads dv, AttentionHeads dout, AttentionHeads q,
                                AttentionHeads k, AttentionHeads v, const T* lse, const T* delta, int64_t H, int64_t L,
                                int64_t S, int E, int Ev, T scale, PhiloxDropout dropout) {
  constexpr int kT = kTile<T>;
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t j0 = static_cast<int64_t>(blockIdx.y) * kT;
  const int tid = threadIdx.x;
  const DropoutFactor<T> drop(dropout, L, S);
  const int sE = padded(E), sEv = padded(Ev);  // row strides in shared memory
  constexpr int sT = padded(kT);
  T* ks = shared_scratch<T>();  // (kT, E)
  T* vs = ks + kT * sE;         // (kT, Ev)
  T* qs = vs + kT * sEv;        // (kT, E)
  T* dos = qs + kT * sE;        // (kT, Ev)
  T* ps = dos + kT * sEv;       // (kT queries, kT keys)
  T* dss = ps + kT * sT;        // (kT queries, kT keys)
  T* lse_s = dss + kT * sT;     // (kT)
  T* delta_s = lse_s + kT;      // (kT)
  load_tile<T>(ks, k, b, h, j0, S, E);
  load_tile<T>(vs, v, b, h, j0, S, Ev);
  T dk_acc[kAccPerThread<T>], dv_acc[kAccPerThread<T>];
  EMBER_UNROLL
  for (int a = 0; a < kAccPerThread<T>; ++a) {
    dk_acc[a] = 0;
    dv_acc[a] = 0;
  }
  // Tiles are aligned and of one size, so the first query tile that sees key j0 starts at j0.
  for (int64_t i0 = j0; i0 < L; i0 += kT) {
    __syncthreads();
    load_tile<T>(qs, q, b, h, i0, L, E);
    load_tile<T>(dos, dout, b, h, i0, L, Ev);
    if (tid < kT) {
      lse_s[tid] = i0 + tid < L ? lse[bh * L + i0 + tid] : T(0);
      delta_s[tid] = i0 + tid < L ? delta[bh * L + i0 + tid] : T(0);
    }
    __syncthreads();
    for (int idx = tid; idx < kT * kT; idx += kFlashThreads) {
      const int r = idx / kT, c = idx % kT;
      const WeightAndGrad<T> w =
          weight_and_grad(qs, dos, ks, vs, lse_s, delta_s, r, c, bh, i0 + r, j0 + c, drop, E, Ev, scale);
      ps[r * sT + c] = w.p;
      dss[r * sT + c] = w.ds;
    }
    __syncthreads();
    EMBER_UNROLL
    for (int a = 0; a < kAccPerThread<T>; ++a) {
      const int idx = tid + a * kFlashThreads;
      if (idx < kT * Ev) {
        const int c = idx / Ev, e = idx % Ev;
        T x = dv_acc[a];
        for (int r = 0; r < kT; ++r) x += ps[r * sT + c] * dos[r * sEv + e];
        dv_acc[a] = x;
      }
      if (idx < kT * E) {
        const int c = idx / E, e = idx % E;
        T x = dk_acc[a];
        for (int r = 0; r < kT; ++r) x += dss[r * sT + c] * qs[r * sE + e];
        dk_acc[a] = x;
      }
    }
  }
  EMBER_UNROLL
  for (int a = 0; a < kAccPerThread<T>; ++a) {
    const int idx = tid + a * kFlashThreads;
    if (idx < kT * Ev) {
      const int c = idx / Ev, e = idx % Ev;
      if (j0 + c < S) row_of<T>(dv, b, h, j0 + c)[e] = dv_acc[a];
    }
    if (idx < kT * E) {
      const int c = idx / E, e = idx % E;
      if (j0 + c < S) row_of<T>(dk, b, h, j0 + c)[e] = scale * dk_acc[a];
    }
  }
}

// The grid of a kernel that gives a block to each (batch * head, tile of `rows`).
template <typename T>
dim3 tile_grid(int64_t BH, int64_t rows) {
  return dim3(static_cast<unsigned>(BH), static_cast<unsigned>((rows + kTile<T> - 1) / kTile<T>));
}

}  // namespace

bool flash_attention_fits(int64_t BH, int64_t L, int64_t S, int64_t E, int64_t Ev) {
  constexpr int64_t kMaxGridX = 2147483647;
  constexpr int64_t kMinTile = 8;
  return E <= kMaxHeadDim && Ev <= kMaxHeadDim && BH <= kMaxGridX && (L + kMinTile - 1) / kMinTile <= kMaxGrid &&
         (S + kMinTile - 1) / kMinTile <= kMaxGrid;
}

namespace {
// A (B, H, rows, cols) view with unit-stride rows, as the kernels read it.
AttentionHeads heads_of(const TensorView& t) { return {t.data, t.strides[0], t.strides[1], t.strides[2]}; }
}  // namespace

// Sizes the launches cannot take (flash_attention_fits) return false: the op composes instead.
bool launchers::flash_attention(const TensorView& out, const TensorView& lse, const TensorView& q, const TensorView& k,
                                const TensorView& v, double scale, const PhiloxDropout& dropout) {
  const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2], S = k.sizes[2], E = q.sizes[3], Ev = v.sizes[3];
  if (!flash_attention_fits(B * H, L, S, E, Ev)) return false;
  if (is_reduced_floating_point(q.dtype))  // on tensor cores (cuda/attention_mma.cu), for the head dims it takes
    return lse.dtype == kFloat32 &&
           flash_attention_tensor_cores(q.dtype, heads_of(out), lse.ptr<float>(), heads_of(q), heads_of(k), heads_of(v),
                                        B, H, L, S, E, Ev, scale, dropout, prepare(out.device));
  cudaStream_t s = prepare(out.device);
  require_floating(q.dtype, "flash_attention");
  dispatch_floating_type("flash_attention", q.dtype, [&]<typename T>() {
    constexpr int64_t kT = kTile<T>, sT = padded(kT);
    const int64_t sE = padded(E), sEv = padded(Ev);
    const size_t shmem = (kT * (2 * sE + sEv) + 2 * kT * sT + kT) * sizeof(T);
    EMBER_LAUNCH(tile_grid<T>(B * H, L), kFlashThreads, shmem, s, flash_attention_forward_kernel<T>)
    (heads_of(out), lse.ptr<T>(), heads_of(q), heads_of(k), heads_of(v), H, L, S, static_cast<int>(E),
     static_cast<int>(Ev), static_cast<T>(scale), dropout);
    check_launch("flash_attention");
  });
  return true;
}

bool launchers::flash_attention_backward(const TensorView& dq, const TensorView& dk, const TensorView& dv,
                                         const TensorView& dout, const TensorView& q, const TensorView& k,
                                         const TensorView& v, const TensorView& lse, double scale,
                                         const PhiloxDropout& dropout) {
  const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2], S = k.sizes[2], E = q.sizes[3], Ev = v.sizes[3];
  if (!flash_attention_fits(B * H, L, S, E, Ev)) return false;
  cudaStream_t s = prepare(q.device);
  if (is_reduced_floating_point(q.dtype)) {  // on tensor cores (cuda/attention_mma.cu), for the head dims it takes
    if (lse.dtype != kFloat32) return false;
    const DeviceBuffer delta(q.device, B * H * L * sizeof(float));
    return flash_attention_backward_tensor_cores(q.dtype, heads_of(dq), heads_of(dk), heads_of(dv), heads_of(dout),
                                                 heads_of(q), heads_of(k), heads_of(v), lse.ptr<const float>(),
                                                 delta.as<float>(), B, H, L, S, E, Ev, scale, dropout, s);
  }
  require_floating(q.dtype, "flash_attention_backward");
  const DeviceBuffer delta(q.device, B * H * L * element_size(q.dtype));  // rowsum(dP * P), written by the dq pass
  dispatch_floating_type("flash_attention_backward", q.dtype, [&]<typename T>() {
    constexpr int64_t kT = kTile<T>;
    const int e = static_cast<int>(E), ev = static_cast<int>(Ev);
    const T* ls = lse.ptr<const T>();
    T* d = delta.as<T>();
    const int64_t sT = padded(kT), sE = padded(E), sEv = padded(Ev);
    const size_t shmem = (2 * kT * (sE + sEv) + 2 * kT * sT + 2 * kT) * sizeof(T);
    EMBER_LAUNCH(tile_grid<T>(B * H, L), kFlashThreads, shmem, s, flash_attention_dq_kernel<T>)
    (heads_of(dq), d, heads_of(dout), heads_of(q), heads_of(k), heads_of(v), ls, H, L, S, e, ev, static_cast<T>(scale),
     dropout);
    check_launch("flash_attention_backward");
    EMBER_LAUNCH(tile_grid<T>(B * H, S), kFlashThreads, shmem, s, flash_attention_dkdv_kernel<T>)
    (heads_of(dk), heads_of(dv), heads_of(dout), heads_of(q), heads_of(k), heads_of(v), ls, d, H, L, S, e, ev,
     static_cast<T>(scale), dropout);
    check_launch("flash_attention_backward");
  });
  return true;
}

// The CPU's attention kernels keep the (L, S) weights for the backward; the CUDA backend keeps one
// logsumexp per row instead (flash_attention above), so it declines these and sizes the flash
// kernels cannot take compose.
bool launchers::causal_attention(const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                                 const TensorView&, const TensorView&, double) {
  return false;
}

bool launchers::causal_attention_backward(const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                                          const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                                          const TensorView&, double) {
  return false;
}

}  // namespace ember::cuda
