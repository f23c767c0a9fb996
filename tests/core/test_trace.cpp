// The EMBER_DEBUG op trace (core/trace.h). EMBER_DEBUG is read once per process, so each check
// runs this test binary again with the variable set on one "Child" test, and reads what it printed.
// The Child tests skip themselves in a normal run.
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>

#include "core/backend.h"
#include "core/cpu/cpu_backend.h"
#include "core/trace.h"
#include "test_util.h"

using namespace ember;

namespace {

constexpr const char* kStartMarker = "---- traced section ----";

// Runs `--gtest_filter=AutogradTrace.<child>` of this binary with EMBER_DEBUG=<level>; returns its
// output (stdout and stderr) from the child's start marker on, or everything when there is none.
// `env` adds variables ("EMBER_DEBUG_STEPS=2-2"); `whole`: all the output, not only the child's.
std::string run_traced(const std::string& child, const std::string& level, const std::string& env = "",
                       bool whole = false) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd =
      fmt::format("EMBER_DEBUG={} {} '{}' --gtest_filter=AutogradTrace.{} 2>&1", level, env, self, child);
  FILE* pipe = popen(cmd.c_str(), "r");
  EMBER_CHECK(pipe != nullptr, "run_traced: cannot run {}", cmd);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  EMBER_CHECK(status == 0, "run_traced: {} exited with status {}:\n{}", cmd, status, out);
  const size_t start = out.find(kStartMarker);
  if (whole || start == std::string::npos) return out;
  return out.substr(start + std::string(kStartMarker).size() + 1);
}
std::string run_traced(const std::string& child, int level, const std::string& env = "", bool whole = false) {
  return run_traced(child, std::to_string(level), env, whole);
}

// The lines starting with "[ember] ", trailing spaces removed.
std::vector<std::string> trace_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[ember] ", 0) != 0) continue;
    line.erase(line.find_last_not_of(' ') + 1);
    lines.push_back(line);
  }
  return lines;
}

void mark_start() { std::fprintf(stderr, "%s\n", kStartMarker); }

}  // namespace

TEST(AutogradTrace, OffByDefaultAndFree) {
  if (trace::level() != 0) GTEST_SKIP() << "EMBER_DEBUG is set";
  // Off, the device's kernel table is used directly: no wrapper, nothing to pay per kernel.
  EXPECT_EQ(&backend_for(Device(kCPU)), &cpu::backend());
}

// ---- children: run only inside the tests below, with EMBER_DEBUG set ----

TEST(AutogradTrace, ChildTinyForwardBackward) {
  if (trace::level() == 0) GTEST_SKIP() << "runs inside AutogradTrace.NamesOpsAndShapes with EMBER_DEBUG=1";
  Tensor x = ones({2, 3});
  Tensor w = ones({3, 4}, requires_grad());
  x.matmul(w).relu().sum().backward();
}

TEST(AutogradTrace, ChildSmallModel) {
  if (trace::level() == 0) GTEST_SKIP() << "runs inside AutogradTrace.SmallModelSequence with EMBER_DEBUG set";
  namespace F = nn::functional;
  Tensor x = ones({4, 3});                    // (N, C_in)
  Tensor w1 = ones({8, 3}, requires_grad());  // Linear(3, 8)
  Tensor b1 = ones({8}, requires_grad());
  Tensor w2 = ones({2, 8}, requires_grad());  // Linear(8, 2)
  Tensor b2 = ones({2}, requires_grad());
  Tensor target = zeros({4}, dtype(kInt64));
  mark_start();
  Tensor loss = F::cross_entropy(F::linear(F::gelu(F::linear(x, w1, b1)), w2, b2), target);
  loss.backward();
}

// Three SGD steps of a Linear(3, 2) on a squared loss; each step runs the same kernels.
TEST(AutogradTrace, ChildThreeSteps) {
  if (trace::level() == 0) GTEST_SKIP() << "runs inside AutogradTrace.StepsTraceOnlyTheStepsAsked with EMBER_DEBUG set";
  namespace F = nn::functional;
  Tensor w = ones({2, 3}, requires_grad()), b = zeros({2}, requires_grad());
  optim::SGD opt({w, b}, optim::SGDOptions(0.1));
  mark_start();
  for (int step = 1; step <= 3; ++step) {
    std::fprintf(stderr, "[ember] (test) step %d starts\n", step);
    opt.zero_grad();
    F::linear(ones({4, 3}) * step, w, b).pow(2).mean().backward();
    opt.step();
  }
}

