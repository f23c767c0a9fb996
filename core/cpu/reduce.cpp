// CPU reductions: sum/prod/max/min/all/any over any set of dims, and max/min with indices.
//
// The output is viewed with the input's shape and stride 0 on the reduced dims, so one strided
// walk visits every input element with the output element it folds into. When the reduced dims
// are innermost the walk's inner run folds into a register (accumulating floats in double);
// otherwise the inner run updates a row of outputs at once.
#include <cmath>
#include <limits>

#include "core/cpu/bfloat16_float.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"
#include "core/cpu/narrow_int.h"
#include "core/reduce_folds.h"
#include "core/shape.h"

namespace ember::cpu {

namespace {

template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// The folds of core/reduce_folds.h, floating sums and products accumulated in double.
template <typename T>
using SumR = SumFold<acc_t<T>>;
template <typename T>
using ProdR = ProdFold<acc_t<T>>;
template <typename T>
using MaxR = MaxFold<T>;
template <typename T>
using MinR = MinFold<T>;

// acc[c] += the sum of rows x[r][c], r < rows: four rows at a time, so acc is loaded and stored
// once per four rows. The float version is compiled for AVX-512, AVX2 and the baseline.
template <typename T>
inline __attribute__((always_inline)) void sum_rows_into(T* __restrict acc, const T* __restrict x, int64_t rows,
                                                         int64_t cols) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const T *x0 = x + r * cols, *x1 = x0 + cols, *x2 = x1 + cols, *x3 = x2 + cols;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) acc[c] += (x0[c] + x1[c]) + (x2[c] + x3[c]);
  }
  for (; r < rows; ++r) {
    const T* xr = x + r * cols;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) acc[c] += xr[c];
  }
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void sum_rows_into_f32(float* acc, const float* x,
                                                                                    int64_t rows, int64_t cols) {
  sum_rows_into(acc, x, rows, cols);
}

// Whether a sum over `dims` of `in` is over its leading dims only, both tensors contiguous: the
// (rows, cols) -> (cols) shape of a bias gradient.
bool sums_leading_dims(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  bool leading_only = in.is_contiguous() && out.is_contiguous() && !dims.empty() && out.numel() > 1;
  for (size_t i = 0; i < dims.size(); ++i) leading_only = leading_only && dims[i] == static_cast<int64_t>(i);
  return leading_only && in.numel() / out.numel() >= 4;
}

// o[c] = the sum over rows r of x[r][c], for a sum over leading dims (sums_leading_dims). Each
// thread (when it pays to have more than one) sums its own block of rows, the rows it most likely
// wrote itself and has in its cache, into a partial row with sum_block(acc, b, e) (rows [b, e));
// then the partial rows are added in thread order. The result depends on the thread count only
// through that grouping of rows. (A sum to one value keeps the double accumulator of the loops below.)
template <typename T, typename SumBlock>
void sum_leading_rows(T* o, int64_t rows, int64_t cols, SumBlock sum_block) {
  const int max_threads = omp_get_max_threads();
  const int threads = rows * cols >= kParallelGrain && rows >= 4 * max_threads ? max_threads : 1;
  ThreadPartials<T> partial(threads, cols);
#pragma omp parallel num_threads(threads)
  {
    const int64_t nt = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t chunk = (rows + nt - 1) / nt, b = std::min(rows, id * chunk), e = std::min(rows, b + chunk);
    if (b < e) sum_block(partial.row(static_cast<int>(id)), b, e);
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t c = 0; c < cols; ++c) {
      T v = T(0);
      for (int64_t t = 0; t < nt; ++t) v += partial.row(static_cast<int>(t))[c];
      o[c] = v;
    }
  }
}

// The same sum of a bf16 (rows, cols) into float32 o: each thread widens its rows a block at a time
// into float scratch and sums them as the float32 kernel does (blocks of a multiple of 4 rows keep
// sum_rows_into's grouping), so the result has the bits of the float32 sum of the widened tensor,
// without a float32 copy of it (the bias gradient of a bf16 Linear: (B*T, 4C)).
void sum_leading_rows_bf16(float* o, const BFloat16* x, int64_t rows, int64_t cols) {
  sum_leading_rows(o, rows, cols, [&](float* acc, int64_t b, int64_t e) {
    constexpr int64_t kBlockRows = 32;
    std::vector<float> wide(static_cast<size_t>(std::min(kBlockRows, e - b) * cols));
    for (int64_t r = b; r < e; r += kBlockRows) {
      const int64_t n = std::min(kBlockRows, e - r);
      bfloat16_to_float(wide.data(), x + r * cols, n * cols);
      sum_rows_into_f32(acc, wide.data(), n, cols);
    }
  });
}

