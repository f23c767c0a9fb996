// CPU LSTM layer: one direction over packed rows, forward and backward (see Backend::lstm_layer).
//
// Per step, with xw the input projection (rows of x W_ih^T + b_ih) and gates in PyTorch's order i, f, g, o:
//   pre = xw + (b_hh + h_prev W_hh^T)      i, f, o = sigmoid(pre_i, pre_f, pre_o),  g = tanh(pre_g)
//   c = f * c_prev + i * g                  h = o * tanh(c)
// Backward, per step, last to first (dh, dc carried; dh += the step's output gradient):
//   dc += dh * o * (1 - tanh(c)^2)          dpre_i = dc g i (1 - i),  dpre_f = dc c_prev f (1 - f),
//   dpre_g = dc i (1 - g^2),  dpre_o = dh tanh(c) o (1 - o);  dc_prev = dc f,  dh_prev = dpre W_hh
// then once over all steps: dW_hh = dpre^T H_prev, db_hh = column sums of dpre, dxw = dpre.
//
// Threads split the hidden units: a thread owns units [j0, j1) and so the four gate columns of each,
// does the GEMM for those columns and the cell math for those units, and meets the others at one
// barrier per step (the next step's GEMM reads every unit of h). Not here: the projection
// (proj_size), which nn/rnn.cpp composes from tensor ops.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/small_gemm.h"
#include "core/cpu/vec_math.h"

namespace ember::cpu {

namespace {

// tanh for float without libm calls: (1 - e) / (1 + e), e = exp(-2|x|), and near 0, where that
// subtraction would cancel, its Taylor series to x^11 (relative error below 1e-8 for |x| < 0.25).
inline __attribute__((always_inline)) float tanh_vec(float x) {
  const float a = x < 0 ? -x : x;
  const float e = exp_vec(-2.0f * a);
  const float t = (1.0f - e) / (1.0f + e);
  const float x2 = x * x;
  const float series =
      x * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315 + x2 * (62.0f / 2835 + x2 * (-1382.0f / 155925))))));
  return a < 0.25f ? series : (x < 0 ? -t : t);
}
inline __attribute__((always_inline)) float sigmoid_vec(float x) { return 1.0f / (1.0f + exp_vec(-x)); }

inline double tanh_vec(double x) { return std::tanh(x); }
inline double sigmoid_vec(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The columns of one row's four gates for units [0, n): pointers already at unit j0 of each block
// (T const for a row that is only read).
template <typename T>
struct GateRow {
  T *i, *f, *g, *o;
};
template <typename T>
GateRow<T> gate_row(T* row, int64_t H, int64_t j0) {
  return {row + j0, row + H + j0, row + 2 * H + j0, row + 3 * H + j0};
}

// One row's cell update for n units: gates hold h W_hh^T on entry, the activated gates on exit.
template <typename T>
inline __attribute__((always_inline)) void cell_forward_row(int64_t n, GateRow<const T> xw, GateRow<const T> bias,
                                                            GateRow<T> gates, T* __restrict c, T* __restrict cell,
                                                            T* __restrict h) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const T i = sigmoid_vec(xw.i[j] + (gates.i[j] + bias.i[j]));
    const T f = sigmoid_vec(xw.f[j] + (gates.f[j] + bias.f[j]));
    const T g = tanh_vec(xw.g[j] + (gates.g[j] + bias.g[j]));
    const T o = sigmoid_vec(xw.o[j] + (gates.o[j] + bias.o[j]));
    const T c_new = f * c[j] + i * g;
    gates.i[j] = i;
    gates.f[j] = f;
    gates.g[j] = g;
    gates.o[j] = o;
    c[j] = c_new;
    cell[j] = c_new;
    h[j] = o * tanh_vec(c_new);
  }
}

