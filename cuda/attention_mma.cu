// Causal attention on tensor cores for bfloat16 and float16 heads (Backend::flash_attention and
// flash_attention_backward's reduced-float case): FlashAttention-2 with warp-level mma.sync
// m16n8k16 (cuda/mma_sync.cuh), float32 sums, the formulas of cuda/attention.cu.
//
//   forward, a block per 64 queries of one (batch, head), 4 warps of 16 query rows; for each tile of
//   32 keys j0 <= the block's last query (tiles above the diagonal are skipped):
//     S = scale Q K^T,  m' = max(m, rowmax S),  P = exp(S - m'),  l = l e^(m - m') + rowsum P,
//     O = O e^(m - m') + P V;   out = O / l,  lse = m + log l (float32)
//   backward, with P = exp(scale Q K^T - lse) recomputed and dP = dO V^T:
//     dq pass (a block per 64 queries):  D_i = sum_j P_ij dP_ij, then dS = P (dP - D), dQ = scale dS K
//     dk/dv pass (a block per 64 keys, over the query tiles that see them):  dV = P^T dO, dK = scale dS^T Q
//
// Every product is one helper: `scores` (A fragments in registers against 32 rows in shared memory,
// giving a 16 x 32 tile of C fragments) or `accumulate` (such a tile, rounded to the input type in
// registers and fed back as the A operand, against a transposed 32-row tile). Tiles sit in shared
// memory as 16-bit values, each row padded to an odd number of 32-bit words, so that the 8 lanes of
// a fragment that share t read 8 rows in 8 banks; the A operands of a warp's own 16 rows stay in
// registers. A row's max and sum are reduced over the 4 lanes that hold it with two shuffles.
// Dropout multiplies each weight by z = keep ? 1 / (1 - p) : 0, drawn from the Philox word
// (bh L + i) S + j as cuda/attention.cu does; l sums the weights before it. No atomics: the two
// backward passes write disjoint outputs, so every run gives the same bits.
// Head dims E == Ev of 32, 64 and 128 forward, 32 and 64 backward (128 would spill the dk/dv
// pass's registers); other sizes return false and the op composes.
#include <cmath>
#include <cstdint>

#include "core/philox.h"
#include "cuda/block_reduce.cuh"  // shared_scratch
#include "cuda/kernels.h"
#include "cuda/launchers.h"
#include "cuda/mma_sync.cuh"

#ifdef __CUDACC__
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif

namespace ember::cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kMmaThreads = 32 * kWarps;
constexpr int kBlockRows = 16 * kWarps;  // queries (forward, dq) or keys (dk/dv) of a block: one m16 per warp
constexpr int kTile = 32;                // the other side's rows per shared tile: four n8 tiles of scores
constexpr int kScoreTiles = kTile / 8;

// Row strides in shared memory, in 16-bit elements: an odd number of 32-bit words.
__host__ __device__ constexpr int row_stride(int D) { return D + 2; }
constexpr int kTransposedStride = kTile + 2;
// Shared bytes of `rows` row-major tiles (kTile, D) and `transposed` tiles (D, kTile), and `floats` floats.
__host__ __device__ constexpr size_t shared_bytes(int D, int rows, int transposed, int floats) {
  return (static_cast<size_t>(rows) * kTile * row_stride(D) + static_cast<size_t>(transposed) * D * kTransposedStride) *
             sizeof(uint16_t) +
         static_cast<size_t>(floats) * sizeof(float);
}

// Row r of head (b, h) of t, as 16-bit values.
__device__ inline uint16_t* head_row(const AttentionHeads& t, int64_t b, int64_t h, int64_t r) {
  return static_cast<uint16_t*>(t.data) + b * t.batch_stride + h * t.head_stride + r * t.row_stride;
}

__device__ inline uint32_t pack_bits(uint16_t lo, uint16_t hi) { return uint32_t(lo) | uint32_t(hi) << 16; }

// Over the 4 lanes of a quad (the lanes holding one row of a fragment).
__device__ inline float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ inline float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

