// CUDA reductions: sum/prod/max/min/all/any over any set of dims, and max/min with indices.
//
// Three layouts (reduce_strategy): a block per output, its threads folding a strided share of the
// reduced elements, then combining in shared memory (a tree); for few outputs over long
// reductions (x.sum(), a loss's mean) each output split across many blocks and their partial
// results folded by a second launch, so the whole device works instead of one SM; for reductions
// over leading dims (a bias gradient: (B*T, C) summed over rows), 32 neighbouring outputs per
// block, so warps read rows coalesced, and when those blocks are few (384 outputs are 12 blocks
// on 132 SMs) the rows cut into bands whose partial results the same second launch folds. Where an output's inputs live
// is two OffsetCalcs (kept dims -> base offset, reduced dims -> offset from the base), built by launchers::reduce, so
// any layout and any set of dims works. Float sums accumulate in the input's type, in a tree order, as PyTorch's CUDA
// kernels do (the CPU backend uses double); bfloat16 and float16 in float32, the narrow integers in int64
// (opmath_t), each output rounded or wrapped once. Arg-max/min are the same two-pass block reductions over (value, index)
// pairs, the first extreme winning and NaN the most extreme.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/reduce_folds.h"
#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

// The folds of core/reduce_folds.h, accumulating in the input's type.
template <typename T>
using SumR = SumFold<T>;
template <typename T>
using ProdR = ProdFold<T>;
template <typename T>
using MaxR = MaxFold<T>;
template <typename T>
using MinR = MinFold<T>;
using AllR = AllFold;
using AnyR = AnyFold;

// Block b folds split (b % splits) of output (b / splits): its threads take a strided share of
// the split's reduced elements each, then combine in shared memory. With one split it writes the
// output; with several, partial[b], which reduce_partials_kernel folds in a second pass.
template <typename T, typename O, typename R>
__global__ void __launch_bounds__(kMaxRowBlock)
    reduce_kernel(int64_t n_out, int64_t n_red, int64_t splits, OffsetCalc<2> outer, OffsetCalc<1> inner, O* out,
                  typename R::Acc* partial, const T* in) {
  using A = typename R::Acc;
  A* scratch = shared_scratch<A>();
  const int64_t per_split = (n_red + splits - 1) / splits;
  for (int64_t b = blockIdx.x; b < n_out * splits; b += gridDim.x) {
    const int64_t o = b / splits, split = b % splits;
    const auto base = outer.offsets(o);
    const int64_t r1 = (split + 1) * per_split < n_red ? (split + 1) * per_split : n_red;
    A acc = R::init();
    for (int64_t r = split * per_split + threadIdx.x; r < r1; r += blockDim.x) {
      const T x = in[base[1] + inner.offsets(r)[0]];
      if constexpr (std::is_same_v<A, int>)
        acc = R::combine(acc, x != T(0));
      else
        acc = R::combine(acc, x);
    }
    acc = block_reduce(
        acc, [](A a, A c) { return R::combine(a, c); }, scratch);
    if (threadIdx.x != 0) continue;
    if (splits == 1)
      out[base[0]] = static_cast<O>(acc);
    else
      partial[b] = acc;
  }
}

// The second pass: out[o] = fold of partial[o * splits .. + splits), one block per output. At most
// kBlockSize threads: the splits are few, and at 1,024 threads ptxas spills 8-byte accumulators on
// sm_90 (scripts/check_cuda_build.sh).
template <typename O, typename R>
__global__ void __launch_bounds__(kBlockSize)
    reduce_partials_kernel(int64_t n_out, int64_t splits, OffsetCalc<2> outer, O* out, const typename R::Acc* partial) {
  using A = typename R::Acc;
  A* scratch = shared_scratch<A>();
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    A acc = R::init();
    for (int64_t k = threadIdx.x; k < splits; k += blockDim.x) acc = R::combine(acc, partial[o * splits + k]);
    acc = block_reduce(
        acc, [](A a, A c) { return R::combine(a, c); }, scratch);
    if (threadIdx.x == 0) out[outer.offsets(o)[0]] = static_cast<O>(acc);
  }
}

