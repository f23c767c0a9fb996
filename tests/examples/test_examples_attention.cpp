// Runs each attention walkthrough program (examples/attention_*.cpp) and checks that every tensor the
// tutorial's PyTorch code prints appears, character for character, in the program's output.
// References: tests/fixtures/attention/examples.json, written by scripts/gen_attention_fixtures.py
// (str(tensor) of each print, grad_fn removed; the output here has its grad_fn removed the same way,
// since which autograd node made a tensor is not what these walkthroughs teach).
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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
                                     << want << "\n--- program output ---\n"
                                     << out;
    from = at + want.size();
  }
}

}  // namespace

TEST(ExamplesAttention, Simplified) { expect_tutorial_output("attention_1_simplified"); }
TEST(ExamplesAttention, Trainable) { expect_tutorial_output("attention_2_trainable"); }
TEST(ExamplesAttention, Causal) { expect_tutorial_output("attention_3_causal"); }
TEST(ExamplesAttention, MultiHead) { expect_tutorial_output("attention_4_multihead"); }
TEST(ExamplesAttention, FromTokens) { expect_tutorial_output("attention_5_from_tokens"); }

// Training on tiny Shakespeare, with no data argument: the program finds the repository's
// data/tinyshakespeare.txt itself. Both models' validation loss must drop well below the uniform
// guess ln(65) = 4.17 within kShortRun steps (about 3.0 after 100 steps; the default 300 reach 2.5).
TEST(ExamplesAttention, ShakespeareLearnsFromTheRepositoryData) {
  constexpr int kShortRun = 100;
  ASSERT_TRUE(std::filesystem::exists(std::string(EMBER_SOURCE_DIR) + "/data/tinyshakespeare.txt"));
  std::string path = example_path("attention_6_shakespeare");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " was not built";
  // One thread: the model is tiny, and more threads than free cores make it many times slower.
  RunResult r = run_program("OMP_NUM_THREADS=1 " + path + " --steps " + std::to_string(kShortRun));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("skipping"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("characters: 1115394, vocabulary: 65"), std::string::npos) << r.output;
  static const std::regex line(R"(step (\d+): train loss ([\d.]+), val loss ([\d.]+))");
  std::vector<double> first_val, last_val;
  std::vector<int> last_step;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), line); it != std::sregex_iterator(); ++it) {
    double val = std::stod((*it)[3]);
    if ((*it)[1] == "0") {
      first_val.push_back(val);
      last_val.push_back(val);
      last_step.push_back(0);
    } else {
      last_val.back() = val;
      last_step.back() = std::stoi((*it)[1]);
    }
  }
  ASSERT_EQ(first_val.size(), 2u) << "expected two models' loss reports:\n" << r.output;
  for (size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(last_step[m], kShortRun) << "the last report should be at the last step:\n" << r.output;
    EXPECT_NEAR(first_val[m], 4.17, 0.3) << "model " << m << " should start near ln(65)";
    EXPECT_LT(last_val[m], 3.3) << "model " << m << " did not learn:\n" << r.output;
  }
  EXPECT_NE(r.output.find("trained 100 steps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sample:"), std::string::npos);
}

TEST(ExamplesAttention, ShakespeareRejectsABadStepCount) {
  std::string path = example_path("attention_6_shakespeare");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " was not built";
  for (const char* bad : {"0", "-5", "ten", "12x", "99999999999999999999", ""}) {
    RunResult r = run_program(path + " --steps '" + bad + "'");
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_NE(r.output.find("attention_6_shakespeare: --steps needs a whole number from 1 to 1000000, got '" +
                            std::string(bad) + "'"),
              std::string::npos)
        << r.output;
  }
  RunResult r = run_program(path + " --steps");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--steps needs a whole number"), std::string::npos) << r.output;
}

TEST(ExamplesAttention, ShakespeareSkipsWithoutData) {
  std::string path = example_path("attention_6_shakespeare");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " was not built";
  RunResult r = run_program(path + " /nonexistent/tinyshakespeare.txt");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("skipping, no data file at /nonexistent/tinyshakespeare.txt"), std::string::npos) << r.output;
}