// The A fragments of rows [r0, r0 + 16) of head (b, h) (D / 16 of them), zero past `rows`.
template <int D>
__device__ void load_a_rows(MmaA (&a)[D / 16], const AttentionHeads& src, int64_t b, int64_t h, int64_t r0,
                            int64_t rows, unsigned lane) {
  EMBER_UNROLL
  for (int s = 0; s < D / 16; ++s) {
    EMBER_UNROLL
    for (int r = 0; r < 4; ++r) {
      int row, col;
      mma_a_position(lane, r, 0, row, col);
      const uint16_t* p = r0 + row < rows ? head_row(src, b, h, r0 + row) + 16 * s + col : nullptr;
      a[s].x[r] = p ? pack_bits(p[0], p[1]) : 0u;
    }
  }
}

// Rows [j0, j0 + kTile) of head (b, h) into shared memory, zero past `rows`: row-major in `dst`
// (row_stride(D) apart) and, where `dst_t` is given, transposed in it (kTransposedStride apart).
template <int D>
__device__ void load_tile(uint16_t* dst, uint16_t* dst_t, const AttentionHeads& src, int64_t b, int64_t h, int64_t j0,
                          int64_t rows) {
  for (int idx = threadIdx.x; idx < kTile * D; idx += kMmaThreads) {
    const int j = idx / D, c = idx % D;
    const uint16_t x = j0 + j < rows ? head_row(src, b, h, j0 + j)[c] : uint16_t(0);
    if (dst) dst[j * row_stride(D) + c] = x;
    if (dst_t) dst_t[c * kTransposedStride + j] = x;
  }
}

// s (16 x kTile) = A (16 x D, this warp's rows) times the kTile rows of `tile` transposed.
template <MmaInput T, int D>
__device__ void scores(MmaC (&s)[kScoreTiles], const MmaA (&a)[D / 16], const uint16_t* tile, unsigned lane) {
  EMBER_UNROLL
  for (int n = 0; n < kScoreTiles; ++n) {
    s[n] = MmaC{{0.f, 0.f, 0.f, 0.f}};
    EMBER_UNROLL
    for (int st = 0; st < D / 16; ++st) {
      MmaB bf;
      EMBER_UNROLL
      for (int r = 0; r < 2; ++r) {
        int row, col;  // row: along the head dim, col: the tile's row
        mma_b_position(lane, r, 0, row, col);
        const uint16_t* p = tile + (8 * n + col) * row_stride(D) + 16 * st + row;
        bf.x[r] = pack_bits(p[0], p[1]);
      }
      s[n] = mma_m16n8k16<T>(a[st], bf, s[n]);
    }
  }
}

// acc (16 x D) += w (16 x kTile, rounded to T) times the tile whose transpose `tile_t` holds (D x kTile).
template <MmaInput T, int D>
__device__ void accumulate(MmaC (&acc)[D / 8], const MmaC (&w)[kScoreTiles], const uint16_t* tile_t, unsigned lane) {
  EMBER_UNROLL
  for (int st = 0; st < kTile / 16; ++st) {
    // The C fragments of n-tiles 2 st and 2 st + 1 are the A fragment of this k16 step.
    const MmaC& lo = w[2 * st];
    const MmaC& hi = w[2 * st + 1];
    const MmaA wa{{pack_x2<T>(lo.x[0], lo.x[1]), pack_x2<T>(lo.x[2], lo.x[3]), pack_x2<T>(hi.x[0], hi.x[1]),
                   pack_x2<T>(hi.x[2], hi.x[3])}};
    EMBER_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      MmaB bf;
      EMBER_UNROLL
      for (int r = 0; r < 2; ++r) {
        int row, col;  // row: the tile's row, col: along the head dim
        mma_b_position(lane, r, 0, row, col);
        const uint16_t* p = tile_t + (8 * n + col) * kTransposedStride + 16 * st + row;
        bf.x[r] = pack_bits(p[0], p[1]);
      }
      acc[n] = mma_m16n8k16<T>(wa, bf, acc[n]);
    }
  }
}

// Element e of a C fragment of n-tile n: row g + 8 (e / 2), column 8 n + 2 t + e % 2.
__device__ inline int frag_row(unsigned g, int e) { return int(g) + 8 * (e >> 1); }
__device__ inline int frag_col(int n, unsigned t, int e) { return 8 * n + 2 * int(t) + (e & 1); }

