// The NCCL backend (c10d's ProcessGroupNCCL) for CUDA tensors: one NCCL communicator per group, on
// one GPU per rank (LOCAL_RANK's, else rank % device count), rendezvous through the same stores as
// Gloo (rank 0 makes the ncclUniqueId and sets it in the store; the others read it).
//
// Every collective is queued on the device's one stream (cuda::prepare), the stream every Ember
// kernel runs on, so it follows the kernels that wrote its tensors and precedes the ones that read
// them; its Work is a CUDA event recorded after it. That gives up c10d's overlap of communication
// with compute (c10d has a separate NCCL stream) for the caching allocator's one-stream safety.
// Work::wait() blocks the host until the event, polling ncclCommGetAsyncError; past the timeout,
// or on an NCCL error, the communicator is aborted (ncclCommAbort) and the error names the op.
// The communicator is non-blocking (ncclConfig_t::blocking = 0), so a rank that never joins makes
// ncclCommInitRankConfig time out too, instead of hanging.
// Compile-checked only: this file has not yet run on a GPU (docs/DISTRIBUTED.md).
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "cuda/cuda.h"
#include "cuda/cuda_backend.h"
#include "distributed/process_group.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;

ncclDataType_t nccl_type(const char* op, ScalarType dtype) {
  switch (dtype) {
    case kFloat32:
      return ncclFloat32;
    case kFloat64:
      return ncclFloat64;
    case kInt64:
      return ncclInt64;
    case kBFloat16:
      return ncclBfloat16;
    default:
      EMBER_FAIL("{}: the nccl backend takes float32, float64, bfloat16 and int64 tensors (got {})", op,
                 dtype_name(dtype));
  }
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::AVG:
      return ncclAvg;
    case ReduceOp::MAX:
      return ncclMax;
    case ReduceOp::MIN:
      return ncclMin;
    default:
      return ncclSum;
  }
}

// The communicator, shared by the group and its Works: a Work may outlive the group's last call.
class Communicator {
 public:
  Communicator(int rank, int size, Device device, std::chrono::milliseconds timeout)
      : rank(rank), size(size), device(device), timeout(timeout) {}
  ~Communicator() {
    if (!comm_) return;
    // Flush what was issued (bounded by the timeout), then free; abort when that fails.
    try {
      cuda::prepare(device);
      finish("destroy_process_group", ncclCommFinalize(comm_), Clock::now());
      ncclCommDestroy(comm_);
    } catch (...) {
      if (comm_) ncclCommAbort(comm_);
    }
  }

  // ncclCommInitRankConfig, non-blocking, waited for up to the timeout.
  void init(const ncclUniqueId& id) {
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const auto start = Clock::now();
    ncclComm_t comm = nullptr;
    const ncclResult_t r = ncclCommInitRankConfig(&comm, size, id, rank, &config);
    comm_ = comm;
    if (r != ncclSuccess && r != ncclInProgress)
      fail("init_process_group", fmt::format("ncclCommInitRankConfig failed: {}", describe(r)));
    finish("init_process_group", r, start);
  }

  // Checks the result of an NCCL call on the communicator: a non-blocking communicator may answer
  // ncclInProgress, and must then be polled until the call has been issued.
  void finish(const char* op, ncclResult_t r, Clock::time_point start) {
    if (r == ncclSuccess) return;
    if (r != ncclInProgress) fail(op, describe(r));
    wait_until(op, start, [] { return true; });
  }