// ---- the checks ----

TEST(AutogradTrace, NamesOpsAndShapes) {
  const std::string out = run_traced("ChildTinyForwardBackward", 1);
  // One line per kernel, in execution order; kernels run by backward name their node. (Shapes
  // are the kernel's: matmul sees the batched [1, 2, 3] form of the user's [2, 3].)
  size_t pos = 0;
  for (const char* expected : {"] matmul", "<- [1, 2, 3], [1, 3, 4]", "] relu ", "out [2, 4] float32 cpu <- [2, 4]",
                               "] sum ", "backward ReluBackward0: mul", "backward MmBackward0: matmul"}) {
    const size_t found = out.find(expected, pos);
    ASSERT_NE(found, std::string::npos) << "missing '" << expected << "' (in this order) in:\n" << out;
    pos = found;
  }
}

TEST(AutogradTrace, SmallModelSequence) {
  // Linear(3, 8) -> GELU -> Linear(8, 2) -> cross_entropy, forward and backward, float32 on the CPU:
  // every kernel, in order, with its output and input shapes. Runs of spaces are folded to one.
  // When an op changes on purpose, the failure message prints the new sequence ready to paste.
  const std::vector<std::string> expected = {
      // forward: Linear(3, 8) = addmm: one kernel, the bias copied into the product's buffer and
      // the product added to it (BLAS's beta = 1); tagged with the op the program called
      "linear: addmm out [1, 4, 8] float32 cpu <- [1, 4, 8], [1, 4, 3], [1, 3, 8]",
      // GELU (op and kernel share the name: no tag)
      "gelu out [4, 8] float32 cpu <- [4, 8]",
      // Linear(8, 2)
      "linear: addmm out [1, 4, 2] float32 cpu <- [1, 4, 2], [1, 4, 8], [1, 8, 2]",
      // cross_entropy, fused (core/cpu/loss.cpp): the status word {ignore_index, 0} made on the host,
      // one kernel for the per-row losses (checking the targets, counting those not ignored), then
      // the mean: losses.sum() / count; every kernel tagged cross_entropy, not with the ops inside it
      "cross_entropy: copy out [2] int64 cpu <- [2]",
      "cross_entropy out [4] float32 cpu <- [4, 2], [4]",
      "cross_entropy: sum out [1] float32 cpu <- [4]",
      "cross_entropy: fill out [] float32 cpu",
      "cross_entropy: div out [] float32 cpu <- [], []",
      // backward starts from d loss / d loss = 1
      "fill out [] float32 cpu",
      // NllLossBackward0 of the logits: g / count, then one kernel (softmax - one-hot) * g / count
      "backward NllLossBackward0",
      "backward NllLossBackward0: fill out [] float32 cpu",
      "backward NllLossBackward0: div out [] float32 cpu <- [], []",
      "backward NllLossBackward0: cross_entropy_backward out [4, 2] float32 cpu <- [4], [4, 2]",
      // AddmmBackward0 of Linear(8, 2): dbias = sum over rows, dx = g W, and dW^T made in W^T's own
      // layout, as (g^T x)^T (PyTorch's choice), so dW comes out contiguous
      "backward AddmmBackward0",
      "backward AddmmBackward0: sum out [1, 2] float32 cpu <- [4, 2]",
      "backward AddmmBackward0: matmul out [1, 4, 8] float32 cpu <- [1, 4, 2], [1, 2, 8]",
      "backward AddmmBackward0: matmul out [1, 2, 8] float32 cpu <- [1, 2, 4], [1, 4, 8]",
      // leaves take their gradients as soon as they are ready (PyTorch's order): b2, then W2 through
      // TBackward0; both keep the buffer they are handed, nothing is copied
      "backward AccumulateGrad",
      "backward TBackward0",
      "backward AccumulateGrad",
      // GeluBackward0: g * (Phi(x) + x phi(x)), one kernel
      "backward GeluBackward0",
      "backward GeluBackward0: gelu_backward out [4, 8] float32 cpu <- [4, 8], [4, 8]",
      // AddmmBackward0 of Linear(3, 8): x needs no gradient, so no dx matmul
      "backward AddmmBackward0",
      "backward AddmmBackward0: sum out [1, 8] float32 cpu <- [4, 8]",
      "backward AddmmBackward0: matmul out [1, 8, 3] float32 cpu <- [1, 8, 4], [1, 4, 3]",
      // b1, then W1
      "backward AccumulateGrad",
      "backward TBackward0",
      "backward AccumulateGrad",
  };
  std::vector<std::string> got;
  for (std::string line : trace_lines(run_traced("ChildSmallModel", 1))) {
    line = line.substr(std::string("[ember] ").size());
    std::string folded;
    for (char c : line)
      if (c != ' ' || folded.empty() || folded.back() != ' ') folded += c;
    got.push_back(folded);
  }
  size_t first_difference = 0;
  while (first_difference < std::min(got.size(), expected.size()) &&
         got[first_difference] == expected[first_difference])
    ++first_difference;
  std::string listing;
  for (const std::string& line : got) listing += "      \"" + line + "\",\n";
  EXPECT_EQ(got, expected) << "first difference at line " << first_difference + 1 << " of " << got.size()
                           << "; the traced sequence:\n"
                           << listing;
}

