// A libtorch program for c10d's MPI backend, built against Ember's <torch/...> headers and run by
// ctest as `mpirun -np 2 --oversubscribe mpi_allreduce`. Rank r contributes (r + 1) * [1, 2, 3];
// with 2 ranks the sum is [3, 6, 9] and the max [2, 4, 6]; then broadcast, allgather, reduce_scatter
// and the refusal of a two-tensor list. Exits 1 on a mismatch.
#include <iostream>
#include <string>

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

  // allgather: every rank's (rank + 1), in rank order.
  std::vector<std::vector<at::Tensor>> gathered(1);
  for (int r = 0; r < size; ++r) gathered[0].push_back(torch::zeros({1}));
  std::vector<at::Tensor> mine = {torch::full({1}, rank + 1.0)};
  pg->allgather(gathered, mine)->wait();
  for (int r = 0; r < size; ++r) ok = ok && gathered[0][r].item<double>() == r + 1;

  // reduce_scatter: rank r receives the sum over ranks q of their r-th input, (q + 1) * (r + 1).
  std::vector<at::Tensor> scattered = {torch::zeros({1})};
  std::vector<std::vector<at::Tensor>> inputs(1);
  for (int r = 0; r < size; ++r) inputs[0].push_back(torch::full({1}, (rank + 1.0) * (r + 1)));
  pg->reduce_scatter(scattered, inputs)->wait();
  ok = ok && scattered[0].item<double>() == scale * (rank + 1);

  // Two tensors in one call: c10d's MPI message, before any communication.
  std::vector<at::Tensor> two = {torch::ones({1}), torch::ones({1})};
  try {
    pg->allreduce(two);
    ok = false;
  } catch (const c10::Error& e) {
    ok = ok &&
         std::string(e.what()).find("MPI process group only supports a single tensor op (got 2)") != std::string::npos;
  }
  pg->barrier()->wait();
  std::cout << "rank " << rank << " of " << size << ": sum " << tensors[0] << " max " << maxed[0]
            << (ok ? " OK" : " MISMATCH") << std::endl;
  return ok ? 0 : 1;
}