// Folds `in` (type T) into `out` (type O, keepdim shape) with reducer R.
template <typename T, typename O, typename R>
void reduce_loop(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  using A = typename R::Acc;
  // Initialise the outputs, then fold every input element into its output.
  O* o = out.data_ptr<O>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = static_cast<O>(R::init());
  std::vector<int64_t> ostrides = out.strides().vec();
  for (int64_t d : dims) ostrides[d] = 0;
  Tensor oview = raw_view(out, in.sizes().vec(), ostrides, out.storage_offset());
  // Threads may split the walk only when each output is folded by one run: the reduced dims are the
  // innermost ones of a contiguous input. Otherwise outputs repeat across runs and the walk is serial.
  if (out.numel() == 1 && in.is_contiguous() && in.numel() >= kParallelGrain && omp_get_max_threads() > 1) {
    // Everything folds into one output: each thread folds its own chunk, then the partials combine.
    const T* x = in.data_ptr<T>();
    const int64_t n = in.numel();
    std::vector<A> partial(omp_get_max_threads(), R::init());
#pragma omp parallel
    {
      const int64_t nt = omp_get_num_threads(), id = omp_get_thread_num();
      const int64_t chunk = (n + nt - 1) / nt, b = std::min(n, id * chunk), e = std::min(n, b + chunk);
      A acc = R::init();
      if constexpr (std::is_same_v<R, SumR<T>>) {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = b; i < e; ++i) acc += x[i];
      } else {
        for (int64_t i = b; i < e; ++i) acc = R::combine(acc, x[i]);
      }
      partial[id] = acc;
    }
    A acc = R::init();
    for (A p : partial) {
      if constexpr (std::is_same_v<R, SumR<T>>)
        acc += p;
      else if constexpr (std::is_same_v<R, ProdR<T>>)
        acc = R::combine(acc, p);
      else
        acc = R::combine(acc, p);
    }
    o[0] = static_cast<O>(acc);
    return;
  }
  constexpr bool kRowSum = std::is_same_v<R, SumR<T>> && std::is_same_v<O, T> && std::is_floating_point_v<T>;
  if constexpr (kRowSum) {
    if (sums_leading_dims(out, in, dims)) {
      const T* x = in.data_ptr<T>();
      const int64_t cols = out.numel();
      return sum_leading_rows(o, in.numel() / cols, cols, [&](T* acc, int64_t b, int64_t e) {
        if constexpr (std::is_same_v<T, float>)
          sum_rows_into_f32(acc, x + b * cols, e - b, cols);
        else
          sum_rows_into(acc, x + b * cols, e - b, cols);
      });
    }
  }
  // One output fed by one long run must not be split across threads (they would race on it).
  bool inner_only = in.is_contiguous() && !dims.empty() && out.numel() > 1;
  for (size_t i = 0; i < dims.size(); ++i)
    inner_only = inner_only && dims[dims.size() - 1 - i] == in.dim() - 1 - static_cast<int64_t>(i);
  for_each_run<2>(
      {&oview, &in},
      [](char** p, const int64_t* s, int64_t n) {
        if (s[0] == 0) {  // the whole run folds into one output
          A acc = static_cast<A>(*reinterpret_cast<O*>(p[0]));
          if (s[1] == sizeof(T) && std::is_same_v<R, SumR<T>>) {
            const T* x = reinterpret_cast<const T*>(p[1]);
#pragma omp simd reduction(+ : acc)
            for (int64_t i = 0; i < n; ++i) acc += x[i];
          } else if (s[1] == sizeof(T)) {
            const T* x = reinterpret_cast<const T*>(p[1]);
            for (int64_t i = 0; i < n; ++i) acc = R::combine(acc, x[i]);
          } else {
            for (int64_t i = 0; i < n; ++i) acc = R::combine(acc, *reinterpret_cast<const T*>(p[1] + i * s[1]));
          }
          *reinterpret_cast<O*>(p[0]) = static_cast<O>(acc);
        } else if (kRowSum && s[0] == sizeof(O) && s[1] == sizeof(T)) {
          // A row added into a row of outputs (a sum over a leading dim: bias gradients): vectorised.
          O* __restrict dst = reinterpret_cast<O*>(p[0]);
          const T* __restrict x = reinterpret_cast<const T*>(p[1]);
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<O>(dst[i] + x[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) {
            O* dst = reinterpret_cast<O*>(p[0] + i * s[0]);
            *dst = static_cast<O>(R::combine(static_cast<A>(*dst), *reinterpret_cast<const T*>(p[1] + i * s[1])));
          }
        }
      },
      /*parallel=*/inner_only);
}

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  if (any_narrow_integer({&out, &in})) {  // computed as int64 (core/cpu/narrow_int.h)
    Tensor out64 = int64_buffer(out);
    reduce(op, out64, int64_copy(*this, in), dims);
    return narrow_back(*this, out, out64);
  }
  if (op == ReduceOp::All || op == ReduceOp::Any) {
    // all: min over bools, any: max over bools.
    Tensor b = in;
    if (in.dtype() != kBool) {
      b = raw_empty(in.sizes(), kBool, in.device());
      Tensor zero = raw_empty({}, in.dtype(), in.device());
      fill(zero, 0);
      binary(BinaryOp::Ne, b, in, raw_view(zero, in.sizes().vec(), std::vector<int64_t>(in.dim(), 0), 0));
    }
    if (op == ReduceOp::All) return reduce_loop<bool, bool, MinR<bool>>(out, b, dims);
    return reduce_loop<bool, bool, MaxR<bool>>(out, b, dims);
  }
  if (any_reduced_float({&out, &in})) {  // accumulated in float32, rounded once (core/cpu/bfloat16_float.h)
    Tensor out_f = float32_buffer(out);
    if (op == ReduceOp::Sum && in.dtype() == kBFloat16 && sums_leading_dims(out, in, dims))
      sum_leading_rows_bf16(out_f.data_ptr<float>(), in.data_ptr<BFloat16>(), in.numel() / out.numel(), out.numel());
    else
      reduce(op, out_f, float32_copy(*this, in), dims);
    return round_back(*this, out, out_f);
  }
  dispatch(in.dtype(), op_name(op), [&]<typename T>() {
    switch (op) {
      case ReduceOp::Sum:
        return reduce_loop<T, T, SumR<T>>(out, in, dims);
      case ReduceOp::Prod:
        return reduce_loop<T, T, ProdR<T>>(out, in, dims);
      case ReduceOp::Max:
        return reduce_loop<T, T, MaxR<T>>(out, in, dims);
      case ReduceOp::Min:
        return reduce_loop<T, T, MinR<T>>(out, in, dims);
      default:
        return;
    }
  });
}

