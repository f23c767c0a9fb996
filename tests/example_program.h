// Running an example program (build/examples/...) from a test: its exit status and output, a small
// corpus to train on, and the checks the trainer tests share (ember-charlm, ember-charlstm).
//
//   ember::test::RunResult r = ember::test::run_example("charlm/ember-charlm", "train --data " + corpus.string());
//   ember::test::expect_error(r, "unknown preset");
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

namespace ember::test {

struct RunResult {
  int status;          // the exit status (-1: killed by a signal)
  std::string output;  // stdout and stderr together
};

// `program` under EMBER_EXAMPLES_DIR, with `args` as a shell would split them.
inline RunResult run_example(const std::string& program, const std::string& args) {
  const std::string cmd = std::string(EMBER_EXAMPLES_DIR) + "/" + program + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A small corpus written for these tests (a few kilobytes of repeated verse) as dir/corpus.txt.
inline std::filesystem::path write_corpus(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::filesystem::path p = dir / "corpus.txt";
  std::ofstream out(p);
  for (int i = 0; i < 60; ++i)
    out << "First Citizen:\nBefore we proceed any further, hear me speak.\nAll:\nSpeak, speak.\n";
  return p;
}

// The program failed, saying `needle`.
inline void expect_error(const RunResult& r, const std::string& needle) {
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << "wanted '" << needle << "' in:\n" << r.output;
}

// The columns step, train_loss and val_loss of a trainer's log.csv (the rest is timing).
inline std::string eval_losses(const std::string& csv) {
  std::string out, line;
  std::istringstream in(csv);
  while (std::getline(in, line)) {
    int commas = 0;
    size_t i = 0;
    while (i < line.size() && commas < 3) commas += line[i++] == ',';
    out += line.substr(0, i) + "\n";
  }
  return out;
}

}  // namespace ember::test
