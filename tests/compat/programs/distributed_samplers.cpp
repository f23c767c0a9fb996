// The distributed samplers as a data-parallel training program uses them: each rank's share of a
// dataset (sequential and shuffled, with and without duplicates), a new shuffle per epoch through
// set_epoch, a data loader over one rank's share, and a sampler's position saved to an archive
// and restored mid-epoch.
#include <iostream>
#include <sstream>
#include <vector>

#include <torch/torch.h>

template <typename Sampler>
void print_all(Sampler& sampler, size_t batch_size) {
  while (auto batch = sampler.next(batch_size)) {
    std::cout << "[";
    for (size_t i : *batch) std::cout << " " << i;
    std::cout << " ]";
  }
  std::cout << std::endl;
}

int main() {
  for (size_t rank = 0; rank < 3; ++rank) {
    torch::data::samplers::DistributedSequentialSampler seq(10, 3, rank);
    print_all(seq, 3);
    torch::data::samplers::DistributedSequentialSampler strict(10, 3, rank, false);
    print_all(strict, 2);
  }
  for (size_t epoch = 0; epoch < 3; ++epoch) {
    for (size_t rank = 0; rank < 2; ++rank) {
      torch::data::samplers::DistributedRandomSampler random(11, 2, rank);
      random.set_epoch(epoch);
      random.reset();
      print_all(random, 4);
    }
  }
  torch::data::samplers::DistributedRandomSampler strict_random(10, 4, 3, false);
  strict_random.set_epoch(7);
  strict_random.reset();
  print_all(strict_random, 8);

  // A loader over rank 1's share of 12 examples.
  torch::Tensor data = torch::arange(12, torch::kFloat).unsqueeze(1);
  auto dataset =
      torch::data::datasets::TensorDataset(data).map(torch::data::transforms::Stack<torch::data::TensorExample>());
  auto loader =
      torch::data::make_data_loader(std::move(dataset), torch::data::samplers::DistributedRandomSampler(12, 2, 1),
                                    torch::data::DataLoaderOptions().batch_size(4));
  for (auto& batch : *loader) std::cout << batch.data.squeeze(1) << std::endl;

  // Resume mid-epoch from an archive.
  torch::data::samplers::DistributedRandomSampler sampler(20, 2, 0);
  sampler.set_epoch(4);
  sampler.reset();
  auto first = sampler.next(3);
  torch::serialize::OutputArchive out;
  sampler.save(out);
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  torch::data::samplers::DistributedRandomSampler resumed(20, 2, 0);
  resumed.load(in);
  std::cout << resumed.epoch() << " " << resumed.index() << std::endl;
  print_all(resumed, 3);
  print_all(sampler, 3);

  torch::data::samplers::SequentialSampler plain(6);
  plain.next(4);
  torch::serialize::OutputArchive plain_out;
  plain.save(plain_out);
  std::stringstream plain_bytes;
  plain_out.save_to(plain_bytes);
  torch::serialize::InputArchive plain_in;
  plain_in.load_from(plain_bytes);
  torch::data::samplers::SequentialSampler plain_resumed(6);
  plain_resumed.load(plain_in);
  print_all(plain_resumed, 4);
}
