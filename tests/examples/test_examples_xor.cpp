// Runs examples/xor_mlp, the worked first program: its hand-written binary cross-entropy backward
// passes gradcheck, its graph is printed and saved, and the MLP learns all four rows of XOR.
// Skipped when the examples are not built (EMBER_BUILD_EXAMPLES=OFF).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "test_util.h"

TEST(ExamplesXor, LearnsXorWithAHandWrittenLoss) {
#ifndef EMBER_EXAMPLES_DIR
  GTEST_SKIP() << "examples are not built";
#else
  const std::string exe = std::string(EMBER_EXAMPLES_DIR) + "/xor_mlp";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << exe << " was not built";
  const std::string dir = ::testing::TempDir() + "ember_xor_mlp";
  std::filesystem::create_directories(dir);
  FILE* pipe = popen(("OMP_NUM_THREADS=1 '" + exe + "' '" + dir + "' 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, pipe)) out += buf;
  ASSERT_EQ(pclose(pipe), 0) << out;

  EXPECT_NE(out.find("gradcheck(BinaryCrossEntropy): passed"), std::string::npos) << out;
  EXPECT_NE(out.find("  loss = BinaryCrossEntropyBackward\n    SigmoidBackward0\n      AddmmBackward0\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("AccumulateGrad (leaf hidden.weight)"), std::string::npos) << out;
  // Each row of the truth table: the probability of 1 is on the right side of 0.5, by a margin.
  static const std::regex row(R"(  ([01])  ([01]) \|   ([01])    \| ([\d.]+))");
  int rows = 0;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), row); it != std::sregex_iterator(); ++it, ++rows) {
    const int x1 = std::stoi((*it)[1]), x2 = std::stoi((*it)[2]), target = std::stoi((*it)[3]);
    EXPECT_EQ(target, x1 ^ x2);
    const double p = std::stod((*it)[4]);
    if (target == 1) {
      EXPECT_GT(p, 0.9) << out;
    } else {
      EXPECT_LT(p, 0.1) << out;
    }
  }
  EXPECT_EQ(rows, 4) << out;
  EXPECT_NE(out.find("step   0: loss 0.7"), std::string::npos) << "should start near ln 2 = 0.69\n" << out;
  EXPECT_NE(out.find("learned XOR: yes"), std::string::npos) << out;
  std::ifstream dot(dir + "/xor_mlp.dot");
  std::stringstream text;
  text << dot.rdbuf();
  EXPECT_NE(text.str().find("BinaryCrossEntropyBackward"), std::string::npos) << text.str();
  std::filesystem::remove_all(dir);
#endif
}
