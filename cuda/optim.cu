// CUDA optimizer kernels (Backend's EMBER_OPTIMIZER_KERNELS), the twin of core/cpu/optim.cpp:
// Adam / AdamW, SGD, RMSprop and Adagrad by the rules of core/optim_rules.h (shared with the CPU
// loops), and the sum of squares and scaling of gradient clipping.
//
// Multi-tensor: one launch covers up to kMaxTensors tensors with a block per chunk of
// kMultiTensorChunk elements, the tensors' pointers and chunk offsets passed by value in the
// kernel's arguments (no copy of a pointer table to the device first), so all the parameters of a
// GPT are updated in a few launches instead of a dozen ops per parameter. Each update is elementwise, so
// chunking changes no bit; the arithmetic is the CPU loops' (fma where PyTorch rounds once).
// The sum of squares writes one double per chunk, then adds each tensor's chunks in order: one
// reduction over all gradients, with the same result on every run.
#include <algorithm>
#include <array>
#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

int64_t multi_tensor_chunks(int64_t n) { return (n + kMultiTensorChunk - 1) / kMultiTensorChunk; }

namespace {

constexpr int kMaxTensors = 48;  // per launch: the arguments stay under CUDA's classic 4 KiB

// The pointers of up to kMaxTensors tensors (kDepth arrays each: param, grad, ...) and where each
// tensor's chunks begin among the launch's blocks: block b updates chunk b - chunk_start[t] of the
// tensor t with chunk_start[t] <= b < chunk_start[t + 1].
template <int kDepth>
struct TensorChunks {
  void* ptrs[kDepth][kMaxTensors];
  int64_t sizes[kMaxTensors];
  int64_t chunk_start[kMaxTensors + 1];
  int n_tensors;
  int64_t first_block;  // the launch's first block among all launches of one call
};

// Each block finds its tensor and chunk, then calls op(ptrs, begin, end, block) with the tensor's
// pointers; the op's threads share the chunk's elements.
template <typename T, int kDepth, typename Op>
__global__ void __launch_bounds__(kBlockSize) multi_tensor_kernel(TensorChunks<kDepth> tc, Op op) {
  const int64_t b = blockIdx.x;
  int t = 0;
  while (t + 1 < tc.n_tensors && tc.chunk_start[t + 1] <= b) ++t;
  const int64_t begin = (b - tc.chunk_start[t]) * kMultiTensorChunk;
  const int64_t end = begin + kMultiTensorChunk < tc.sizes[t] ? begin + kMultiTensorChunk : tc.sizes[t];
  T* p[kDepth];
  for (int k = 0; k < kDepth; ++k) p[k] = static_cast<T*>(tc.ptrs[k][t]);
  op(p, begin, end, tc.first_block + b);
}

// Runs Op over every tensor in as few launches as the argument limit allows (one per kMaxTensors
// tensors, each with a block per chunk); a new launch starts where a tensor's scalars differ from
// the previous one's.
template <typename T, int kDepth, typename Op>
void multi_tensor_apply(cudaStream_t s, const char* name, const std::vector<std::array<void*, kDepth>>& ptrs,
                        const std::vector<int64_t>& sizes, const std::vector<Op>& ops) {
  TensorChunks<kDepth> tc{};
  int64_t launched_blocks = 0;
  Op op{};
  const auto flush = [&] {
    const int64_t blocks = tc.chunk_start[tc.n_tensors];
    if (blocks > 0) {
      tc.first_block = launched_blocks;
      EMBER_LAUNCH(blocks, kBlockSize, kBlockSize * sizeof(double), s, multi_tensor_kernel<T, kDepth, Op>)(tc, op);
      check_launch(name);
      launched_blocks += blocks;
    }
    tc.n_tensors = 0;
  };
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) continue;
    if (tc.n_tensors > 0 && (tc.n_tensors == kMaxTensors || !(ops[i] == op))) flush();
    op = ops[i];
    const int t = tc.n_tensors++;
    for (int k = 0; k < kDepth; ++k) tc.ptrs[k][t] = ptrs[i][k];
    tc.sizes[t] = sizes[i];
    tc.chunk_start[t + 1] = tc.chunk_start[t] + multi_tensor_chunks(sizes[i]);
  }
  flush();
}

