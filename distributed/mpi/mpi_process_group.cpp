// The MPI backend (c10d's ProcessGroupMPI): MPI_COMM_WORLD as the group, started by mpirun. Each
// collective is the MPI call of the same name, run on the calling thread when issued, so its Work
// is already complete (c10d runs them on a worker thread; the order and results are the same).
// MPI has no per-call timeout: a dead peer is mpirun's to report. Built only when MPI is found.
#include <mpi.h>

#include "core/error.h"
#include "distributed/process_group.h"

namespace ember::distributed {
namespace {

class DoneWork final : public Work {
 public:
  void wait() override {}
  bool is_completed() const override { return true; }
};

MPI_Datatype mpi_type(const char* op, const Tensor& t) {
  EMBER_CHECK(t.defined() && t.is_cpu() && t.is_contiguous(), "{} (mpi): needs a defined, contiguous CPU tensor", op);
  switch (t.dtype()) {
    case kFloat32:
      return MPI_FLOAT;
    case kFloat64:
      return MPI_DOUBLE;
    case kInt64:
      return MPI_INT64_T;
    default:
      EMBER_FAIL("{} (mpi): takes float32, float64 and int64 tensors (got {})", op, dtype_name(t.dtype()));
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::MAX:
      return MPI_MAX;
    case ReduceOp::MIN:
      return MPI_MIN;
    default:
      return MPI_SUM;  // AVG: sum, then divide
  }
}

void check(int rc, const char* op) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  EMBER_FAIL("{} (mpi): {}", op, std::string(text, static_cast<size_t>(len)));
}

class MpiProcessGroup final : public ProcessGroup {
 public:
  MpiProcessGroup() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "createProcessGroupMPI");
      owns_mpi_ = true;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiProcessGroup() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owns_mpi_ && !finalized) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }

  std::shared_ptr<Work> all_reduce_async(Tensor t, ReduceOp op) override {
    MPI_Datatype type = mpi_type("all_reduce", t);
    EMBER_CHECK(op != ReduceOp::AVG || t.is_floating_point(), "all_reduce (mpi): AVG needs a floating-point tensor");
    check(MPI_Allreduce(MPI_IN_PLACE, t.raw_data_ptr(), static_cast<int>(t.numel()), type, mpi_op(op), MPI_COMM_WORLD),
          "all_reduce");
    if (op == ReduceOp::AVG) t.div_(static_cast<double>(size_));
    return std::make_shared<DoneWork>();
  }
  std::shared_ptr<Work> broadcast_async(Tensor t, int root) override {
    MPI_Datatype type = mpi_type("broadcast", t);
    check(MPI_Bcast(t.raw_data_ptr(), static_cast<int>(t.numel()), type, root, MPI_COMM_WORLD), "broadcast");
    return std::make_shared<DoneWork>();
  }
  std::shared_ptr<Work> all_gather_async(std::vector<Tensor> outputs, Tensor input) override {
    MPI_Datatype type = mpi_type("all_gather", input);
    EMBER_CHECK(static_cast<int>(outputs.size()) == size_, "all_gather (mpi): needs {} outputs, got {}", size_,
                outputs.size());
    Tensor flat = empty({size_ * input.numel()}, TensorOptions().dtype(input.dtype()));
    check(MPI_Allgather(input.raw_data_ptr(), static_cast<int>(input.numel()), type, flat.raw_data_ptr(),
                        static_cast<int>(input.numel()), type, MPI_COMM_WORLD),
          "all_gather");
    for (int r = 0; r < size_; ++r)
      outputs[r].copy_(flat.narrow(0, r * input.numel(), input.numel()).view(input.sizes()));
    return std::make_shared<DoneWork>();
  }
  std::shared_ptr<Work> reduce_scatter_async(Tensor output, std::vector<Tensor> inputs, ReduceOp op) override {
    MPI_Datatype type = mpi_type("reduce_scatter", output);
    EMBER_CHECK(static_cast<int>(inputs.size()) == size_, "reduce_scatter (mpi): needs {} inputs, got {}", size_,
                inputs.size());
    std::vector<Tensor> parts;
    for (const Tensor& in : inputs) parts.push_back(in.reshape({-1}));
    Tensor flat = cat(parts).contiguous();
    check(MPI_Reduce_scatter_block(flat.raw_data_ptr(), output.raw_data_ptr(), static_cast<int>(output.numel()), type,
                                   mpi_op(op), MPI_COMM_WORLD),
          "reduce_scatter");
    if (op == ReduceOp::AVG) output.div_(static_cast<double>(size_));
    return std::make_shared<DoneWork>();
  }
  std::shared_ptr<Work> barrier_async() override {
    check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
    return std::make_shared<DoneWork>();
  }

 private:
  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_mpi_process_group() { return std::make_shared<MpiProcessGroup>(); }

}  // namespace ember::distributed
