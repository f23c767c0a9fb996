// torch::data with a dataset of our own: Dataset<Self>, .map() with Normalize, a Lambda and Stack,
// make_data_loader with SequentialSampler and (seeded) RandomSampler, drop_last, worker threads
// that keep the sampler's order, and TensorDataset.
#include <iostream>

#include <torch/torch.h>

// Example i: a (2, 2, 2) image filled with i (channel 1: 2i), target i % 3.
class Ramp : public torch::data::datasets::Dataset<Ramp> {
 public:
  explicit Ramp(size_t n) : n_(n) {}
  torch::data::Example<> get(size_t index) override {
    torch::Tensor image = torch::full({2, 2, 2}, static_cast<double>(index));
    image[1].mul_(2);
    return {image, torch::tensor(static_cast<int64_t>(index % 3))};
  }
  torch::optional<size_t> size() const override { return n_; }

 private:
  size_t n_;
};

template <typename Loader>
void print_targets(const char* title, Loader& loader) {
  std::cout << title << ":";
  for (auto& batch : loader) {
    std::cout << " [";
    for (int64_t i = 0; i < batch.target.size(0); ++i)
      std::cout << (i ? " " : "") << batch.target[i].template item<int64_t>();
    std::cout << "]";
  }
  std::cout << std::endl;
}

int main() {
  auto dataset = Ramp(10)
                     .map(torch::data::transforms::Normalize<>({1.0, 2.0}, {2.0, 4.0}))
                     .map(torch::data::transforms::Stack<>());
  std::cout << "size " << dataset.size().value() << std::endl;
  auto sequential = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      dataset, torch::data::DataLoaderOptions().batch_size(4));
  for (auto& batch : *sequential) {
    std::cout << batch.data.sizes() << " " << batch.target.sizes() << std::endl;
    std::cout << batch.data.select(2, 0).select(2, 0) << std::endl;
  }
  print_targets("sequential", *sequential);
  auto dropping = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      dataset, torch::data::DataLoaderOptions(4).drop_last(true));
  print_targets("drop_last", *dropping);

  // The images' first pixel identifies the example: which examples each shuffled batch holds.
  torch::manual_seed(42);
  auto shuffled = torch::data::make_data_loader(Ramp(10).map(torch::data::transforms::Stack<>()), 3);
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::cout << "shuffled epoch " << epoch << ":";
    for (auto& batch : *shuffled) std::cout << " " << batch.data.select(1, 0).select(1, 0).select(1, 0);
    std::cout << std::endl;
  }
  auto threaded = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      Ramp(11).map(torch::data::transforms::Stack<>()), torch::data::DataLoaderOptions(2).workers(3));
  print_targets("workers", *threaded);

  auto scaled = torch::data::datasets::TensorDataset(torch::arange(12, torch::kDouble).reshape({6, 2}))
                    .map(torch::data::transforms::Lambda<torch::data::TensorExample>(
                        [](torch::data::TensorExample e) { return torch::data::TensorExample(e.data * 10); }))
                    .map(torch::data::transforms::Stack<torch::data::TensorExample>());
  auto tensors = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(scaled), 4);
  for (auto& batch : *tensors) std::cout << batch.data << std::endl;
}