template <MmaInput T, int D>
__global__ void __launch_bounds__(kMmaThreads)
    flash_attention_mma_kernel(AttentionHeads out, float* lse, AttentionHeads q, AttentionHeads k, AttentionHeads v,
                               int64_t H, int64_t L, int64_t S, float scale, PhiloxDropout dropout) {
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kBlockRows;
  const unsigned lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t r0 = i0 + 16 * (threadIdx.x / 32);  // this warp's first query
  uint16_t* ks = shared_scratch<uint16_t>();        // (kTile, D)
  uint16_t* vt = ks + kTile * row_stride(D);        // (D, kTile): V transposed
  MmaA qa[D / 16];
  load_a_rows<D>(qa, q, b, h, r0, L, lane);
  MmaC acc[D / 8];
  EMBER_UNROLL
  for (int n = 0; n < D / 8; ++n) acc[n] = MmaC{{0.f, 0.f, 0.f, 0.f}};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // rows g and g + 8: max, this lane's partial sum
  const float keep_scale = static_cast<float>(dropout.scale());

  const int64_t i_last = (i0 + kBlockRows < L ? i0 + kBlockRows : L) - 1;
  for (int64_t j0 = 0; j0 <= i_last && j0 < S; j0 += kTile) {
    __syncthreads();  // every warp is done with the previous tile
    load_tile<D>(ks, nullptr, k, b, h, j0, S);
    load_tile<D>(nullptr, vt, v, b, h, j0, S);
    __syncthreads();
    if (j0 > r0 + 15 || r0 >= L) continue;  // the whole tile is in this warp's future (mma is per warp)
    MmaC s[kScoreTiles];
    scores<T, D>(s, qa, ks, lane);
    float tile_max[2] = {-INFINITY, -INFINITY};
    EMBER_UNROLL
    for (int n = 0; n < kScoreTiles; ++n) {
      EMBER_UNROLL
      for (int e = 0; e < 4; ++e) {
        const int64_t i = r0 + frag_row(g, e), j = j0 + frag_col(n, t, e);
        s[n].x[e] = i < L && j < S && j <= i ? s[n].x[e] * scale : -INFINITY;
        tile_max[e >> 1] = fmaxf(tile_max[e >> 1], s[n].x[e]);
      }
    }
    float alpha[2];
    EMBER_UNROLL
    for (int half = 0; half < 2; ++half) {
      const float m_new = fmaxf(m[half], quad_max(tile_max[half]));
      // A row with no visible key so far keeps m = -inf and l = 0 (its weights are all 0).
      alpha[half] = m_new == -INFINITY ? 1.f : expf(m[half] - m_new);
      m[half] = m_new;
      l[half] *= alpha[half];
    }
    EMBER_UNROLL
    for (int n = 0; n < kScoreTiles; ++n) {
      EMBER_UNROLL
      for (int e = 0; e < 4; ++e) {
        float p = m[e >> 1] == -INFINITY ? 0.f : expf(s[n].x[e] - m[e >> 1]);
        l[e >> 1] += p;  // l sums every weight; only out sees the dropped ones
        if (dropout.active() && p != 0.f) {
          const int64_t i = r0 + frag_row(g, e), j = j0 + frag_col(n, t, e);
          p = dropout.keeps(static_cast<uint64_t>((bh * L + i) * S + j)) ? p * keep_scale : 0.f;
        }
        s[n].x[e] = p;
      }
    }
    EMBER_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      EMBER_UNROLL
      for (int e = 0; e < 4; ++e) acc[n].x[e] *= alpha[e >> 1];
    }
    accumulate<T, D>(acc, s, vt, lane);
  }
  if (r0 >= L) return;  // after the loop: every warp took part in each __syncthreads
  EMBER_UNROLL
  for (int half = 0; half < 2; ++half) {
    l[half] = quad_sum(l[half]);
    const int64_t i = r0 + g + 8 * half;
    if (i >= L) continue;
    if (t == 0) lse[bh * L + i] = m[half] + logf(l[half]);
    uint16_t* dst = head_row(out, b, h, i);
    EMBER_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      EMBER_UNROLL
      for (int e = 2 * half; e < 2 * half + 2; ++e) dst[frag_col(n, t, e)] = round_to_input<T>(acc[n].x[e] / l[half]);
    }
  }
}

