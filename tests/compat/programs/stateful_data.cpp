// torch::data's stream and stateful datasets, written as libtorch's own tests write them: a
// StreamDataset with StreamSampler, a StatefulDataset of our own through StatefulDataLoader,
// ChunkDataset over a ChunkDataReader (shared with make_shared_dataset, sequential and seeded
// random samplers, cross-chunk shuffle, a preprocessing policy, a resumed chunk sampler), a
// worker's exception as WorkerException, torch::save/load of a sampler, and the helpers of
// torch::optim::serialize.
#include <algorithm>
#include <deque>
#include <iostream>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

using torch::data::datasets::ChunkDataReader;
using torch::data::datasets::ChunkDataset;
using torch::data::datasets::ChunkDatasetOptions;
using torch::data::samplers::RandomSampler;
using torch::data::samplers::SequentialSampler;

void print(const std::vector<int>& values) {
  std::cout << " [";
  for (size_t i = 0; i < values.size(); ++i) std::cout << (i ? " " : "") << values[i];
  std::cout << "]";
}

template <typename Loader>
void print_pass(const char* title, Loader& loader) {
  std::cout << title << ":";
  for (auto& batch : loader) print(batch);
  std::cout << "\n";
}

// The numbers from 0 on; get_batch(n) hands out the next n.
class Numbers : public torch::data::datasets::StreamDataset<Numbers, std::vector<int>> {
 public:
  std::vector<int> get_batch(size_t n) override {
    std::vector<int> batch(n);
    std::iota(batch.begin(), batch.end(), next_);
    next_ += static_cast<int>(n);
    return batch;
  }
  torch::optional<size_t> size() const override { return torch::nullopt; }

 private:
  int next_ = 0;
};

// 0..n-1, then the end of the epoch; reset() starts over.
class Counter : public torch::data::datasets::StatefulDataset<Counter, std::vector<int>> {
 public:
  explicit Counter(int n) : n_(n) {}
  Counter(Counter&& other) noexcept : n_(other.n_), next_(other.next_) {}  // the mutex is not moved
  torch::optional<std::vector<int>> get_batch(size_t batch_size) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (next_ >= n_) return torch::nullopt;
    std::vector<int> batch;
    for (size_t k = 0; k < batch_size && next_ < n_; ++k) batch.push_back(next_++);
    return batch;
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(n_); }
  void reset() override { next_ = 0; }
  void save(torch::serialize::OutputArchive&) const override {}
  void load(torch::serialize::InputArchive&) override {}

 private:
  int n_;
  int next_ = 0;
  std::mutex mutex_;
};

// Chunk c: sizes[c] consecutive integers, numbered across the chunks.
class Chunks : public ChunkDataReader<int> {
 public:
  using BatchType = ChunkDataReader<int>::ChunkType;
  explicit Chunks(std::vector<size_t> sizes, int broken = -1) : sizes_(std::move(sizes)), broken_(broken) {}
  ChunkType read_chunk(size_t c) override {
    if (static_cast<int>(c) == broken_) throw std::runtime_error("chunk " + std::to_string(c) + " is broken");
    size_t start = 0;
    for (size_t k = 0; k < c; ++k) start += sizes_[k];
    ChunkType chunk(sizes_[c]);
    std::iota(chunk.begin(), chunk.end(), static_cast<int>(start));
    return chunk;
  }
  size_t chunk_count() override { return sizes_.size(); }
  void reset() override {}

 private:
  std::vector<size_t> sizes_;
  int broken_;
};

