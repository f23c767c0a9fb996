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

namespace c10d {

class ProcessGroupNCCL {
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
      : pg_(ember::distributed::make_nccl_process_group(store->ember_store(), rank, size, options->timeout)) {}

  int getRank() const { return pg_->rank(); }
  int getSize() const { return pg_->size(); }
  const std::string getBackendName() const { return "nccl"; }

  c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors, const AllreduceOptions& opts = {}) {
    return c10::make_intrusive<Work>(pg_->all_reduce_async(single("allreduce", tensors), to_ember(opts.reduceOp)));
  }
  c10::intrusive_ptr<Work> broadcast(std::vector<at::Tensor>& tensors, const BroadcastOptions& opts = {}) {
    return c10::make_intrusive<Work>(
        pg_->broadcast_async(single("broadcast", tensors), static_cast<int>(opts.rootRank)));
  }
  c10::intrusive_ptr<Work> allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                     std::vector<at::Tensor>& inputTensors, const AllgatherOptions& = {}) {
    TORCH_CHECK(outputTensors.size() == 1, "allgather: Ember's nccl backend takes one output list (got ",
                outputTensors.size(), ")");
    return c10::make_intrusive<Work>(pg_->all_gather_async(outputTensors[0], single("allgather", inputTensors)));
  }
  c10::intrusive_ptr<Work> reduce_scatter(std::vector<at::Tensor>& outputTensors,
                                          std::vector<std::vector<at::Tensor>>& inputTensors,
                                          const ReduceScatterOptions& opts = {}) {
    TORCH_CHECK(inputTensors.size() == 1, "reduce_scatter: Ember's nccl backend takes one input list (got ",
                inputTensors.size(), ")");
    return c10::make_intrusive<Work>(pg_->reduce_scatter_async(single("reduce_scatter", outputTensors),
                                                               inputTensors[0], to_ember(opts.reduceOp)));
  }
  c10::intrusive_ptr<Work> barrier(const BarrierOptions& = {}) {
    return c10::make_intrusive<Work>(pg_->barrier_async());
  }

 private:
  static at::Tensor& single(const char* op, std::vector<at::Tensor>& tensors) {
    TORCH_CHECK(tensors.size() == 1, op, ": Ember's nccl backend takes one tensor per process (got ", tensors.size(),
                "); run one process per GPU");
    return tensors[0];
  }
  std::shared_ptr<ember::distributed::ProcessGroup> pg_;
};

}  // namespace c10d
