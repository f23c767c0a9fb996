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
#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"

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

// One multi-tensor launch sequence for all parameters, each with its rule built from its step.
template <template <typename> class Rule, int kArrays, typename Step>
void launch_rule(cudaStream_t s, const char* name, ScalarType type, const std::vector<UpdateArrays<kArrays>>& tensors,
                 const std::vector<Step>& steps) {
  dispatch_floating_type(name, type, [&]<typename T>() {
    std::vector<std::array<void*, kArrays>> ptrs;
    std::vector<int64_t> sizes;
    std::vector<RuleOp<Rule<T>>> ops;
    for (size_t i = 0; i < tensors.size(); ++i) {
      ptrs.push_back(tensors[i].ptrs);
      sizes.push_back(tensors[i].n);
      ops.push_back({Rule<T>(steps[i])});
    }
    multi_tensor_apply<T, kArrays>(s, name, ptrs, sizes, ops);
  });
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

void launch_adam_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<5>>& tensors,
                        const std::vector<AdamStep>& steps) {
  launch_rule<AdamRule>(s, "adam_update", type, tensors, steps);
}

void launch_sgd_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<3>>& tensors,
                       const std::vector<SgdStep>& steps) {
  launch_rule<SgdRule>(s, "sgd_update", type, tensors, steps);
}

void launch_rmsprop_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<5>>& tensors,
                           const std::vector<RmspropStep>& steps) {
  launch_rule<RmspropRule>(s, "rmsprop_update", type, tensors, steps);
}

void launch_adagrad_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<3>>& tensors,
                           const std::vector<AdagradStep>& steps) {
  launch_rule<AdagradRule>(s, "adagrad_update", type, tensors, steps);
}

void launch_sum_of_squares(cudaStream_t s, ScalarType type, const std::vector<void*>& tensors,
                           const std::vector<int64_t>& sizes, double* out, double* partial, const int64_t* starts) {
  dispatch_floating_type("sum_of_squares", type, [&]<typename T>() {
    if (tensors.empty()) return;
    std::vector<std::array<void*, 1>> ptrs;
    for (void* t : tensors) ptrs.push_back({t});
    multi_tensor_apply<T, 1>(s, "sum_of_squares", ptrs, sizes, std::vector<SquaresOp<T>>(tensors.size(), {partial}));
    const LaunchShape ls = launch_1d(static_cast<int64_t>(tensors.size()));
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, sum_chunks_kernel)
    (out, partial, starts, static_cast<int64_t>(tensors.size()));
    check_launch("sum_of_squares");
  });
}

void launch_scale(cudaStream_t s, ScalarType type, const std::vector<void*>& tensors, const std::vector<int64_t>& sizes,
                  double factor) {
  dispatch_floating_type("scale_", type, [&]<typename T>() {
    std::vector<std::array<void*, 1>> ptrs;
    for (void* t : tensors) ptrs.push_back({t});
    multi_tensor_apply<T, 1>(s, "scale_", ptrs, sizes, std::vector<ScaleOp<T>>(tensors.size(), {T(factor)}));
  });
}

}  // namespace ember::cuda
