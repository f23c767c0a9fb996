// libtorch's <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp> on Ember's nccl backend
// (ember::distributed::make_nccl_process_group), for CUDA tensors, one GPU per rank:
//
//   auto store = c10::make_intrusive<c10d::FileStore>("/tmp/rendezvous", world_size);
//   auto pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world_size);
//   std::vector<at::Tensor> tensors = {torch::ones({4}, torch::kCUDA)};
//   pg->allreduce(tensors)->wait();   // SUM over the ranks, in place
//
// getRank, getSize, allreduce, broadcast, allgather, reduce_scatter and barrier, one tensor per
// call (c10d's several-GPUs-per-process form is gone from PyTorch too). In a build without NCCL,
// or on a machine without a GPU, the constructor throws saying so. Compile-checked only: not yet run
// with two GPUs (docs/DISTRIBUTED.md).
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include "ember_compat/c10d_process_group.h"

namespace c10d {

class ProcessGroupNCCL : public compat_detail::EmberProcessGroup {
 public:
  struct Options {
    static c10::intrusive_ptr<Options> create(bool is_high_priority_stream = false) {
      auto o = c10::make_intrusive<Options>();
      o->is_high_priority_stream = is_high_priority_stream;
      return o;
    }
    std::chrono::milliseconds timeout = ember::distributed::kDefaultTimeout;
    bool is_high_priority_stream = false;  // accepted; Ember's collectives use the device's one stream
  };

  ProcessGroupNCCL(const c10::intrusive_ptr<Store>& store, int rank, int size,
                   c10::intrusive_ptr<Options> options = Options::create())
      : EmberProcessGroup(
            ember::distributed::make_nccl_process_group(store->ember_store(), rank, size, options->timeout), "nccl") {}

 private:
  at::Tensor& single(const char* op, std::vector<at::Tensor>& tensors) const override {
    TORCH_CHECK(tensors.size() == 1, op, ": Ember's nccl backend takes one tensor per process (got ", tensors.size(),
                "); run one process per GPU");
    return tensors[0];
  }
};

}  // namespace c10d
