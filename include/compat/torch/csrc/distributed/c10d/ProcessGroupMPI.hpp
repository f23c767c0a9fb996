// libtorch's <torch/csrc/distributed/c10d/ProcessGroupMPI.hpp> on Ember's mpi backend
// (ember::distributed::make_mpi_process_group), for programs run under mpirun:
//
//   auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
//   std::vector<at::Tensor> tensors = {torch::ones({4})};
//   auto work = pg->allreduce(tensors);   // SUM over the ranks, in place
//   work->wait();
//
// The part of c10d's API that maps (ember_compat/c10d_process_group.h): getRank, getSize, allreduce,
// broadcast, allgather, reduce_scatter, barrier, each taking one tensor per call as c10d's CPU
// backends do. c10::intrusive_ptr is std::shared_ptr.
#pragma once

#include <torch/csrc/distributed/c10d/Types.hpp>

#include "ember_compat/c10d_process_group.h"

namespace c10d {

class ProcessGroupMPI : public compat_detail::EmberProcessGroup {
 public:
  explicit ProcessGroupMPI(std::shared_ptr<ember::distributed::ProcessGroup> pg)
      : EmberProcessGroup(std::move(pg), "mpi") {}

  static c10::intrusive_ptr<ProcessGroupMPI> createProcessGroupMPI(std::vector<int> ranks = {}) {
    TORCH_CHECK(ranks.empty(), "createProcessGroupMPI: Ember's mpi backend uses MPI_COMM_WORLD; pass no ranks");
    return c10::make_intrusive<ProcessGroupMPI>(ember::distributed::make_mpi_process_group());
  }

 private:
  at::Tensor& single(const char*, std::vector<at::Tensor>& tensors) const override {
    TORCH_CHECK(tensors.size() == 1, "MPI process group only supports a single tensor op (got ", tensors.size(), ")");
    return tensors[0];
  }
};

}  // namespace c10d