// From a 16 x kTile tile's scores s = Q K^T and dp' = dO V^T (unscaled, undropped), in place:
//   kWeights:     s = P and dp = z dP'                      (the dq pass's D_i = sum_j P_ij dP_ij)
//   kGradients:   s = P z and dp = dS = P (z dP' - D) scale   (dV sums P z, dQ and dK sum dS)
// The fragment's rows are queries (the dq pass) or keys (the dk/dv pass, which holds the
// transposes); lse and D are indexed by the query, D as delta[i - delta_origin].
enum class TileOut { kWeights, kGradients };
struct TileAt {
  int64_t first_row, first_col;  // the fragment's row 0 and column 0, as query or key indices
  bool row_is_query;
};
template <TileOut kOut>
__device__ void weights_and_grads(MmaC (&s)[kScoreTiles], MmaC (&dp)[kScoreTiles], const TileAt& at, const float* lse,
                                  const float* delta, int64_t delta_origin, int64_t bh, int64_t L, int64_t S,
                                  float scale, const PhiloxDropout& dropout, unsigned g, unsigned t) {
  const float keep_scale = static_cast<float>(dropout.scale());
  EMBER_UNROLL
  for (int n = 0; n < kScoreTiles; ++n) {
    EMBER_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int64_t row = at.first_row + frag_row(g, e), col = at.first_col + frag_col(n, t, e);
      const int64_t i = at.row_is_query ? row : col, j = at.row_is_query ? col : row;
      float p = 0.f, z = 1.f;
      if (i < L && j < S && j <= i) {
        p = expf(s[n].x[e] * scale - lse[i]);
        if (dropout.active()) z = dropout.keeps(static_cast<uint64_t>((bh * L + i) * S + j)) ? keep_scale : 0.f;
      }
      const float dpz = dp[n].x[e] * z;
      if constexpr (kOut == TileOut::kWeights) {
        s[n].x[e] = p;
        dp[n].x[e] = p == 0.f ? 0.f : dpz;
      } else {
        s[n].x[e] = p * z;
        dp[n].x[e] = p == 0.f ? 0.f : p * (dpz - delta[i - delta_origin]) * scale;
      }
    }
  }
}

// dq pass: a block per 64 queries; two passes over the key tiles it sees, the first for
// D_i = sum_j P_ij dP_ij (written to `delta` for the dk/dv pass), the second for dQ. With a minimum
// of one block per SM ptxas keeps both passes' fragments in registers (by default it spilled on sm_80).
template <MmaInput T, int D>
__global__ void __launch_bounds__(kMmaThreads, 1)
    flash_attention_mma_dq_kernel(AttentionHeads dq, float* delta, AttentionHeads dout, AttentionHeads q,
                                  AttentionHeads k, AttentionHeads v, const float* lse, int64_t H, int64_t L, int64_t S,
                                  float scale, PhiloxDropout dropout) {
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kBlockRows;
  const unsigned lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t r0 = i0 + 16 * (threadIdx.x / 32);
  uint16_t* ks = shared_scratch<uint16_t>();                                // (kTile, D)
  uint16_t* vs = ks + kTile * row_stride(D);                                // (kTile, D)
  uint16_t* kt = vs + kTile * row_stride(D);                                // (D, kTile): K transposed
  float* row_delta = reinterpret_cast<float*>(kt + D * kTransposedStride);  // (kBlockRows): D of the block's queries
  MmaA qa[D / 16], da[D / 16];
  load_a_rows<D>(qa, q, b, h, r0, L, lane);
  load_a_rows<D>(da, dout, b, h, r0, L, lane);
  const float* lse_bh = lse + bh * L;
  const int64_t i_last = (i0 + kBlockRows < L ? i0 + kBlockRows : L) - 1;

  // Each pass walks the key tiles the block sees; `body` gets a tile's scores S and dP' of this warp's rows.
  auto for_each_key_tile = [&](uint16_t* k_transposed, auto&& body) {
    for (int64_t j0 = 0; j0 <= i_last && j0 < S; j0 += kTile) {
      __syncthreads();
      load_tile<D>(ks, k_transposed, k, b, h, j0, S);
      load_tile<D>(vs, nullptr, v, b, h, j0, S);
      __syncthreads();
      if (j0 > r0 + 15 || r0 >= L) continue;
      MmaC s[kScoreTiles], dp[kScoreTiles];
      scores<T, D>(s, qa, ks, lane);
      scores<T, D>(dp, da, vs, lane);
      body(j0, s, dp);
    }
  };

  float partial[2] = {0.f, 0.f};  // D of rows g and g + 8, this lane's share
  for_each_key_tile(nullptr, [&](int64_t j0, MmaC(&s)[kScoreTiles], MmaC(&dp)[kScoreTiles]) {
    weights_and_grads<TileOut::kWeights>(s, dp, {r0, j0, true}, lse_bh, nullptr, 0, bh, L, S, scale, dropout, g, t);
    EMBER_UNROLL
    for (int n = 0; n < kScoreTiles; ++n) {
      EMBER_UNROLL
      for (int e = 0; e < 4; ++e) partial[e >> 1] += s[n].x[e] * dp[n].x[e];
    }
  });
  const int warp_row = 16 * static_cast<int>(threadIdx.x / 32);
  EMBER_UNROLL
  for (int half = 0; half < 2; ++half) {
    const float d = quad_sum(partial[half]);
    const int64_t i = r0 + g + 8 * half;
    if (t == 0) row_delta[warp_row + g + 8 * half] = d;
    if (t == 0 && i < L) delta[bh * L + i] = d;
  }
  __syncwarp();  // each warp reads back only its own rows' D

  MmaC acc[D / 8];
  EMBER_UNROLL
  for (int n = 0; n < D / 8; ++n) acc[n] = MmaC{{0.f, 0.f, 0.f, 0.f}};
  for_each_key_tile(kt, [&](int64_t j0, MmaC(&s)[kScoreTiles], MmaC(&dp)[kScoreTiles]) {
    weights_and_grads<TileOut::kGradients>(s, dp, {r0, j0, true}, lse_bh, row_delta, i0, bh, L, S, scale, dropout, g,
                                           t);
    accumulate<T, D>(acc, dp, kt, lane);
  });
  if (r0 >= L) return;
  EMBER_UNROLL
  for (int half = 0; half < 2; ++half) {
    const int64_t i = r0 + g + 8 * half;
    if (i >= L) continue;
    uint16_t* dst = head_row(dq, b, h, i);
    EMBER_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      EMBER_UNROLL
      for (int e = 2 * half; e < 2 * half + 2; ++e) dst[frag_col(n, t, e)] = round_to_input<T>(acc[n].x[e]);
    }
  }
}

