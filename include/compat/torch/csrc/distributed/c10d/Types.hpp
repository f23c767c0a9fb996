// libtorch's <torch/csrc/distributed/c10d/Types.hpp> and Work.hpp, as far as Ember's backends need
// them: ReduceOp, the per-collective options, Work (a handle on an ember::distributed::Work), and
// c10::intrusive_ptr as std::shared_ptr. Shared by ProcessGroupMPI.hpp and ProcessGroupNCCL.hpp.
//
//   c10d::AllreduceOptions opts;
//   opts.reduceOp = c10d::ReduceOp::MAX;
//   pg->allreduce(tensors, opts)->wait();
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

struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

inline ember::distributed::ReduceOp to_ember(ReduceOp op) {
  switch (op) {
    case ReduceOp::AVG: return ember::distributed::ReduceOp::AVG;
    case ReduceOp::MAX: return ember::distributed::ReduceOp::MAX;
    case ReduceOp::MIN: return ember::distributed::ReduceOp::MIN;
    default: return ember::distributed::ReduceOp::SUM;
  }
}

}  // namespace c10d
