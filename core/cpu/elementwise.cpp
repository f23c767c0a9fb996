// CPU kernels: memory, copies with dtype conversion, fill, and the elementwise families.
//
// Each family is one loop template applied to the functors of core/functors.h; the contiguous
// case is a plain indexed loop the compiler vectorises, every other layout goes through the
// generic strided walk of core/cpu/loops.h.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/convert.h"
#include "core/cpu/allocator.h"
#include "core/cpu/bfloat16_float.h"
#include "core/cpu/narrow_int.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"
#include "core/cpu/per_isa.h"
#include "core/threads.h"

namespace ember::cpu {

Backend& backend() {
  static CpuBackend& instance = *new CpuBackend;  // never destroyed: storages freed during exit still reach it
  static const bool one_pool = (use_one_thread_pool(), true);  // see core/threads.h
  (void)one_pool;
  return instance;
}

void* CpuBackend::allocate(size_t nbytes, Device) { return cpu_allocate(nbytes); }
void CpuBackend::deallocate(void* ptr, Device) { cpu_deallocate(ptr); }

void CpuBackend::copy_to_host(void* dst, const void* src, size_t nbytes, Device) { std::memcpy(dst, src, nbytes); }
void CpuBackend::copy_from_host(void* dst, const void* src, size_t nbytes, Device) { std::memcpy(dst, src, nbytes); }

void CpuBackend::copy(const Tensor& dst, const Tensor& src) {
  dispatch_all(dst.dtype(), "copy", [&]<typename D>() {
    dispatch_all(src.dtype(), "copy", [&]<typename S>() {
      for_each_run<2>({&dst, &src}, [](char** p, const int64_t* s, int64_t n) {
        if (s[0] == sizeof(D) && s[1] == sizeof(S)) {
          D* d = reinterpret_cast<D*>(p[0]);
          const S* x = reinterpret_cast<const S*>(p[1]);
          if constexpr (std::is_same_v<D, S>) {
            std::memcpy(d, x, n * sizeof(D));
          } else if constexpr (std::is_same_v<D, BFloat16> && std::is_same_v<S, float>) {
            float_to_bfloat16(d, x, n);
          } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, BFloat16>) {
            bfloat16_to_float(d, x, n);
          } else {
            for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(x[i]);
          }
        } else {
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<D*>(p[0] + i * s[0]) = convert<D>(*reinterpret_cast<const S*>(p[1] + i * s[1]));
        }
      });
    });
  });
}

