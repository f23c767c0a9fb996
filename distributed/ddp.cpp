// DistributedDataParallel (distributed/ddp.h): buckets, the per-parameter hooks that launch them
// during backward, and the end-of-backward callback that writes averaged gradients back.
#include "distributed/ddp.h"

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"

namespace ember::nn::parallel {

namespace {

// Rank 0's values everywhere: one broadcast per dtype, of the tensors flattened together.
void broadcast_coalesced(distributed::ProcessGroup& pg, const std::vector<Tensor>& tensors) {
  NoGradGuard no_grad;
  for (ScalarType dtype : {kFloat32, kFloat64, kInt64}) {
    std::vector<Tensor> parts, same;
    for (const Tensor& t : tensors) {
      if (t.dtype() != dtype) continue;
      same.push_back(t);
      parts.push_back(t.reshape({-1}));
    }
    if (same.empty()) continue;
    Tensor flat = cat(parts).contiguous();
    pg.broadcast(flat, 0);
    int64_t offset = 0;
    for (Tensor t : same) {
      t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<Module> module,
                                                 std::shared_ptr<distributed::ProcessGroup> process_group,
                                                 DistributedDataParallelOptions options)
    : module_(std::move(module)),
      pg_(process_group ? std::move(process_group) : distributed::default_process_group()),
      options_(options),
      alive_(std::make_shared<bool>(true)) {
  EMBER_CHECK(module_, "DistributedDataParallel: got a null module");
  EMBER_CHECK(options_.bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive (got {})",
              options_.bucket_cap_mb);
  // A shared (tied) parameter appears once.
  for (const auto& item : module_->named_parameters()) {
    const Tensor& p = item.value();
    if (!p.requires_grad()) continue;
    bool seen = false;
    for (const Tensor& q : params_) seen = seen || q.unsafeGetTensorImpl() == p.unsafeGetTensorImpl();
    if (seen) continue;
    // One device for all, so each bucket lives there (CPU for gloo, the rank's GPU for nccl).
    EMBER_CHECK(params_.empty() || p.device() == params_[0].device(),
                "DistributedDataParallel: parameter '{}' is on {} but '{}' is on {}; put the module on one device",
                item.key(), p.device().str(), names_[0], params_[0].device().str());
    EMBER_CHECK(p.is_cpu() || pg_->backend() != "gloo",
                "DistributedDataParallel: parameter '{}' is on {}; the gloo backend reduces CPU tensors (use the "
                "nccl backend for CUDA parameters)",
                item.key(), p.device().str());
    params_.push_back(p);
    names_.push_back(item.key());
  }
  EMBER_CHECK(!params_.empty(), "DistributedDataParallel: the module has no parameter that requires grad");

  std::vector<Tensor> state = params_;
  if (options_.broadcast_buffers)
    for (const Tensor& b : module_->buffers()) state.push_back(b);
  broadcast_coalesced(*pg_, state);

  // Buckets, last parameter first, cut at the size cap or a change of dtype.
  const auto cap_bytes = static_cast<int64_t>(options_.bucket_cap_mb * 1024 * 1024);
  bucket_of_.assign(params_.size(), 0);
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k];
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    if (buckets_.empty() || buckets_.back().dtype != p.dtype() ||
        (buckets_.back().numel * static_cast<int64_t>(p.element_size()) + bytes > cap_bytes &&
         !buckets_.back().params.empty())) {
      buckets_.emplace_back();
      buckets_.back().dtype = p.dtype();
    }
    buckets_.back().params.push_back(k);
    buckets_.back().numel += p.numel();
    bucket_of_[k] = buckets_.size() - 1;
  }
  reset_for_backward();

  for (size_t k = 0; k < params_.size(); ++k) {
    autograd::register_post_accumulate_grad_hook(params_[k], [this, k, alive = alive_](const Tensor&) {
      if (*alive) on_grad_ready(k);
    });
  }
}

DistributedDataParallel::~DistributedDataParallel() {
  *alive_ = false;
  for (Bucket& b : buckets_) {
    if (!b.work) continue;
    try {
      b.work->wait();
    } catch (...) {  // a destructor does not throw; the failure was reported to whoever waited
    }
  }
}

void DistributedDataParallel::reset_for_backward() {
  ready_.assign(params_.size(), false);
  for (Bucket& b : buckets_) {
    b.pending = b.params.size();
    b.work.reset();
    b.flat = Tensor();
  }
  next_bucket_ = 0;
  in_backward_ = false;
}

void DistributedDataParallel::on_grad_ready(size_t k) {
  if (!require_sync_) return;  // no_sync(): gradients just accumulate
  if (!in_backward_) {
    in_backward_ = true;
    autograd::queue_callback([this, alive = alive_] {
      if (*alive) finalize_backward();
    });
  }
  // The engine sums every path into one AccumulateGrad call per backward, so twice means a hook
  // started a second backward inside this one.
  EMBER_CHECK(!ready_[k], "DistributedDataParallel: parameter '{}' was marked ready twice in one backward pass",
              names_[k]);
  ready_[k] = true;
  Bucket& bucket = buckets_[bucket_of_[k]];
  if (--bucket.pending == 0) launch_ready_buckets();
}

void DistributedDataParallel::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) launch(buckets_[next_bucket_++]);
}

