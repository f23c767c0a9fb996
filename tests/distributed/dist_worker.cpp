// One rank of the distributed tests (test_distributed.cpp starts several, directly or through
// ember-run). Reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT; argv[1] names the scenario.
// Checks its results itself against hand-computed values: prints "FAIL ..." and exits 1 on a
// mismatch, prints "OK <scenario> rank R" and exits 0 when everything held. EMBER_DIST_BACKEND=nccl
// runs the collectives scenario on CUDA tensors over the nccl backend (one GPU per rank:
// scripts/gpu_check.sh, on a machine with two GPUs or more).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "distributed/ddp.h"
#include "distributed/process_group.h"
#include "ember/ember.h"

using namespace ember;
namespace dist = ember::distributed;

namespace {

int failures = 0;
Device tensor_device = kCPU;  // where the collectives' tensors live: the rank's GPU under nccl

void expect_equal(const std::string& what, const Tensor& got, const Tensor& want, double atol = 0) {
  const Tensor g = got.cpu().to(kFloat64), w = want.cpu().to(kFloat64);
  const bool ok = got.sizes() == want.sizes() && allclose(g, w, 1e-6, atol);
  if (ok) return;
  ++failures;
  const double diff = (g - w).abs().max().item<double>();
  std::printf("FAIL rank %d: %s: largest difference %g; first values:\n", dist::get_rank(), what.c_str(), diff);
  std::cout << got.reshape({-1}).narrow(0, 0, std::min<int64_t>(6, got.numel())) << "\n"
            << want.reshape({-1}).narrow(0, 0, std::min<int64_t>(6, want.numel())) << std::endl;
}

// Rank r holds base * (r + 1) + r, with base = arange(n): every result below has a closed form.
void collectives() {
  auto pg = dist::default_process_group();
  const int R = pg->size(), r = pg->rank();
  const double sum_r = R * (R - 1) / 2.0, sum_r1 = R * (R + 1) / 2.0;
  for (ScalarType dtype : {kFloat32, kFloat64, kInt64}) {
    const auto opt = TensorOptions().dtype(dtype).device(tensor_device);
    const std::string dn(dtype_name(dtype));
    for (int64_t n : {1, 7, 1001}) {
      const Tensor base = arange(n, TensorOptions().dtype(kFloat64));
      auto mine = [&](int q) { return (base * (q + 1) + q).to(dtype).to(tensor_device); };
      const std::string tag = dn + " n=" + std::to_string(n);

      Tensor t = mine(r);
      pg->all_reduce(t, dist::ReduceOp::SUM);
      expect_equal("all_reduce SUM " + tag, t, base * sum_r1 + sum_r);
      t = mine(r);
      pg->all_reduce(t, dist::ReduceOp::MAX);
      expect_equal("all_reduce MAX " + tag, t, mine(R - 1));
      t = mine(r);
      pg->all_reduce(t, dist::ReduceOp::MIN);
      expect_equal("all_reduce MIN " + tag, t, mine(0));
      if (dtype != kInt64) {
        t = mine(r);
        pg->all_reduce_async(t, dist::ReduceOp::AVG)->wait();
        expect_equal("all_reduce AVG " + tag, t, (base * sum_r1 + sum_r) / R, 1e-5);
      }
      t = mine(r);
      pg->broadcast(t, R - 1);
      expect_equal("broadcast root " + std::to_string(R - 1) + " " + tag, t, mine(R - 1));

      std::vector<Tensor> gathered;
      for (int q = 0; q < R; ++q) gathered.push_back(zeros({n}, opt));
      pg->all_gather(gathered, mine(r));
      for (int q = 0; q < R; ++q) expect_equal("all_gather [" + std::to_string(q) + "] " + tag, gathered[q], mine(q));

      // Rank q's input block j is mine(q) + j; rank r receives op over q of block r.
      std::vector<Tensor> blocks;
      for (int j = 0; j < R; ++j) blocks.push_back((mine(r).cpu().to(kFloat64) + j).to(dtype).to(tensor_device));
      Tensor out = zeros({n}, opt);
      pg->reduce_scatter(out, blocks, dist::ReduceOp::SUM);
      expect_equal("reduce_scatter SUM " + tag, out, base * sum_r1 + sum_r + R * r);
      out = zeros({n}, opt);
      pg->reduce_scatter(out, blocks, dist::ReduceOp::MAX);
      expect_equal("reduce_scatter MAX " + tag, out, mine(R - 1).cpu().to(kFloat64) + r);
    }
  }
  pg->barrier();
  auto work = pg->barrier_async();
  work->wait();
  if (!work->is_completed()) {
    ++failures;
    std::printf("FAIL rank %d: barrier work not completed after wait()\n", r);
  }
}

// Rank 1 leaves at once; the others' next collective must fail within the timeout, naming it.
void early_exit() {
  auto pg = dist::default_process_group();
  pg->barrier();  // every rank connected
  if (pg->rank() == 1) std::_Exit(3);
  Tensor t = ones({4});
  try {
    pg->all_reduce(t);
    ++failures;
    std::printf("FAIL rank %d: all_reduce succeeded although rank 1 exited\n", pg->rank());
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    std::printf("caught: %s\n", msg.c_str());
    if (msg.find("all_reduce") == std::string::npos ||
        msg.find("rank " + std::to_string(pg->rank())) == std::string::npos) {
      ++failures;
      std::printf("FAIL: the error does not name the op and the rank\n");
    }
  }
}

// Rank 1 is alive but never joins the collective: the others give up after the timeout.
void stuck_rank() {
  auto pg = dist::default_process_group();
  pg->barrier();
  if (pg->rank() == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::_Exit(0);
  }
  Tensor t = ones({4});
  try {
    pg->all_reduce(t);
    ++failures;
    std::printf("FAIL rank %d: all_reduce succeeded although rank 1 never called it\n", pg->rank());
  } catch (const std::exception& e) {
    std::printf("caught: %s\n", e.what());
  }
  std::fflush(stdout);
  std::_Exit(failures ? 1 : 0);  // without waiting for rank 1 in the group's teardown
}

nn::GPTConfig tiny_gpt() {
  nn::GPTConfig c;
  c.vocab_size = 11;
  c.block_size = 8;
  c.n_layer = 1;
  c.n_head = 2;
  c.n_embd = 16;
  return c;
}

// The same global batch at every step on every rank: (rows, T) tokens.
std::pair<Tensor, Tensor> global_batch(int step, int64_t rows) {
  Generator g;
  g.manual_seed(1000 + step);
  Tensor data = randint(0, 11, {rows, 9}, g);
  return {data.narrow(1, 0, 8).contiguous(), data.narrow(1, 1, 8).contiguous()};
}

void compare_models(const std::string& what, nn::GPT& a, nn::GPT& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& item : pa) expect_equal(what + " " + item.key(), item.value(), pb[item.key()], 2e-5);
}

