// Runs examples/autograd_tour and checks the numbers it prints against PyTorch 1.13
// (tests/fixtures/autograd/tour.json, from scripts/gen_autograd_fixtures.py) and its graph files.
// Skipped when the examples are not built (EMBER_BUILD_EXAMPLES=OFF).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/wait.h>

#include "fixture_json.h"
#include "test_util.h"

namespace {

// "name = 1.2345" lines of the program's output, as numbers.
std::map<std::string, double> printed_numbers(const std::string& out) {
  std::map<std::string, double> values;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos || line.find(' ') < eq) continue;
    try {
      values[line.substr(0, eq)] = std::stod(line.substr(eq + 3));
    } catch (const std::exception&) {
    }
  }
  return values;
}

}  // namespace

TEST(ExamplesAutograd, TourPrintsPyTorchNumbers) {
#ifndef EMBER_EXAMPLES_DIR
  GTEST_SKIP() << "examples are not built";
#else
  const std::string dir = ::testing::TempDir() + "ember_autograd_tour";
  std::filesystem::create_directories(dir);
  const std::string cmd = std::string("'") + EMBER_EXAMPLES_DIR + "/autograd_tour' '" + dir + "' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, pipe)) out += buf;
  ASSERT_EQ(pclose(pipe), 0) << out;

  const auto fx = ember::test::load_fixture("autograd/tour.json");
  const auto numbers = printed_numbers(out);
  // The program prints 4 decimals, as micrograd's README does.
  const std::map<std::string, double> expected = {
      {"g.data", fx["micrograd"]["g"]},
      {"a.grad", fx["micrograd"]["a_grad"]},
      {"b.grad", fx["micrograd"]["b_grad"]},
      {"n", fx["neuron"]["n"]},
      {"o", fx["neuron"]["o"]},
      {"x1.grad", fx["neuron"]["x1_grad"]},
      {"w1.grad", fx["neuron"]["w1_grad"]},
      {"x2.grad", fx["neuron"]["x2_grad"]},
      {"w2.grad", fx["neuron"]["w2_grad"]},
      {"b.grad", fx["neuron"]["b_grad"]},
  };
  for (const auto& [name, value] : expected) {
    ASSERT_TRUE(numbers.count(name)) << "the tour printed no '" << name << " = ...' line:\n" << out;
  }
  // b.grad appears twice (micrograd's b, then the neuron's b): the last one wins in the map.
  EXPECT_NEAR(numbers.at("g.data"), 24.7041, 1e-4);
  for (const auto& [name, value] : expected)
    if (name != "b.grad") EXPECT_NEAR(numbers.at(name), value, 6e-5) << name;
  EXPECT_NEAR(numbers.at("b.grad"), fx["neuron"]["b_grad"].get<double>(), 6e-5);
  EXPECT_NE(out.find("a.grad = 138.8338"), std::string::npos);
  EXPECT_NE(out.find("b.grad = 645.5773"), std::string::npos);
  for (const char* check : {"gradcheck(neuron): passed", "gradcheck(MyTanh): passed",
                            "same gradient as Tensor::tanh: yes", "gradcheck(attention head): passed"})
    EXPECT_NE(out.find(check), std::string::npos) << check << "\n" << out;

  // Ember prints in PyTorch's format: the attention head's output and W_query's gradient appear
  // exactly as str() prints them in PyTorch.
  EXPECT_NE(out.find(fx["attention"]["out_str"].get<std::string>()), std::string::npos) << out;
  EXPECT_NE(out.find(fx["attention"]["wq_grad_str"].get<std::string>()), std::string::npos) << out;

  // The neuron's backward, step by step: the chain-rule products of the first MulBackward0 run.
  EXPECT_NE(out.find("dL/dx2           =  1.0000 x 0.5000 =  0.5000"), std::string::npos) << out;
  EXPECT_NE(out.find("dL/dx1           = -3.0000 x 0.5000 = -1.5000"), std::string::npos) << out;
  // The attention head's backward: every node's rule, computed by hand, agrees with the engine.
  int rules_checked = 0;
  for (size_t pos = out.find("by hand: "); pos != std::string::npos; pos = out.find("by hand: ", pos + 1)) {
    EXPECT_LT(std::stod(out.substr(pos + 9)), 1e-12)
        << out.substr(out.rfind('\n', pos), pos - out.rfind('\n', pos) + 16);
    ++rules_checked;
  }
  EXPECT_EQ(rules_checked, 10);  // Sum, Mm (out), Softmax, MaskedFill, Div, Mm (q@k^T), T, 3 projections

  std::ifstream dot(dir + "/autograd_tour_neuron.dot");
  std::stringstream text;
  text << dot.rdbuf();
  EXPECT_NE(text.str().find("TanhBackward0"), std::string::npos);
  EXPECT_NE(text.str().find("w1\\n[]\\ndata [-3.0000]\\ngrad [1.0000]"), std::string::npos) << text.str();
  // micrograd style: the intermediate n carries its value and gradient on the node that made it.
  EXPECT_NE(text.str().find("AddBackward0\\n[]\\nn\\ndata [0.8814]\\ngrad [0.5000]"), std::string::npos) << text.str();
  EXPECT_TRUE(std::filesystem::exists(dir + "/autograd_tour_attention.dot"));
#endif
}

// The output directory is data: a name built to break out of shell quoting runs nothing.
TEST(ExamplesAutograd, TourTreatsItsOutputDirAsData) {
#ifndef EMBER_EXAMPLES_DIR
  GTEST_SKIP() << "examples are not built";
#else
  namespace fs = std::filesystem;
  const fs::path base = fs::path(::testing::TempDir()) / "ember_tour_hostile";
  fs::remove_all(base);
  const fs::path dir = base / "x'; touch PWNED; echo '";
  fs::create_directories(dir);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // run the tour in `base`, where a shell would create PWNED; no shell between us
    if (chdir(base.c_str()) != 0) _exit(126);
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    const std::string exe = std::string(EMBER_EXAMPLES_DIR) + "/autograd_tour";
    execl(exe.c_str(), exe.c_str(), dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_FALSE(fs::exists(base / "PWNED"));
  EXPECT_FALSE(fs::exists(dir / "PWNED"));
  EXPECT_TRUE(fs::exists(dir / "autograd_tour_neuron.dot"));
  if (std::system("command -v dot > /dev/null 2>&1") == 0) EXPECT_TRUE(fs::exists(dir / "autograd_tour_neuron.png"));
  fs::remove_all(base);
#endif
}