// One row's backward for n units: dh (in: the gradient of h; the caller has added the output's),
// dc (in: of c, out: of c_prev); dpre the pre-activation gradients.
template <typename T>
inline __attribute__((always_inline)) void cell_backward_row(int64_t n, GateRow<T> dpre, GateRow<const T> gates,
                                                             const T* __restrict dh, T* __restrict dc,
                                                             const T* __restrict cell, const T* __restrict c_prev) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const T i = gates.i[j], f = gates.f[j], g = gates.g[j], o = gates.o[j];
    const T tc = tanh_vec(cell[j]);
    const T dcj = dc[j] + dh[j] * o * (T(1) - tc * tc);  // d tanh(c) = 1 - tanh(c)^2
    dpre.i[j] = dcj * g * i * (T(1) - i);                // d sigmoid(x) = s (1 - s)
    dpre.f[j] = dcj * c_prev[j] * f * (T(1) - f);
    dpre.g[j] = dcj * i * (T(1) - g * g);
    dpre.o[j] = dh[j] * tc * o * (T(1) - o);
    dc[j] = dcj * f;
  }
}

// The float rows compiled for AVX-512, AVX2 and the baseline, picked at run time; with GCC, flatten
// makes sure exp_vec is inlined so the loops vectorise (Clang, which inlines it anyway, refuses
// flatten beside target_clones).
#if defined(__clang__)
#define EMBER_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EMBER_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif
EMBER_ROW_CLONES void cell_forward_f32(
    int64_t n, GateRow<const float> xw, GateRow<const float> bias, GateRow<float> gates, float* c, float* cell,
    float* h) {
  cell_forward_row<float>(n, xw, bias, gates, c, cell, h);
}
EMBER_ROW_CLONES void cell_backward_f32(
    int64_t n, GateRow<float> dpre, GateRow<const float> gates, const float* dh, float* dc, const float* cell,
    const float* c_prev) {
  cell_backward_row<float>(n, dpre, gates, dh, dc, cell, c_prev);
}
#undef EMBER_ROW_CLONES
template <typename T>
void cell_forward(int64_t n, GateRow<const T> xw, GateRow<const T> bias, GateRow<T> gates, T* c, T* cell, T* h) {
  if constexpr (std::is_same_v<T, float>)
    cell_forward_f32(n, xw, bias, gates, c, cell, h);
  else
    cell_forward_row<T>(n, xw, bias, gates, c, cell, h);
}
template <typename T>
void cell_backward(int64_t n, GateRow<T> dpre, GateRow<const T> gates, const T* dh, T* dc, const T* cell,
                   const T* c_prev) {
  if constexpr (std::is_same_v<T, float>)
    cell_backward_f32(n, dpre, gates, dh, dc, cell, c_prev);
  else
    cell_backward_row<T>(n, dpre, gates, dh, dc, cell, c_prev);
}

// C (M, N; ldc) = op(A) op(B) (+ C when beta is 1), row-major.
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
  else
    cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, A, lda, B, ldb, beta, C, ldc);
}

// C (M, N; ldc) = A (M, K; lda) B (K, N; ldb), all row-major: a step's product, B a slice of W_hh
// or its transpose. While W_hh fits in L2 (`small`), float goes to the register-tiled kernel of
// small_gemm.h, which packs nothing where BLAS would pack W_hh again at every step; a larger W_hh is
// read faster through BLAS's cache blocking.
void step_gemm(bool small, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
               float* C, int64_t ldc) {
  if (small)
    small_gemm_float(false, M, N, K, 1.0f, A, lda, B, ldb, C, ldc);
  else
    gemm<float>(false, false, M, N, K, A, lda, B, ldb, 0.0f, C, ldc);
}
void step_gemm(bool, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, const double* B, int64_t ldb,
               double* C, int64_t ldc) {
  gemm<double>(false, false, M, N, K, A, lda, B, ldb, 0.0, C, ldc);
}
bool fits_small_gemm(int64_t H) { return 4 * H * H * int64_t{sizeof(float)} <= int64_t{1} << 20; }

// The packed steps in the order the forward takes them: step(p) for p = 0 .. T-1 (last to first when
// reverse), step t's rows (batch_sizes[t]) starting at row offset[t].
struct Steps {
  std::vector<int64_t> rows, offset;
  bool reverse;
  int64_t count() const { return static_cast<int64_t>(rows.size()); }
  int64_t step(int64_t p) const { return reverse ? count() - 1 - p : p; }
};

