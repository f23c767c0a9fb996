// Causal attention on tensor cores for bfloat16 and float16 heads (Backend::flash_attention's
// reduced-float case), the FlashAttention-2 forward with warp-level mma.sync (cuda/mma_sync.cuh).
//
//   block: 64 queries of one (batch, head), 4 warps of 16 query rows each
//   per key tile of 32 keys j0 <= the block's last query (tiles above the diagonal are skipped):
//     S = scale Q K^T     (16 x 32 per warp: 4 n-tiles of m16n8k16, D / 16 steps each, fp32 sums)
//     m' = max(m, rowmax S),  P = exp(S - m'),  l = l e^(m - m') + rowsum P,  O = O e^(m - m')
//     O += P V            (P rounded to the input type in registers: the S fragment is the A operand)
//   out = O / l (rounded to the input type),  lse = m + log l (float32)
//
// Q stays in registers as A fragments for the whole block; K and V pass through shared memory as
// 16-bit values, K row-major and V transposed, so that every B fragment register is two adjacent
// 16-bit values of one shared row. The rows are padded to an odd number of 32-bit words: the 8
// lanes of a fragment that share t read 8 different rows, which then fall in 8 different banks.
// A row's max and sum are reduced over the 4 lanes that hold it (g = lane / 4) with two shuffles;
// the sum only at the end, each lane keeping its partial sum rescaled with the row's max.
// Dropout multiplies each weight by z = keep ? 1 / (1 - p) : 0 after it entered l, drawn from the
// Philox word (bh L + i) S + j, as cuda/attention.cu does, so the composed backward redraws it.
// Head dims 32, 64 and 128 (E == Ev); other sizes return false and the op composes.
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
constexpr int kBlockQueries = 16 * kWarps;  // Br: one m16 tile per warp
constexpr int kKeyTile = 32;                // Bc: four n8 tiles of scores per warp
constexpr int kKeySteps = kKeyTile / 16;    // k16 steps of P V

// Row strides in shared memory, in 16-bit elements: an odd number of 32-bit words.
__host__ __device__ constexpr int k_stride(int D) { return D + 2; }
constexpr int kVtStride = kKeyTile + 2;

__host__ __device__ constexpr size_t mma_shared_bytes(int D) {
  return (static_cast<size_t>(kKeyTile) * k_stride(D) + static_cast<size_t>(D) * kVtStride) * sizeof(uint16_t);
}

// Row r of head (b, h) of t, as 16-bit values.
__device__ inline uint16_t* head_row(const AttentionHeads& t, int64_t b, int64_t h, int64_t r) {
  return static_cast<uint16_t*>(t.data) + b * t.batch_stride + h * t.head_stride + r * t.row_stride;
}

__device__ inline uint32_t pack_bits(uint16_t lo, uint16_t hi) { return uint32_t(lo) | uint32_t(hi) << 16; }

// The largest of v over the 4 lanes of a quad (the lanes holding one row of a fragment).
__device__ inline float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ inline float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

