// ember-run: torchrun's job for Ember programs. Starts --nproc_per_node copies of PROGRAM, each
// with MASTER_ADDR, MASTER_PORT, RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK and
// OMP_NUM_THREADS set, forwards SIGINT and SIGTERM to them, and when one exits with a failure stops
// the others; either way a rank still running --grace seconds later is killed (SIGKILL, with its
// process group). It reports which rank failed and how. A failed start stops the ranks already
// started, and a rank whose launcher died before it could ask for SIGTERM on that quits at once.
// Not here: elastic restarts, rendezvous backends other than the master's TCP store.
//
//   ember-run --nproc_per_node 2 ember-charlm train --data input.txt
//   ember-run --nnodes 2 --node_rank 0 --master_addr 10.0.0.1 --master_port 29500 --nproc_per_node 4 prog
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>

namespace {

constexpr int kSecretBytes = 16;  // 128 random bits, written as 32 hex digits

// A fresh shared secret for the ranks' store (EMBER_STORE_SECRET), so that on a machine shared with
// other users nobody else can join or steer a single-machine run; empty if no randomness was had.
std::string random_store_secret() {
  unsigned char bytes[kSecretBytes];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) return "";
  std::string hex;
  for (unsigned char b : bytes) {
    static const char kDigits[] = "0123456789abcdef";
    hex += kDigits[b >> 4];
    hex += kDigits[b & 0xF];
  }
  return hex;
}

// More processes than this on one machine is a typo (an extra digit), not a job: each rank is a
// whole program. The world size (nproc_per_node x nnodes) must fit the int that ranks are.
constexpr int kMaxProcsPerNode = 4096;
constexpr double kMaxGraceSeconds = 3600;
constexpr int kPollMilliseconds = 20;

volatile sig_atomic_t pending_signal = 0;
void on_signal(int sig) { pending_signal = sig; }