Steps packed_steps(IntArrayRef batch_sizes, bool reverse) {
  Steps s{batch_sizes.vec(), std::vector<int64_t>(batch_sizes.size()), reverse};
  int64_t total = 0;
  for (size_t t = 0; t < s.rows.size(); ++t) {
    s.offset[t] = total;
    total += s.rows[t];
  }
  return s;
}

// The threads to use and the units each owns: blocks of whole 16-unit groups (full vector
// registers), one thread when a step's GEMM is too small to share.
struct UnitSplit {
  int threads;
  int64_t block;
  std::pair<int64_t, int64_t> range(int thread, int64_t H) const {
    const int64_t j0 = std::min(H, thread * block);
    return {j0, std::min(H, j0 + block)};
  }
};

UnitSplit split_units(int64_t B, int64_t H) {
  constexpr int64_t kParallelWork = 64 * 64 * 64;  // multiply-adds of one step below which one thread is faster
  int threads = B * 4 * H * H >= kParallelWork ? omp_get_max_threads() : 1;
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, (H + 15) / 16)));
  const int64_t block = ((H + threads - 1) / threads + 15) / 16 * 16;
  return {threads, block};
}

// For step p's rows [0, b): the rows of the state before it come from step prev's block (rows
// [0, min(b, b_prev)), where prev is the step taken just before) and, for rows starting here, the
// initial state. Returns prev's block of per_row (rows of `width`) and how many rows come from it.
template <typename T>
std::pair<const T*, int64_t> previous_rows(const Steps& s, int64_t p, const T* per_row, int64_t width) {
  if (p == 0) return {nullptr, 0};
  const int64_t tp = s.step(p - 1);
  return {per_row + s.offset[tp] * width, std::min(s.rows[s.step(p)], s.rows[tp])};
}

template <typename T>
void lstm_forward(const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& gates, const Tensor& cells,
                  const Tensor& xw, const Tensor& h0, const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                  IntArrayRef batch_sizes, bool reverse) {
  const Steps s = packed_steps(batch_sizes, reverse);
  const int64_t B = h0.size(0), H = h0.size(1), G = 4 * H;
  T* O = out.data_ptr<T>();
  T* Gt = gates.data_ptr<T>();
  T* C = cells.data_ptr<T>();
  T* c = c_n.data_ptr<T>();
  const T* X = xw.data_ptr<T>();
  const T* h_init = h0.data_ptr<T>();
  // W_hh^T (H, 4H), row-major once, so that each step's product reads it row by row.
  std::vector<T> wt(static_cast<size_t>(H * G));
  const T* W = w_hh.data_ptr<T>();
  for (int64_t r = 0; r < G; ++r)
    for (int64_t k = 0; k < H; ++k) wt[k * G + r] = W[r * H + k];
  std::vector<T> bias(static_cast<size_t>(G), T(0));
  if (b_hh.defined()) std::copy_n(b_hh.data_ptr<T>(), G, bias.data());
  std::copy_n(c0.data_ptr<T>(), B * H, c);
  const bool small = fits_small_gemm(H);
  const UnitSplit split = split_units(B, H);
#pragma omp parallel num_threads(split.threads) if (split.threads > 1)
  {
    const auto [j0, j1] = split.range(omp_get_thread_num(), H);
    const int64_t n = j1 - j0;
    for (int64_t p = 0; p < s.count(); ++p) {
      const int64_t t = s.step(p), b = s.rows[t];
      T* Gs = Gt + s.offset[t] * G;  // (b, 4H): this step's gates
      if (n > 0) {
        // h_prev W_hh^T for this thread's columns of each gate, h_prev from the previous step's
        // outputs and, for rows that start here, from h0. One thread owning every unit makes the four
        // gates' columns one product of 4H columns.
        const auto [prev, from_prev] = previous_rows(s, p, O, H);
        const int blocks = n == H ? 1 : 4;
        const int64_t width = n == H ? G : n;
        for (int k = 0; k < blocks; ++k) {
          const T* Wk = wt.data() + k * H + j0;  // columns k*H + j0 .. of W_hh^T, (H, width)
          if (from_prev > 0) step_gemm(small, from_prev, width, H, prev, H, Wk, G, Gs + k * H + j0, G);
          if (b > from_prev)
            step_gemm(small, b - from_prev, width, H, h_init + from_prev * H, H, Wk, G, Gs + from_prev * G + k * H + j0, G);
        }
        const int64_t row0 = s.offset[t];
        const T* bv = bias.data();
        const GateRow<const T> bias_row = gate_row(bv, H, j0);
        for (int64_t r = 0; r < b; ++r) {
          const T* xr = X + (row0 + r) * G;
          cell_forward<T>(n, gate_row(xr, H, j0), bias_row,
                       gate_row(Gs + r * G, H, j0), c + r * H + j0, C + (row0 + r) * H + j0,
                       O + (row0 + r) * H + j0);
        }
      }
#pragma omp barrier
    }
  }
  // Each sequence's final h: its row in the last step that has it (the last step taken, except for
  // sequences that end early in the forward direction).
  T* hn = h_n.data_ptr<T>();
  for (int64_t r = 0; r < B; ++r) {
    int64_t t = reverse ? 0 : s.count() - 1;
    while (!reverse && s.rows[t] <= r) --t;
    std::copy_n(O + (s.offset[t] + r) * H, H, hn + r * H);
  }
}

