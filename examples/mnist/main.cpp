// ember-mnist: the classic libtorch MNIST example (pytorch/examples, cpp/mnist) on Ember. A small
// convolutional network trained with SGD on the IDX files of MNIST, printing the training loss of
// every epoch and the test set's loss and accuracy.
//
//   ember-mnist --data data/mnist --epochs 10        # the four uncompressed files of yann.lecun.com
//
// The network, as the original: conv(1->10, 5x5) -> max-pool 2 -> relu; conv(10->20, 5x5) ->
// Dropout2d -> max-pool 2 -> relu; linear 320->50 -> relu -> dropout 0.5; linear 50->10 ->
// log-softmax; negative log-likelihood; SGD lr 0.01, momentum 0.5. Deliberately no more than the
// original: no checkpoints, no GPU selection beyond --cuda.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>
#include <ember/ember.h>

#include "nn/conv.h"
#include "nn/pooling.h"

namespace F = ember::nn::functional;

struct Settings {
  std::string data_dir;
  int64_t epochs = 10;
  int64_t batch_size = 64;
  int64_t test_batch_size = 1000;
  double lr = 0.01;
  double momentum = 0.5;
  uint64_t seed = 1;
  int64_t workers = 0;
  int64_t log_interval = 10;
  bool cuda = false;
};

struct NetImpl : ember::nn::Module {
  NetImpl()
      : conv1(ember::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(ember::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  // x: (N, 1, 28, 28) -> log-probabilities (N, 10)
  ember::Tensor forward(ember::Tensor x) {
    x = ember::relu(F::max_pool2d(conv1->forward(x), F::MaxPool2dFuncOptions(2)));  // (N, 10, 12, 12)
    x = ember::relu(
        F::max_pool2d(conv2_drop->forward(conv2->forward(x)), F::MaxPool2dFuncOptions(2)));  // (N, 20, 4, 4)
    x = x.view({-1, 320});
    x = ember::relu(fc1->forward(x));
    x = F::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return ember::log_softmax(x, /*dim=*/1);
  }

  ember::nn::Conv2d conv1;
  ember::nn::Conv2d conv2;
  ember::nn::Dropout2d conv2_drop;
  ember::nn::Linear fc1;
  ember::nn::Linear fc2;
};
EMBER_MODULE(Net);

// One epoch; returns the mean of the batches' losses.
template <typename DataLoader>
double train(int64_t epoch, Net& model, ember::Device device, DataLoader& loader, ember::optim::Optimizer& optimizer,
             size_t dataset_size, const Settings& s) {
  model->train();
  size_t batch_idx = 0, seen = 0;
  double loss_sum = 0;
  for (auto& batch : loader) {
    ember::Tensor data = batch.data.to(device), targets = batch.target.to(device);
    optimizer.zero_grad();
    ember::Tensor output = model->forward(data);
    ember::Tensor loss = ember::nll_loss(output, targets);
    const double value = loss.item<double>();
    EMBER_CHECK(std::isfinite(value), "ember-mnist: the loss is {} at epoch {}, batch {}", value, epoch, batch_idx);
    loss.backward();
    optimizer.step();
    loss_sum += value;
    seen += static_cast<size_t>(data.size(0));
    if (batch_idx++ % s.log_interval == 0)
      std::printf("Train Epoch: %ld [%5zu/%5zu] Loss: %.4f\n", static_cast<long>(epoch), seen, dataset_size, value);
  }
  const double mean = loss_sum / static_cast<double>(batch_idx);
  std::printf("Train Epoch: %ld Average loss: %.4f\n", static_cast<long>(epoch), mean);
  return mean;
}

template <typename DataLoader>
void test(Net& model, ember::Device device, DataLoader& loader, size_t dataset_size) {
  ember::NoGradGuard no_grad;
  model->eval();
  double test_loss = 0;
  int64_t correct = 0;
  for (const auto& batch : loader) {
    ember::Tensor data = batch.data.to(device), targets = batch.target.to(device);
    ember::Tensor output = model->forward(data);
    test_loss += ember::nll_loss(output, targets, ember::kSum).item<double>();
    correct += output.argmax(1).eq(targets).sum().item<int64_t>();
  }
  test_loss /= static_cast<double>(dataset_size);
  std::printf("Test set: Average loss: %.4f | Accuracy: %.3f\n", test_loss,
              static_cast<double>(correct) / static_cast<double>(dataset_size));
}

int run(const Settings& s) {
  ember::manual_seed(s.seed);
  const ember::Device device = s.cuda ? ember::Device(ember::kCUDA) : ember::Device(ember::kCPU);
  Net model;
  model->to(device);

  namespace data = ember::data;
  auto train_dataset = data::datasets::MNIST(s.data_dir)
                           .map(data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(data::transforms::Stack<>());
  const size_t train_size = train_dataset.size().value();
  EMBER_CHECK(train_size > 0, "the training set in {} holds no images; nothing to train on", s.data_dir);
  auto train_loader = data::make_data_loader<data::samplers::SequentialSampler>(
      std::move(train_dataset), data::DataLoaderOptions(s.batch_size).workers(s.workers));

  auto test_dataset = data::datasets::MNIST(s.data_dir, data::datasets::MNIST::Mode::kTest)
                          .map(data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(data::transforms::Stack<>());
  const size_t test_size = test_dataset.size().value();
  EMBER_CHECK(test_size > 0, "the test set in {} holds no images; its accuracy would be 0 / 0",
              s.data_dir);
  auto test_loader = data::make_data_loader(std::move(test_dataset), data::DataLoaderOptions(s.test_batch_size));

  ember::optim::SGD optimizer(model->parameters(), ember::optim::SGDOptions(s.lr).momentum(s.momentum));
  for (int64_t epoch = 1; epoch <= s.epochs; ++epoch) {
    train(epoch, model, device, *train_loader, optimizer, train_size, s);
    test(model, device, *test_loader, test_size);
  }
  return 0;
}

int main(int argc, char** argv) {
  Settings s;
  CLI::App app{"ember-mnist: train the libtorch MNIST example network on the MNIST IDX files"};
  app.add_option("--data", s.data_dir,
                 "folder holding train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and "
                 "t10k-labels-idx1-ubyte (uncompressed)")
      ->required();
  app.add_option("--epochs", s.epochs, "passes over the training set")->check(CLI::PositiveNumber);
  app.add_option("--batch-size", s.batch_size, "training batch size")->check(CLI::PositiveNumber);
  app.add_option("--test-batch-size", s.test_batch_size, "test batch size")->check(CLI::PositiveNumber);
  app.add_option("--lr", s.lr, "SGD learning rate")->check(CLI::NonNegativeNumber);
  app.add_option("--momentum", s.momentum, "SGD momentum")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", s.seed, "seed of the weights, dropout and shuffling");
  app.add_option("--workers", s.workers, "data-loader worker threads")->check(CLI::NonNegativeNumber);
  app.add_option("--log-interval", s.log_interval, "batches between loss lines")->check(CLI::PositiveNumber);
  app.add_flag("--cuda", s.cuda, "train on the GPU");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember-mnist: %s\n", e.what());
    return 1;
  }
}
