// Runs each attention walkthrough program (examples/attention_*.cpp) and checks that every tensor the
// tutorial's PyTorch code prints appears, character for character, in the program's output.
// References: tests/fixtures/attention/examples.json, written by scripts/gen_attention_fixtures.py
// (str(tensor) of each print, grad_fn removed; the output here has its grad_fn removed the same way,
// since which autograd node made a tensor is not what these walkthroughs teach).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

#include "fixture_json.h"

namespace {

struct RunResult {
  int status = -1;
  std::string output;
};

RunResult run_program(const std::string& command) {
  RunResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  r.status = pclose(pipe);
  return r;
}

std::string without_grad_fn(const std::string& s) {
  static const std::regex grad_fn(R"(,\s*grad_fn=<\w+>)");
  return std::regex_replace(s, grad_fn, "");
}

std::string example_path(const std::string& name) { return std::string(EMBER_EXAMPLES_DIR) + "/" + name; }

// Runs examples/<name> and expects each of the fixture's tensors in its output, in order.
void expect_tutorial_output(const std::string& name) {
  std::string path = example_path(name);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " was not built (EMBER_BUILD_EXAMPLES=OFF?)";
  RunResult r = run_program(path);
  ASSERT_EQ(r.status, 0) << name << " failed:\n" << r.output;
  std::string out = without_grad_fn(r.output);
  nlohmann::json expected = ember::test::load_fixture("attention/examples.json").at(name);
  size_t from = 0;
  for (const auto& item : expected) {
    std::string want = item.get<std::string>();
    size_t at = out.find(want, from);
    ASSERT_NE(at, std::string::npos) << name << ": expected, after offset " << from << ":\n"
                                     << want << "\n--- program output ---\n" << out;
    from = at + want.size();
  }
}

}  // namespace

TEST(ExamplesAttention, Simplified) { expect_tutorial_output("attention_1_simplified"); }