template <MmaInput T, int D>
__global__ void __launch_bounds__(kMmaThreads)
    flash_attention_mma_kernel(AttentionHeads out, float* lse, AttentionHeads q, AttentionHeads k, AttentionHeads v,
                               int64_t H, int64_t L, int64_t S, float scale, PhiloxDropout dropout) {
  constexpr int kSteps = D / 16;    // k16 steps of Q K^T
  constexpr int kOutTiles = D / 8;  // n8 tiles of the output
  const int64_t bh = blockIdx.x, b = bh / H, h = bh % H;
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kBlockQueries;
  const int warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t r0 = i0 + 16 * warp;             // this warp's first query row
  const int64_t rows[2] = {r0 + g, r0 + g + 8};  // the two rows this lane holds
  uint16_t* ks = shared_scratch<uint16_t>();     // (kKeyTile, D), k_stride(D) apart
  uint16_t* vt = ks + kKeyTile * k_stride(D);    // (D, kKeyTile): V transposed, kVtStride apart

  MmaA qa[kSteps];  // Q's 16 rows of this warp, zero past L
  EMBER_UNROLL
  for (int s = 0; s < kSteps; ++s) EMBER_UNROLL
  for (int r = 0; r < 4; ++r) {
    int row, col;
    mma_a_position(lane, r, 0, row, col);
    const int64_t i = r0 + row;
    const uint16_t* src = i < L ? head_row(q, b, h, i) + 16 * s + col : nullptr;
    qa[s].x[r] = src ? pack_bits(src[0], src[1]) : 0u;
  }
  MmaC acc[kOutTiles];
  EMBER_UNROLL
  for (int n = 0; n < kOutTiles; ++n) acc[n] = MmaC{{0.f, 0.f, 0.f, 0.f}};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // rows g and g + 8: max, this lane's partial sum
  const float keep_scale = static_cast<float>(dropout.scale());

  const int64_t i_last = (i0 + kBlockQueries < L ? i0 + kBlockQueries : L) - 1;
  for (int64_t j0 = 0; j0 <= i_last && j0 < S; j0 += kKeyTile) {
    __syncthreads();  // every warp is done with the previous tile
    for (int idx = threadIdx.x; idx < kKeyTile * D; idx += kMmaThreads) {
      const int j = idx / D, c = idx % D;
      const bool in = j0 + j < S;
      ks[j * k_stride(D) + c] = in ? head_row(k, b, h, j0 + j)[c] : uint16_t(0);
      vt[c * kVtStride + j] = in ? head_row(v, b, h, j0 + j)[c] : uint16_t(0);
    }
    __syncthreads();
    if (j0 > r0 + 15 || r0 >= L) continue;  // every key of the tile is in this warp's future (mma is per warp)

    MmaC s[kKeyTile / 8];  // the scores, then the weights
    EMBER_UNROLL
    for (int n = 0; n < kKeyTile / 8; ++n) {
      s[n] = MmaC{{0.f, 0.f, 0.f, 0.f}};
      EMBER_UNROLL
      for (int st = 0; st < kSteps; ++st) {
        MmaB kb;
        EMBER_UNROLL
        for (int r = 0; r < 2; ++r) {
          int row, col;  // row: along the head dim, col: the key
          mma_b_position(lane, r, 0, row, col);
          const uint16_t* src = ks + (8 * n + col) * k_stride(D) + 16 * st + row;
          kb.x[r] = pack_bits(src[0], src[1]);
        }
        s[n] = mma_m16n8k16<T>(qa[st], kb, s[n]);
      }
    }
    float tile_max[2] = {-INFINITY, -INFINITY};
    EMBER_UNROLL
    for (int n = 0; n < kKeyTile / 8; ++n) EMBER_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int64_t i = rows[e >> 1], j = j0 + 8 * n + 2 * t + (e & 1);
      const bool visible = i < L && j < S && j <= i;
      s[n].x[e] = visible ? s[n].x[e] * scale : -INFINITY;
      tile_max[e >> 1] = fmaxf(tile_max[e >> 1], s[n].x[e]);
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
    for (int n = 0; n < kKeyTile / 8; ++n) EMBER_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int half = e >> 1;
      float p = m[half] == -INFINITY ? 0.f : expf(s[n].x[e] - m[half]);
      l[half] += p;  // l sums every weight; only out sees the dropped ones
      if (dropout.active() && p != 0.f) {
        const int64_t i = rows[half], j = j0 + 8 * n + 2 * t + (e & 1);
        p = dropout.keeps(static_cast<uint64_t>((bh * L + i) * S + j)) ? p * keep_scale : 0.f;
      }
      s[n].x[e] = p;
    }
    EMBER_UNROLL
    for (int n = 0; n < kOutTiles; ++n) EMBER_UNROLL
    for (int e = 0; e < 4; ++e) acc[n].x[e] *= alpha[e >> 1];
    EMBER_UNROLL
    for (int st = 0; st < kKeySteps; ++st) {
      // The weights' C fragments of n-tiles 2 st and 2 st + 1 are the A fragment of this k16 step.
      const MmaC& lo = s[2 * st];
      const MmaC& hi = s[2 * st + 1];
      const MmaA pa{{pack_x2<T>(lo.x[0], lo.x[1]), pack_x2<T>(lo.x[2], lo.x[3]), pack_x2<T>(hi.x[0], hi.x[1]),
                     pack_x2<T>(hi.x[2], hi.x[3])}};
      EMBER_UNROLL
      for (int n = 0; n < kOutTiles; ++n) {
        MmaB vb;
        EMBER_UNROLL
        for (int r = 0; r < 2; ++r) {
          int row, col;  // row: the key, col: along the head dim
          mma_b_position(lane, r, 0, row, col);
          const uint16_t* src = vt + (8 * n + col) * kVtStride + 16 * st + row;
          vb.x[r] = pack_bits(src[0], src[1]);
        }
        acc[n] = mma_m16n8k16<T>(pa, vb, acc[n]);
      }
    }
  }
  if (r0 >= L) return;  // after the loop: every warp took part in each __syncthreads
  EMBER_UNROLL
  for (int half = 0; half < 2; ++half) {
    l[half] = quad_sum(l[half]);
    const int64_t i = rows[half];
    if (i >= L) continue;
    if (t == 0) lse[bh * L + i] = m[half] + logf(l[half]);
    uint16_t* dst = head_row(out, b, h, i);
    EMBER_UNROLL
    for (int n = 0; n < kOutTiles; ++n) EMBER_UNROLL
    for (int e = 2 * half; e < 2 * half + 2; ++e)
      dst[8 * n + 2 * t + (e & 1)] = round_to_input<T>(acc[n].x[e] / l[half]);
  }
}