// dk/dv pass: a block per 64 keys, over the tiles of 32 queries that see them; each warp holds the
// transposes S^T = K Q^T and dP^T = V dO^T of its 16 keys.
template <MmaInput T, int D>
__global__ void __launch_bounds__(kMmaThreads)
    flash_attention_mma_dkdv_kernel(AttentionHeads dk, AttentionHeads dv, AttentionHeads dout, AttentionHeads q,
                                    AttentionHeads k, AttentionHeads v, const float* lse, const float* delta, int64_t H,
                                    int64_t L, int64_t S, float scale, PhiloxDropout dropout) {
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t j0 = static_cast<int64_t>(blockIdx.y) * kBlockRows;
  const unsigned lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t c0 = j0 + 16 * (threadIdx.x / 32);  // this warp's first key
  uint16_t* qs = shared_scratch<uint16_t>();        // (kTile, D)
  uint16_t* dos = qs + kTile * row_stride(D);       // (kTile, D)
  uint16_t* qt = dos + kTile * row_stride(D);       // (D, kTile): Q transposed
  uint16_t* dot = qt + D * kTransposedStride;       // (D, kTile): dO transposed
  MmaA ka[D / 16], va[D / 16];
  load_a_rows<D>(ka, k, b, h, c0, S, lane);
  load_a_rows<D>(va, v, b, h, c0, S, lane);
  MmaC dk_acc[D / 8], dv_acc[D / 8];
  EMBER_UNROLL
  for (int n = 0; n < D / 8; ++n) dk_acc[n] = dv_acc[n] = MmaC{{0.f, 0.f, 0.f, 0.f}};
  const float* lse_bh = lse + bh * L;
  const float* delta_bh = delta + bh * L;

  for (int64_t i0 = j0 / kTile * kTile; i0 < L; i0 += kTile) {
    __syncthreads();
    load_tile<D>(qs, qt, q, b, h, i0, L);
    load_tile<D>(dos, dot, dout, b, h, i0, L);
    __syncthreads();
    if (i0 + kTile - 1 < c0 || c0 >= S) continue;  // every query of the tile is before this warp's keys
    MmaC s[kScoreTiles], dp[kScoreTiles];
    scores<T, D>(s, ka, qs, lane);
    scores<T, D>(dp, va, dos, lane);
    weights_and_grads<TileOut::kGradients>(s, dp, {c0, i0, false}, lse_bh, delta_bh, 0, bh, L, S, scale, dropout, g, t);
    accumulate<T, D>(dv_acc, s, dot, lane);  // dV += (P z)^T dO
    accumulate<T, D>(dk_acc, dp, qt, lane);  // dK += dS^T Q
  }
  if (c0 >= S) return;
  EMBER_UNROLL
  for (int half = 0; half < 2; ++half) {
    const int64_t j = c0 + g + 8 * half;
    if (j >= S) continue;
    uint16_t* dk_row = head_row(dk, b, h, j);
    uint16_t* dv_row = head_row(dv, b, h, j);
    EMBER_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      EMBER_UNROLL
      for (int e = 2 * half; e < 2 * half + 2; ++e) {
        dk_row[frag_col(n, t, e)] = round_to_input<T>(dk_acc[n].x[e]);
        dv_row[frag_col(n, t, e)] = round_to_input<T>(dv_acc[n].x[e]);
      }
    }
  }
}

