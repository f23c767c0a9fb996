// DistributedDataParallel: one model replica per process, gradients averaged across processes
// during backward, as torch.nn.parallel.DistributedDataParallel does.
//
//   ember::distributed::init_process_group("gloo");        // under ember-run / torchrun
//   auto model = ember::nn::GPT(config);
//   ember::nn::parallel::DistributedDataParallel ddp(model.ptr());  // rank 0's weights everywhere
//   auto loss = model->forward(x, y);  loss.backward();              // grads averaged across ranks
//   { auto guard = ddp.no_sync(); model->forward(x2, y2).backward(); }  // accumulate locally
//
// Parameters are grouped, last-registered first (the order backward usually reaches them), into
// buckets of about bucket_cap_mb of one dtype. A post-accumulate-grad hook on each parameter marks
// it ready; a bucket whose parameters are all ready is flattened and its all-reduce started on the
// group's thread while backward goes on (buckets start in index order, the same on every rank). A
// callback queued on the engine waits for every bucket and writes the averaged gradients back
// before backward() returns. CUDA parameters reduce over the nccl backend, where it was built (their
// buckets on the GPU; compile-checked only). Not here: gradient-as-bucket-view, static graphs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "nn/module.h"

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  double bucket_cap_mb = 25.0;
  // As PyTorch: off by default, and then a parameter that gets no gradient in a backward that
  // reduces is an error naming it; on: such parameters count as a zero gradient.
  bool find_unused_parameters = false;
  bool broadcast_buffers = true;  // rank 0's buffers at construction
};

class DistributedDataParallel {
 public:
  explicit DistributedDataParallel(std::shared_ptr<Module> module,
                                   std::shared_ptr<distributed::ProcessGroup> process_group = nullptr,
                                   DistributedDataParallelOptions options = {});
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  const std::shared_ptr<Module>& module() const { return module_; }
  const std::shared_ptr<distributed::ProcessGroup>& process_group() const { return pg_; }
  size_t bucket_count() const { return buckets_.size(); }

  // While the guard lives, backward accumulates gradients locally without communicating; the
  // next backward outside it averages the accumulated gradients.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallel& ddp) : ddp_(ddp), previous_(ddp.require_sync_) {
      ddp_.require_sync_ = false;
    }
    ~NoSyncGuard() { ddp_.require_sync_ = previous_; }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_
    ScalarType dtype = kFloat32;
    int64_t numel = 0;
    size_t pending = 0;  // parameters not ready yet in this backward
    Tensor flat;         // (numel,) the gradients, flattened, being all-reduced
    std::shared_ptr<distributed::Work> work;
  };

  void on_grad_ready(size_t param_index);
  void launch_ready_buckets();
  void launch(Bucket& bucket);
  void finalize_backward();
  void reset_for_backward();

  std::shared_ptr<Module> module_;
  std::shared_ptr<distributed::ProcessGroup> pg_;
  DistributedDataParallelOptions options_;
  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::vector<size_t> bucket_of_;  // param index -> bucket index
  std::vector<bool> ready_;
  std::vector<Bucket> buckets_;
  size_t next_bucket_ = 0;    // buckets launch in index order
  bool in_backward_ = false;  // a reducing backward is running (finalize queued)
  bool require_sync_ = true;
  std::shared_ptr<bool> alive_;  // the hooks outlive this object; they check it
};

}  // namespace ember::nn::parallel