// ---- the update rules of core/optim_rules.h; ptrs in the order of the rule's update(...) ----

// Element i of each array, for i in [begin, end) shared by the block's threads.
template <typename T>
__device__ void update_range(const SgdRule<T>& r, T* const* p, int64_t begin, int64_t end) {
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) r.update(p[0], p[1], p[2], i);
}
template <typename T>
__device__ void update_range(const RmspropRule<T>& r, T* const* p, int64_t begin, int64_t end) {
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) r.update(p[0], p[1], p[2], p[3], p[4], i);
}
template <typename T>
__device__ void update_range(const AdagradRule<T>& r, T* const* p, int64_t begin, int64_t end) {
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) r.update(p[0], p[1], p[2], i);
}
template <bool kAmsgrad, bool kDecoupled, typename T>
__device__ void adam_range(const AdamRule<T>& r, T* const* p, int64_t begin, int64_t end) {
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
    r.template update<kAmsgrad, kDecoupled>(p[0], p[1], p[2], p[3], p[4], i);
}
template <typename T>
__device__ void update_range(const AdamRule<T>& r, T* const* p, int64_t begin, int64_t end) {
  if (r.amsgrad)
    r.decoupled ? adam_range<true, true>(r, p, begin, end) : adam_range<true, false>(r, p, begin, end);
  else
    r.decoupled ? adam_range<false, true>(r, p, begin, end) : adam_range<false, false>(r, p, begin, end);
}

template <typename Rule>
struct RuleOp {
  Rule rule;
  bool operator==(const RuleOp&) const = default;

  template <typename T>
  __device__ void operator()(T* const* p, int64_t begin, int64_t end, int64_t) const {
    update_range(rule, p, begin, end);
  }
};

// True when every defined view is contiguous and of `dtype`, a floating type: the kernels read
// them as plain arrays. Lists that are not compose (the optimizer's tensor ops).
bool plain(const TensorList& views, ScalarType dtype) {
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const TensorView& t : views)
    if (t.defined && (!t.contiguous || t.dtype != dtype)) return false;
  return true;
}

// One multi-tensor launch sequence for all parameters, each with its rule built from its step.
// lists: params, grads, then the state, in the order of the rule's update(...) in
// core/optim_rules.h (undefined entries where the rule does not use one); false where a list is
// not plain arrays.
template <template <typename> class Rule, int kArrays, typename Step>
bool update(const char* name, const std::array<const TensorList*, kArrays>& lists, const std::vector<Step>& steps) {
  const TensorList& params = *lists[0];
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype;
  for (const TensorList* list : lists)
    if (!plain(*list, dtype)) return false;
  cudaStream_t s = prepare(params[0].device);
  dispatch_floating_type(name, dtype, [&]<typename T>() {
    std::vector<std::array<void*, kArrays>> ptrs(params.size());
    std::vector<int64_t> sizes;
    std::vector<RuleOp<Rule<T>>> ops;
    for (size_t i = 0; i < params.size(); ++i) {
      for (int k = 0; k < kArrays; ++k) ptrs[i][k] = (*lists[k])[i].ptr_or_null();
      sizes.push_back(params[i].numel);
      ops.push_back({Rule<T>(steps[i])});
    }
    multi_tensor_apply<T, kArrays>(s, name, ptrs, sizes, ops);
  });
  return true;
}

// ---- gradient clipping ----

// partial[block] = sum of the chunk's squares, each square in T, summed in double.
template <typename T>
struct SquaresOp {
  double* partial;
  bool operator==(const SquaresOp&) const = default;

  __device__ void operator()(T* const* p, int64_t begin, int64_t end, int64_t block) const {
    double acc = 0;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) acc += static_cast<double>(p[0][i] * p[0][i]);
    acc = block_reduce(
        acc, [](double a, double b) { return a + b; }, shared_scratch<double>());
    if (threadIdx.x == 0) partial[block] = acc;
  }
};

