// Running a real program from a test: posix_spawn (no shell of ours), its stdout and stderr into a
// log file, stdin from /dev/null, extra environment entries ahead of the test's own (getenv finds
// the first), and a wait with a deadline after which the program is killed.
//
//   const pid_t pid = ember::test::spawn_logged(EMBER_RUN, {"--nproc_per_node", "2", "true"}, log);
//   EXPECT_EQ(ember::test::wait_exit(pid, 30), 0);
//
// Not here: what the tests check of the output (each test file's own helpers).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>

namespace ember::test {

// wait_exit's answer when the deadline passed (the program was then killed).
inline constexpr int kTimedOut = -2;

// Starts `program` with `args`, `env` added to the environment, in `cwd` when given; -1 on failure
// (reported as a test failure).
inline pid_t spawn_logged(const std::string& program, const std::vector<std::string>& args,
                          const std::filesystem::path& log, const std::vector<std::string>& env = {},
                          const std::filesystem::path& cwd = {}) {
  std::vector<std::string> argv_s = {program};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = env;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data()), 0) << program;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// wait_exit's answer for a program that never started (spawn_logged's -1).
inline constexpr int kNotStarted = -3;

// kill(pid, sig) for a program spawn_logged started; nothing for its -1, which kill() would read
// as "every process this user may signal" (the test runner's shell and build included).
inline void signal_child(pid_t pid, int sig) {
  if (pid > 0) kill(pid, sig);
}

// The exit code, 128 + the signal when a signal ended it, or kTimedOut (then it is killed).
inline int wait_exit(pid_t pid, double timeout_s) {
  if (pid <= 0) return kNotStarted;  // waitpid(-1) would wait for any child
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace ember::test
