// The Gloo backend: a gloo::rendezvous::Context connected through the store, one background thread
// that runs the collectives in the order they were issued, and Gloo's algorithms on tensor memory.
// Each collective gets the next tag (the same sequence on every rank), and Gloo's own timeout; a
// gloo::Exception becomes an ember::Error naming the op, the rank and the timeout.
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "distributed/process_group.h"

namespace ember::distributed {
namespace {

// Our Store seen as Gloo's, for connectFullMesh.
class GlooStoreAdapter final : public gloo::rendezvous::Store {
 public:
  explicit GlooStoreAdapter(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override { store_->set(key, data); }
  std::vector<char> get(const std::string& key) override { return store_->get(key); }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys, store_->timeout()); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

class GlooWork final : public Work {
 public:
  void wait() override {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return done_; });
    if (error_) std::rethrow_exception(error_);
  }
  bool is_completed() const override {
    std::lock_guard lock(mutex_);
    return done_;
  }
  void finish(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    done_ = true;
    error_ = error;
    done_cv_.notify_all();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

void check_tensor(const char* op, const Tensor& t) {
  EMBER_CHECK(t.defined(), "{}: got an undefined tensor", op);
  EMBER_CHECK(t.is_cpu(), "{}: the gloo backend takes CPU tensors (got one on {})", op, t.device().str());
  EMBER_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64 || t.dtype() == kInt64,
              "{}: the gloo backend takes float32, float64 and int64 tensors (got {})", op, dtype_name(t.dtype()));
  EMBER_CHECK(t.is_contiguous(), "{}: the tensor must be contiguous (shape {}, strides {}); call .contiguous()", op,
              t.sizes(), t.strides());
}

// Calls f.template operator()<T>() for the tensor's element type.
template <typename F>
void dispatch(ScalarType t, F&& f) {
  switch (t) {
    case kFloat32:
      f.template operator()<float>();
      return;
    case kFloat64:
      f.template operator()<double>();
      return;
    case kInt64:
      f.template operator()<int64_t>();
      return;
    default:
      EMBER_FAIL("gloo: unsupported dtype {}", dtype_name(t));
  }
}

template <typename T>
gloo::AllreduceOptions::Func reduce_function(ReduceOp op) {
  using Fn = void (*)(void*, const void*, const void*, size_t);
  switch (op) {
    case ReduceOp::MAX:
      return static_cast<Fn>(&gloo::max<T>);
    case ReduceOp::MIN:
      return static_cast<Fn>(&gloo::min<T>);
    default:
      return static_cast<Fn>(&gloo::sum<T>);  // AVG: sum, then divide
  }
}

void check_avg(const char* op, ReduceOp rop, const Tensor& t) {
  EMBER_CHECK(rop != ReduceOp::AVG || t.is_floating_point(),
              "{}: ReduceOp::AVG needs a floating-point tensor (got int64); use SUM and divide", op);
}

// A rank that dies closes its sockets, and Gloo's next write to one raises SIGPIPE, whose default
// action ends this process without a word (the test of a rank that exits saw a peer die so, under
// load). With SIGPIPE ignored the write fails with EPIPE, and the collective throws an error naming
// the op and the rank, as it does for PyTorch under Python (which ignores SIGPIPE at start-up). A
// handler or disposition the program set itself is left alone.
void ignore_sigpipe_unless_handled() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
      (current.sa_flags & SA_SIGINFO) == 0)
    signal(SIGPIPE, SIG_IGN);
}