// Reductions over leading dims (in (n_red, ..., n_out) with the outputs' elements neighbours in
// memory): 32 neighbouring outputs per block, so a warp reads 32 neighbouring values of a row
// (coalesced) where a block per output would read one column. Block b takes the 32 outputs of
// group b / splits and the band of rows b % splits; its 8 groups of 32 threads fold every 8th row
// of the band each, then combine in shared memory, in order. With one band it writes the outputs;
// with several, partial[o * splits + band], which reduce_partials_kernel folds.
template <typename T, typename O, typename R>
__global__ void __launch_bounds__(kBlockSize)
    reduce_columns_kernel(int64_t n_out, int64_t n_red, int64_t splits, OffsetCalc<2> outer, OffsetCalc<1> inner,
                          O* out, typename R::Acc* partial, const T* in) {
  using A = typename R::Acc;
  constexpr int kLanes = 32, kGroups = kBlockSize / kLanes;
  A* scratch = shared_scratch<A>();
  const int lane = threadIdx.x % kLanes, group = threadIdx.x / kLanes;
  const int64_t per_split = (n_red + splits - 1) / splits, n_blocks = (n_out + kLanes - 1) / kLanes * splits;
  for (int64_t b = blockIdx.x; b < n_blocks; b += gridDim.x) {
    const int64_t o = b / splits * kLanes + lane, split = b % splits;
    const int64_t r1 = (split + 1) * per_split < n_red ? (split + 1) * per_split : n_red;
    A acc = R::init();
    if (o < n_out) {
      const int64_t base = outer.offsets(o)[1];
      for (int64_t r = split * per_split + group; r < r1; r += kGroups) {
        const T x = in[base + inner.offsets(r)[0]];
        if constexpr (std::is_same_v<A, int>)
          acc = R::combine(acc, x != T(0));
        else
          acc = R::combine(acc, x);
      }
    }
    scratch[threadIdx.x] = acc;
    __syncthreads();
    if (group == 0 && o < n_out) {
      for (int k = 1; k < kGroups; ++k) acc = R::combine(acc, scratch[k * kLanes + lane]);
      if (splits == 1)
        out[outer.offsets(o)[0]] = static_cast<O>(acc);
      else
        partial[o * splits + split] = acc;
    }
    __syncthreads();  // scratch is reused by the next block's outputs
  }
}

template <typename T, typename O, typename R>
void launch_reduce_as(cudaStream_t s, ReduceStrategy how, int64_t n_out, int64_t n_red, const OffsetCalc<2>& outer,
                      const OffsetCalc<1>& inner, void* out, void* partial, const void* in) {
  using A = typename R::Acc;
  if (n_out == 0) return;
  if (how.columns) {
    const int64_t grid = std::min<int64_t>((n_out + 31) / 32 * how.splits, kMaxGrid);
    EMBER_LAUNCH(grid, kBlockSize, kBlockSize * sizeof(A), s, reduce_columns_kernel<T, O, R>)
    (n_out, n_red, how.splits, outer, inner, static_cast<O*>(out), static_cast<A*>(partial),
     static_cast<const T*>(in));
  } else {
    const int block = block_for_row(how.splits > 1 ? (n_red + how.splits - 1) / how.splits : n_red);
    const int64_t grid = std::min<int64_t>(n_out * how.splits, kMaxGrid);
    EMBER_LAUNCH(grid, block, block * sizeof(A), s, reduce_kernel<T, O, R>)
    (n_out, n_red, how.splits, outer, inner, static_cast<O*>(out), static_cast<A*>(partial),
     static_cast<const T*>(in));
  }
  check_launch("reduce");
  if (how.splits == 1) return;
  const int block2 = std::min(block_for_row(how.splits), kBlockSize);
  EMBER_LAUNCH(std::min<int64_t>(n_out, kMaxGrid), block2, block2 * sizeof(A), s, reduce_partials_kernel<O, R>)
  (n_out, how.splits, outer, static_cast<O*>(out), static_cast<const A*>(partial));
  check_launch("reduce");
}