TEST(AutogradTrace, LevelTwoTimesEachKernelAndSummarises) {
  const std::string out = run_traced("ChildTinyForwardBackward", 2);
  // Every kernel line ends with its time; backward nodes have their own line, without a time.
  const std::vector<std::string> lines = trace_lines(out.substr(0, out.find("[ember] op summary")));
  ASSERT_FALSE(lines.empty()) << out;
  int kernels = 0;
  for (const std::string& line : lines) {
    if (line.find(" out ") == std::string::npos) {
      EXPECT_EQ(line.rfind("[ember] backward ", 0), 0u) << line;
      continue;
    }
    ++kernels;
    EXPECT_TRUE(line.size() > 4 && line.compare(line.size() - 4, 4, " ms)") == 0) << "no time on: " << line;
  }
  EXPECT_EQ(kernels, 11) << out;  // 2 fills, matmul, relu, sum, the seed, 4 in ReluBackward0, 1 in MmBackward0
  // The table at exit: one row per op (forward and backward apart), then the total.
  for (const char* row : {"\\[ember\\] op summary \\(EMBER_DEBUG=2\\)", "\nmatmul +1 ", "\nbackward matmul +1 ",
                          "\nrelu +1 ", "\nfill +3 ", "\nbackward fill +1 ", "\ntotal +11 +[0-9.]+ +100.0%"})
    EXPECT_TRUE(std::regex_search(out, std::regex(row))) << "no line matching '" << row << "' in:\n" << out;
}

namespace ember {
namespace {

TEST(AutogradTrace, ProfilePrintsOnlyTheTable) {
  // EMBER_DEBUG=profile (ember-charlm train --profile): no line per kernel, the same table at exit.
  const std::string out = run_traced("ChildTinyForwardBackward", "profile");
  for (const std::string& line : trace_lines(out.substr(0, out.find("[ember] op summary"))))
    ADD_FAILURE() << "a per-op line in profile mode: " << line;
  for (const char* row : {"\\[ember\\] op summary \\(EMBER_DEBUG=profile\\)", "\nmatmul +1 ", "\nbackward matmul +1 ",
                          "\ntotal +11 +[0-9.]+ +100.0%"})
    EXPECT_TRUE(std::regex_search(out, std::regex(row))) << "no line matching '" << row << "' in:\n" << out;
}

}  // namespace
}  // namespace ember

namespace {

// The kernel lines of `out` (those with " out ").
std::vector<std::string> kernel_lines(const std::string& out) {
  std::vector<std::string> kernels;
  for (const std::string& line : trace_lines(out))
    if (line.find(" out ") != std::string::npos) kernels.push_back(line);
  return kernels;
}

TEST(AutogradTrace, StepsTraceOnlyTheStepsAsked) {
  const std::string all = run_traced("ChildThreeSteps", 1);
  const size_t per_step = kernel_lines(all).size() / 3;
  ASSERT_GT(per_step, 5u) << all;
  ASSERT_EQ(kernel_lines(all).size(), 3 * per_step) << all;
  EXPECT_EQ(all.find("end of step"), std::string::npos) << "step markers without EMBER_DEBUG_STEPS:\n" << all;

  // Step 2 alone: its kernels only, between the test's "step 2 starts" and "step 3 starts", and a
  // line where it ends.
  const std::string second = run_traced("ChildThreeSteps", 1, "EMBER_DEBUG_STEPS=2-2");
  EXPECT_EQ(kernel_lines(second).size(), per_step) << second;
  const size_t from = second.find("step 2 starts"), to = second.find("step 3 starts");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos) << second;
  EXPECT_EQ(kernel_lines(second.substr(from, to - from)).size(), per_step) << second;
  EXPECT_NE(second.find("[ember] ---- end of step 2 (the last EMBER_DEBUG_STEPS traces) ----"), std::string::npos)
      << second;

