// Runs a loop compiled for AVX-512, AVX2 or baseline x86-64, whichever this CPU has: the same choice
// GCC's target_clones makes, for the places Clang cannot use target_clones. Clang 14 rejects it on
// function templates ("multiversioned functions do not yet support function templates"), and the
// elementwise loops are templates over their functor. Not a general ISA layer: ordinary functions keep
// target_clones, which both compilers accept.
//
//   per_isa([&]() EMBER_ALWAYS_INLINE { for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]); });
//
// The body must be always-inline, so it is compiled inside each target-specific wrapper.
#pragma once

#include <type_traits>

namespace ember::cpu {

#define EMBER_ALWAYS_INLINE __attribute__((always_inline))

enum class Isa { kBaseline, kAvx2, kAvx512 };

inline Isa cpu_isa() {
  static const Isa isa = [] {
    __builtin_cpu_init();  // may run before the runtime's own constructor has filled in the CPU model
    if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
    if (__builtin_cpu_supports("avx2")) return Isa::kAvx2;
    return Isa::kBaseline;
  }();
  return isa;
}

template <typename Body>
__attribute__((target("avx512f"))) void run_avx512(const Body& body) {
  body();
}
template <typename Body>
__attribute__((target("avx2"))) void run_avx2(const Body& body) {
  body();
}
template <typename Body>
__attribute__((target("avx2,fma"))) void run_avx2_fma(const Body& body) {
  body();
}
template <typename Body>
void run_baseline(const Body& body) {
  body();
}

template <typename Body>
void per_isa(const Body& body) {
  switch (cpu_isa()) {
    case Isa::kAvx512:
      return run_avx512(body);
    case Isa::kAvx2:
      return run_avx2(body);
    case Isa::kBaseline:
      break;
  }
  run_baseline(body);
}

// per_isa for kernels written for the instruction set's vector width: the body gets it in bytes as a
// std::integral_constant (64 for AVX-512, 32 for AVX2 with FMA, 16 for the baseline). GCC compiles a
// vector wider than the set's registers through the stack, so one width for all is slow on some.
template <typename Body>
void per_isa_vector(const Body& body) {
  switch (cpu_isa()) {
    case Isa::kAvx512:
      return run_avx512([&]() EMBER_ALWAYS_INLINE { body(std::integral_constant<int, 64>()); });
    case Isa::kAvx2:
      return run_avx2_fma([&]() EMBER_ALWAYS_INLINE { body(std::integral_constant<int, 32>()); });
    case Isa::kBaseline:
      break;
  }
  run_baseline([&]() EMBER_ALWAYS_INLINE { body(std::integral_constant<int, 16>()); });
}

}  // namespace ember::cpu