// False for a head dim without an instance (the op composes then).
template <MmaInput T>
bool launch_for_head_dim(int D, dim3 grid, cudaStream_t stream, const AttentionHeads& out, float* lse,
                         const AttentionHeads& q, const AttentionHeads& k, const AttentionHeads& v, int64_t H,
                         int64_t L, int64_t S, float scale, const PhiloxDropout& dropout) {
  switch (D) {
    case 32:
      EMBER_LAUNCH(grid, kMmaThreads, mma_shared_bytes(32), stream, flash_attention_mma_kernel<T, 32>)
      (out, lse, q, k, v, H, L, S, scale, dropout);
      return true;
    case 64:
      EMBER_LAUNCH(grid, kMmaThreads, mma_shared_bytes(64), stream, flash_attention_mma_kernel<T, 64>)
      (out, lse, q, k, v, H, L, S, scale, dropout);
      return true;
    case 128:
      EMBER_LAUNCH(grid, kMmaThreads, mma_shared_bytes(128), stream, flash_attention_mma_kernel<T, 128>)
      (out, lse, q, k, v, H, L, S, scale, dropout);
      return true;
    default:
      return false;
  }
}

}  // namespace

bool flash_attention_tensor_cores(ScalarType dtype, const AttentionHeads& out, float* lse, const AttentionHeads& q,
                                  const AttentionHeads& k, const AttentionHeads& v, int64_t B, int64_t H, int64_t L,
                                  int64_t S, int64_t E, int64_t Ev, double scale, const PhiloxDropout& dropout,
                                  cudaStream_t stream) {
  if (E != Ev || !is_reduced_floating_point(dtype)) return false;
  const dim3 grid(static_cast<unsigned>(B * H), static_cast<unsigned>((L + kBlockQueries - 1) / kBlockQueries));
  const int D = static_cast<int>(E);
  const bool launched = dtype == kBFloat16
                            ? launch_for_head_dim<MmaInput::BF16>(D, grid, stream, out, lse, q, k, v, H, L, S,
                                                                  static_cast<float>(scale), dropout)
                            : launch_for_head_dim<MmaInput::F16>(D, grid, stream, out, lse, q, k, v, H, L, S,
                                                                 static_cast<float>(scale), dropout);
  if (launched) check_launch("flash_attention");
  return launched;
}

}  // namespace ember::cuda
