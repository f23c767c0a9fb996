// ember-run: torchrun's job for Ember programs. Starts --nproc_per_node copies of PROGRAM, each
// with MASTER_ADDR, MASTER_PORT, RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK and
// OMP_NUM_THREADS set, forwards SIGINT and SIGTERM to them, and when one exits with a failure stops
// the others (SIGTERM, then SIGKILL after a grace period) and reports which rank failed and how.
// Not here: elastic restarts, rendezvous backends other than the master's TCP store.
//
//   ember-run --nproc_per_node 2 ember-charlm train --data input.txt
//   ember-run --nnodes 2 --node_rank 0 --master_addr 10.0.0.1 --master_port 29500 --nproc_per_node 4 prog
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <sys/prctl.h>
#include <sys/wait.h>

namespace {

volatile sig_atomic_t pending_signal = 0;
void on_signal(int sig) { pending_signal = sig; }

std::string describe(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ember-run: start PROGRAM once per rank, with torchrun's environment variables"};
  int nproc_per_node = 1, nnodes = 1, node_rank = 0, master_port = 29500;
  double grace_s = 5.0;
  std::string master_addr = "127.0.0.1";
  std::vector<std::string> command;
  app.add_option("--nproc_per_node,--nproc-per-node", nproc_per_node, "processes on this machine")
      ->check(CLI::PositiveNumber);
  app.add_option("--nnodes", nnodes, "machines taking part")->check(CLI::PositiveNumber);
  app.add_option("--node_rank,--node-rank", node_rank, "this machine's index in [0, nnodes)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--master_addr,--master-addr", master_addr, "address of node 0 (where rank 0's store listens)");
  app.add_option("--master_port,--master-port", master_port, "port of rank 0's store")->check(CLI::Range(1, 65535));
  app.add_option("--grace", grace_s, "seconds between SIGTERM and SIGKILL when stopping the ranks");
  app.prefix_command();  // everything from PROGRAM on belongs to it, in order
  app.footer("PROGRAM ARGS...: the program every rank runs, with its arguments");
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

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  const int world = nproc_per_node * nnodes;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  std::vector<pid_t> pids(nproc_per_node, -1);
  for (int local = 0; local < nproc_per_node; ++local) {
    const int rank = node_rank * nproc_per_node + local;
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("ember-run: fork");
      return 1;
    }
    if (pid == 0) {
      // A process group of its own, so a terminal's Ctrl-C reaches the ranks once (forwarded by
      // ember-run) rather than twice; and SIGTERM if ember-run itself dies.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGTERM);
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
    pids[local] = pid;
  }

  auto signal_all = [&](int sig) {
    for (pid_t p : pids)
      if (p > 0) kill(p, sig);
  };
  int running = nproc_per_node, result = 0;
  bool stopping = false;
  auto stop_deadline = std::chrono::steady_clock::time_point::max();
  while (running > 0) {
    if (pending_signal) {
      const int sig = pending_signal;
      pending_signal = 0;
      std::fprintf(stderr, "ember-run: got %s, forwarding it to %d rank(s)\n", strsignal(sig), running);
      signal_all(sig);
      // The ranks decide how to stop (ember-charlm saves a checkpoint first); a second signal is
      // forwarded too, and programs that follow Ember's convention quit at once on it.
      if (!stopping) {
        stopping = true;
        result = 128 + sig;
      }
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
          result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
          stopping = true;
          signal_all(SIGTERM);
          stop_deadline =
              std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(grace_s * 1000));
        }
      }
      continue;
    }
    if (stopping && std::chrono::steady_clock::now() > stop_deadline) {
      std::fprintf(stderr, "ember-run: %d rank(s) still running %.0f s after SIGTERM; killing them\n", running,
                   grace_s);
      signal_all(SIGKILL);
      stop_deadline = std::chrono::steady_clock::time_point::max();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return result;
}
