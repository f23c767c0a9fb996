// CUDA LayerNorm, forward and backward (Backend::layer_norm), the twin of core/cpu/norm.cpp.
//
// Forward, one block per row x of D values:  mean = sum(x) / D,  var = sum((x - mean)^2) / D,
//                                             rstd = 1 / sqrt(var + eps),  y = (x - mean) * rstd * w + b
// Backward, with xhat = (x - mean) * rstd and gw = dy * w:
//   dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))      one block per row, as forward
//   dw = sum over rows of dy * xhat,  db = sum over rows of dy  a second pass, by columns
// The column pass gives each block 32 neighbouring columns (a warp reads 32 neighbouring values of
// a row: coalesced) and a band of rows; with several bands, each writes its partial sums and a
// last small kernel adds the bands in order. No atomics, so every run gives the same bits. Sums
// accumulate in the row's type in tree order (block_reduce), as PyTorch's CUDA kernels do.
// A bfloat16 or float16 input (autocast's float32 policy, autograd/autocast.h) is read as it is,
// with float32 weight, bias, statistics and output (opmath_t): the float32 kernels' arithmetic on
// the same values, so the bits of casting the input first, without the cast's pass; din is rounded
// once to the input's dtype, as the cast's backward rounds the float32 gradient.
#include <initializer_list>

#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

constexpr int kColumnsPerBlock = 32;  // one warp's width: the columns a block of the column pass owns
constexpr int kRowGroups = kBlockSize / kColumnsPerBlock;  // rows a column-pass block reads at once

// Two sums reduced in one tree: the backward's sum(gw) and sum(gw * xhat).
template <typename T>
struct SumPair {
  T a, b;
};

// In: the input's type; T = opmath_t<In>, the type of everything else.
template <typename In, typename T = opmath_t<In>>
__global__ void __launch_bounds__(kMaxRowBlock)
    layer_norm_forward_kernel(T* out, T* mean, T* rstd, const In* in, const T* weight, const T* bias, int64_t N,
                              int64_t D, T eps) {
  T* scratch = shared_scratch<T>();
  const auto add = [](T a, T b) { return a + b; };
  for (int64_t r = blockIdx.x; r < N; r += gridDim.x) {
    const In* x = in + r * D;
    T* y = out + r * D;
    T sum = 0;
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) sum += static_cast<T>(x[c]);
    const T m = block_reduce(sum, add, scratch) / static_cast<T>(D);
    T sq = 0;
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
      const T centered = static_cast<T>(x[c]) - m;
      sq += centered * centered;
    }
    const T s = T(1) / sqrt(block_reduce(sq, add, scratch) / static_cast<T>(D) + eps);
    if (threadIdx.x == 0) {
      mean[r] = m;
      rstd[r] = s;
    }
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x)
      y[c] = (static_cast<T>(x[c]) - m) * s * (weight ? weight[c] : T(1)) + (bias ? bias[c] : T(0));
  }
}

// dx for each row: d/dx of LayerNorm = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)).
// din and in of type In, the rest (and the arithmetic) T = opmath_t<In>.
template <typename In, typename T = opmath_t<In>>
__global__ void __launch_bounds__(kMaxRowBlock)
    layer_norm_backward_input_kernel(In* din, const T* dout, const In* in, const T* mean, const T* rstd,
                                     const T* weight, int64_t N, int64_t D) {
  SumPair<T>* scratch = shared_scratch<SumPair<T>>();
  for (int64_t r = blockIdx.x; r < N; r += gridDim.x) {
    const T* g = dout + r * D;
    const In* x = in + r * D;
    In* dx = din + r * D;
    const T m = mean[r], s = rstd[r];
    SumPair<T> sums{T(0), T(0)};
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
      const T gw = weight ? g[c] * weight[c] : g[c];
      sums.a += gw;
      sums.b += gw * ((static_cast<T>(x[c]) - m) * s);
    }
    sums = block_reduce(
        sums,
        [](SumPair<T> p, SumPair<T> q) {
          return SumPair<T>{p.a + q.a, p.b + q.b};
        },
        scratch);
    const T mean_gw = sums.a / static_cast<T>(D), mean_gw_xhat = sums.b / static_cast<T>(D);
    for (int64_t c = threadIdx.x; c < D; c += blockDim.x) {
      const T gw = weight ? g[c] * weight[c] : g[c];
      dx[c] = In(s * (gw - mean_gw - (static_cast<T>(x[c]) - m) * s * mean_gw_xhat));
    }
  }
}