void CpuBackend::fill(const Tensor& dst, const Scalar& value) {
  dispatch_all(dst.dtype(), "fill", [&]<typename T>() {
    const T v = value.to<T>();
    for_each_run<1>({&dst}, [v](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* d = reinterpret_cast<T*>(p[0]);
        for (int64_t i = 0; i < n; ++i) d[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

namespace {

// The contiguous float loops, compiled for AVX-512, AVX2 and the baseline and picked at run time:
// the library itself targets baseline x86-64, whose vectors hold 4 floats. `omp simd` lets the
// compiler skip its aliasing checks, so callers pass only outputs that are their input exactly
// (in place) or do not overlap it (separate()). `flatten` inlines the whole formula of
// core/functors.h (GELU's backward calls exp and erf helpers), as a loop with a call in it does
// not vectorise.
inline bool separate(const void* out, int64_t out_bytes, const void* in, int64_t in_bytes) {
  const char *o = static_cast<const char*>(out), *x = static_cast<const char*>(in);
  return o == x || o + out_bytes <= x || x + in_bytes <= o;
}
template <typename F>
inline EMBER_ALWAYS_INLINE void unary_run(float* o, const float* x, int64_t n, F f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
}
enum class Operands { kBoth, kScalarRight, kScalarLeft };
template <typename R, typename F>
inline EMBER_ALWAYS_INLINE void binary_run(R* o, const float* x, const float* y, int64_t n, Operands kind, F f) {
  if (kind == Operands::kBoth) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
  } else if (kind == Operands::kScalarRight) {
    const float yv = *y;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
  } else {
    const float xv = *x;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
  }
}
#if defined(__clang__)  // no target_clones on templates: core/cpu/per_isa.h
template <typename F>
void unary_run_f32(float* o, const float* x, int64_t n, F f) {
  per_isa([&]() EMBER_ALWAYS_INLINE { unary_run(o, x, n, f); });
}
template <typename R, typename F>
void binary_run_f32(R* o, const float* x, const float* y, int64_t n, Operands kind, F f) {
  per_isa([&]() EMBER_ALWAYS_INLINE { binary_run(o, x, y, n, kind, f); });
}
#else
// flatten: the functor (GELU's derivative, say) is inlined into each clone's loop, which then
// vectorises; left as a call, the loop stays scalar.
template <typename F>
__attribute__((target_clones("avx512f", "avx2", "default"), flatten)) void unary_run_f32(float* o, const float* x,
                                                                                         int64_t n, F f) {
  unary_run(o, x, n, f);
}
template <typename R, typename F>
__attribute__((target_clones("avx512f", "avx2", "default"), flatten)) void binary_run_f32(R* o, const float* x,
                                                                                          const float* y, int64_t n,
                                                                                          Operands kind, F f) {
  binary_run(o, x, y, n, kind, f);
}
#endif

template <typename T, typename F>
void unary_loop(const Tensor& out, const Tensor& in, F f) {
  for_each_run<2>({&out, &in}, [f](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      T* o = reinterpret_cast<T*>(p[0]);
      const T* x = reinterpret_cast<const T*>(p[1]);
      if constexpr (std::is_same_v<T, float>) {
        if (separate(o, n * sizeof(float), x, n * sizeof(float))) return unary_run_f32(o, x, n, f);
      }
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]));
    }
  });
}

template <typename T, typename R, typename F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  for_each_run<3>({&out, &a, &b}, [f](char** p, const int64_t* s, int64_t n) {
    R* o = reinterpret_cast<R*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    const T* y = reinterpret_cast<const T*>(p[2]);
    if constexpr (std::is_same_v<T, float>) {
      const int64_t bytes = n * static_cast<int64_t>(sizeof(R));
      if (s[0] == sizeof(R) && separate(o, bytes, x, s[1] * n) && separate(o, bytes, y, s[2] * n)) {
        if (s[1] == sizeof(T) && s[2] == sizeof(T)) return binary_run_f32(o, x, y, n, Operands::kBoth, f);
        if (s[1] == sizeof(T) && s[2] == 0) return binary_run_f32(o, x, y, n, Operands::kScalarRight, f);
        if (s[1] == 0 && s[2] == sizeof(T)) return binary_run_f32(o, x, y, n, Operands::kScalarLeft, f);
      }
    }
    if (s[0] == sizeof(R) && s[1] == sizeof(T) && s[2] == sizeof(T)) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else if (s[0] == sizeof(R) && s[1] == sizeof(T) && s[2] == 0) {  // tensor op scalar
      const T yv = *y;
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
    } else if (s[0] == sizeof(R) && s[1] == 0 && s[2] == sizeof(T)) {  // scalar op tensor
      const T xv = *x;
      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<R*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]));
    }
  });
}

// bfloat16 operands (autocast's activations) in one pass: each run is taken kBf16Chunk values at a
// time, its bf16 inputs widened into float buffers on the stack, the float32 loop run on them, and a
// bf16 output rounded as it is written. No float32 copy of a tensor is made (the generic way of
// core/cpu/bfloat16_float.h, which the other dtypes and the bool-valued ops keep).
constexpr int64_t kBf16Chunk = 256;

bool float32_or_bfloat16(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->dtype() != kFloat32 && t->dtype() != kBFloat16) return false;
  return true;
}

// n values of an operand (p, byte stride s) as contiguous floats: a contiguous float32 run in place,
// anything else copied (and widened) into buf.
const float* floats_of(const char* p, int64_t s, ScalarType dtype, int64_t n, float* buf) {
  if (dtype == kFloat32) {
    if (s == sizeof(float)) return reinterpret_cast<const float*>(p);
    for (int64_t i = 0; i < n; ++i) buf[i] = *reinterpret_cast<const float*>(p + i * s);
  } else if (s == sizeof(BFloat16)) {
    bfloat16_to_float(buf, reinterpret_cast<const BFloat16*>(p), n);
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<float>(*reinterpret_cast<const BFloat16*>(p + i * s));
  }
  return buf;
}

// Writes n floats to the output operand (p, byte stride s), rounding to bf16 where it is bf16.
void store_floats(char* p, int64_t s, ScalarType dtype, const float* v, int64_t n) {
  if (dtype == kFloat32) {
    if (s == sizeof(float)) return (void)std::memcpy(p, v, n * sizeof(float));
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<float*>(p + i * s) = v[i];
  } else if (s == sizeof(BFloat16)) {
    float_to_bfloat16(reinterpret_cast<BFloat16*>(p), v, n);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<BFloat16*>(p + i * s) = BFloat16(v[i]);
  }
}

