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

#include <torch/csrc/distributed/c10d/Types.hpp>

namespace c10d {

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
  std::shared_ptr<ember::distributed::ProcessGroup> pg_;
};

}  // namespace c10d