void DistributedDataParallel::launch(Bucket& bucket) {
  NoGradGuard no_grad;
  std::vector<Tensor> parts;
  parts.reserve(bucket.params.size());
  for (size_t k : bucket.params) {
    const Tensor& g = params_[k].grad();
    const auto options = TensorOptions().dtype(bucket.dtype).device(params_[k].device());
    parts.push_back(g.defined() ? g.reshape({-1}) : zeros({params_[k].numel()}, options));
  }
  bucket.flat = cat(parts).contiguous();
  bucket.work = pg_->all_reduce_async(bucket.flat, distributed::ReduceOp::SUM);
}

void DistributedDataParallel::finalize_backward() {
  std::vector<std::string> missing;
  for (size_t k = 0; k < params_.size(); ++k)
    if (!ready_[k]) missing.push_back(names_[k]);
  if (!missing.empty()) {
    if (!options_.find_unused_parameters) {
      // Wait for what was launched, so the group stays in step, then explain.
      for (Bucket& b : buckets_)
        if (b.work) b.work->wait();
      reset_for_backward();
      EMBER_FAIL(
          "DistributedDataParallel: rank {}: {} parameter(s) received no gradient in this backward, so their "
          "gradients cannot be averaged across ranks: {}. Either make every parameter take part in the loss, or "
          "construct DistributedDataParallel with find_unused_parameters = true.",
          pg_->rank(), missing.size(), fmt::join(missing, ", "));
    }
    for (size_t k = 0; k < params_.size(); ++k) {
      if (ready_[k]) continue;
      ready_[k] = true;
      --buckets_[bucket_of_[k]].pending;
    }
    launch_ready_buckets();
  }
  NoGradGuard no_grad;
  const double world = static_cast<double>(pg_->size());
  std::exception_ptr error;
  for (Bucket& bucket : buckets_) {
    try {
      bucket.work->wait();
    } catch (...) {
      if (!error) error = std::current_exception();
      continue;
    }
    int64_t offset = 0;
    for (size_t k : bucket.params) {
      Tensor& p = params_[k];
      Tensor averaged = bucket.flat.narrow(0, offset, p.numel()).view(p.sizes()).div(world);
      if (p.grad().defined()) {
        p.mutable_grad().copy_(averaged);
      } else {
        p.mutable_grad() = averaged.clone();
      }
      offset += p.numel();
    }
  }
  reset_for_backward();
  if (error) std::rethrow_exception(error);
}

}  // namespace ember::nn::parallel