template <typename T>
void lstm_backward(const Tensor& dxw, const Tensor& dw_hh, const Tensor& db_hh, const Tensor& dh0, const Tensor& dc0,
                   const Tensor& dout, const Tensor& dh_n, const Tensor& dc_n, const Tensor& out, const Tensor& gates,
                   const Tensor& cells, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                   IntArrayRef batch_sizes, bool reverse) {
  const Steps s = packed_steps(batch_sizes, reverse);
  const int64_t B = h0.size(0), H = h0.size(1), G = 4 * H, N = out.size(0);
  T* D = dxw.data_ptr<T>();  // (N, 4H): the pre-activation gradients
  T* dh = dh0.data_ptr<T>();
  T* dc = dc0.data_ptr<T>();
  const T* dO = dout.defined() ? dout.data_ptr<T>() : nullptr;
  const T* O = out.data_ptr<T>();
  const T* Gt = gates.data_ptr<T>();
  const T* C = cells.data_ptr<T>();
  const T* h_init = h0.data_ptr<T>();
  const T* c_init = c0.data_ptr<T>();
  const T* W = w_hh.data_ptr<T>();
  T* dW = dw_hh.data_ptr<T>();
  T* dB = db_hh.defined() ? db_hh.data_ptr<T>() : nullptr;
  if (dh_n.defined()) std::copy_n(dh_n.data_ptr<T>(), B * H, dh);
  else std::fill_n(dh, B * H, T(0));
  if (dc_n.defined()) std::copy_n(dc_n.data_ptr<T>(), B * H, dc);
  else std::fill_n(dc, B * H, T(0));
  std::vector<T> h_prev(static_cast<size_t>(N * H));  // (N, H): each row's h before its step
  const bool small = fits_small_gemm(H);
  const UnitSplit split = split_units(B, H);
#pragma omp parallel num_threads(split.threads) if (split.threads > 1)
  {
    const auto [j0, j1] = split.range(omp_get_thread_num(), H);
    const int64_t n = j1 - j0;
    std::vector<T> dh_row(static_cast<size_t>(std::max<int64_t>(n, 1)));
    for (int64_t p = s.count() - 1; p >= 0; --p) {
      const int64_t t = s.step(p), b = s.rows[t], row0 = s.offset[t];
      T* Ds = D + row0 * G;
      if (n > 0) {
        const auto [prev_c, from_prev] = previous_rows(s, p, C, H);
        for (int64_t r = 0; r < b; ++r) {
          for (int64_t j = 0; j < n; ++j) dh_row[j] = dh[r * H + j0 + j] + (dO ? dO[(row0 + r) * H + j0 + j] : T(0));
          const T* cp = (r < from_prev ? prev_c + r * H : c_init + r * H) + j0;
          const T* gr = Gt + (row0 + r) * G;
          cell_backward<T>(n, gate_row(Ds + r * G, H, j0),
                        gate_row(gr, H, j0), dh_row.data(),
                        dc + r * H + j0, C + (row0 + r) * H + j0, cp);
        }
      }
#pragma omp barrier
      // dh_prev (b, n) = dpre (b, 4H) @ W_hh[:, j0:j1]: every gate column of the step, so after the barrier.
      if (n > 0) step_gemm(small, b, n, G, Ds, G, W + j0, H, dh + j0, H);
    }
    // H_prev, this thread's columns, then dW_hh and db_hh for its gate rows (every column of H_prev).
    if (n > 0) {
      for (int64_t p = 0; p < s.count(); ++p) {
        const int64_t t = s.step(p), b = s.rows[t], row0 = s.offset[t];
        const auto [prev_h, from_prev] = previous_rows(s, p, O, H);
        for (int64_t r = 0; r < b; ++r)
          std::copy_n((r < from_prev ? prev_h + r * H : h_init + r * H) + j0, n, h_prev.data() + (row0 + r) * H + j0);
      }
    }
#pragma omp barrier
    if (n > 0) {
      const int blocks = n == H ? 1 : 4, width = n == H ? G : n;
      for (int k = 0; k < blocks; ++k) {
        const int64_t col = k * H + j0;
        gemm<T>(true, false, width, H, N, D + col, G, h_prev.data(), H, T(0), dW + col * H, H);
      }
      if (dB) {  // column sums, row by row (contiguous), in double
        std::vector<double> sums(static_cast<size_t>(4 * n), 0.0);
        for (int64_t r = 0; r < N; ++r)
          for (int k = 0; k < 4; ++k) {
            const T* row = D + r * G + k * H + j0;
            double* acc = sums.data() + k * n;
#pragma omp simd
            for (int64_t j = 0; j < n; ++j) acc[j] += row[j];
          }
        for (int k = 0; k < 4; ++k)
          for (int64_t j = 0; j < n; ++j) dB[k * H + j0 + j] = static_cast<T>(sums[k * n + j]);
      }
    }
  }
}

}  // namespace

