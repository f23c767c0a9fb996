// A libtorch program for c10d's MPI backend, built against Ember's <torch/...> headers and run by
// ctest as `mpirun -np 2 --oversubscribe mpi_allreduce`. Rank r contributes (r + 1) * [1, 2, 3];
// with 2 ranks the sum is [3, 6, 9] and the max [2, 4, 6]. Exits 1 on a mismatch.
#include <iostream>

#include <torch/csrc/distributed/c10d/ProcessGroupMPI.hpp>
#include <torch/torch.h>

int main() {
  auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
  const int rank = pg->getRank(), size = pg->getSize();
  const double scale = size * (size + 1) / 2.0;
  std::vector<at::Tensor> tensors = {torch::tensor({1.0, 2.0, 3.0}) * (rank + 1)};
  auto work = pg->allreduce(tensors);
  work->wait();
  bool ok = torch::allclose(tensors[0], torch::tensor({1.0, 2.0, 3.0}) * scale);

  c10d::AllreduceOptions max_opts;
  max_opts.reduceOp = c10d::ReduceOp::MAX;
  std::vector<at::Tensor> maxed = {torch::tensor({1.0, 2.0, 3.0}) * (rank + 1)};
  pg->allreduce(maxed, max_opts)->wait();
  ok = ok && torch::allclose(maxed[0], torch::tensor({1.0, 2.0, 3.0}) * size);

  std::vector<at::Tensor> root = {torch::full({2}, static_cast<double>(rank))};
  c10d::BroadcastOptions from_last;
  from_last.rootRank = size - 1;
  pg->broadcast(root, from_last)->wait();
  ok = ok && torch::allclose(root[0], torch::full({2}, static_cast<double>(size - 1)));
  pg->barrier()->wait();
  std::cout << "rank " << rank << " of " << size << ": sum " << tensors[0] << " max " << maxed[0]
            << (ok ? " OK" : " MISMATCH") << std::endl;
  return ok ? 0 : 1;
}