// Partial dw and db of one band of rows: block b owns columns [32 * (b % col_blocks), +32) and rows
// [band * rows_per_band, +rows_per_band) with band = b / col_blocks; it writes pdw[band * D + c]
// and pdb[band * D + c] (either may be null). Its 256 threads are 8 groups of 32 columns, each
// group reading every 8th row of the band; the groups' sums are then added in shared memory.
template <typename In, typename T = opmath_t<In>>
__global__ void __launch_bounds__(kBlockSize)
    layer_norm_backward_params_kernel(T* pdw, T* pdb, const T* dout, const In* in, const T* mean, const T* rstd,
                                      int64_t N, int64_t D, int64_t col_blocks, int64_t rows_per_band) {
  T* scratch = shared_scratch<T>();  // (2, kRowGroups, kColumnsPerBlock)
  const int lane = threadIdx.x % kColumnsPerBlock, group = threadIdx.x / kColumnsPerBlock;
  const int64_t band = blockIdx.x / col_blocks;
  const int64_t c = (blockIdx.x % col_blocks) * kColumnsPerBlock + lane;
  const int64_t r0 = band * rows_per_band, r1 = r0 + rows_per_band < N ? r0 + rows_per_band : N;
  T dw = 0, db = 0;
  if (c < D) {
    for (int64_t r = r0 + group; r < r1; r += kRowGroups) {
      const T g = dout[r * D + c];
      dw += g * ((static_cast<T>(in[r * D + c]) - mean[r]) * rstd[r]);
      db += g;
    }
  }
  scratch[threadIdx.x] = dw;
  scratch[kBlockSize + threadIdx.x] = db;
  __syncthreads();
  if (group == 0 && c < D) {
    for (int k = 1; k < kRowGroups; ++k) {
      dw += scratch[k * kColumnsPerBlock + lane];
      db += scratch[kBlockSize + k * kColumnsPerBlock + lane];
    }
    if (pdw) pdw[band * D + c] = dw;
    if (pdb) pdb[band * D + c] = db;
  }
}

// out[c] = sum over bands of partial[band * D + c], bands in order.
template <typename T>
__global__ void __launch_bounds__(kBlockSize) sum_bands_kernel(T* out, const T* partial, int64_t bands, int64_t D) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < D; c += stride) {
    T acc = 0;
    for (int64_t band = 0; band < bands; ++band) acc += partial[band * D + c];
    out[c] = acc;
  }
}

}  // namespace

int64_t layer_norm_param_bands(int64_t N) {
  constexpr int64_t kRowsPerBand = 16 * kRowGroups;  // each thread adds at least 16 rows
  constexpr int64_t kMaxBands = 64;
  const int64_t bands = (N + kRowsPerBand - 1) / kRowsPerBand;
  return bands < 1 ? 1 : (bands > kMaxBands ? kMaxBands : bands);
}

namespace {

// The input's types: float32 and float64, and bfloat16 and float16 read as float32.
template <typename F>
void dispatch_input(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double, DeviceBFloat16, DeviceHalf>(type, f, [&] { unsupported_dtype(name, type); });
}

// Whether the kernels take an input of `in` with the other tensors of `rest` (the undefined ones
// skipped): all of one floating dtype, or a bfloat16 / float16 input with float32 for the rest.
// float16 and bfloat16 throughout compose.
bool takes(ScalarType in, std::initializer_list<const TensorView*> rest) {
  if (in != kFloat32 && in != kFloat64 && !is_reduced_floating_point(in)) return false;
  for (const TensorView* t : rest)
    if (t->defined && t->dtype != compute_dtype(in)) return false;
  return true;
}

}  // namespace