// 2 ranks x B rows (x accumulation micro-batches) against 1 process x (world * accum * B) rows.
void ddp_equivalence(int accumulation) {
  auto pg = dist::default_process_group();
  const int R = pg->size(), r = pg->rank();
  const int64_t B = 2, steps = 3;
  manual_seed(42 + r);  // different initial weights per rank: DDP must broadcast rank 0's
  nn::GPT model(tiny_gpt());
  nn::parallel::DistributedDataParallelOptions options;
  options.bucket_cap_mb = 0.01;  // several buckets for this small model
  nn::parallel::DistributedDataParallel ddp(model.ptr(), pg, options);
  if (ddp.bucket_count() < 2) {
    ++failures;
    std::printf("FAIL: expected several buckets, got %zu\n", ddp.bucket_count());
  }
  manual_seed(42);
  nn::GPT reference(tiny_gpt());  // rank 0's initial weights
  compare_models("after broadcast", model, reference);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.5));
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(0.5));
  for (int step = 0; step < steps; ++step) {
    auto [x, y] = global_batch(step, R * accumulation * B);
    opt.zero_grad();
    for (int micro = 0; micro < accumulation; ++micro) {
      // Rows of this rank's micro-batch: rank-major within each micro-step.
      const int64_t start = (micro * R + r) * B;
      Tensor xs = x.narrow(0, start, B), ys = y.narrow(0, start, B);
      if (micro + 1 < accumulation) {
        auto guard = ddp.no_sync();
        (std::get<1>(model->forward(xs, ys)) / accumulation).backward();
        // Local gradients only: the ranks' gradients must differ now.
        Tensor g = model->lm_head->weight.grad().contiguous();
        std::vector<Tensor> all{zeros_like(g), zeros_like(g)};
        pg->all_gather(all, g);
        if (allclose(all[0], all[1])) {
          ++failures;
          std::printf("FAIL: gradients equal across ranks inside no_sync (were they reduced?)\n");
        }
      } else {
        (std::get<1>(model->forward(xs, ys)) / accumulation).backward();
      }
    }
    opt.step();
    ref_opt.zero_grad();
    std::get<1>(reference->forward(x, y)).backward();
    ref_opt.step();
    compare_models("step " + std::to_string(step), model, reference);
  }
}