bool CpuBackend::lstm_layer(const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& gates,
                            const Tensor& cells, const Tensor& xw, const Tensor& h0, const Tensor& c0,
                            const Tensor& w_hh, const Tensor& b_hh, IntArrayRef batch_sizes, bool reverse) {
  if (xw.dtype() == kFloat32) {
    lstm_forward<float>(out, h_n, c_n, gates, cells, xw, h0, c0, w_hh, b_hh, batch_sizes, reverse);
  } else if (xw.dtype() == kFloat64) {
    lstm_forward<double>(out, h_n, c_n, gates, cells, xw, h0, c0, w_hh, b_hh, batch_sizes, reverse);
  } else {
    return false;
  }
  return true;
}

bool CpuBackend::lstm_layer_backward(const Tensor& dxw, const Tensor& dw_hh, const Tensor& db_hh, const Tensor& dh0,
                                     const Tensor& dc0, const Tensor& dout, const Tensor& dh_n, const Tensor& dc_n,
                                     const Tensor& out, const Tensor& gates, const Tensor& cells, const Tensor& h0,
                                     const Tensor& c0, const Tensor& w_hh, IntArrayRef batch_sizes, bool reverse) {
  if (out.dtype() == kFloat32) {
    lstm_backward<float>(dxw, dw_hh, db_hh, dh0, dc0, dout, dh_n, dc_n, out, gates, cells, h0, c0, w_hh, batch_sizes,
                         reverse);
  } else if (out.dtype() == kFloat64) {
    lstm_backward<double>(dxw, dw_hh, db_hh, dh0, dc0, dout, dh_n, dc_n, out, gates, cells, h0, c0, w_hh,
                          batch_sizes, reverse);
  } else {
    return false;
  }
  return true;
}

}  // namespace ember::cpu