template <typename T>
struct ScaleOp {
  T factor;
  bool operator==(const ScaleOp&) const = default;

  __device__ void operator()(T* const* p, int64_t begin, int64_t end, int64_t) const {
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) p[0][i] *= factor;
  }
};

// out[i] = sum of partial[starts[i] .. starts[i + 1]), in order: one thread per tensor.
__global__ void __launch_bounds__(kBlockSize)
    sum_chunks_kernel(double* out, const double* partial, const int64_t* starts, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = 0;
  for (int64_t c = starts[i]; c < starts[i + 1]; ++c) acc += partial[c];
  out[i] = acc;
}

}  // namespace

bool launchers::adam_update(const TensorList& params, const TensorList& grads, const TensorList& exp_avgs,
                            const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                            const std::vector<AdamStep>& steps) {
  return update<AdamRule, 5>("adam_update", {&params, &grads, &exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs}, steps);
}

bool launchers::sgd_update(const TensorList& params, const TensorList& grads, const TensorList& momentum_buffers,
                           const std::vector<SgdStep>& steps) {
  return update<SgdRule, 3>("sgd_update", {&params, &grads, &momentum_buffers}, steps);
}

bool launchers::rmsprop_update(const TensorList& params, const TensorList& grads, const TensorList& square_avgs,
                               const TensorList& grad_avgs, const TensorList& momentum_buffers,
                               const std::vector<RmspropStep>& steps) {
  return update<RmspropRule, 5>("rmsprop_update", {&params, &grads, &square_avgs, &grad_avgs, &momentum_buffers},
                                steps);
}

bool launchers::adagrad_update(const TensorList& params, const TensorList& grads, const TensorList& sums,
                               const std::vector<AdagradStep>& steps) {
  return update<AdagradRule, 3>("adagrad_update", {&params, &grads, &sums}, steps);
}

// out (n) float64: one partial sum per chunk of every tensor, then each tensor's chunks in order.
bool launchers::sum_of_squares(const TensorView& out, const TensorList& tensors) {
  if (tensors.empty() || !plain(tensors, tensors[0].dtype)) return false;
  cudaStream_t s = prepare(out.device);
  std::vector<std::array<void*, 1>> ptrs;
  std::vector<int64_t> sizes, starts = {0};  // starts (n + 1): where each tensor's partials begin
  for (const TensorView& t : tensors) {
    ptrs.push_back({t.data});
    sizes.push_back(t.numel);
    starts.push_back(starts.back() + multi_tensor_chunks(t.numel));
  }
  const DeviceBuffer partial(out.device, std::max<int64_t>(starts.back(), 1) * sizeof(double));
  const DeviceBuffer device_starts = upload(out.device, starts);
  const int64_t n = static_cast<int64_t>(tensors.size());
  dispatch_floating_type("sum_of_squares", tensors[0].dtype, [&]<typename T>() {
    multi_tensor_apply<T, 1>(s, "sum_of_squares", ptrs, sizes, std::vector<SquaresOp<T>>(n, {partial.as<double>()}));
    const LaunchShape ls = launch_1d(n);
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, sum_chunks_kernel)
    (out.ptr<double>(), partial.as<const double>(), device_starts.as<const int64_t>(), n);
    check_launch("sum_of_squares");
  });
  return true;
}

bool launchers::scale_(const TensorList& tensors, double factor) {
  if (tensors.empty()) return true;
  if (!plain(tensors, tensors[0].dtype)) return false;
  cudaStream_t s = prepare(tensors[0].device);
  std::vector<std::array<void*, 1>> ptrs;
  std::vector<int64_t> sizes;
  for (const TensorView& t : tensors) {
    ptrs.push_back({t.data});
    sizes.push_back(t.numel);
  }
  dispatch_floating_type("scale_", tensors[0].dtype, [&]<typename T>() {
    multi_tensor_apply<T, 1>(s, "scale_", ptrs, sizes, std::vector<ScaleOp<T>>(tensors.size(), {T(factor)}));
  });
  return true;
}

}  // namespace ember::cuda
