// CUDA optimizer kernels (Backend's EMBER_OPTIMIZER_KERNELS), the twin of core/cpu/optim.cpp:
// Adam / AdamW, SGD, and the sum of squares and scaling of gradient clipping.
//
// Multi-tensor: one launch covers up to kMaxTensors tensors with a block per chunk of
// kMultiTensorChunk elements, the tensors' pointers and chunk offsets passed by value in the
// kernel's arguments (no copy of a pointer table to the device first), so all the parameters of a
// GPT are updated in a few launches instead of a dozen ops per parameter. Each update is elementwise, so
// chunking changes no bit; the arithmetic follows the CPU loops (fma where PyTorch rounds once).
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

// ---- Adam / AdamW; ptrs: param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad only) ----

template <typename T>
struct AdamOp {
  T beta1, one_minus_beta1, beta2, one_minus_beta2;
  T weight_decay;   // Adam: g + weight_decay * p
  T decay;          // AdamW: p * (1 - lr * weight_decay)
  T neg_step_size;  // -lr / (1 - beta1^t)
  T bias_correction2_sqrt, eps;
  bool amsgrad, maximize, decoupled;
  bool operator==(const AdamOp&) const = default;

  __device__ void operator()(T* const* p, int64_t begin, int64_t end, int64_t) const {
    T *param = p[0], *m = p[2], *v = p[3], *vmax = p[4];
    const T* g = p[1];
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      T grad = maximize ? -g[i] : g[i];
      T w = param[i];
      if (decoupled)
        w = w * decay;  // param.mul_(1 - lr * weight_decay)
      else if (weight_decay != T(0))
        grad = fma(weight_decay, w, grad);                           // grad.add(param, alpha=weight_decay)
      const T mi = fma(one_minus_beta1, grad, m[i] * beta1);         // exp_avg.mul_(b1).add_(g, alpha=1-b1)
      const T vi = fma(one_minus_beta2 * grad, grad, v[i] * beta2);  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
      m[i] = mi;
      v[i] = vi;
      T second = vi;
      if (amsgrad) {
        const T mx = vmax[i];
        second = (mx != mx || mx > vi) ? mx : vi;  // torch.maximum: NaN wins
        vmax[i] = second;
      }
      const T denom = sqrt(second) / bias_correction2_sqrt + eps;
      param[i] = w + (neg_step_size * mi) / denom;  // param.addcdiv_(exp_avg, denom, value=-step_size)
    }
  }
};

// ---- SGD; ptrs: param, grad, momentum_buffer (with momentum only) ----

template <typename T>
struct SgdOp {
  T neg_lr, momentum, one_minus_dampening, weight_decay;
  bool use_momentum, nesterov, maximize, first_step;
  bool operator==(const SgdOp&) const = default;

  __device__ void operator()(T* const* p, int64_t begin, int64_t end, int64_t) const {
    T *param = p[0], *buf = p[2];
    const T* g = p[1];
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      T d = maximize ? -g[i] : g[i];
      if (weight_decay != T(0)) d = fma(weight_decay, param[i], d);  // d_p.add(param, alpha=weight_decay)
      if (use_momentum) {
        // buf.mul_(momentum).add_(d_p, alpha=1 - dampening), or a copy of d_p on the first step
        const T b = first_step ? d : fma(one_minus_dampening, d, buf[i] * momentum);
        buf[i] = b;
        d = nesterov ? fma(momentum, b, d) : b;  // d_p.add(buf, alpha=momentum)
      }
      param[i] = fma(neg_lr, d, param[i]);  // param.add_(d_p, alpha=-lr)
    }
  }
};

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

void launch_adam_update(cudaStream_t s, ScalarType type, const std::vector<AdamTensors>& tensors,
                        const std::vector<AdamHyper>& hyper) {
  dispatch_floating_type("adam_update", type, [&]<typename T>() {
    std::vector<std::array<void*, 5>> ptrs;
    std::vector<int64_t> sizes;
    std::vector<AdamOp<T>> ops;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const AdamTensors& a = tensors[i];
      const AdamHyper& h = hyper[i];
      ptrs.push_back({a.param, const_cast<void*>(a.grad), a.exp_avg, a.exp_avg_sq, a.max_exp_avg_sq});
      sizes.push_back(a.n);
      ops.push_back({T(h.beta1), T(1 - h.beta1), T(h.beta2), T(1 - h.beta2), T(h.weight_decay),
                     T(1 - h.lr * h.weight_decay), T(-h.step_size), T(h.bias_correction2_sqrt), T(h.eps), h.amsgrad,
                     h.maximize, h.decoupled});
    }
    multi_tensor_apply<T, 5>(s, "adam_update", ptrs, sizes, ops);
  });
}

void launch_sgd_update(cudaStream_t s, ScalarType type, const std::vector<SgdTensors>& tensors,
                       const std::vector<SgdHyper>& hyper) {
  dispatch_floating_type("sgd_update", type, [&]<typename T>() {
    std::vector<std::array<void*, 3>> ptrs;
    std::vector<int64_t> sizes;
    std::vector<SgdOp<T>> ops;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const SgdTensors& a = tensors[i];
      const SgdHyper& h = hyper[i];
      ptrs.push_back({a.param, const_cast<void*>(a.grad), a.momentum_buffer});
      sizes.push_back(a.n);
      ops.push_back({T(-h.lr), T(h.momentum), T(1 - h.dampening), T(h.weight_decay), h.momentum != 0, h.nesterov,
                     h.maximize, h.first_step});
    }
    multi_tensor_apply<T, 3>(s, "sgd_update", ptrs, sizes, ops);
  });
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
