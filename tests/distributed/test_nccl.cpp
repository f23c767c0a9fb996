// The nccl backend where it can be checked without two GPUs: a build without NCCL and a machine
// without a GPU give clear errors (never a crash); the unique id goes through the store; on a
// machine with a GPU, one rank's collectives and DDP run for real (scripts/gpu_check.sh runs these).
#include <unistd.h>

#include <future>
#include <string>

#include <gtest/gtest.h>

#include "distributed/ddp.h"
#include "distributed/process_group.h"
#include "ember/ember.h"

namespace {

using namespace ember;
namespace dist = ember::distributed;

std::string fresh_dir(const std::string& name) {
  static int count = 0;
  const std::string dir =
      ::testing::TempDir() + "nccl_" + name + "_" + std::to_string(getpid()) + "_" + std::to_string(count++);
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  return dir;
}

// What init_process_group("nccl") says, or "" when it succeeded.
std::string init_nccl_error(const dist::InitOptions& options) {
  try {
    dist::init_process_group("nccl", options);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

dist::InitOptions one_rank(const std::string& dir) {
  dist::InitOptions o;
  o.init_method = "file://" + dir;
  o.rank = 0;
  o.world_size = 1;
  o.timeout = std::chrono::seconds(20);
  return o;
}

TEST(NcclBackend, UnavailableIsAClearErrorNotACrash) {
#ifdef EMBER_WITH_NCCL
  // Asked before init: with a GPU the init succeeds, and a skip would leave the default group set
  // for every later test of the process (the first hardware run failed two tests that way).
  if (cuda::device_count() > 0) GTEST_SKIP() << "a GPU is here: NcclBackend.OneRankOnTheGpu runs instead";
#endif
  const std::string error = init_nccl_error(one_rank(fresh_dir("init")));
#ifndef EMBER_WITH_NCCL
  EXPECT_NE(error.find("built without NCCL"), std::string::npos) << error;
  EXPECT_NE(error.find("use the gloo backend"), std::string::npos) << error;
#else
  EXPECT_NE(error.find("the nccl backend needs a CUDA GPU"), std::string::npos) << error;
  // Through the factory too, which a program may call with its own store.
  try {
    dist::make_nccl_process_group(dist::make_file_store(fresh_dir("factory")), 0, 1);
    ADD_FAILURE() << "make_nccl_process_group succeeded without a GPU";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("needs a CUDA GPU"), std::string::npos) << e.what();
  }
#endif
  EXPECT_FALSE(dist::is_initialized());
  // The failed init left nothing behind: gloo still initialises.
  dist::init_process_group("gloo", one_rank(fresh_dir("gloo")));
  EXPECT_EQ(dist::default_process_group()->backend(), "gloo");
  dist::destroy_process_group();
}

TEST(NcclBackend, UnknownBackendNamesTheKnownOnes) {
  try {
    dist::init_process_group("ncl", one_rank(fresh_dir("unknown")));
    ADD_FAILURE() << "init_process_group(\"ncl\") succeeded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("unknown backend 'ncl' (gloo, nccl or mpi)"), std::string::npos) << e.what();
  }
}

TEST(NcclBackend, UniqueIdGoesThroughTheStore) {
  const std::string dir = fresh_dir("id");
  std::vector<char> made(128);
  for (size_t i = 0; i < made.size(); ++i) made[i] = static_cast<char>(i * 37 + 11);
  // Rank 1 asks first and waits; rank 0 creates and sets; both end with rank 0's bytes.
  auto rank1 = std::async(std::launch::async, [&] {
    auto store = dist::make_file_store(dir);
    return dist::exchange_unique_id(*store, 1, "nccl_unique_id", [] {
      ADD_FAILURE() << "rank 1 created an id";
      return std::vector<char>(128, 0);
    });
  });
  int created = 0;
  auto store0 = dist::make_file_store(dir);
  const auto id0 = dist::exchange_unique_id(*store0, 0, "nccl_unique_id", [&] {
    ++created;
    return made;
  });
  EXPECT_EQ(created, 1);
  EXPECT_EQ(id0, made);
  EXPECT_EQ(rank1.get(), made);

  // No rank 0: the others wait out the store's timeout, then say which key never came.
  auto lonely = dist::make_file_store(fresh_dir("lonely"));
  lonely->set_timeout(std::chrono::milliseconds(300));
  try {
    dist::exchange_unique_id(*lonely, 1, "nccl_unique_id", [] { return std::vector<char>(); });
    ADD_FAILURE() << "rank 1 got an id that nobody set";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("'nccl_unique_id'"), std::string::npos) << e.what();
  }
}

#ifdef EMBER_WITH_NCCL
// One rank on a real GPU: NCCL's own code runs (world size 1 reduces to a copy, but every call,
// the store rendezvous, the events and the checks are the real ones).
TEST(NcclBackend, OneRankOnTheGpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(init_nccl_error(one_rank(fresh_dir("gpu"))), "");
  auto pg = dist::default_process_group();
  EXPECT_EQ(pg->backend(), "nccl");
  const Tensor base = arange(7, TensorOptions().dtype(kFloat32)) * 2 - 3;
  for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::MAX, dist::ReduceOp::MIN}) {
    Tensor t = base.to(kCUDA);
    auto work = pg->all_reduce_async(t, op);
    work->wait();
    EXPECT_TRUE(work->is_completed());
    EXPECT_TRUE(equal(t.cpu(), base));
  }
  Tensor b = base.to(kCUDA);
  pg->broadcast(b, 0);
  EXPECT_TRUE(equal(b.cpu(), base));
  std::vector<Tensor> gathered = {zeros({7}, TensorOptions().device(kCUDA))};
  pg->all_gather(gathered, base.to(kCUDA));
  EXPECT_TRUE(equal(gathered[0].cpu(), base));
  Tensor scattered = zeros({7}, TensorOptions().device(kCUDA));
  pg->reduce_scatter(scattered, {base.to(kCUDA)});
  EXPECT_TRUE(equal(scattered.cpu(), base));
  pg->barrier();
  try {
    Tensor cpu = base.clone();
    pg->all_reduce(cpu);
    ADD_FAILURE() << "all_reduce took a CPU tensor";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("all_reduce: the nccl backend takes CUDA tensors (got one on cpu); use the "
                                         "gloo backend"),
              std::string::npos)
        << e.what();
  }
  // DDP with CUDA parameters: with one rank, the averaged gradient is the local one.
  manual_seed(0);
  auto model = nn::Linear(5, 3);
  model->to(kCUDA);
  nn::parallel::DistributedDataParallel ddp(model.ptr());
  const Tensor x = randn({4, 5}).to(kCUDA);
  model->forward(x).pow(2).sum().backward();
  const Tensor want = (2 * model->forward(x)).t().matmul(x).detach();  // d/dW sum((xW^T+b)^2)
  EXPECT_TRUE(allclose(model->weight.grad().cpu(), want.cpu(), 1e-5, 1e-5));
  dist::destroy_process_group();
}
#endif

}  // namespace