// The first extreme of a stretch (index -1: none yet); NaN counts as the most extreme, as on the CPU.
template <typename T>
struct ArgBest {
  T value;
  int64_t index;
};
template <typename T>
__device__ ArgBest<T> arg_combine(bool is_max, ArgBest<T> a, ArgBest<T> b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  bool a_nan = false, b_nan = false;
  if constexpr (std::is_floating_point_v<T>) a_nan = a.value != a.value, b_nan = b.value != b.value;
  if (a_nan || b_nan) return a_nan && (!b_nan || a.index < b.index) ? a : b;
  const bool b_better = is_max ? b.value > a.value : b.value < a.value;
  if (b_better || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

// Block b takes split (b % splits) of position (b / splits)'s `len` elements, `step` apart. With one
// split it writes values and indices; with several, the split's best to partial[b], then
// arg_partials_kernel takes the best of each position's splits.
template <typename T, typename C = opmath_t<T>>
__global__ void __launch_bounds__(kMaxRowBlock)
    arg_reduce_kernel(bool is_max, int64_t n, int64_t splits, OffsetCalc<3> calc, int64_t len, int64_t step, T* values,
                      int64_t* indices, ArgBest<C>* partial, const T* in) {
  ArgBest<C>* scratch = shared_scratch<ArgBest<C>>();
  const int64_t per_split = (len + splits - 1) / splits;
  for (int64_t b = blockIdx.x; b < n * splits; b += gridDim.x) {
    const int64_t i = b / splits, split = b % splits;
    const auto off = calc.offsets(i);
    const T* x = in + off[2];
    const int64_t j1 = (split + 1) * per_split < len ? (split + 1) * per_split : len;
    ArgBest<C> best{C(0), -1};
    for (int64_t j = split * per_split + threadIdx.x; j < j1; j += blockDim.x)
      best = arg_combine(is_max, best, ArgBest<C>{static_cast<C>(x[j * step]), j});
    best = block_reduce(
        best, [is_max](ArgBest<C> a, ArgBest<C> c) { return arg_combine(is_max, a, c); }, scratch);
    if (threadIdx.x != 0) continue;
    if (splits > 1) {
      partial[b] = best;
    } else {
      values[off[0]] = static_cast<T>(best.value);
      indices[off[1]] = best.index;
    }
  }
}

template <typename T, typename C = opmath_t<T>>
__global__ void __launch_bounds__(kMaxRowBlock)
    arg_partials_kernel(bool is_max, int64_t n, int64_t splits, OffsetCalc<3> calc, T* values, int64_t* indices,
                        const ArgBest<C>* partial) {
  ArgBest<C>* scratch = shared_scratch<ArgBest<C>>();
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x) {
    ArgBest<C> best{C(0), -1};
    for (int64_t k = threadIdx.x; k < splits; k += blockDim.x)
      best = arg_combine(is_max, best, partial[i * splits + k]);
    best = block_reduce(
        best, [is_max](ArgBest<C> a, ArgBest<C> c) { return arg_combine(is_max, a, c); }, scratch);
    if (threadIdx.x == 0) {
      const auto off = calc.offsets(i);
      values[off[0]] = static_cast<T>(best.value);
      indices[off[1]] = best.index;
    }
  }
}

}  // namespace

ReduceStrategy reduce_strategy(int64_t n_out, int64_t n_red, bool leading_dims) {
  ReduceStrategy how;
  // Split so that about kSplitTarget blocks share the work (4 to a multiprocessor on an H100).
  constexpr int64_t kSplitTarget = 512;
  if (leading_dims && n_out >= 32) {
    how.columns = true;
    // Bands of at least kRowsPerBand rows (64 per group of 32 threads) where the column blocks are few.
    constexpr int64_t kRowsPerBand = 512;
    const int64_t column_blocks = (n_out + 31) / 32;
    if (column_blocks < kSplitTarget && n_red >= 2 * kRowsPerBand)
      how.splits = std::max<int64_t>(1, std::min((n_red + kRowsPerBand - 1) / kRowsPerBand, kSplitTarget / column_blocks));
    return how;
  }
  // Few outputs, long reductions: split each.
  constexpr int64_t kPerSplit = 4096;
  if (n_out < kSplitTarget && n_red >= 2 * kPerSplit)
    how.splits = std::max<int64_t>(1, std::min((n_red + kPerSplit - 1) / kPerSplit, kSplitTarget / n_out));
  return how;
}

