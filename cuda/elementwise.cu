// CUDA kernels: copies with dtype conversion, fill, and the elementwise families.
//
// One kernel template, elementwise_kernel, walks a flat range of elements of N operands of one
// shape; an OffsetCalc (cuda/launch.h) turns each flat index into element offsets, so broadcast
// (stride 0), transposed and sliced operands need no copies. The formulas are core/functors.h's,
// the very ones core/cpu/elementwise.cpp applies, in opmath_t (cuda/kernels.h): bfloat16 and
// float16 are computed in float32 and rounded once when stored, the narrow integers in int64 and
// wrapped when stored, so every dtype gives the CPU's bits. Integer and bool tensors skip the
// formulas that only make sense in floating point (the op layer computes those in float).
//
// When every operand is contiguous, of the output's shape (no broadcast) and aligned, the
// converting copies, and the unary and binary formulas computed in float32 (float32, bfloat16,
// float16 tensors), take vectorized_kernel instead: each thread moves 16 bytes
// per load and store (4 floats, 8 bfloat16), a quarter to an eighth of the memory instructions of
// one element at a time, which is what lets an elementwise kernel reach the GPU's bandwidth; the
// last n % V elements go one at a time. The arithmetic is the same per element, so the results are
// the same bits either way. Anything else (a view at an odd offset, a broadcast, a transpose) keeps
// the OffsetCalc path.
#include <algorithm>
#include <cstring>

#include "core/convert.h"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

template <int N, typename Op>
__global__ void __launch_bounds__(kBlockSize) elementwise_kernel(int64_t n, OffsetCalc<N> calc, Op op) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) op(calc.offsets(i));
}

template <int N, typename Op>
void launch(const char* name, cudaStream_t s, int64_t n, const OffsetCalc<N>& calc, Op op) {
  const LaunchShape ls = launch_1d(n);
  if (ls.grid == 0) return;
  EMBER_LAUNCH(ls.grid, ls.block, 0, s, elementwise_kernel<N, Op>)(n, calc, op);
  check_launch(name);
}

// V elements of T in one aligned load or store: 16 bytes for the widest operand of a kernel.
template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <typename T, int V>
__device__ Pack<T, V> load_pack(const T* p) {
#ifdef EMBER_CUDA_EMULATE
  Pack<T, V> pack;  // host C++: a copy, not a type-punned read
  std::memcpy(&pack, p, sizeof(pack));
  return pack;
#else
  return *reinterpret_cast<const Pack<T, V>*>(p);  // one ld.global.v4 (or .v2)
#endif
}

template <typename T, int V>
__device__ void store_pack(T* p, const Pack<T, V>& pack) {
#ifdef EMBER_CUDA_EMULATE
  std::memcpy(p, &pack, sizeof(pack));
#else
  *reinterpret_cast<Pack<T, V>*>(p) = pack;
#endif
}

// Elements [0, n) of contiguous operands: packs of V by each thread in turn, then the tail.
template <int V, typename Op>
__global__ void __launch_bounds__(kBlockSize) vectorized_kernel(int64_t n, Op op) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, packs = n / V;
  for (int64_t p = first; p < packs; p += step) op.template pack<V>(p * V);
  for (int64_t i = packs * V + first; i < n; i += step) op.one(i);
}

// The elements per 16-byte pack of the widest of the types.
template <typename... T>
constexpr int kPack = 16 / static_cast<int>(std::max({sizeof(T)...}));

// Which formulas run in packs: those computed in float32 (float32, bfloat16 and float16 tensors, the
// activations). Packs of the float64 transcendentals and of 16 narrow-integer divisions spill
// registers (ptxas, sm_90), and those dtypes are not what a training step streams; they keep the
// one-element path (kV = 1), as does nothing else.
template <typename C>
constexpr bool kPackedMath = std::is_same_v<C, float>;

// Whether the operands can take vectorized_kernel with V-element packs: each contiguous, with the
// output's element count (so none is broadcast) and its first element on a pack boundary.
template <int V>
bool packable(const TensorView& out, std::initializer_list<const TensorView*> in) {
  auto aligned = [](const TensorView& t) {
    return reinterpret_cast<uintptr_t>(t.data) % (static_cast<uintptr_t>(V) * element_size(t.dtype)) == 0;
  };
  if (!out.contiguous || !aligned(out) || out.numel < V) return false;
  for (const TensorView* t : in)
    if (!t->contiguous || t->numel != out.numel || !aligned(*t)) return false;
  return true;
}