int main() {
  // A stream dataset: the sampler says how many, the dataset which.
  {
    auto loader = torch::data::make_data_loader(Numbers(), torch::data::samplers::StreamSampler(10),
                                                torch::data::DataLoaderOptions(4));
    print_pass("stream, epoch 1", *loader);
    print_pass("stream, epoch 2", *loader);
    torch::data::samplers::StreamSampler sampler(7);
    torch::data::samplers::BatchSize request = *sampler.next(5);
    std::cout << "BatchSize " << request.size() << " " << static_cast<size_t>(request) << " then "
              << sampler.next(5)->size() << " then " << sampler.next(5).has_value() << "\n";
  }

  // A stateful dataset of our own, through StatefulDataLoader.
  {
    auto loader = torch::data::make_data_loader(Counter(11), torch::data::DataLoaderOptions(3));
    print_pass("stateful, epoch 1", *loader);
    print_pass("stateful, epoch 2", *loader);
    std::cout << "is_stateful " << Counter::is_stateful << " " << Numbers::is_stateful << "\n";
  }

  // ChunkDataset, one preloader and sequential samplers: the chunks' order, an empty chunk skipped.
  {
    auto dataset =
        torch::data::datasets::make_shared_dataset<ChunkDataset<Chunks, SequentialSampler, SequentialSampler>>(
            Chunks({3, 0, 5, 7, 2}), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 4));
    auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(4));
    print_pass("chunks, sequential", *loader);
    print_pass("chunks, again", *loader);
  }

  // Two chunks read together, reversed by a preprocessing policy.
  {
    auto dataset =
        torch::data::datasets::make_shared_dataset<ChunkDataset<Chunks, SequentialSampler, SequentialSampler>>(
            Chunks({3, 4, 2}), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 4, 2048, 2),
            [](std::vector<int>& examples) { std::reverse(examples.begin(), examples.end()); });
    auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(4));
    print_pass("chunks, cross-chunk 2, reversed", *loader);
  }

  // The example sampler shuffles each chunk, seeded: one chunk, one batch.
  {
    torch::manual_seed(3);
    auto dataset = torch::data::datasets::make_shared_dataset<ChunkDataset<Chunks, SequentialSampler, RandomSampler>>(
        Chunks({12}), SequentialSampler(0), RandomSampler(0), ChunkDatasetOptions(1, 12));
    torch::manual_seed(5);
    auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(12));
    print_pass("chunk shuffled, seed 5", *loader);
  }

  // Resumed: a chunk sampler that had handed out 2 of 4 chunks.
  {
    SequentialSampler position(4);
    position.next(2);
    torch::serialize::OutputArchive out;
    position.save(out);
    std::stringstream bytes;
    out.save_to(bytes);
    auto dataset =
        torch::data::datasets::make_shared_dataset<ChunkDataset<Chunks, SequentialSampler, SequentialSampler>>(
            Chunks({4, 4, 4, 4}), SequentialSampler(4), SequentialSampler(0), ChunkDatasetOptions(1, 4));
    torch::serialize::InputArchive in;
    in.load_from(bytes);
    dataset->load(in);
    auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(4));
    print_pass("chunks, resumed", *loader);
  }

  // Every example once with two preloaders and two workers (the order varies: sorted here).
  {
    auto dataset = torch::data::datasets::make_shared_dataset<ChunkDataset<Chunks>>(
        Chunks({10, 1, 13, 7, 20, 4, 9}), RandomSampler(0), RandomSampler(0), ChunkDatasetOptions(2, 5, 16));
    auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(5).workers(2));
    std::vector<int> all;
    size_t batches = 0;
    for (auto& batch : *loader) {
      all.insert(all.end(), batch.begin(), batch.end());
      ++batches;
    }
    std::sort(all.begin(), all.end());
    bool once = all.size() == 64;
    for (size_t i = 0; once && i < all.size(); ++i) once = all[i] == static_cast<int>(i);
    std::cout << "parallel: " << batches << " batches, every example once: " << once << "\n";
  }

  // A chunk that cannot be read (the last: libtorch 1.13 loses the examples of a chunk read after a
  // broken one, which Ember keeps): the caller gets a WorkerException.
  {
    auto dataset =
        torch::data::datasets::make_shared_dataset<ChunkDataset<Chunks, SequentialSampler, SequentialSampler>>(
            Chunks({2, 2, 2}, /*broken=*/2), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 2));
    auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(2));
    std::cout << "broken chunk:";
    auto it = loader->begin();
    while (true) {
      try {
        if (it == loader->end()) break;
        print(*it);
        ++it;
      } catch (const torch::data::WorkerException& e) {
        std::cout << " {" << e.what() << "}";
        ++it;
      }
    }
    std::cout << "\n";
  }

  // torch::save / torch::load of a sampler's position.
  {
    SequentialSampler sampler(10);
    sampler.next(3);
    std::stringstream file;
    torch::save(sampler, file);
    SequentialSampler restored(10);
    torch::load(restored, file);
    std::cout << "sampler resumed:";
    const std::vector<size_t> indices = *restored.next(4);
    print(std::vector<int>(indices.begin(), indices.end()));
    std::cout << "\n";
  }

  // torch::optim::serialize's buffer lists, as a custom optimizer's state calls it (libtorch 1.13's
  // int64 forms are declared but not in its library, so a program cannot link them there).
  {
    torch::serialize::OutputArchive out;
    torch::optim::serialize(out, "buffers", std::vector<torch::Tensor>{torch::ones(2), torch::arange(3)});
    std::stringstream bytes;
    out.save_to(bytes);
    torch::serialize::InputArchive in;
    in.load_from(bytes);
    std::deque<torch::Tensor> buffers;
    torch::optim::serialize(in, "buffers", buffers);
    std::cout << "optim::serialize: buffers " << buffers.size() << " summing to " << buffers[0].sum().item<double>()
              << " and " << buffers[1].sum().item<double>() << "\n";
    auto list = torch::optim::deque_to_list(buffers);
    std::cout << "deque_to_list " << list.size() << ", list_to_deque " << torch::optim::list_to_deque(list).size()
              << "\n";
  }

  // Options checked as libtorch checks them.
  for (auto make : {+[] { ChunkDatasetOptions(0, 4); }, +[] { ChunkDatasetOptions(1, 4, 3); }}) {
    try {
      make();
    } catch (const std::exception& e) {
      std::string message = e.what();
      std::cout << "error: " << message.substr(0, message.find('\n')) << "\n";
    }
  }
}
