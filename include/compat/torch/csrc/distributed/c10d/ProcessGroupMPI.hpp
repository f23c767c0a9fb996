// libtorch's <torch/csrc/distributed/c10d/ProcessGroupMPI.hpp> on Ember's mpi backend
// (ember::distributed::make_mpi_process_group), for programs run under mpirun:
//
//   auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
//   std::vector<at::Tensor> tensors = {torch::ones({4})};
//   auto work = pg->allreduce(tensors);   // SUM over the ranks, in place
//   work->wait();
//
// The part of c10d's API that maps: getRank, getSize, allreduce, broadcast, allgather, barrier,
// each taking one tensor per call as c10d's CPU backends do. c10::intrusive_ptr is std::shared_ptr.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "distributed/process_group.h"

namespace c10 {
template <typename T>
using intrusive_ptr = std::shared_ptr<T>;
template <typename T, typename... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return std::make_shared<T>(std::forward<Args>(args)...);
}
}  // namespace c10

namespace c10d {

struct ReduceOp {
  enum RedOpType { SUM, AVG, MAX, MIN };
  ReduceOp(RedOpType op = SUM) : op_(op) {}  // NOLINT: implicit, as c10d
  operator RedOpType() const { return op_; }  // NOLINT
  RedOpType op_;
};

constexpr auto kUnsetTimeout = std::chrono::milliseconds(-1);

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BarrierOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

class Work {
 public:
  explicit Work(std::shared_ptr<ember::distributed::Work> work) : work_(std::move(work)) {}
  // Blocks until done; returns true as c10d's does (failures throw).
  bool wait(std::chrono::milliseconds /*timeout*/ = kUnsetTimeout) {
    work_->wait();
    return true;
  }
  bool isCompleted() { return work_->is_completed(); }

 private:
  std::shared_ptr<ember::distributed::Work> work_;
};

class ProcessGroupMPI {
 public:
  explicit ProcessGroupMPI(std::shared_ptr<ember::distributed::ProcessGroup> pg) : pg_(std::move(pg)) {}

  static c10::intrusive_ptr<ProcessGroupMPI> createProcessGroupMPI(std::vector<int> ranks = {}) {
    TORCH_CHECK(ranks.empty(), "createProcessGroupMPI: Ember's mpi backend uses MPI_COMM_WORLD; pass no ranks");
    return c10::make_intrusive<ProcessGroupMPI>(ember::distributed::make_mpi_process_group());
  }

  int getRank() const { return pg_->rank(); }
  int getSize() const { return pg_->size(); }
  const std::string getBackendName() const { return "mpi"; }

  c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors, const AllreduceOptions& opts = {}) {
    TORCH_CHECK(tensors.size() == 1, "MPI process group only supports a single tensor op (got ", tensors.size(), ")");
    return c10::make_intrusive<Work>(pg_->all_reduce_async(tensors[0], to_ember(opts.reduceOp)));
  }
  c10::intrusive_ptr<Work> broadcast(std::vector<at::Tensor>& tensors, const BroadcastOptions& opts = {}) {
    TORCH_CHECK(tensors.size() == 1, "MPI process group only supports a single tensor op (got ", tensors.size(), ")");
    return c10::make_intrusive<Work>(pg_->broadcast_async(tensors[0], static_cast<int>(opts.rootRank)));
  }
  c10::intrusive_ptr<Work> allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                     std::vector<at::Tensor>& inputTensors, const AllgatherOptions& = {}) {
    TORCH_CHECK(inputTensors.size() == 1 && outputTensors.size() == 1,
                "MPI process group only supports a single tensor op");
    return c10::make_intrusive<Work>(pg_->all_gather_async(outputTensors[0], inputTensors[0]));
  }
  c10::intrusive_ptr<Work> barrier(const BarrierOptions& = {}) {
    return c10::make_intrusive<Work>(pg_->barrier_async());
  }

 private:
  static ember::distributed::ReduceOp to_ember(ReduceOp op) {
    switch (op) {
      case ReduceOp::AVG: return ember::distributed::ReduceOp::AVG;
      case ReduceOp::MAX: return ember::distributed::ReduceOp::MAX;
      case ReduceOp::MIN: return ember::distributed::ReduceOp::MIN;
      default: return ember::distributed::ReduceOp::SUM;
    }
  }
  std::shared_ptr<ember::distributed::ProcessGroup> pg_;
};

}  // namespace c10d