// in, dout (N, D) contiguous; weight and bias (D) or undefined; dtypes as takes() allows.
bool launchers::layer_norm(const TensorView& out, const TensorView& mean, const TensorView& rstd, const TensorView& in,
                           const TensorView& weight, const TensorView& bias, double eps) {
  if (!takes(in.dtype, {&out, &mean, &rstd, &weight, &bias})) return false;
  cudaStream_t s = prepare(out.device);
  const int64_t N = in.sizes[0], D = in.sizes[1];
  dispatch_input("layer_norm", in.dtype, [&]<typename In>() {
    using T = opmath_t<In>;
    if (N == 0 || D == 0) return;
    const int block = block_for_row(D);
    EMBER_LAUNCH(std::min<int64_t>(N, kMaxGrid), block, block * sizeof(T), s, layer_norm_forward_kernel<In>)
    (out.ptr<T>(), mean.ptr<T>(), rstd.ptr<T>(), in.ptr<const In>(), static_cast<const T*>(weight.ptr_or_null()),
     static_cast<const T*>(bias.ptr_or_null()), N, D, static_cast<T>(eps));
    check_launch("layer_norm");
  });
  return true;
}

// din, dweight and dbias are each written when defined; weight may be undefined (no affine weight).
// din is of in's dtype, the rest of its compute dtype (float32 for a bfloat16 / float16 input).
bool launchers::layer_norm_backward(const TensorView& din, const TensorView& dweight, const TensorView& dbias,
                                    const TensorView& dout, const TensorView& in, const TensorView& mean,
                                    const TensorView& rstd, const TensorView& weight) {
  if (!takes(in.dtype, {&dweight, &dbias, &dout, &mean, &rstd, &weight}) || (din.defined && din.dtype != in.dtype))
    return false;
  cudaStream_t s = prepare(in.device);
  const int64_t N = in.sizes[0], D = in.sizes[1];
  if (N == 0 || D == 0) return true;
  const int64_t bands = layer_norm_param_bands(N);
  // (2, bands, D): the bands' partial dweight and dbias, where there are several bands
  const bool params = dweight.defined || dbias.defined;
  const DeviceBuffer partial = params && bands > 1
                                   ? DeviceBuffer(in.device, 2 * bands * D * element_size(compute_dtype(in.dtype)))
                                   : DeviceBuffer();
  dispatch_input("layer_norm_backward", in.dtype, [&]<typename In>() {
    using T = opmath_t<In>;
    const T* g = dout.ptr<const T>();
    const In* x = in.ptr<const In>();
    const T* mu = mean.ptr<const T>();
    const T* rs = rstd.ptr<const T>();
    if (din.defined) {
      const int block = block_for_row(D);
      EMBER_LAUNCH(std::min<int64_t>(N, kMaxGrid), block, block * sizeof(SumPair<T>), s,
                   layer_norm_backward_input_kernel<In>)
      (din.ptr<In>(), g, x, mu, rs, static_cast<const T*>(weight.ptr_or_null()), N, D);
      check_launch("layer_norm_backward");
    }
    if (!params) return;
    const int64_t rows_per_band = (N + bands - 1) / bands;
    const int64_t col_blocks = (D + kColumnsPerBlock - 1) / kColumnsPerBlock;
    // One band writes the gradients directly; several write partials, summed by a last pass.
    T* p = partial.as<T>();
    T* dw = static_cast<T*>(dweight.ptr_or_null());
    T* db = static_cast<T*>(dbias.ptr_or_null());
    T* pdw = !dw ? nullptr : bands == 1 ? dw : p;
    T* pdb = !db ? nullptr : bands == 1 ? db : p + bands * D;
    EMBER_LAUNCH(col_blocks * bands, kBlockSize, 2 * kBlockSize * sizeof(T), s, layer_norm_backward_params_kernel<In>)
    (pdw, pdb, g, x, mu, rs, N, D, col_blocks, rows_per_band);
    check_launch("layer_norm_backward");
    if (bands == 1) return;
    const LaunchShape ls = launch_1d(D);
    for (auto [result, part] : {std::pair{dw, pdw}, std::pair{db, pdb}}) {
      if (!result) continue;
      EMBER_LAUNCH(ls.grid, ls.block, 0, s, sum_bands_kernel<T>)(result, part, bands, D);
      check_launch("layer_norm_backward");
    }
  });
  return true;
}

}  // namespace ember::cuda
