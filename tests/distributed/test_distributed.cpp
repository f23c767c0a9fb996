// ember::distributed with real processes on the loopback: dist_worker started once per rank
// (directly, or through ember-run), each checking its own results; here, their exit codes and
// output. Every run has a deadline, after which its processes are killed and the test fails.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>

namespace {

struct Rank {
  int status = -1;
  std::string output;
};

// A port per run, so runs never meet an earlier run's store. Below 32768, where Linux's ephemeral
// ports begin: a port up there can be held by any process's outgoing connection (a gloo pair of a
// test running beside this one), and the launcher test failed once with "Address already in use".
int next_port() {
  static std::atomic<int> port{20000 + static_cast<int>(getpid() % 1200) * 10};
  return port++;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Starts `world` workers with torchrun's variables; waits for all, killing them at the deadline.
// `secrets`: EMBER_STORE_SECRET of each rank (none: unset on every rank).
std::vector<Rank> run_ranks(const std::string& scenario, int world, int timeout_ms, double deadline_s = 60,
                            const std::vector<std::string>& secrets = {}) {
  const int port = next_port();
  std::vector<pid_t> pids;
  std::vector<std::string> outputs;
  for (int r = 0; r < world; ++r) {
    outputs.push_back(::testing::TempDir() + "dist_" + scenario + "_" + std::to_string(port) + "_" + std::to_string(r));
    pid_t pid = fork();
    if (pid == 0) {
      FILE* out = std::fopen(outputs.back().c_str(), "w");
      dup2(fileno(out), 1);
      dup2(fileno(out), 2);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("OMP_NUM_THREADS", "1", 1);
      if (secrets.empty())
        unsetenv("EMBER_STORE_SECRET");
      else
        setenv("EMBER_STORE_SECRET", secrets[r].c_str(), 1);
      const std::string timeout = std::to_string(timeout_ms);
      execl(EMBER_DIST_WORKER, EMBER_DIST_WORKER, scenario.c_str(), timeout.c_str(), nullptr);
      _exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<Rank> ranks(world);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
  int left = world;
  while (left > 0) {
    int status = 0;
    pid_t done = waitpid(-1, &status, WNOHANG);
    for (int r = 0; r < world; ++r)
      if (done > 0 && pids[r] == done) {
        ranks[r].status = status;
        --left;
      }
    if (done > 0) continue;
    if (std::chrono::steady_clock::now() > deadline) {
      for (int r = 0; r < world; ++r)
        if (ranks[r].status == -1) kill(pids[r], SIGKILL);
      ADD_FAILURE() << scenario << ": ranks still running after " << deadline_s << " s (a hang); killed";
      deadline_s = 1e9;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (int r = 0; r < world; ++r) {
    ranks[r].output = slurp(outputs[r]);
    std::remove(outputs[r].c_str());
  }
  return ranks;
}

// How a rank ended, for failure messages: "exit 3" or "killed by signal 13".
std::string ended(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

void expect_all_ok(const std::vector<Rank>& ranks, const std::string& scenario) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    EXPECT_TRUE(WIFEXITED(ranks[r].status) && WEXITSTATUS(ranks[r].status) == 0)
        << scenario << " rank " << r << " of " << ranks.size() << " failed (" << ended(ranks[r].status)
        << "); its output:\n"
        << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("OK " + scenario), std::string::npos) << ranks[r].output;
  }
}

TEST(Distributed, CollectivesTwoRanks) { expect_all_ok(run_ranks("collectives", 2, 20000), "collectives"); }
TEST(Distributed, CollectivesThreeRanks) { expect_all_ok(run_ranks("collectives", 3, 20000), "collectives"); }
TEST(Distributed, CollectivesFourRanks) { expect_all_ok(run_ranks("collectives", 4, 20000), "collectives"); }

// The store's handshake with a shared secret, in real ranks: the same secret everywhere works; a
// rank with another one is refused with the reason and cannot touch the store.
TEST(Distributed, CollectivesTwoRanksWithAStoreSecret) {
  const std::string secret = "b3c1f0e29a7d4c55e8f61a2b9d0c7e34";
  expect_all_ok(run_ranks("collectives", 2, 20000, 60, {secret, secret}), "collectives");
}

TEST(Distributed, RankWithAnotherStoreSecretIsRefused) {
  auto ranks = run_ranks("collectives", 2, 1500, 30, {"b3c1f0e29a7d4c55e8f61a2b9d0c7e34", "not-rank-0s-secret-0000"});
  EXPECT_EQ(WEXITSTATUS(ranks[1].status), 1) << ranks[1].output;
  EXPECT_NE(ranks[1].output.find("the server refused this rank's shared secret"), std::string::npos) << ranks[1].output;
  EXPECT_EQ(WEXITSTATUS(ranks[0].status), 1) << ranks[0].output;
  EXPECT_NE(ranks[0].output.find("could not connect to the other ranks within 1500 ms"), std::string::npos)
      << ranks[0].output;
}

TEST(Distributed, RankThatExitsMakesTheOthersFailWithinTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  auto ranks = run_ranks("early_exit", 3, 3000, 30);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(WEXITSTATUS(ranks[1].status), 3);
  for (int r : {0, 2}) {
    EXPECT_TRUE(WIFEXITED(ranks[r].status) && WEXITSTATUS(ranks[r].status) == 0)
        << "rank " << r << ": " << ended(ranks[r].status) << "; its output:\n"
        << ranks[r].output;
    EXPECT_NE(ranks[r].output.find("caught: all_reduce: rank " + std::to_string(r) + " of 3"), std::string::npos)
        << ranks[r].output;
  }
  EXPECT_LT(took, 20.0);
}

TEST(Distributed, RankThatNeverJoinsMakesTheOthersTimeOut) {
  const auto start = std::chrono::steady_clock::now();
  auto ranks = run_ranks("stuck", 2, 1500, 30);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(WIFEXITED(ranks[0].status) && WEXITSTATUS(ranks[0].status) == 0) << ranks[0].output;
  EXPECT_NE(ranks[0].output.find("caught: all_reduce: rank 0 of 2 failed (timeout 1500 ms)"), std::string::npos)
      << ranks[0].output;
  EXPECT_LT(took, 15.0);
}

TEST(Distributed, DDPTwoRanksEqualsOneProcessWithTwiceTheBatch) { expect_all_ok(run_ranks("ddp", 2, 30000), "ddp"); }
TEST(Distributed, DDPAccumulationTwoEqualsTwiceTheBatch) {
  expect_all_ok(run_ranks("ddp_accumulation", 2, 30000), "ddp_accumulation");
}
TEST(Distributed, DDPUnusedParameterIsAClearErrorOrZeros) { expect_all_ok(run_ranks("unused", 2, 20000), "unused"); }

// ember-run: the ranks' environment, and a failed rank stops the others without a hang.
std::pair<int, std::string> run_launcher(const std::string& args) {
  const std::string out = ::testing::TempDir() + "ember_run_" + std::to_string(next_port());
  const std::string cmd = "timeout 60 " EMBER_RUN " " + args + " > " + out + " 2>&1";
  const int status = std::system(cmd.c_str());
  return {WEXITSTATUS(status), slurp(out)};
}

TEST(Distributed, LauncherStartsEveryRank) {
  auto [code, output] = run_launcher("--nproc_per_node 2 --master_port " + std::to_string(next_port()) + " " +
                                     EMBER_DIST_WORKER " collectives 20000");
  EXPECT_EQ(code, 0) << output;
  EXPECT_NE(output.find("OK collectives"), std::string::npos) << output;
}

TEST(Distributed, LauncherStopsTheOthersWhenARankFails) {
  const auto start = std::chrono::steady_clock::now();
  auto [code, output] = run_launcher("--nproc_per_node 2 --grace 2 --master_port " + std::to_string(next_port()) + " " +
                                     EMBER_DIST_WORKER " fail_rank1 20000");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(code, 7) << output;
  EXPECT_NE(output.find("rank 1 (local rank 1"), std::string::npos) << output;
  EXPECT_NE(output.find("exit code 7"), std::string::npos) << output;
  EXPECT_LT(took, 30.0) << "rank 0 sleeps 60 s: ember-run must have stopped it";
}

#ifdef EMBER_CHARLM
// ember-charlm train under ember-run: rank 0 writes the run; a one-process --resume of a
// two-process checkpoint is refused with the reason.
TEST(Distributed, CharlmTrainsUnderTheLauncherAndChecksTheWorldSizeOnResume) {
  const std::string dir = ::testing::TempDir() + "charlm_dist_" + std::to_string(next_port());
  const std::string common = std::string(" train --data ") + EMBER_SOURCE_DIR "/data/tinyshakespeare.txt --out_dir " +
                             dir + " --eval_interval 5 --eval_iters 2";
  auto [code, output] =
      run_launcher("--nproc_per_node 2 --master_port " + std::to_string(next_port()) + " " + EMBER_CHARLM + common +
                   " --preset tiny --max_iters 10 --gradient_accumulation_steps 2");
  ASSERT_EQ(code, 0) << output;
  EXPECT_NE(output.find("gradient_accumulation_steps 2"), std::string::npos) << output;
  // One progress report per step: rank 0 alone prints.
  size_t summaries = 0;
  for (size_t at = output.find("summary:"); at != std::string::npos; at = output.find("summary:", at + 1)) ++summaries;
  EXPECT_EQ(summaries, 1u) << output;
  EXPECT_TRUE(std::ifstream(dir + "/ckpt.safetensors").good());

  const std::string cmd = "timeout 60 " EMBER_CHARLM + common + " --resume --max_iters 12 2>&1";
  std::string resumed;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) resumed.append(buf, n);
    EXPECT_NE(pclose(p), 0);
  }
  EXPECT_NE(resumed.find("was trained by 2 process(es) and this run has 1"), std::string::npos) << resumed;
  std::system(("rm -rf " + dir).c_str());
}
#endif

}  // namespace
