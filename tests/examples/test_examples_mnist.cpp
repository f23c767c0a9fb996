// ember-mnist (examples/mnist) end to end: two epochs on 64 generated images whose label is where a
// bright block sits, so a few SGD steps already lower the loss. Built with the example, which
// needs nn/conv.h and nn/pooling.h.
#if __has_include("nn/conv.h") && __has_include("nn/pooling.h")

#include <cstdio>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "mnist_files.h"
#include "test_util.h"

namespace ember {
namespace {

std::string run_mnist(const std::string& args, int* status) {
  const std::string cmd = std::string(EMBER_EXAMPLES_DIR) + "/mnist/ember-mnist " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  *status = pclose(pipe);
  return out;
}

// Label k: a bright 6 x 6 block at one of ten places, over faint noise.
int pixel(int64_t i, int64_t r, int64_t c) {
  const int64_t k = i % 10, top = 3 + (k / 5) * 12, left = 1 + (k % 5) * 5;
  if (r >= top && r < top + 6 && c >= left && c < left + 6) return 250;
  return static_cast<int>((i * 7 + r * 3 + c * 5) % 23);
}
int label(int64_t i) { return static_cast<int>(i % 10); }

TEST(ExampleMnist, TrainsOnSmallIdxFiles) {
  test::MnistDir d("example", 64, 20, pixel, label, pixel, label);
  int status = 0;
  const std::string out = run_mnist(
      "--data " + d.dir.string() + " --epochs 2 --batch-size 8 --test-batch-size 10 --lr 0.05 --workers 2", &status);
  ASSERT_EQ(status, 0) << out;
  std::regex average("Train Epoch: (\\d+) Average loss: ([0-9.]+)");
  std::vector<double> losses;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), average); it != std::sregex_iterator(); ++it)
    losses.push_back(std::stod((*it)[2]));
  ASSERT_EQ(losses.size(), 2u) << out;
  EXPECT_LT(losses[1], losses[0]) << out;
  EXPECT_LT(losses[0], 3.0) << out;  // about ln 10 = 2.30 at the start
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("Test set: Average loss: ([0-9.]+) \\| Accuracy: ([0-9.]+)")))
      << out;
}

TEST(ExampleMnist, MissingFilesAreAClearError) {
  int status = 0;
  const std::string out = run_mnist("--data /nonexistent/mnist --epochs 1", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("cannot open /nonexistent/mnist/train-images-idx3-ubyte"), std::string::npos) << out;
}

// Files with valid headers but no images: an error, not "Accuracy: nan" and exit status 0.
TEST(ExampleMnist, EmptyFilesAreAnErrorNotNanAccuracy) {
  test::MnistDir empty_train("empty_train", 0, 20, pixel, label, pixel, label);
  int status = 0;
  std::string out = run_mnist("--data " + empty_train.dir.string() + " --epochs 1", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("ember-mnist: the training set in " + empty_train.dir.string() + " holds no images"),
            std::string::npos)
      << out;
  test::MnistDir empty_test("empty_test", 8, 0, pixel, label, pixel, label);
  out = run_mnist("--data " + empty_test.dir.string() + " --epochs 1 --batch-size 8", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("ember-mnist: the test set in " + empty_test.dir.string() + " holds no images"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("nan"), std::string::npos) << out;
}

}  // namespace
}  // namespace ember

#endif