template <typename F>
void bf16_unary_loop(const Tensor& out, const Tensor& in, F f) {
  const ScalarType od = out.dtype(), id = in.dtype();
  for_each_run<2>({&out, &in}, [&](char** p, const int64_t* s, int64_t n) {
    alignas(64) float xb[kBf16Chunk], ob[kBf16Chunk];
    for (int64_t i0 = 0; i0 < n; i0 += kBf16Chunk) {
      const int64_t m = std::min(kBf16Chunk, n - i0);
      unary_run_f32(ob, floats_of(p[1] + i0 * s[1], s[1], id, m, xb), m, f);
      store_floats(p[0] + i0 * s[0], s[0], od, ob, m);
    }
  });
}

template <typename F>
void bf16_binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  const ScalarType od = out.dtype(), ad = a.dtype(), bd = b.dtype();
  for_each_run<3>({&out, &a, &b}, [&](char** p, const int64_t* s, int64_t n) {
    alignas(64) float xb[kBf16Chunk], yb[kBf16Chunk], ob[kBf16Chunk];
    for (int64_t i0 = 0; i0 < n; i0 += kBf16Chunk) {
      const int64_t m = std::min(kBf16Chunk, n - i0);
      const float* x = floats_of(p[1] + i0 * s[1], s[1], ad, m, xb);
      const float* y = floats_of(p[2] + i0 * s[2], s[2], bd, m, yb);
      binary_run_f32(ob, x, y, m, Operands::kBoth, f);
      store_floats(p[0] + i0 * s[0], s[0], od, ob, m);
    }
  });
}

}  // namespace

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  if (any_narrow_integer({&out, &in})) {  // computed as int64 (core/cpu/narrow_int.h)
    Tensor out64 = int64_buffer(out);
    unary(op, out64, int64_copy(*this, in));
    return narrow_back(*this, out, out64);
  }
  if (any_reduced_float({&out, &in}) && float32_or_bfloat16({&out, &in})) {
    switch (op) {
#define EMBER_UNARY_CASE(Name, ...) \
  case UnaryOp::Name:               \
    return bf16_unary_loop(out, in, UnaryFn<UnaryOp::Name>{});
      EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
    }
  }
  if (any_reduced_float({&out, &in})) {  // computed in float32, rounded once (core/cpu/bfloat16_float.h)
    Tensor out_f = float32_buffer(out);
    unary(op, out_f, float32_copy(*this, in));
    return round_back(*this, out, out_f);
  }
  dispatch(in.dtype(), op_name(op), [&]<typename T>() {
    switch (op) {
#define EMBER_UNARY_CASE(Name, ...) \
  case UnaryOp::Name:               \
    return unary_loop<T>(out, in, UnaryFn<UnaryOp::Name>{});
      EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
    }
  });
}

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (any_narrow_integer({&out, &a, &b})) {
    Tensor out64 = int64_buffer(out);
    binary(op, out64, int64_copy(*this, a), int64_copy(*this, b));
    return narrow_back(*this, out, out64);
  }
  if (any_reduced_float({&out, &a, &b}) && float32_or_bfloat16({&out, &a, &b}) && !returns_bool(op)) {
    using T = float;  // the result type R of the ops below
    switch (op) {
#define EMBER_BINARY_CASE(Name, name, expr, R)                               \
  case BinaryOp::Name:                                                       \
    if constexpr (std::is_same_v<R, float>)                                  \
      return bf16_binary_loop(out, a, b, BinaryFn<BinaryOp::Name>{});        \
    break;
      EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
    }
  }
  if (any_reduced_float({&out, &a, &b})) {
    Tensor out_f = float32_buffer(out);
    binary(op, out_f, float32_copy(*this, a), float32_copy(*this, b));
    return round_back(*this, out, out_f);
  }
  dispatch(a.dtype(), op_name(op), [&]<typename T>() {
    switch (op) {
#define EMBER_BINARY_CASE(Name, name, expr, R) \
  case BinaryOp::Name:                         \
    return binary_loop<T, R>(out, a, b, BinaryFn<BinaryOp::Name>{});
      EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
    }
  });
}

void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  dispatch_all(out.dtype(), "where", [&]<typename T>() {
    for_each_run<4>({&out, &cond, &a, &b}, [](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[c ? 2 : 3] + i * s[c ? 2 : 3]);
      }
    });
  });
}

}  // namespace ember::cpu