  // Polls until done() holds and NCCL reports no call in progress, failing on an asynchronous
  // NCCL error or at the timeout (both abort the communicator).
  void wait_until(const char* op, Clock::time_point start, const std::function<bool()>& done) {
    for (;;) {
      ncclResult_t async = ncclSuccess;
      const ncclResult_t r = ncclCommGetAsyncError(comm_, &async);
      if (r != ncclSuccess) fail(op, fmt::format("ncclCommGetAsyncError failed: {}", describe(r)));
      if (async != ncclSuccess && async != ncclInProgress) fail(op, describe(async));
      if (async == ncclSuccess && done()) return;
      if (Clock::now() - start > timeout)
        fail(op, fmt::format("did not finish within the timeout of {} ms", timeout.count()));
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void check_usable(const char* op) {
    std::lock_guard lock(mutex_);
    EMBER_CHECK(!broken_.has_value(),
                "{}: rank {} of {}: the nccl process group is unusable after an earlier failure ({})", op, rank, size,
                broken_.value_or(""));
  }

  ncclComm_t get() const { return comm_; }

  const int rank, size;
  const Device device;
  const std::chrono::milliseconds timeout;

 private:
  std::string describe(ncclResult_t r) const {
    const char* last = comm_ ? ncclGetLastError(comm_) : nullptr;
    return fmt::format("{}{}{}", ncclGetErrorString(r), last && *last ? ": " : "", last ? last : "");
  }

  [[noreturn]] void fail(const char* op, const std::string& why) {
    const std::string message = fmt::format(
        "{}: rank {} of {} failed (nccl, timeout {} ms): {}. A peer rank may have exited or stopped calling the same "
        "collectives in the same order; the NCCL communicator was aborted.",
        op, rank, size, timeout.count(), why);
    {
      std::lock_guard lock(mutex_);
      if (!broken_) broken_ = message;
    }
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    throw Error(message);
  }

  ncclComm_t comm_ = nullptr;
  std::mutex mutex_;
  std::optional<std::string> broken_;
};

// A collective queued on the stream: done when the event recorded after it has passed.
class NcclWork final : public Work {
 public:
  NcclWork(std::shared_ptr<Communicator> comm, const char* op, cudaStream_t stream)
      : comm_(std::move(comm)), op_(op), start_(Clock::now()) {
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(event_, stream));
  }
  ~NcclWork() override { cudaEventDestroy(event_); }

  void wait() override {
    if (done_) return;
    comm_->check_usable(op_);
    comm_->wait_until(op_, start_, [this] { return event_passed(); });
    done_ = true;
  }
  bool is_completed() const override { return done_ || event_passed(); }

 private:
  bool event_passed() const {
    const cudaError_t e = cudaEventQuery(event_);
    if (e == cudaErrorNotReady) return false;
    EMBER_CUDA_CHECK(e);
    return true;
  }

  std::shared_ptr<Communicator> comm_;
  const char* op_;
  Clock::time_point start_;
  cudaEvent_t event_ = nullptr;
  bool done_ = false;
};

class NcclProcessGroup final : public ProcessGroup {
 public:
  NcclProcessGroup(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout) {
    EMBER_CHECK(size >= 1 && rank >= 0 && rank < size,
                "init_process_group: rank {} is not in [0, world_size) with world_size {}", rank, size);
    const int devices = cuda::device_count();
    EMBER_CHECK(devices > 0, "init_process_group: {}", kNcclNeedsAGpu);
    const char* local = std::getenv("LOCAL_RANK");
    const int index = (local && *local ? std::atoi(local) : rank) % devices;
    comm_ = std::make_shared<Communicator>(rank, size, Device(DeviceType::CUDA, index), timeout);
    cuda::prepare(comm_->device);

    const std::vector<char> bytes = exchange_unique_id(*store, rank, "nccl_unique_id", [] {
      ncclUniqueId id;
      const ncclResult_t r = ncclGetUniqueId(&id);
      EMBER_CHECK(r == ncclSuccess, "init_process_group: ncclGetUniqueId failed: {}", ncclGetErrorString(r));
      return std::vector<char>(id.internal, id.internal + sizeof id.internal);
    });
    ncclUniqueId id;
    EMBER_CHECK(bytes.size() == sizeof id.internal,
                "init_process_group: the NCCL unique id read from the store has {} bytes, not {} (another program "
                "wrote key 'nccl_unique_id'?)",
                bytes.size(), sizeof id.internal);
    std::memcpy(id.internal, bytes.data(), bytes.size());
    comm_->init(id);
    store_ = std::move(store);
  }

  int rank() const override { return comm_->rank; }
  int size() const override { return comm_->size; }
  std::string backend() const override { return "nccl"; }

  std::shared_ptr<Work> all_reduce_async(Tensor t, ReduceOp op) override {
    check_tensor("all_reduce", t);
    EMBER_CHECK(op != ReduceOp::AVG || t.is_floating_point(),
                "all_reduce: ReduceOp::AVG needs a floating-point tensor (got int64); use SUM and divide");
    return issue("all_reduce", [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclAllReduce(t.raw_data_ptr(), t.raw_data_ptr(), static_cast<size_t>(t.numel()),
                           nccl_type("all_reduce", t.dtype()), nccl_op(op), comm, stream);
    });
  }

  std::shared_ptr<Work> broadcast_async(Tensor t, int root) override {
    check_tensor("broadcast", t);
    EMBER_CHECK(root >= 0 && root < size(), "broadcast: root {} is not a rank of this group of {}", root, size());
    return issue("broadcast", [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclBroadcast(t.raw_data_ptr(), t.raw_data_ptr(), static_cast<size_t>(t.numel()),
                           nccl_type("broadcast", t.dtype()), root, comm, stream);
    });
  }

  std::shared_ptr<Work> all_gather_async(std::vector<Tensor> outputs, Tensor input) override {
    check_tensor("all_gather", input);
    check_list("all_gather", "output", outputs, input);
    NoGradGuard no_grad;
    const int64_t n = input.numel();
    Tensor flat = empty({size() * n}, TensorOptions().dtype(input.dtype()).device(comm_->device));
    return issue(
        "all_gather",
        [&](ncclComm_t comm, cudaStream_t stream) {
          return ncclAllGather(input.raw_data_ptr(), flat.raw_data_ptr(), static_cast<size_t>(n),
                               nccl_type("all_gather", input.dtype()), comm, stream);
        },
        [&] {  // queued on the same stream, so these copies follow the gather
          for (int q = 0; q < size(); ++q) outputs[q].copy_(flat.narrow(0, q * n, n).view(input.sizes()));
        });
  }