// A parameter outside the loss: a clear error by default, zeros with find_unused_parameters.
struct TwoHeads : nn::Module {
  TwoHeads() {
    used = register_module("used", nn::Linear(3, 2));
    unused = register_module("unused", nn::Linear(3, 2));
  }
  nn::Linear used{nullptr}, unused{nullptr};
};

void unused_parameters() {
  auto pg = dist::default_process_group();
  auto net = std::make_shared<TwoHeads>();
  {
    nn::parallel::DistributedDataParallel ddp(net, pg);
    try {
      net->used->forward(ones({4, 3})).sum().backward();
      ++failures;
      std::printf("FAIL: backward with an unused parameter did not throw\n");
    } catch (const std::exception& e) {
      const std::string msg = e.what();
      std::printf("caught: %s\n", msg.c_str());
      if (msg.find("unused.weight") == std::string::npos || msg.find("find_unused_parameters") == std::string::npos) {
        ++failures;
        std::printf("FAIL: the error does not name the parameter and the option\n");
      }
    }
  }
  net->zero_grad();
  nn::parallel::DistributedDataParallelOptions options;
  options.find_unused_parameters = true;
  nn::parallel::DistributedDataParallel ddp(net, pg, options);
  // Rank r's input is (r + 1) everywhere: d(sum(W x + b))/dW = 4 (r + 1) per element, averaged.
  net->used->forward(full({4, 3}, pg->rank() + 1.0)).sum().backward();
  const double mean_r1 = (pg->size() + 1) / 2.0;
  expect_equal("used.weight grad", net->used->weight.grad(), full({2, 3}, 4 * mean_r1));
  expect_equal("unused.weight grad", net->unused->weight.grad(), zeros({2, 3}));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  const int timeout_ms = argc > 2 ? std::atoi(argv[2]) : 30000;
  try {
    dist::InitOptions init;
    init.timeout = std::chrono::milliseconds(timeout_ms);
    const char* backend = std::getenv("EMBER_DIST_BACKEND");
    const std::string name = backend && *backend ? backend : "gloo";
    if (name == "nccl") {
      const char* local = std::getenv("LOCAL_RANK");
      tensor_device = Device(kCUDA, local ? std::atoi(local) : 0);
    }
    dist::init_process_group(name, init);
    if (scenario == "collectives")
      collectives();
    else if (scenario == "early_exit")
      early_exit();
    else if (scenario == "stuck")
      stuck_rank();
    else if (scenario == "ddp")
      ddp_equivalence(1);
    else if (scenario == "ddp_accumulation")
      ddp_equivalence(2);
    else if (scenario == "unused")
      unused_parameters();
    else if (scenario == "fail_rank1") {
      if (dist::get_rank() == 1) return 7;
      std::this_thread::sleep_for(std::chrono::seconds(60));  // ember-run must stop this rank
    } else {
      std::printf("unknown scenario '%s'\n", scenario.c_str());
      return 2;
    }
    dist::destroy_process_group();
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  if (failures) return 1;
  std::printf("OK %s\n", scenario.c_str());
  return 0;
}