template <int V, typename Op>
void launch_packed(const char* name, cudaStream_t s, int64_t n, Op op) {
  const LaunchShape ls = launch_1d((n + V - 1) / V);
  if (ls.grid == 0) return;
  EMBER_LAUNCH(ls.grid, ls.block, 0, s, vectorized_kernel<V, Op>)(n, op);
  check_launch(name);
}

// The two paths of one functor: packed where the operands allow, else through the OffsetCalc.
template <int N, typename Op>
void launch_any(const char* name, cudaStream_t s, const TensorView& out, std::initializer_list<const TensorView*> in,
                const OffsetCalc<N>& calc, Op op) {
  constexpr int V = Op::kV;
  if constexpr (V > 1)
    if (packable<V>(out, in)) return launch_packed<V>(name, s, out.numel, op);
  launch<N>(name, s, out.numel, calc, op);
}

template <typename D, typename S>
struct CopyOp {
  static constexpr int kV = kPack<D, S>;
  D* dst;
  const S* src;
  __device__ void operator()(const std::array<int64_t, 2>& o) const { dst[o[0]] = convert<D>(src[o[1]]); }
  __device__ void one(int64_t i) const { dst[i] = convert<D>(src[i]); }
  template <int V>
  __device__ void pack(int64_t i) const {
    const Pack<S, V> x = load_pack<S, V>(src + i);
    Pack<D, V> y;
    for (int k = 0; k < V; ++k) y.v[k] = convert<D>(x.v[k]);
    store_pack<D, V>(dst + i, y);
  }
};

template <typename T>
struct FillOp {
  T* dst;
  T value;
  __device__ void operator()(const std::array<int64_t, 1>& o) const { dst[o[0]] = value; }
};

// out = f(in), computed in C = opmath_t<T>.
template <typename T, typename F>
struct UnaryApply {
  using C = opmath_t<T>;
  static constexpr int kV = kPackedMath<C> ? kPack<T> : 1;
  T* out;
  const T* in;
  __device__ void operator()(const std::array<int64_t, 2>& o) const {
    out[o[0]] = static_cast<T>(F{}(static_cast<C>(in[o[1]])));
  }
  __device__ void one(int64_t i) const { out[i] = static_cast<T>(F{}(static_cast<C>(in[i]))); }
  template <int V>
  __device__ void pack(int64_t i) const {
    const Pack<T, V> x = load_pack<T, V>(in + i);
    Pack<T, V> y;
    for (int k = 0; k < V; ++k) y.v[k] = static_cast<T>(F{}(static_cast<C>(x.v[k])));
    store_pack<T, V>(out + i, y);
  }
};

// out = f(a, b) of type R (T, or bool for comparisons), computed in C = opmath_t<T>.
template <typename R, typename T, typename F>
struct BinaryApply {
  using C = opmath_t<T>;
  static constexpr int kV = kPackedMath<C> ? kPack<R, T> : 1;
  R* out;
  const T* a;
  const T* b;
  __device__ void operator()(const std::array<int64_t, 3>& o) const {
    out[o[0]] = static_cast<R>(F{}(static_cast<C>(a[o[1]]), static_cast<C>(b[o[2]])));
  }
  __device__ void one(int64_t i) const { out[i] = static_cast<R>(F{}(static_cast<C>(a[i]), static_cast<C>(b[i]))); }
  template <int V>
  __device__ void pack(int64_t i) const {
    const Pack<T, V> x = load_pack<T, V>(a + i), y = load_pack<T, V>(b + i);
    Pack<R, V> z;
    for (int k = 0; k < V; ++k) z.v[k] = static_cast<R>(F{}(static_cast<C>(x.v[k]), static_cast<C>(y.v[k])));
    store_pack<R, V>(out + i, z);
  }
};

template <typename T>
struct WhereOp {
  T* out;
  const bool* cond;
  const T* a;
  const T* b;
  __device__ void operator()(const std::array<int64_t, 4>& o) const { out[o[0]] = cond[o[1]] ? a[o[2]] : b[o[3]]; }
};

}  // namespace