void CpuBackend::arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  if (any_narrow_integer({&values, &in})) {
    Tensor values64 = int64_buffer(values);
    arg_reduce(is_max, values64, indices, int64_copy(*this, in), dim);
    return narrow_back(*this, values, values64);
  }
  if (any_reduced_float({&values, &in})) {  // exact: widening to float32 keeps every value and the order
    Tensor values_f = float32_buffer(values);
    arg_reduce(is_max, values_f, indices, float32_copy(*this, in), dim);
    return round_back(*this, values, values_f);
  }
  dispatch(in.dtype(), is_max ? "max" : "min", [&]<typename T>() {
    const int64_t len = in.sizes()[dim], step = in.strides()[dim] * static_cast<int64_t>(sizeof(T));
    // Walk every output position; `in` is viewed with size 1 at `dim` so it lines up with them.
    std::vector<int64_t> isizes = in.sizes().vec();
    isizes[dim] = 1;
    Tensor start = raw_view(in, isizes, in.strides().vec(), in.storage_offset());
    for_each_run<3>({&values, &indices, &start}, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const char* x = p[2] + i * s[2];
        ArgExtreme<T> a(is_max, *reinterpret_cast<const T*>(x));
        for (int64_t j = 1; j < len && !a.done(); ++j) a.take(*reinterpret_cast<const T*>(x + j * step), j);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = a.best;
        *reinterpret_cast<int64_t*>(p[1] + i * s[1]) = a.index;
      }
    });
  });
}

}  // namespace ember::cpu
