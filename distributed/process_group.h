// Collective communication between processes, mirroring torch.distributed / c10d on the Gloo backend.
//
//   ember::distributed::init_process_group("gloo");          // from MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
//   auto pg = ember::distributed::default_process_group();
//   auto t = ember::ones({4});
//   pg->all_reduce(t, ember::distributed::ReduceOp::SUM);   // every rank now holds world_size
//   auto work = pg->all_reduce_async(t);                     // runs on the group's thread
//   work->wait();                                            // throws if the collective failed or timed out
//
// CPU tensors of float32, float64 and int64, contiguous. Each collective runs Gloo's own algorithm
// (gloo::allreduce, broadcast, allgather, barrier; reduce_scatter is an allreduce that keeps one block) on one
// background thread per group, so collectives run in the order they were issued, on every rank.
// Every collective has a timeout; a peer that died or never came makes it fail with an error
// naming the op, this rank and the timeout. CUDA tensors go to the nccl backend, where it was built
// (make_nccl_process_group below). Not here: point-to-point send/recv.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace ember::distributed {

enum class ReduceOp { SUM, AVG, MAX, MIN };

inline constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(30);  // as c10d

// A key-value store the ranks meet through (gloo::rendezvous::Store underneath).
class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::vector<char>& value) = 0;
  virtual std::vector<char> get(const std::string& key) = 0;  // waits up to timeout() for the key
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds t) { timeout_ = t; }

 private:
  std::chrono::milliseconds timeout_ = std::chrono::seconds(300);
};

// Files in a directory shared by all ranks (gloo::rendezvous::FileStore).
std::shared_ptr<Store> make_file_store(const std::string& path);
// c10d's TCPStore: the rank with is_master serves the keys on host:port (on that address only), the
// others connect (retrying until `timeout`). Each connection proves it knows EMBER_STORE_SECRET when
// that is set; serving a non-loopback address without it throws unless EMBER_STORE_INSECURE=1
// (docs/DISTRIBUTED.md, "The rendezvous store's security").
std::shared_ptr<Store> make_tcp_store(const std::string& host, int port, bool is_master,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(300));

// The handle of a collective started with an _async call.
class Work {
 public:
  virtual ~Work() = default;
  // Blocks until the collective has finished; rethrows its error.
  virtual void wait() = 0;
  virtual bool is_completed() const = 0;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;

  // In place on every rank: tensor = op(tensor of every rank).
  virtual std::shared_ptr<Work> all_reduce_async(Tensor tensor, ReduceOp op = ReduceOp::SUM) = 0;
  // In place: every rank's tensor = root's tensor.
  virtual std::shared_ptr<Work> broadcast_async(Tensor tensor, int root = 0) = 0;
  // outputs[r] = rank r's input (outputs: size() tensors of input's shape, written).
  virtual std::shared_ptr<Work> all_gather_async(std::vector<Tensor> outputs, Tensor input) = 0;
  // output = op over ranks of inputs[rank()] (inputs: size() tensors of output's shape).
  virtual std::shared_ptr<Work> reduce_scatter_async(Tensor output, std::vector<Tensor> inputs,
                                                     ReduceOp op = ReduceOp::SUM) = 0;
  virtual std::shared_ptr<Work> barrier_async() = 0;

  // The synchronous forms: start, then wait.
  void all_reduce(Tensor tensor, ReduceOp op = ReduceOp::SUM) { all_reduce_async(tensor, op)->wait(); }
  void broadcast(Tensor tensor, int root = 0) { broadcast_async(tensor, root)->wait(); }
  void all_gather(std::vector<Tensor> outputs, Tensor input) { all_gather_async(outputs, input)->wait(); }
  void reduce_scatter(Tensor output, std::vector<Tensor> inputs, ReduceOp op = ReduceOp::SUM) {
    reduce_scatter_async(output, inputs, op)->wait();
  }
  void barrier() { barrier_async()->wait(); }
};

// The Gloo backend over TCP on `interface_host`'s address (loopback by default).
std::shared_ptr<ProcessGroup> make_gloo_process_group(std::shared_ptr<Store> store, int rank, int world_size,
                                                      std::chrono::milliseconds timeout = kDefaultTimeout);

// The MPI backend on MPI_COMM_WORLD (c10d's ProcessGroupMPI; run under mpirun). Throws in a build
// without MPI.
std::shared_ptr<ProcessGroup> make_mpi_process_group();

// The NCCL backend on this rank's GPU (LOCAL_RANK's, else rank % device count), for CUDA tensors
// (c10d's ProcessGroupNCCL). Built with the CUDA backend by nvcc when NCCL is found; elsewhere, and
// on a machine without a GPU, throws saying so. Compile-checked only: not yet run on a GPU.
std::shared_ptr<ProcessGroup> make_nccl_process_group(std::shared_ptr<Store> store, int rank, int world_size,
                                                      std::chrono::milliseconds timeout = kDefaultTimeout);

// What the nccl plugin (libember_nccl.so, in a build with the CUDA plugin: cuda/plugin.h) returns.
struct NcclPluginTable {
  uint32_t abi_version;  // kPluginAbiVersion (core/plugin.h)
  std::shared_ptr<ProcessGroup> (*make)(std::shared_ptr<Store> store, int rank, int world_size,
                                        std::chrono::milliseconds timeout);
};

inline constexpr const char* kNcclNeedsAGpu =
    "the nccl backend needs a CUDA GPU and this machine has none that CUDA can use (check nvidia-smi); use the "
    "gloo backend for CPU tensors";

// The rendezvous of a communicator's id (NCCL's ncclUniqueId): rank 0 calls create() and sets the
// bytes under `key`; every other rank reads them, waiting up to the store's timeout.
std::vector<char> exchange_unique_id(Store& store, int rank, const std::string& key,
                                     const std::function<std::vector<char>()>& create);

struct InitOptions {
  std::string init_method;  // "file:///path", "tcp://host:port", or empty: "env://"
  int rank = -1;            // -1: from RANK
  int world_size = -1;      // -1: from WORLD_SIZE
  std::chrono::milliseconds timeout = kDefaultTimeout;
};

// torch.distributed.init_process_group: makes the default group. backend: "gloo", or "nccl" / "mpi"
// where built.
// With env:// (the default), reads MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE as torchrun and
// ember-run set them.
void init_process_group(const std::string& backend, const InitOptions& options = {});
bool is_initialized();
std::shared_ptr<ProcessGroup> default_process_group();  // throws before init_process_group
void destroy_process_group();
int get_rank();
int get_world_size();

}  // namespace ember::distributed
