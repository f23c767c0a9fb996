// Strided loops for CPU kernels: walk N tensors of one shape, whatever their strides.
//
//   for_each_run<2>({&out, &in}, [&](char** p, const int64_t* s, int64_t n) { ... });
//
// Dims are first merged where every operand is contiguous across them, so a contiguous tensor
// is one run of numel elements and the inner loop vectorises; broadcast operands show up as
// stride 0. Strides passed to the callback are in bytes. Runs are split across OpenMP threads
// only when the caller says writes never overlap (parallel = true) and the work is large.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace ember::cpu {

inline constexpr int64_t kParallelGrain = 32768;  // elements below which threads cost more than they save

template <size_t N>
struct StridedShape {
  std::vector<int64_t> sizes;                   // coalesced, innermost last
  std::array<std::vector<int64_t>, N> strides;  // bytes
  std::array<char*, N> base;
};

template <size_t N>
StridedShape<N> make_strided_shape(const std::array<const Tensor*, N>& ts) {
  StridedShape<N> s;
  const Tensor& first = *ts[0];
  for (size_t k = 0; k < N; ++k) s.base[k] = static_cast<char*>(ts[k]->raw_data_ptr());
  // Drop size-1 dims, then merge neighbours that are contiguous with each other in every operand.
  for (int64_t d = 0; d < first.dim(); ++d) {
    int64_t size = first.sizes()[d];
    if (size == 1) continue;
    bool merge = !s.sizes.empty();
    for (size_t k = 0; merge && k < N; ++k) {
      int64_t esz = static_cast<int64_t>(ts[k]->element_size());
      merge = s.strides[k].back() == ts[k]->strides()[d] * esz * size;
    }
    if (merge) {
      s.sizes.back() *= size;
      for (size_t k = 0; k < N; ++k)
        s.strides[k].back() = ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->element_size());
    } else {
      s.sizes.push_back(size);
      for (size_t k = 0; k < N; ++k)
        s.strides[k].push_back(ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->element_size()));
    }
  }
  if (s.sizes.empty()) {  // a single element
    s.sizes.push_back(1);
    for (size_t k = 0; k < N; ++k) s.strides[k].push_back(0);
  }
  return s;
}

// Calls run(ptrs, inner_strides, n) for each innermost run of the outer index range [begin, end).
template <size_t N, typename Run>
void run_range(const StridedShape<N>& s, int64_t begin, int64_t end, Run& run) {
  const int64_t nd = static_cast<int64_t>(s.sizes.size());
  const int64_t inner = s.sizes[nd - 1];
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = s.strides[k][nd - 1];
  // Decompose `begin` into an outer counter, then step it like an odometer.
  std::vector<int64_t> counter(nd > 1 ? nd - 1 : 0, 0);
  std::array<char*, N> ptr = s.base;
  int64_t rem = begin;
  for (int64_t d = nd - 2; d >= 0; --d) {
    counter[d] = rem % s.sizes[d];
    rem /= s.sizes[d];
    for (size_t k = 0; k < N; ++k) ptr[k] += counter[d] * s.strides[k][d];
  }
  for (int64_t i = begin; i < end; ++i) {
    run(ptr.data(), inner_strides.data(), inner);
    for (int64_t d = nd - 2; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k) ptr[k] += s.strides[k][d];
      if (++counter[d] < s.sizes[d]) break;
      for (size_t k = 0; k < N; ++k) ptr[k] -= s.strides[k][d] * s.sizes[d];
      counter[d] = 0;
    }
  }
}

template <size_t N, typename Run>
void for_each_run(const std::array<const Tensor*, N>& ts, Run&& run, bool parallel = true) {
  if (ts[0]->numel() == 0) return;
  StridedShape<N> s = make_strided_shape(ts);
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < s.sizes.size(); ++d) outer *= s.sizes[d];
  const int64_t total = outer * s.sizes.back();
  if (parallel && total >= kParallelGrain && omp_get_max_threads() > 1) {
#pragma omp parallel
    {
      const int64_t nt = omp_get_num_threads(), id = omp_get_thread_num();
      if (outer > 1) {  // split the outer runs
        int64_t chunk = (outer + nt - 1) / nt;
        int64_t b = id * chunk, e = std::min(outer, b + chunk);
        if (b < e) run_range(s, b, e, run);
      } else {  // one long run: split it
        const int64_t n = s.sizes[0];
        int64_t chunk = (n + nt - 1) / nt;
        int64_t b = id * chunk, e = std::min(n, b + chunk);
        if (b < e) {
          std::array<char*, N> ptr = s.base;
          std::array<int64_t, N> st;
          for (size_t k = 0; k < N; ++k) {
            st[k] = s.strides[k][0];
            ptr[k] += b * st[k];
          }
          run(ptr.data(), st.data(), e - b);
        }
      }
    }
  } else {
    run_range(s, 0, outer, run);
  }
}

}  // namespace ember::cpu
