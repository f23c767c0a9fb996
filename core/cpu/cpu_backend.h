// The CPU backend: Backend's kernels on host memory, with OpenBLAS for matmul.
//
// One class, its methods spread over files by family (elementwise.cpp, reduce.cpp, matmul.cpp,
// nn.cpp, index.cpp) that mirror cuda/*.cu by name. Loops over strided tensors go through
// core/cpu/loops.h, so each kernel writes only its inner formula.
#pragma once

#include <cstdint>
#include <vector>

#include "core/backend.h"

namespace ember::cpu {

class CpuBackend final : public Backend {
 public:
  const char* name() const override { return "cpu"; }
  void* allocate(size_t nbytes, Device device) override;
  void deallocate(void* ptr, Device device) override;
  void copy_to_host(void* dst, const void* src, size_t nbytes, Device device) override;
  void copy_from_host(void* dst, const void* src, size_t nbytes, Device device) override;

  EMBER_BACKEND_KERNELS(EMBER_DECLARE_KERNEL)
  EMBER_FUSED_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
  EMBER_OPTIMIZER_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
};

Backend& backend();

// Per-thread rows of n partial sums (zeroed), each starting on its own cache line: threads that
// write neighbouring bytes of one line would take turns owning it (docs/PERFORMANCE.md, "Threads
// that do not share cache lines").
template <typename T>
class ThreadPartials {
 public:
  ThreadPartials(int threads, int64_t n)
      : stride_((n + kLine - 1) / kLine * kLine), data_(static_cast<size_t>(threads) * stride_ + kLine, T(0)) {}
  T* row(int thread) {
    const auto base = reinterpret_cast<uintptr_t>(data_.data());
    const size_t skip = (64 - base % 64) % 64 / sizeof(T);  // T is 4 or 8 bytes: a whole number
    return data_.data() + skip + static_cast<size_t>(thread) * stride_;
  }

 private:
  static constexpr int64_t kLine = 64 / sizeof(T);
  int64_t stride_;
  std::vector<T> data_;
};

// One float row of softmax (or log-softmax) over C values, vectorised; y may be x. Shared by the
// softmax kernel and the fused attention (core/cpu/nn.cpp).
void softmax_row_f32(float* y, const float* x, int64_t C, bool log);

}  // namespace ember::cpu