dim3 grid_of(int64_t BH, int64_t rows) {
  return dim3(static_cast<unsigned>(BH), static_cast<unsigned>((rows + kBlockRows - 1) / kBlockRows));
}

// Calls `launch.template operator()<T, D>()` for the dtype and head dim, if it has an instance:
// D in `dims` (32, 64, 128 or 32, 64). False otherwise.
template <bool kWith128, typename F>
bool for_type_and_dim(ScalarType dtype, int64_t E, int64_t Ev, F&& launch) {
  if (E != Ev || !is_reduced_floating_point(dtype)) return false;
  auto with_type = [&]<MmaInput T>() {
    switch (E) {
      case 32:
        launch.template operator()<T, 32>();
        return true;
      case 64:
        launch.template operator()<T, 64>();
        return true;
      case 128:
        if constexpr (kWith128) {
          launch.template operator()<T, 128>();
          return true;
        }
        return false;
      default:
        return false;
    }
  };
  return dtype == kBFloat16 ? with_type.template operator()<MmaInput::BF16>()
                            : with_type.template operator()<MmaInput::F16>();
}

}  // namespace

bool flash_attention_tensor_cores(ScalarType dtype, const AttentionHeads& out, float* lse, const AttentionHeads& q,
                                  const AttentionHeads& k, const AttentionHeads& v, int64_t B, int64_t H, int64_t L,
                                  int64_t S, int64_t E, int64_t Ev, double scale, const PhiloxDropout& dropout,
                                  cudaStream_t stream) {
  const bool launched = for_type_and_dim<true>(dtype, E, Ev, [&]<MmaInput T, int D>() {
    EMBER_LAUNCH(grid_of(B * H, L), kMmaThreads, shared_bytes(D, 1, 1, 0), stream, flash_attention_mma_kernel<T, D>)
    (out, lse, q, k, v, H, L, S, static_cast<float>(scale), dropout);
  });
  if (launched) check_launch("flash_attention");
  return launched;
}

bool flash_attention_backward_tensor_cores(ScalarType dtype, const AttentionHeads& dq, const AttentionHeads& dk,
                                           const AttentionHeads& dv, const AttentionHeads& dout,
                                           const AttentionHeads& q, const AttentionHeads& k, const AttentionHeads& v,
                                           const float* lse, float* delta, int64_t B, int64_t H, int64_t L, int64_t S,
                                           int64_t E, int64_t Ev, double scale, const PhiloxDropout& dropout,
                                           cudaStream_t stream) {
  const float sc = static_cast<float>(scale);
  const bool launched = for_type_and_dim<false>(dtype, E, Ev, [&]<MmaInput T, int D>() {
    EMBER_LAUNCH(grid_of(B * H, L), kMmaThreads, shared_bytes(D, 2, 1, kBlockRows), stream,
                 flash_attention_mma_dq_kernel<T, D>)
    (dq, delta, dout, q, k, v, lse, H, L, S, sc, dropout);
    check_launch("flash_attention_backward");
    EMBER_LAUNCH(grid_of(B * H, S), kMmaThreads, shared_bytes(D, 2, 2, 0), stream,
                 flash_attention_mma_dkdv_kernel<T, D>)
    (dk, dv, dout, q, k, v, lse, delta, H, L, S, sc, dropout);
  });
  if (launched) check_launch("flash_attention_backward");
  return launched;
}

}  // namespace ember::cuda