class GlooProcessGroup final : public ProcessGroup {
 public:
  GlooProcessGroup(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout)
      : rank_(rank), size_(size), timeout_(timeout) {
    EMBER_CHECK(size >= 1 && rank >= 0 && rank < size,
                "init_process_group: rank {} is not in [0, world_size) with world_size {}", rank, size);
    ignore_sigpipe_unless_handled();
    gloo::transport::tcp::attr attr;
    if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface) {
      attr.iface = iface;
    } else if (const char* host = std::getenv("EMBER_SOCKET_HOST"); host && *host) {
      attr.hostname = host;
    } else {
      attr.hostname = "127.0.0.1";
    }
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    GlooStoreAdapter adapter(store);
    try {
      context->connectFullMesh(adapter, device);
    } catch (const std::exception& e) {
      EMBER_FAIL("init_process_group: rank {} of {} could not connect to the other ranks within {} ms: {}", rank, size,
                 timeout.count(), e.what());
    }
    context_ = context;
    store_ = std::move(store);  // kept: other ranks may still be reading their peers' addresses from it
    thread_ = std::thread([this] { run(); });
  }

  ~GlooProcessGroup() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      queue_cv_.notify_all();
    }
    thread_.join();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "gloo"; }

  std::shared_ptr<Work> all_reduce_async(Tensor tensor, ReduceOp op) override {
    check_tensor("all_reduce", tensor);
    check_avg("all_reduce", op, tensor);
    return enqueue("all_reduce", [this, tensor, op](uint32_t tag) mutable {
      dispatch(tensor.dtype(), [&]<typename T>() {
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(tensor.data_ptr<T>(), static_cast<size_t>(tensor.numel()));
        opts.setReduceFunction(reduce_function<T>(op));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
      });
      if (op == ReduceOp::AVG) tensor.div_(static_cast<double>(size_));
    });
  }

  std::shared_ptr<Work> broadcast_async(Tensor tensor, int root) override {
    check_tensor("broadcast", tensor);
    EMBER_CHECK(root >= 0 && root < size_, "broadcast: root {} is not a rank of this group of {}", root, size_);
    return enqueue("broadcast", [this, tensor, root](uint32_t tag) {
      dispatch(tensor.dtype(), [&]<typename T>() {
        gloo::BroadcastOptions opts(context_);
        if (rank_ == root) opts.setInput(tensor.data_ptr<T>(), static_cast<size_t>(tensor.numel()));
        opts.setOutput(tensor.data_ptr<T>(), static_cast<size_t>(tensor.numel()));
        opts.setRoot(root);
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::broadcast(opts);
      });
    });
  }

  std::shared_ptr<Work> all_gather_async(std::vector<Tensor> outputs, Tensor input) override {
    check_tensor("all_gather", input);
    EMBER_CHECK(static_cast<int>(outputs.size()) == size_, "all_gather: needs one output tensor per rank ({}), got {}",
                size_, outputs.size());
    for (const Tensor& out : outputs) {
      check_tensor("all_gather", out);
      EMBER_CHECK(out.sizes() == input.sizes() && out.dtype() == input.dtype(),
                  "all_gather: every output must have the input's shape {} and dtype {} (got {} {})", input.sizes(),
                  dtype_name(input.dtype()), out.sizes(), dtype_name(out.dtype()));
    }
    return enqueue("all_gather", [this, outputs, input](uint32_t tag) mutable {
      Tensor flat = empty({size_ * input.numel()}, TensorOptions().dtype(input.dtype()));
      dispatch(input.dtype(), [&]<typename T>() {
        gloo::AllgatherOptions opts(context_);
        opts.setInput(input.data_ptr<T>(), static_cast<size_t>(input.numel()));
        opts.setOutput(flat.data_ptr<T>(), static_cast<size_t>(flat.numel()));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allgather(opts);
      });
      for (int r = 0; r < size_; ++r)
        outputs[r].copy_(flat.narrow(0, r * input.numel(), input.numel()).view(input.sizes()));
    });
  }

  std::shared_ptr<Work> reduce_scatter_async(Tensor output, std::vector<Tensor> inputs, ReduceOp op) override {
    check_tensor("reduce_scatter", output);
    check_avg("reduce_scatter", op, output);
    EMBER_CHECK(static_cast<int>(inputs.size()) == size_,
                "reduce_scatter: needs one input tensor per rank ({}), got {}", size_, inputs.size());
    for (const Tensor& in : inputs) {
      check_tensor("reduce_scatter", in);
      EMBER_CHECK(in.sizes() == output.sizes() && in.dtype() == output.dtype(),
                  "reduce_scatter: every input must have the output's shape {} and dtype {} (got {} {})",
                  output.sizes(), dtype_name(output.dtype()), in.sizes(), dtype_name(in.dtype()));
    }
    // Gloo's allreduce over the blocks of every rank, keeping this rank's block. (Gloo's
    // ReduceScatterHalvingDoubling was tried first; for 3 and 4 ranks it left blocks partly reduced.)
    return enqueue("reduce_scatter", [this, output, inputs, op](uint32_t tag) mutable {
      std::vector<Tensor> flat_parts;
      for (const Tensor& in : inputs) flat_parts.push_back(in.reshape({-1}));
      Tensor flat = cat(flat_parts).contiguous();
      const int64_t n = output.numel();
      dispatch(output.dtype(), [&]<typename T>() {
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(flat.data_ptr<T>(), static_cast<size_t>(flat.numel()));
        opts.setReduceFunction(reduce_function<T>(op));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
      });
      output.copy_(flat.narrow(0, rank_ * n, n).view(output.sizes()));
      if (op == ReduceOp::AVG) output.div_(static_cast<double>(size_));
    });
  }

  std::shared_ptr<Work> barrier_async() override {
    return enqueue("barrier", [this](uint32_t tag) {
      gloo::BarrierOptions opts(context_);
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

 private:
  struct Job {
    std::string op;
    std::function<void(uint32_t)> body;
    std::shared_ptr<GlooWork> work;
  };

  std::shared_ptr<Work> enqueue(const char* op, std::function<void(uint32_t)> body) {
    auto work = std::make_shared<GlooWork>();
    std::lock_guard lock(mutex_);
    EMBER_CHECK(!broken_.has_value(),
                "{}: rank {} of {}: the process group is unusable after an earlier collective failed ({})", op, rank_,
                size_, broken_.value_or(""));
    queue_.push_back({op, std::move(body), work});
    queue_cv_.notify_all();
    return work;
  }

  void run() {
    NoGradGuard no_grad;  // collectives write into parameters and gradients
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        queue_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      std::exception_ptr error;
      try {
        job.body(next_tag_++);
      } catch (const gloo::Exception& e) {
        const std::string message = fmt::format(
            "{}: rank {} of {} failed (timeout {} ms): {}. A peer rank may have exited or stopped "
            "calling the same collectives in the same order.",
            job.op, rank_, size_, timeout_.count(), e.what());
        {
          std::lock_guard lock(mutex_);
          broken_ = message;
        }
        error = std::make_exception_ptr(Error(message));
      } catch (...) {
        error = std::current_exception();
      }
      job.work->finish(error);
    }
  }

  int rank_, size_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::Context> context_;
  std::shared_ptr<Store> store_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable queue_cv_;
  std::deque<Job> queue_;
  bool stop_ = false;
  std::optional<std::string> broken_;
  uint32_t next_tag_ = 1;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_gloo_process_group(std::shared_ptr<Store> store, int rank, int world_size,
                                                      std::chrono::milliseconds timeout) {
  return std::make_shared<GlooProcessGroup>(std::move(store), rank, world_size, timeout);
}

}  // namespace ember::distributed