void launchers::copy(const TensorView& dst, const TensorView& src) {
  cudaStream_t s = prepare(dst.device);
  if (dst.numel == 0) return;
  if (dst.dtype == src.dtype && dst.contiguous && src.contiguous) {
    check_cuda(cudaMemcpyAsync(dst.data, src.data, dst.nbytes(), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    return;
  }
  const OffsetCalc<2> calc = offset_calc<2>("copy", {&dst, &src});
  dispatch_all_types("copy", dst.dtype, [&]<typename D>() {
    dispatch_all_types("copy", src.dtype, [&]<typename S>() {
      launch_any<2>("copy", s, dst, {&src}, calc, CopyOp<D, S>{dst.ptr<D>(), src.ptr<const S>()});
    });
  });
}

WideCopy wide_buffer(const TensorView& t) {
  WideCopy w;
  w.sizes = t.sizes.vec();
  w.strides.assign(w.sizes.size(), 1);
  for (size_t d = w.sizes.size(); d-- > 1;) w.strides[d - 1] = w.strides[d] * w.sizes[d];
  w.view = t;
  w.view.dtype = compute_dtype(t.dtype);
  w.buffer = DeviceBuffer(t.device, std::max<size_t>(w.view.nbytes(), 1));
  w.view.data = w.buffer.get();
  w.view.sizes = {w.sizes.data(), w.sizes.size()};
  w.view.strides = {w.strides.data(), w.strides.size()};
  w.view.contiguous = true;
  return w;
}

WideCopy widen(const TensorView& t) {
  WideCopy w = wide_buffer(t);
  launchers::copy(w.view, t);
  return w;
}

void narrow_back(const TensorView& out, const WideCopy& wide) { launchers::copy(out, wide.view); }

void launchers::fill(const TensorView& dst, const Scalar& value) {
  cudaStream_t s = prepare(dst.device);
  const OffsetCalc<1> calc = offset_calc<1>("fill", {&dst});
  dispatch_all_types("fill", dst.dtype, [&]<typename T>() {
    launch<1>("fill", s, dst.numel, calc, FillOp<T>{dst.ptr<T>(), value.to<T>()});
  });
}

void launchers::unary(UnaryOp op, const TensorView& out, const TensorView& in) {
  cudaStream_t s = prepare(out.device);
  if (is_integral(in.dtype) && !unary_on_integers(op))
    fail(std::string(op_name(op)) + ": not implemented on CUDA for " + std::string(dtype_name(in.dtype)) +
         " tensors; convert to a floating dtype first");
  const OffsetCalc<2> calc = offset_calc<2>(op_name(op), {&out, &in});
  dispatch_all_types(op_name(op), in.dtype, [&]<typename T>() {
    using C = opmath_t<T>;
    T* o = out.ptr<T>();
    const T* x = in.ptr<const T>();
    switch (op) {
#define EMBER_UNARY_CASE(Name, name, ...)                                                                \
  case UnaryOp::Name:                                                                                    \
    if constexpr (!std::is_integral_v<C> || std::is_same_v<C, bool> || unary_on_integers(UnaryOp::Name)) \
      return launch_any<2>(#name, s, out, {&in}, calc, UnaryApply<T, UnaryFn<UnaryOp::Name>>{o, x});     \
    return;
      EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
      default:
        unsupported("unary", "op", static_cast<int>(op));
    }
  });
}

void launchers::binary(BinaryOp op, const TensorView& out, const TensorView& a, const TensorView& b) {
  cudaStream_t s = prepare(out.device);
  const OffsetCalc<3> calc = offset_calc<3>(op_name(op), {&out, &a, &b});
  dispatch_all_types(op_name(op), a.dtype, [&]<typename T>() {
    const T* x = a.ptr<const T>();
    const T* y = b.ptr<const T>();
    switch (op) {
#define EMBER_BINARY_CASE(Name, name, expr, R)          \
  case BinaryOp::Name:                                  \
    return launch_any<3>(#name, s, out, {&a, &b}, calc, \
                         BinaryApply<R, T, BinaryFn<BinaryOp::Name>>{out.ptr<R>(), x, y});
      EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
      default:
        unsupported("binary", "op", static_cast<int>(op));
    }
  });
}

void launchers::where(const TensorView& out, const TensorView& cond, const TensorView& a, const TensorView& b) {
  cudaStream_t s = prepare(out.device);
  const OffsetCalc<4> calc = offset_calc<4>("where", {&out, &cond, &a, &b});
  dispatch_all_types("where", out.dtype, [&]<typename T>() {
    launch<4>("where", s, out.numel, calc,
              WhereOp<T>{out.ptr<T>(), cond.ptr<const bool>(), a.ptr<const T>(), b.ptr<const T>()});
  });
}

}  // namespace ember::cuda