  std::shared_ptr<Work> reduce_scatter_async(Tensor output, std::vector<Tensor> inputs, ReduceOp op) override {
    check_tensor("reduce_scatter", output);
    check_list("reduce_scatter", "input", inputs, output);
    EMBER_CHECK(op != ReduceOp::AVG || output.is_floating_point(),
                "reduce_scatter: ReduceOp::AVG needs a floating-point tensor (got int64); use SUM and divide");
    NoGradGuard no_grad;
    std::vector<Tensor> parts;
    for (const Tensor& in : inputs) parts.push_back(in.reshape({-1}));
    Tensor flat = cat(parts).contiguous();
    return issue("reduce_scatter", [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclReduceScatter(flat.raw_data_ptr(), output.raw_data_ptr(), static_cast<size_t>(output.numel()),
                               nccl_type("reduce_scatter", output.dtype()), nccl_op(op), comm, stream);
    });
  }

  // As c10d: an all-reduce of one element; its wait() returns when every rank has reached it.
  std::shared_ptr<Work> barrier_async() override {
    Tensor one = ones({1}, TensorOptions().device(comm_->device));
    return all_reduce_async(one, ReduceOp::SUM);
  }

 private:
  void check_tensor(const char* op, const Tensor& t) const {
    EMBER_CHECK(t.defined(), "{}: got an undefined tensor", op);
    EMBER_CHECK(t.is_cuda(),
                "{}: the nccl backend takes CUDA tensors (got one on {}); use the gloo backend for CPU tensors", op,
                t.device().str());
    EMBER_CHECK(t.device() == comm_->device,
                "{}: this rank's nccl group is on {} (LOCAL_RANK's GPU) but the tensor is on {}; move it with "
                ".to({})",
                op, comm_->device.str(), t.device().str(), comm_->device.str());
    nccl_type(op, t.dtype());
    EMBER_CHECK(t.is_contiguous(), "{}: the tensor must be contiguous (shape {}, strides {}); call .contiguous()", op,
                t.sizes(), t.strides());
  }

  // One tensor per rank, each of `like`'s shape and dtype.
  void check_list(const char* op, const char* what, const std::vector<Tensor>& list, const Tensor& like) const {
    EMBER_CHECK(static_cast<int>(list.size()) == size(), "{}: needs one {} tensor per rank ({}), got {}", op, what,
                size(), list.size());
    for (const Tensor& t : list) {
      EMBER_CHECK(t.defined() && t.is_cuda(),
                  "{}: the nccl backend takes CUDA tensors (an {} is on {}); use the gloo backend for CPU tensors", op,
                  what, t.defined() ? t.device().str() : std::string("nothing"));
      EMBER_CHECK(t.sizes() == like.sizes() && t.dtype() == like.dtype(),
                  "{}: every {} must have shape {} and dtype {} (got {} {})", op, what, like.sizes(),
                  dtype_name(like.dtype()), t.sizes(), dtype_name(t.dtype()));
    }
  }

  // Queues `call` on the device's stream, then `after` (once NCCL has issued the call: a
  // non-blocking communicator may still be issuing it when `call` returns), and returns the Work
  // that waits for both.
  std::shared_ptr<Work> issue(const char* op, const std::function<ncclResult_t(ncclComm_t, cudaStream_t)>& call,
                              const std::function<void()>& after = {}) {
    comm_->check_usable(op);
    cudaStream_t stream = cuda::prepare(comm_->device);
    const auto start = Clock::now();
    comm_->finish(op, call(comm_->get(), stream), start);
    if (after) after();
    return std::make_shared<NcclWork>(comm_, op, stream);
  }

  std::shared_ptr<Communicator> comm_;
  std::shared_ptr<Store> store_;
};

}  // namespace

#ifndef EMBER_NCCL_PLUGIN_BUILD
std::shared_ptr<ProcessGroup> make_nccl_process_group(std::shared_ptr<Store> store, int rank, int world_size,
                                                      std::chrono::milliseconds timeout) {
  return std::make_shared<NcclProcessGroup>(std::move(store), rank, world_size, timeout);
}
#endif

}  // namespace ember::distributed

#ifdef EMBER_NCCL_PLUGIN_BUILD
// libember_nccl.so's one entry point (distributed/process_group.h's NcclPluginTable), loaded by
// make_nccl_process_group in libember_distributed (distributed/store.cpp).
extern "C" EMBER_CUDA_EXPORT const void* ember_nccl_plugin() {
  static const ember::distributed::NcclPluginTable table{
      ember::kPluginAbiVersion,
      [](std::shared_ptr<ember::distributed::Store> store, int rank, int world_size,
         std::chrono::milliseconds timeout) -> std::shared_ptr<ember::distributed::ProcessGroup> {
        return std::make_shared<ember::distributed::NcclProcessGroup>(std::move(store), rank, world_size, timeout);
      }};
  return &table;
}
#endif