  // EMBER_DEBUG_STEPS=N: the first N steps.
  const std::string first_two = run_traced("ChildThreeSteps", 1, "EMBER_DEBUG_STEPS=2");
  EXPECT_EQ(kernel_lines(first_two).size(), 2 * per_step) << first_two;
  EXPECT_NE(first_two.find("---- end of step 1 ----"), std::string::npos) << first_two;
  EXPECT_EQ(first_two.find("step 3 starts\n[ember] linear"), std::string::npos) << first_two;

  // Level 2: the table at exit counts the traced step only (one linear forward: one addmm).
  const std::string timed = run_traced("ChildThreeSteps", 2, "EMBER_DEBUG_STEPS=3-3");
  EXPECT_TRUE(std::regex_search(timed, std::regex("\naddmm +1 "))) << timed;

  // A value that is not N or A-B is named (at the first kernel, before the child's marker), and
  // every step is traced.
  for (const char* bad : {"0", "3-2", "x", "-2", "1-", "99999999999999999999"}) {
    const std::string env = fmt::format("EMBER_DEBUG_STEPS='{}'", bad);
    const std::string out = run_traced("ChildThreeSteps", 1, env);
    EXPECT_NE(run_traced("ChildThreeSteps", 1, env, /*whole=*/true).find(fmt::format("EMBER_DEBUG_STEPS='{}' is not N (the first N steps) or A-B", bad)),
              std::string::npos)
        << bad << ":\n"
        << out;
    EXPECT_EQ(kernel_lines(out).size(), 3 * per_step) << bad;
  }
}

TEST(AutogradTrace, ScopeTracesARegionWithoutEmberDebug) {
  if (trace::level() != 0) GTEST_SKIP() << "EMBER_DEBUG is set";
  namespace F = nn::functional;
  Tensor x = ones({2, 3}), w = ones({4, 3}, requires_grad());
  ::testing::internal::CaptureStderr();
  Tensor before = ones({5, 3}).matmul(w.t());  // not traced
  {
    trace::Scope scope("one layer");
    EXPECT_NE(&backend_for(Device(kCPU)), &cpu::backend());
    F::linear(x, w).relu().sum().backward();
  }
  Tensor after = ones({5, 3}).matmul(w.t());  // not traced
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(&backend_for(Device(kCPU)), &cpu::backend()) << "the wrapper outlived the scope";
  const std::vector<std::string> lines = trace_lines(out);
  ASSERT_GE(lines.size(), 4u) << out;
  EXPECT_EQ(lines.front(), "[ember] ---- trace scope 'one layer' begins ----");
  EXPECT_EQ(lines.back(), "[ember] ---- trace scope 'one layer' ends ----");
  // Forward tagged by op, backward by node; nothing from the products before and after.
  for (const char* expected : {"] linear: matmul ", "] relu ", "] sum ",
                               "] backward SumBackward0", "] backward ReluBackward0: "})
    EXPECT_NE(out.find(expected), std::string::npos) << "no '" << expected << "' in:\n" << out;
  EXPECT_EQ(kernel_lines(out).size(), kernel_lines(out.substr(out.find("begins"))).size());
  EXPECT_EQ(out.find("[1, 5, 3]"), std::string::npos) << "a product outside the scope was traced:\n" << out;
}

TEST(AutogradTrace, PrintingLeavesItsCopiesOut) {
  if (trace::level() != 0) GTEST_SKIP() << "EMBER_DEBUG is set";
  Tensor x = arange(6, dtype(kFloat32)).reshape({2, 3}).t();  // printing a transpose copies it
  ::testing::internal::CaptureStderr();
  std::ostringstream printed;
  {
    trace::Scope scope("print");
    printed << x;
    printed << to_string(x * 2);  // the mul is the program's; print's copy is not
  }
  const std::string out = ::testing::internal::GetCapturedStderr();
  const std::vector<std::string> kernels = kernel_lines(out);  // x * 2: the scalar 2, then the product
  ASSERT_EQ(kernels.size(), 2u) << out;
  EXPECT_NE(kernels[0].find("] fill "), std::string::npos) << out;
  EXPECT_NE(kernels[1].find("] mul "), std::string::npos) << out;
  EXPECT_NE(printed.str().find("tensor([[0., 3.]"), std::string::npos) << printed.str();
}

}  // namespace
