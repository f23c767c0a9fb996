// A libtorch program for c10d's NCCL backend, built against Ember's <torch/...> headers, one rank
// meeting itself through a FileStore. With a GPU and NCCL it checks allreduce (SUM, MAX), broadcast,
// allgather and reduce_scatter on CUDA tensors; without NCCL, or without a GPU, it checks that the
// constructor says why. Prints OK and exits 0, or prints MISMATCH and exits 1.
#include <unistd.h>

#include <iostream>
#include <string>

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/torch.h>

int main() {
  const std::string path = "/tmp/ember_nccl_compat_" + std::to_string(getpid());
  auto store = c10::make_intrusive<c10d::FileStore>(path, 1);
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = std::chrono::seconds(30);
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> pg;
  try {
    pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, 0, 1, options);
  } catch (const std::exception& e) {
    const std::string why = e.what();
#ifdef EMBER_WITH_NCCL
    const bool ok = !torch::cuda::is_available() && why.find("needs a CUDA GPU") != std::string::npos;
#else
    const bool ok = why.find("built without NCCL") != std::string::npos;
#endif
    std::cout << "ProcessGroupNCCL: " << why << (ok ? "\nOK (no nccl backend here)" : "\nMISMATCH") << std::endl;
    return ok ? 0 : 1;
  }
  const auto cuda = torch::TensorOptions().device(torch::kCUDA);
  std::vector<at::Tensor> tensors = {torch::tensor({1.0, 2.0, 3.0}).to(torch::kCUDA)};
  pg->allreduce(tensors)->wait();
  bool ok = torch::allclose(tensors[0].cpu(), torch::tensor({1.0, 2.0, 3.0}));
  c10d::AllreduceOptions max_opts;
  max_opts.reduceOp = c10d::ReduceOp::MAX;
  pg->allreduce(tensors, max_opts)->wait();
  ok = ok && torch::allclose(tensors[0].cpu(), torch::tensor({1.0, 2.0, 3.0}));
  pg->broadcast(tensors)->wait();
  std::vector<std::vector<at::Tensor>> gathered = {{torch::zeros({3}, cuda)}};
  pg->allgather(gathered, tensors)->wait();
  ok = ok && torch::allclose(gathered[0][0].cpu(), torch::tensor({1.0, 2.0, 3.0}));
  std::vector<at::Tensor> scattered = {torch::zeros({3}, cuda)};
  std::vector<std::vector<at::Tensor>> inputs = {{tensors[0]}};
  pg->reduce_scatter(scattered, inputs)->wait();
  ok = ok && torch::allclose(scattered[0].cpu(), torch::tensor({1.0, 2.0, 3.0}));
  pg->barrier()->wait();
  std::cout << "rank " << pg->getRank() << " of " << pg->getSize() << " on the GPU: " << (ok ? "OK" : "MISMATCH")
            << std::endl;
  return ok ? 0 : 1;
}