std::string describe(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

// A range check whose help and error print the bounds as written ("in [1, 4096]"), where CLI11's
// PositiveNumber prints the largest double in full.
template <typename T>
CLI::Validator in_range(T lo, T hi) {
  std::ostringstream text;
  text << "in [" << lo << ", " << hi << "]";
  const std::string bounds = text.str();
  return CLI::Validator(
      [lo, hi, bounds](std::string& input) -> std::string {
        T value{};
        const bool read = CLI::detail::lexical_cast(input, value);
        if (read && value >= lo && value <= hi) return {};  // false for NaN
        return "must be " + bounds + ", got " + input;
      },
      bounds);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ember-run: start PROGRAM once per rank, with torchrun's environment variables"};
  int nproc_per_node = 1, nnodes = 1, node_rank = 0, master_port = 29500;
  double grace_s = 5.0;
  std::string master_addr = "127.0.0.1";
  std::vector<std::string> command;
  app.add_option("--nproc_per_node,--nproc-per-node", nproc_per_node, "processes on this machine")
      ->check(in_range(1, kMaxProcsPerNode));
  app.add_option("--nnodes", nnodes, "machines taking part")->check(in_range(1, INT_MAX));
  app.add_option("--node_rank,--node-rank", node_rank, "this machine's index in [0, nnodes)")
      ->check(in_range(0, INT_MAX - 1));
  app.add_option("--master_addr,--master-addr", master_addr, "address of node 0 (where rank 0's store listens)");
  app.add_option("--master_port,--master-port", master_port, "port of rank 0's store")->check(in_range(1, 65535));
  app.add_option("--grace", grace_s, "seconds between SIGTERM and SIGKILL when stopping the ranks")
      ->check(in_range(0.0, kMaxGraceSeconds));
  app.prefix_command();  // everything from PROGRAM on belongs to it, in order
  app.footer("PROGRAM ARGS...: the program every rank runs, with its arguments\n");
  CLI11_PARSE(app, argc, argv);
  command = app.remaining();
  if (command.empty()) {
    std::fprintf(stderr, "ember-run: no PROGRAM given (ember-run [options] PROGRAM ARGS...)\n");
    return 2;
  }
  if (node_rank >= nnodes) {
    std::fprintf(stderr, "ember-run: --node_rank %d must be less than --nnodes %d\n", node_rank, nnodes);
    return 2;
  }
  const int64_t world64 = int64_t{nproc_per_node} * nnodes;  // at most 4096 x INT_MAX: no overflow
  if (world64 > INT_MAX) {
    std::fprintf(stderr,
                 "ember-run: --nproc_per_node %d x --nnodes %d = %lld processes, more than the %d ranks a job can "
                 "number\n",
                 nproc_per_node, nnodes, static_cast<long long>(world64), INT_MAX);
    return 2;
  }
  const int world = static_cast<int>(world64);

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  // The store's shared secret: made here for a run on one machine (every rank is a child of this
  // launcher); a job on several machines needs the same one on each, so only the user can set it.
  const char* secret = std::getenv("EMBER_STORE_SECRET");
  if (!secret || !*secret) {
    if (nnodes == 1) {
      const std::string made = random_store_secret();
      if (!made.empty()) setenv("EMBER_STORE_SECRET", made.c_str(), 1);
    } else {
      std::fprintf(stderr,
                   "ember-run: EMBER_STORE_SECRET is not set; a job on several machines needs the same secret on "
                   "each (export EMBER_STORE_SECRET=$(openssl rand -hex 32) once, then start every node with it)\n");
    }
  }

  const pid_t launcher = getpid();
  const char* omp = std::getenv("OMP_NUM_THREADS");
  std::vector<pid_t> pids(nproc_per_node, -1);
  int started = 0;
  bool start_failed = false;
  for (int local = 0; local < nproc_per_node; ++local) {
    const int rank = node_rank * nproc_per_node + local;
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "ember-run: cannot start rank %d (fork: %s); stopping the %d rank(s) already started\n",
                   rank, std::strerror(errno), started);
      start_failed = true;
      break;
    }
    if (pid == 0) {
      // A process group of its own, so a terminal's Ctrl-C reaches the ranks once (forwarded by
      // ember-run) rather than twice; and SIGTERM if ember-run itself dies. If it died before the
      // prctl, this process already belongs to another parent, and no signal would ever come.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != launcher) _exit(128 + SIGTERM);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      setenv("MASTER_ADDR", master_addr.c_str(), 1);
      setenv("MASTER_PORT", std::to_string(master_port).c_str(), 1);
      setenv("RANK", std::to_string(rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(local).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(nproc_per_node).c_str(), 1);
      setenv("GROUP_RANK", std::to_string(node_rank).c_str(), 1);
      if (!omp) setenv("OMP_NUM_THREADS", "1", 1);  // as torchrun: one thread per process unless told
      std::vector<char*> args;
      for (auto& a : command) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::fprintf(stderr, "ember-run: cannot start '%s': %s\n", args[0], std::strerror(errno));
      _exit(127);
    }
    setpgid(pid, pid);  // also here, so the group exists before any kill(-pid) below
    pids[local] = pid;
    ++started;
  }

  auto signal_all = [&](int sig) {
    for (pid_t p : pids)
      if (p > 0) kill(p, sig);
  };
  // A rank's whole process group: what a program started under it (a shell's children) goes too.
  auto kill_all = [&] {
    for (pid_t p : pids)
      if (p > 0 && kill(-p, SIGKILL) != 0) kill(p, SIGKILL);
  };
  int running = started, result = 0;
  bool stopping = false;
  auto stop_deadline = std::chrono::steady_clock::time_point::max();
  // From the first stop on, every rank gets --grace seconds to finish; then it is killed.
  auto start_stopping = [&](int exit_code) {
    if (stopping) return;
    stopping = true;
    result = exit_code;
    stop_deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(std::ceil(grace_s * 1000)));
  };
  if (start_failed) {
    start_stopping(1);
    signal_all(SIGTERM);
  }
  while (running > 0) {
    if (pending_signal) {
      const int sig = pending_signal;
      pending_signal = 0;
      std::fprintf(stderr, "ember-run: got %s, forwarding it to %d rank(s)\n", strsignal(sig), running);
      signal_all(sig);
      // The ranks decide how to stop (ember-charlm saves a checkpoint first); a second signal is
      // forwarded too, and programs that follow Ember's convention quit at once on it.
      start_stopping(128 + sig);
    }
    int status = 0;
    pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      for (int local = 0; local < nproc_per_node; ++local) {
        if (pids[local] != done) continue;
        pids[local] = -1;
        --running;
        const bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (failed && !stopping) {
          std::fprintf(stderr,
                       "ember-run: rank %d (local rank %d, pid %d) failed with %s; stopping the other %d rank(s)\n",
                       node_rank * nproc_per_node + local, local, done, describe(status).c_str(), running);
          start_stopping(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
          signal_all(SIGTERM);
        }
      }
      continue;
    }
    if (stopping && std::chrono::steady_clock::now() > stop_deadline) {
      std::fprintf(stderr, "ember-run: %d rank(s) still running %g s after being told to stop; killing them\n", running,
                   grace_s);
      kill_all();
      stop_deadline = std::chrono::steady_clock::time_point::max();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMilliseconds));
  }
  return result;
}
