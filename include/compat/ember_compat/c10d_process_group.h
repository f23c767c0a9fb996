// What c10d's process groups share on Ember (ProcessGroupMPI.hpp, ProcessGroupNCCL.hpp): rank, size
// and the collectives over an ember::distributed::ProcessGroup, one tensor per call as c10d's
// one-device-per-process form takes them. A backend's class derives from it, makes its group, and says
// how it refuses a list of several tensors (single()).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/distributed/c10d/Types.hpp>

namespace c10d::compat_detail {

class EmberProcessGroup {
 public:
  virtual ~EmberProcessGroup() = default;

  int getRank() const { return pg_->rank(); }
  int getSize() const { return pg_->size(); }
  const std::string getBackendName() const { return backend_; }

  c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors, const AllreduceOptions& opts = {}) {
    return c10::make_intrusive<Work>(pg_->all_reduce_async(single("allreduce", tensors), to_ember(opts.reduceOp)));
  }
  c10::intrusive_ptr<Work> broadcast(std::vector<at::Tensor>& tensors, const BroadcastOptions& opts = {}) {
    return c10::make_intrusive<Work>(
        pg_->broadcast_async(single("broadcast", tensors), static_cast<int>(opts.rootRank)));
  }
  c10::intrusive_ptr<Work> allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                     std::vector<at::Tensor>& inputTensors, const AllgatherOptions& = {}) {
    TORCH_CHECK(outputTensors.size() == 1, "allgather: Ember's ", backend_, " backend takes one output list (got ",
                outputTensors.size(), ")");
    return c10::make_intrusive<Work>(pg_->all_gather_async(outputTensors[0], single("allgather", inputTensors)));
  }
  c10::intrusive_ptr<Work> reduce_scatter(std::vector<at::Tensor>& outputTensors,
                                          std::vector<std::vector<at::Tensor>>& inputTensors,
                                          const ReduceScatterOptions& opts = {}) {
    TORCH_CHECK(inputTensors.size() == 1, "reduce_scatter: Ember's ", backend_, " backend takes one input list (got ",
                inputTensors.size(), ")");
    return c10::make_intrusive<Work>(
        pg_->reduce_scatter_async(single("reduce_scatter", outputTensors), inputTensors[0], to_ember(opts.reduceOp)));
  }
  c10::intrusive_ptr<Work> barrier(const BarrierOptions& = {}) {
    return c10::make_intrusive<Work>(pg_->barrier_async());
  }

 protected:
  EmberProcessGroup(std::shared_ptr<ember::distributed::ProcessGroup> pg, std::string backend)
      : pg_(std::move(pg)), backend_(std::move(backend)) {}
  // tensors[0], or the backend's error for a list of another length.
  virtual at::Tensor& single(const char* op, std::vector<at::Tensor>& tensors) const = 0;

 private:
  std::shared_ptr<ember::distributed::ProcessGroup> pg_;
  std::string backend_;
};

}  // namespace c10d::compat_detail