void launchers::reduce(ReduceOp op, const TensorView& out, const TensorView& in, IntList dims) {
  cudaStream_t s = prepare(out.device);
  // Split in's dims into kept ones (one output each) and reduced ones (folded into it).
  std::vector<int64_t> kept_sizes, kept_out, kept_in, red_sizes, red_in;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) {
      red_sizes.push_back(in.sizes[d]);
      red_in.push_back(in.strides[d]);
    } else {
      kept_sizes.push_back(in.sizes[d]);
      kept_out.push_back(out.strides[d]);
      kept_in.push_back(in.strides[d]);
    }
  }
  const OffsetCalc<2> outer = offset_calc<2>(op_name(op), kept_sizes, {kept_out, kept_in});
  const OffsetCalc<1> inner = offset_calc<1>(op_name(op), red_sizes, {red_in});
  int64_t n_red = 1;
  for (int64_t size : red_sizes) n_red *= size;
  // Reads are coalesced across outputs when the kept dims are innermost: the columns kernel.
  const auto innermost_non_unit = [](const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    for (size_t d = sizes.size(); d-- > 0;)
      if (sizes[d] != 1) return strides[d];
    return int64_t{0};
  };
  const bool leading_dims = innermost_non_unit(kept_sizes, kept_in) == 1 && innermost_non_unit(red_sizes, red_in) != 1;
  const ReduceStrategy how = reduce_strategy(out.numel, n_red, leading_dims);
  // (n_out, splits) 8-byte partial results of a split reduction
  const DeviceBuffer partial = how.splits > 1 ? DeviceBuffer(out.device, out.numel * how.splits * 8) : DeviceBuffer();
  dispatch_all_types(op_name(op), in.dtype, [&]<typename T>() {
    using C = opmath_t<T>;  // bf16 and f16 accumulate in float, the narrow integers in int64; one rounding at the end
    const auto run = [&]<typename O, typename R>() {
      launch_reduce_as<T, O, R>(s, how, out.numel, n_red, outer, inner, out.data, partial.get(), in.data);
    };
    switch (op) {
      case ReduceOp::Sum:
        return run.template operator()<T, SumR<C>>();
      case ReduceOp::Prod:
        return run.template operator()<T, ProdR<C>>();
      case ReduceOp::Max:
        return run.template operator()<T, MaxR<C>>();
      case ReduceOp::Min:
        return run.template operator()<T, MinR<C>>();
      case ReduceOp::All:
        return run.template operator()<bool, AllR>();
      case ReduceOp::Any:
        return run.template operator()<bool, AnyR>();
      default:
        unsupported("reduce", "op", static_cast<int>(op));
    }
  });
}

int64_t arg_reduce_splits(int64_t n, int64_t len) {
  constexpr int64_t kPerSplit = 4096, kSplitTarget = 512;
  if (n >= kSplitTarget || len < 2 * kPerSplit) return 1;
  return std::max<int64_t>(1, std::min((len + kPerSplit - 1) / kPerSplit, kSplitTarget / n));
}

void launchers::arg_reduce(bool is_max, const TensorView& values, const TensorView& indices, const TensorView& in,
                           int64_t dim) {
  cudaStream_t s = prepare(values.device);
  const char* name = is_max ? "max" : "min";
  const OffsetCalc<3> calc = offset_calc<3>(name, {&values, &indices, &in});
  const int64_t n = values.numel, len = in.sizes[dim], step = in.strides[dim];
  if (n == 0) return;
  const int64_t splits = arg_reduce_splits(n, len);
  // (n, splits) pairs of a value and an int64 index, 16 bytes each
  const DeviceBuffer partial = splits > 1 ? DeviceBuffer(values.device, n * splits * 16) : DeviceBuffer();
  dispatch_all_types(name, in.dtype, [&]<typename T>() {
    using C = opmath_t<T>;  // compared in float or int64: exact, and NaN is found as on the CPU
    const int block = block_for_row(splits > 1 ? (len + splits - 1) / splits : len);
    ArgBest<C>* part = partial.as<ArgBest<C>>();
    EMBER_LAUNCH(std::min<int64_t>(n * splits, kMaxGrid), block, block * sizeof(ArgBest<C>), s, arg_reduce_kernel<T>)
    (is_max, n, splits, calc, len, step, values.ptr<T>(), indices.ptr<int64_t>(), part, in.ptr<const T>());
    check_launch(name);
    if (splits == 1) return;
    const int block2 = block_for_row(splits);
    EMBER_LAUNCH(std::min<int64_t>(n, kMaxGrid), block2, block2 * sizeof(ArgBest<C>), s, arg_partials_kernel<T>)
    (is_max, n, splits, calc, values.ptr<T>(), indices.ptr<int64_t>(), part);
    check_launch(name);
  });
}

}  // namespace ember::cuda
