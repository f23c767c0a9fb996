// ember-run against what people and machines do to it: a rank that ignores SIGTERM, a start that
// fails half way, absurd sizes and ports. Each test runs the real launcher (posix_spawn, no shell
// of ours) on small commands (sh, sleep), with a deadline after which everything is killed.
//
// Not here: the collectives and DDP under the launcher (test_distributed.cpp).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "core/sanitizers.h"
#include "tests/spawn_process.h"

namespace {

namespace fs = std::filesystem;
using ember::test::kTimedOut;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory for one test's files.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("ember_launcher_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// ember-run with `args`, its stdout and stderr in `log`, `env` added to the environment.
pid_t start(const std::vector<std::string>& args, const fs::path& log, const std::vector<std::string>& env = {}) {
  return ember::test::spawn_logged(EMBER_RUN, args, log, env);
}

int wait_for(pid_t pid, double timeout_s) { return ember::test::wait_exit(pid, timeout_s); }

struct Outcome {
  int code;
  std::string output;
  double seconds;
};

Outcome run(const std::vector<std::string>& args, const fs::path& dir, const std::vector<std::string>& env = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path log = dir / "launcher.log";
  const int code = wait_for(start(args, log, env), 30);
  return {code, slurp(log), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// The pid a rank wrote to `path` (0 while it has not), once the line is complete.
pid_t pid_in(const fs::path& path) {
  const std::string text = slurp(path);
  return text.find('\n') == std::string::npos ? 0 : std::atoi(text.c_str());
}

bool alive(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }  // pid 0 would ask about our own group

// Forwarded SIGTERM used to be the end of it: a rank that ignores it kept the launcher (and its
// peers, in a collective) waiting forever. Now --grace seconds later the rank is killed, with the
// processes it started (its process group).
TEST(Launcher, KillsARankThatIgnoresSigtermAfterTheGrace) {
  const fs::path dir = fresh_dir("ignore_term");
  const fs::path pid_file = dir / "rank.pid";
  // sleep inherits the ignored SIGTERM, and is a child of the rank's shell, not of ember-run.
  const pid_t launcher =
      start({"--grace", "0.5", "sh", "-c", "trap '' TERM; sleep 60 & echo $! > " + pid_file.string() + "; wait"},
            dir / "launcher.log");
  const auto ready = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (pid_in(pid_file) == 0 && std::chrono::steady_clock::now() < ready)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const pid_t sleeper = pid_in(pid_file);
  ASSERT_GT(sleeper, 0) << slurp(dir / "launcher.log");
  const auto t0 = std::chrono::steady_clock::now();
  ember::test::signal_child(launcher, SIGTERM);
  const int code = wait_for(launcher, 20);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string output = slurp(dir / "launcher.log");
  EXPECT_EQ(code, 128 + SIGTERM) << output;
  EXPECT_LT(took, 5.0) << output;
  EXPECT_NE(output.find("1 rank(s) still running 0.5 s after being told to stop; killing them"), std::string::npos)
      << output;
  // The grandchild went with its process group (it may linger a moment as a zombie of init).
  const auto gone = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (alive(sleeper) && slurp("/proc/" + std::to_string(sleeper) + "/stat").find(") Z") == std::string::npos &&
         std::chrono::steady_clock::now() < gone)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const std::string stat = slurp("/proc/" + std::to_string(sleeper) + "/stat");
  EXPECT_TRUE(!alive(sleeper) || stat.find(") Z") != std::string::npos) << "sleep " << sleeper << " survived: " << stat;
  if (alive(sleeper)) kill(sleeper, SIGKILL);
  fs::remove_all(dir);
}

// A fork that fails after some ranks started used to leave them running with no launcher (ppid 1).
// Now they are stopped and the launcher exits with an error naming the rank it could not start.
TEST(Launcher, AFailedStartStopsTheRanksAlreadyStarted) {
#ifdef EMBER_ASAN
  GTEST_SKIP() << "LD_PRELOAD of the shim conflicts with ASan's runtime, which must come first";
#endif
  const fs::path dir = fresh_dir("fork_fails");
  const std::string rank = "echo $$ > " + (dir / "rank").string() + ".$LOCAL_RANK; exec sleep 60";
  const Outcome r = run({"--nproc_per_node", "3", "--grace", "1", "sh", "-c", rank}, dir,
                        {std::string("LD_PRELOAD=") + EMBER_FORK_FAIL_SHIM, "EMBER_FORK_FAIL_AT=3"});
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_LT(r.seconds, 10.0) << r.output;
  EXPECT_NE(r.output.find("cannot start rank 2 (fork: Resource temporarily unavailable); stopping the 2 rank(s) "
                          "already started"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "rank.2"));
  for (const char* local : {"0", "1"}) {
    const pid_t pid = pid_in(dir / (std::string("rank.") + local));
    if (pid > 0) {
      EXPECT_FALSE(alive(pid)) << "rank " << local << " (pid " << pid << ") outlived the launcher";
    }
  }
  fs::remove_all(dir);
}

// Sizes that would fork without end or overflow the ranks, ports outside 1..65535 or not a number,
// and a grace that is not a number of seconds: refused at once, before any rank starts, with the
// bounds written out (CLI11's own check printed the largest double, 309 digits).
TEST(Launcher, RefusesAbsurdSizesPortsAndGraces) {
  const fs::path dir = fresh_dir("bounds");
  const std::string marker = (dir / "started").string();
  const std::vector<std::string> program = {"sh", "-c", "touch " + marker};
  auto with = [&](std::vector<std::string> flags) {
    flags.insert(flags.end(), program.begin(), program.end());
    return run(flags, dir);
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--nproc_per_node", "1000000000"}, "--nproc_per_node: must be in [1, 4096], got 1000000000"},
      {{"--nproc_per_node", "0"}, "must be in [1, 4096], got 0"},
      {{"--nproc_per_node", "99999999999"}, "must be in [1, 4096], got 99999999999"},
      {{"--nproc_per_node", "4096", "--nnodes", "1000000"},
       "--nproc_per_node 4096 x --nnodes 1000000 = 4096000000 processes, more than the 2147483647 ranks"},
      {{"--nnodes", "2", "--node_rank", "2"}, "--node_rank 2 must be less than --nnodes 2"},
      {{"--master_port", "95536"}, "--master_port: must be in [1, 65535], got 95536"},
      {{"--master_port", "abc"}, "must be in [1, 65535], got abc"},
      {{"--master_port", "0"}, "must be in [1, 65535], got 0"},
      {{"--grace", "inf"}, "--grace: must be in [0, 3600], got inf"},
      {{"--grace", "nan"}, "must be in [0, 3600], got nan"},
      {{"--grace", "-1"}, "must be in [0, 3600], got -1"},
  };
  for (const auto& [flags, message] : cases) {
    const Outcome r = with(flags);
    EXPECT_NE(r.code, 0) << flags[0] << " " << flags[1] << ":\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << "wanted '" << message << "' in:\n" << r.output;
    EXPECT_LT(r.seconds, 5.0) << r.output;
  }
  EXPECT_FALSE(fs::exists(marker)) << "a rank started despite the bad flags";
  // The help states every bound readably: no number longer than 10 digits.
  const Outcome help = run({"--help"}, dir);
  EXPECT_EQ(help.code, 0) << help.output;
  EXPECT_NE(help.output.find("in [1, 4096]"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("in [1, 65535]"), std::string::npos) << help.output;
  size_t longest = 0, run_length = 0;
  for (char c : help.output) longest = std::max(longest, run_length = std::isdigit(c) ? run_length + 1 : 0);
  EXPECT_LE(longest, 10u) << help.output;
  fs::remove_all(dir);
}

#ifdef EMBER_CHARLM
// ember-charlm's ranks waited for Gloo's 30 minutes when a peer stopped answering; --dist_timeout
// sets the wait. Rank 0 of 2, alone, gives up on the missing rank 1 after about that long.
TEST(Launcher, CharlmDistTimeoutBoundsTheWaitForAMissingRank) {
  const fs::path dir = fresh_dir("dist_timeout");
  const std::string data = std::string(EMBER_SOURCE_DIR) + "/data/tinyshakespeare.txt";
  auto charlm = [&](const std::string& timeout) {
    // Below test_distributed.cpp's ports (20000 and up), and below the ephemeral range.
    const std::string port = std::to_string(19000 + getpid() % 1000);
    const std::string cmd = "cd " + dir.string() + " && MASTER_ADDR=127.0.0.1 MASTER_PORT=" + port +
                            " RANK=0 WORLD_SIZE=2 timeout 60 " EMBER_CHARLM " train --preset tiny --data " + data +
                            " --out_dir run --dist_timeout " + timeout + " > out.log 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system(cmd.c_str());
    return Outcome{WEXITSTATUS(status), slurp(dir / "out.log"),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  };
  const Outcome bad = charlm("0");
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_NE(bad.output.find("--dist_timeout must be a number of seconds in (0, 604800], got 0"), std::string::npos)
      << bad.output;
  const Outcome alone = charlm("2");
  EXPECT_EQ(alone.code, 1) << alone.output;
  EXPECT_LT(alone.seconds, 20.0) << alone.output;
  EXPECT_NE(alone.output.find("could not connect to the other ranks within 2000 ms"), std::string::npos)
      << alone.output;
  fs::remove_all(dir);
}
#endif

// On one machine ember-run makes the store's shared secret itself (the same for every rank it
// starts, new for each run), so other users of the machine cannot join the run's store; one the
// user exported is passed on unchanged.
TEST(Launcher, GivesTheRanksOfASingleMachineRunOneFreshStoreSecret) {
  const fs::path dir = fresh_dir("secret");
  const std::string write = "printf %s \"$EMBER_STORE_SECRET\" > " + (dir / "secret.").string() + "$RANK";
  auto secrets = [&](const std::vector<std::string>& env) {
    const Outcome out = run({"--nproc_per_node", "2", "sh", "-c", write}, dir, env);
    EXPECT_EQ(out.code, 0) << out.output;
    return std::vector<std::string>{slurp(dir / "secret.0"), slurp(dir / "secret.1")};
  };
  const std::vector<std::string> first = secrets({"EMBER_STORE_SECRET="});
  ASSERT_EQ(first[0].size(), 32u) << first[0];
  EXPECT_EQ(first[0].find_first_not_of("0123456789abcdef"), std::string::npos) << first[0];
  EXPECT_EQ(first[0], first[1]);
  EXPECT_NE(secrets({"EMBER_STORE_SECRET="})[0], first[0]);
  const std::vector<std::string> given = secrets({"EMBER_STORE_SECRET=the-users-own-secret"});
  EXPECT_EQ(given[0], "the-users-own-secret");
  EXPECT_EQ(given[1], "the-users-own-secret");
}

}  // namespace
