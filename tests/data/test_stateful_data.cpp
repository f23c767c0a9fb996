// libtorch's stream and stateful datasets in ember::data: StreamSampler and BatchSize, a
// StreamDataset and a StatefulDataset through the loader (with and without workers),
// WorkerException, SharedBatchDataset, and ChunkDataset: batches in the chunks' order, every
// example once for any preloader/worker/batch/cache combination, checkpoints, errors.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "test_util.h"

namespace ember {
namespace {

using data::datasets::ChunkDataReader;
using data::datasets::ChunkDataset;
using data::datasets::ChunkDatasetOptions;
using data::samplers::SequentialSampler;

// ---- StreamSampler and a stream dataset ----

TEST(StreamSampler, CountsOutAnEpochAndSavesItsPosition) {
  data::samplers::StreamSampler sampler(10);
  std::vector<size_t> sizes;
  while (auto request = sampler.next(4)) sizes.push_back(*request);  // BatchSize converts to size_t
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  EXPECT_FALSE(sampler.next(4).has_value());
  sampler.reset(5);
  EXPECT_EQ(sampler.next(3)->size(), 3u);

  serialize::OutputArchive out;
  sampler.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  const std::string saved = bytes.str();
  serialize::InputArchive in;
  in.load_from(saved.data(), saved.size());
  Tensor count;
  in.read("examples_retrieved_so_far", count, /*is_buffer=*/true);
  EXPECT_EQ(count.item<int64_t>(), 3);  // libtorch's key and value

  data::samplers::StreamSampler resumed(5);
  resumed.load(in);
  EXPECT_EQ(resumed.next(4)->size(), 2u);  // 3 of 5 were taken before the save
  EXPECT_FALSE(resumed.next(4).has_value());
  data::samplers::StreamSampler smaller(2);
  EXPECT_THROWS_WITH(smaller.load(in), "StreamSampler::load: examples_retrieved_so_far 3 is past the epoch size 2");
}

// A stream of the numbers from `start`: get_batch(n) gives the next n.
class Numbers : public data::datasets::StreamDataset<Numbers, std::vector<int>> {
 public:
  std::vector<int> get_batch(size_t n) override {
    std::vector<int> batch(n);
    std::iota(batch.begin(), batch.end(), next_);
    next_ += static_cast<int>(n);
    return batch;
  }
  std::optional<size_t> size() const override { return std::nullopt; }

 private:
  int next_ = 0;
};

TEST(StreamDataset, TheLoaderAsksForCountsFromTheStreamSampler) {
  static_assert(!Numbers::is_stateful);
  auto loader = data::make_data_loader(Numbers(), data::samplers::StreamSampler(10), data::DataLoaderOptions(4));
  std::vector<std::vector<int>> batches;
  for (auto& batch : *loader) batches.push_back(batch);
  EXPECT_EQ(batches, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  batches.clear();
  for (auto& batch : *loader) batches.push_back(batch);  // the stream goes on; the sampler restarts
  EXPECT_EQ(batches, (std::vector<std::vector<int>>{{10, 11, 12, 13}, {14, 15, 16, 17}, {18, 19}}));
}

// ---- a stateful dataset of our own ----

// The numbers 0..n-1 in order, `chunk` at a time; thread-safe; counts its resets.
class Counter : public data::datasets::StatefulDataset<Counter, std::vector<int>> {
 public:
  explicit Counter(int n) : n_(n) {}
  Counter(Counter&& other) noexcept : n_(other.n_), next_(other.next_), resets_(other.resets_) {}
  std::optional<std::vector<int>> get_batch(size_t batch_size) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (next_ >= n_) return std::nullopt;
    std::vector<int> batch;
    for (size_t k = 0; k < batch_size && next_ < n_; ++k) batch.push_back(next_++);
    return batch;
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(n_); }
  void reset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    next_ = 0;
    ++resets_;
  }
  void save(serialize::OutputArchive& archive) const override {
    archive.write("next", tensor(static_cast<int64_t>(next_)));
  }
  void load(serialize::InputArchive& archive) override {
    Tensor next;
    archive.read("next", next);
    next_ = static_cast<int>(next.item<int64_t>());
  }
  int resets() const { return resets_; }

 private:
  int n_;
  int next_ = 0;
  int resets_ = 0;
  std::mutex mutex_;
};

// Every element of one pass, in the order the batches came.
template <typename Loader>
std::vector<int> flatten_pass(Loader& loader, std::vector<size_t>* sizes = nullptr) {
  std::vector<int> all;
  for (auto& batch : loader) {
    if (sizes) sizes->push_back(batch.size());
    all.insert(all.end(), batch.begin(), batch.end());
  }
  return all;
}

std::vector<int> iota_vector(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(StatefulDataLoader, TheDatasetSaysWhenTheEpochEnds) {
  static_assert(Counter::is_stateful);
  for (size_t workers : {0, 1, 3}) {
    SCOPED_TRACE(workers);
    auto loader = data::make_data_loader(Counter(23), data::DataLoaderOptions(5).workers(workers));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<size_t> sizes;
      std::vector<int> all = flatten_pass(*loader, &sizes);
      if (workers <= 1) {
        EXPECT_EQ(all, iota_vector(23));
        EXPECT_EQ(sizes, (std::vector<size_t>{5, 5, 5, 5, 3}));
      } else {
        EXPECT_EQ(sorted(all), iota_vector(23));
      }
    }
    // An unfinished pass, then a new one: the new pass starts over (the dataset's reset()).
    auto it = loader->begin();
    ++it;
    EXPECT_EQ(sorted(flatten_pass(*loader)), iota_vector(23));
  }
}

TEST(StatefulDataLoader, MapDatasetPassesTheEndThroughAndResetsItsSource) {
  auto doubled =
      Counter(7).map(data::transforms::BatchLambda<std::vector<int>, std::vector<int>>([](std::vector<int> batch) {
        for (int& x : batch) x *= 2;
        return batch;
      }));
  static_assert(decltype(doubled)::is_stateful);
  auto loader = data::make_data_loader(std::move(doubled), data::DataLoaderOptions(3));
  EXPECT_EQ(flatten_pass(*loader), (std::vector<int>{0, 2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(flatten_pass(*loader), (std::vector<int>{0, 2, 4, 6, 8, 10, 12}));
}

TEST(SharedBatchDataset, CopiesShareOneDataset) {
  auto shared = data::datasets::make_shared_dataset<Counter>(5);
  auto copy = shared;
  EXPECT_EQ(shared.get_batch(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(copy.get_batch(2), (std::vector<int>{2, 3}));
  copy.reset();
  EXPECT_EQ(shared->resets(), 1);
  EXPECT_EQ((*shared).get_batch(9), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(shared.size(), std::optional<size_t>(5));
  auto loader = data::make_data_loader(shared, data::DataLoaderOptions(2).workers(2));
  EXPECT_EQ(sorted(flatten_pass(*loader)), iota_vector(5));
  EXPECT_EQ(shared->resets(), 2);  // through the loader's copy
}

// ---- WorkerException ----

// Examples 0..7 (data = target = i); get() throws for `poison`.
class Poisoned : public data::datasets::Dataset<Poisoned, data::Example<>> {
 public:
  explicit Poisoned(size_t poison = 5) : poison_(poison) {}
  data::Example<> get(size_t i) override {
    EMBER_CHECK(i != poison_, "Poisoned: example {} is poisoned", i);
    return {tensor(static_cast<int64_t>(i)), tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return 8; }

 private:
  size_t poison_;
};

TEST(DataLoaderIterator, FetchesOnFirstUseAndGoesOnAfterAnException) {
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    auto loader =
        data::make_data_loader<SequentialSampler>(Poisoned(/*poison=*/1), data::DataLoaderOptions(2).workers(workers));
    auto it = loader->begin();  // fetches nothing yet: the first batch is the poisoned one
    EXPECT_THROWS_WITH((void)(it == loader->end()), "Poisoned: example 1 is poisoned");
    ASSERT_FALSE(it == loader->end());  // now before the second batch
    EXPECT_EQ(it->size(), 2u);
    EXPECT_EQ((*it)[0].target.item<int64_t>(), 2);
    ++it;
    EXPECT_EQ((*it)[0].target.item<int64_t>(), 4);
    ++it;
    ++it;
    EXPECT_TRUE(it == loader->end());
    EXPECT_THROWS_WITH(++it, "DataLoader iterator: incremented past the end");
    EXPECT_THROWS_WITH(*it, "DataLoader iterator: dereferenced past the end");
  }
  // ++ after an exception steps to the batch after the failed one, skipping none.
  auto loader = data::make_data_loader<SequentialSampler>(Poisoned(/*poison=*/3), data::DataLoaderOptions(2));
  auto it = loader->begin();
  EXPECT_EQ((*it)[1].target.item<int64_t>(), 1);
  EXPECT_THROWS_WITH(++it, "Poisoned: example 3 is poisoned");
  ++it;
  EXPECT_EQ((*it)[0].target.item<int64_t>(), 4);
}

TEST(WorkerException, WrapsAWorkersExceptionAsLibtorch) {
  auto loader = data::make_data_loader<SequentialSampler>(Poisoned(), data::DataLoaderOptions(2).workers(2));
  size_t batches = 0;
  try {
    for (auto& batch : *loader) {
      (void)batch;
      ++batches;
    }
    ADD_FAILURE() << "no exception";
  } catch (const data::WorkerException& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Caught exception in DataLoader worker thread. Original message: ", 0), 0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("Poisoned: example 5 is poisoned"), std::string::npos) << e.what();
    EXPECT_THROWS_WITH(std::rethrow_exception(e.original_exception), "Poisoned: example 5 is poisoned");
  }
  EXPECT_EQ(batches, 2u);
  // Without workers the dataset's own exception arrives.
  auto serial = data::make_data_loader<SequentialSampler>(Poisoned(), data::DataLoaderOptions(2));
  EXPECT_THROW(
      {
        for (auto& batch : *serial) (void)batch;
      },
      Error);
  // Something that is not a std::exception keeps a message too.
  data::WorkerException odd(std::make_exception_ptr(42));
  EXPECT_STREQ(odd.what(), "Caught exception in DataLoader worker thread. The exception is not a std::exception.");
}

// ---- ChunkDataset ----

// Chunk c holds sizes[c] consecutive integers, numbered across chunks (chunk 0: 0.., chunk 1 next).
// read_chunk throws for `broken`.
class Chunks : public ChunkDataReader<int> {
 public:
  using BatchType = ChunkType;
  explicit Chunks(std::vector<size_t> sizes, std::optional<size_t> broken = std::nullopt)
      : sizes_(std::move(sizes)), broken_(broken) {}
  ChunkType read_chunk(size_t c) override {
    EMBER_CHECK(!broken_ || c != *broken_, "Chunks: chunk {} cannot be read", c);
    const size_t start = std::accumulate(sizes_.begin(), sizes_.begin() + static_cast<std::ptrdiff_t>(c), size_t{0});
    ChunkType chunk(sizes_.at(c));
    std::iota(chunk.begin(), chunk.end(), static_cast<int>(start));
    return chunk;
  }
  size_t chunk_count() override { return sizes_.size(); }
  void reset() override { ++resets; }
  int total() const { return static_cast<int>(std::accumulate(sizes_.begin(), sizes_.end(), size_t{0})); }

  int resets = 0;

 private:
  std::vector<size_t> sizes_;
  std::optional<size_t> broken_;
};

using SequentialChunks = ChunkDataset<Chunks, SequentialSampler, SequentialSampler>;

TEST(ChunkDataset, OnePreloaderAndSequentialSamplersKeepTheChunksOrder) {
  const std::vector<size_t> sizes = {3, 0, 5, 7, 2};  // an empty chunk is skipped
  SequentialChunks dataset(Chunks(sizes), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 4));
  EXPECT_THROWS_WITH(dataset.get_batch(), "Dataset needs to call reset() before calling get_batch().");
  dataset.reset();
  std::vector<std::vector<int>> batches;
  while (auto batch = dataset.get_batch(4)) batches.push_back(*batch);
  EXPECT_EQ(batches,
            (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}, {16}}));
  EXPECT_FALSE(dataset.get_batch().has_value());  // and stays at the end
  EXPECT_FALSE(dataset.size().has_value());
}

TEST(ChunkDataset, EveryExampleOnceForAnyPreloadersWorkersBatchAndCache) {
  const std::vector<size_t> sizes = {10, 1, 0, 13, 7, 20, 4, 9};
  const int total = 64;
  for (size_t preloaders : {1, 2, 3}) {
    for (size_t batch_size : {1, 5, 13}) {
      for (size_t cache : {batch_size, size_t{16}, size_t{2048}}) {
        if (cache < batch_size) continue;
        for (size_t cross : {1, 3}) {
          for (size_t workers : {0, 2}) {
            SCOPED_TRACE(fmt::format("preloaders {} batch {} cache {} cross {} workers {}", preloaders, batch_size,
                                     cache, cross, workers));
            auto dataset = data::datasets::make_shared_dataset<ChunkDataset<Chunks>>(
                Chunks(sizes), data::samplers::RandomSampler(0), data::samplers::RandomSampler(0),
                ChunkDatasetOptions(preloaders, batch_size, cache, cross));
            auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(batch_size).workers(workers));
            for (int epoch = 0; epoch < 2; ++epoch) {
              std::vector<size_t> batch_sizes;
              EXPECT_EQ(sorted(flatten_pass(*loader, &batch_sizes)), iota_vector(total));
              // Only the epoch's last batch is short.
              const auto shorter =
                  std::count_if(batch_sizes.begin(), batch_sizes.end(), [&](size_t s) { return s != batch_size; });
              EXPECT_EQ(shorter, total % static_cast<int>(batch_size) == 0 ? 0 : 1);
            }
          }
        }
      }
    }
  }
}

TEST(ChunkDataset, ShufflesWithTheSeededSamplers) {
  // The example sampler permutes each chunk: with one chunk, the batches are its permutation.
  manual_seed(3);
  SequentialChunks ordered(Chunks({12}), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 12));
  ordered.reset();
  ChunkDataset<Chunks, SequentialSampler> shuffled(Chunks({12}), SequentialSampler(0), data::samplers::RandomSampler(0),
                                                   ChunkDatasetOptions(1, 12));
  manual_seed(3);
  shuffled.reset();
  const std::vector<int> permutation = *shuffled.get_batch();
  EXPECT_NE(permutation, *ordered.get_batch());
  manual_seed(3);  // the preloader's reset(12) of the example sampler is the one draw since
  Tensor expected = randperm(12).to(kInt64).contiguous();
  EXPECT_EQ(permutation, std::vector<int>(expected.data_ptr<int64_t>(), expected.data_ptr<int64_t>() + 12));
}

TEST(ChunkDataset, CrossChunkShuffleAndPreprocessingPolicy) {
  // Two chunks read together: with a policy that reverses them, the batches run backwards.
  SequentialChunks dataset(Chunks({3, 4, 2}), SequentialSampler(0), SequentialSampler(0),
                           ChunkDatasetOptions(1, 4, 2048, /*cross_chunk_shuffle_count=*/2),
                           [](std::vector<int>& examples) { std::reverse(examples.begin(), examples.end()); });
  auto loader = data::make_data_loader(std::move(dataset), data::DataLoaderOptions(4));
  std::vector<size_t> batch_sizes;
  EXPECT_EQ(flatten_pass(*loader, &batch_sizes), (std::vector<int>{6, 5, 4, 3, 2, 1, 0, 8, 7}));
  EXPECT_EQ(batch_sizes, (std::vector<size_t>{4, 4, 1}));  // the second read tops up the last batch
}

TEST(ChunkDataset, ResumesFromASavedChunkSamplerOnce) {
  // The position of a chunk sampler that has handed out chunks 0 and 1.
  SequentialSampler position(4);
  (void)position.next(2);
  serialize::OutputArchive out;
  position.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  const std::string saved = bytes.str();

  // The chunk sampler must know the chunk count before a load (Ember checks the loaded index).
  SequentialChunks dataset(Chunks({4, 4, 4, 4}), SequentialSampler(4), SequentialSampler(0), ChunkDatasetOptions(1, 4));
  serialize::InputArchive in;
  in.load_from(saved.data(), saved.size());
  in >> dataset;  // StatefulDataset's operator>>
  auto loader = data::make_data_loader(std::move(dataset), data::DataLoaderOptions(4));
  EXPECT_EQ(flatten_pass(*loader), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));  // chunks 2 and 3
  EXPECT_EQ(flatten_pass(*loader), iota_vector(16));  // the next epoch is whole (libtorch's is empty)

  // save() writes the chunk sampler's position, as libtorch.
  SequentialChunks fresh(Chunks({4, 4}), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 4));
  serialize::OutputArchive written;
  written << fresh;
  EXPECT_EQ(written.tensors().size(), 1u);
  EXPECT_EQ(written.tensors().begin()->first, "index");
}

TEST(ChunkDataset, AChunkThatCannotBeReadIsThrownAndTheRestFollows) {
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    SequentialChunks dataset(Chunks({2, 2, 2, 2}, /*broken=*/1), SequentialSampler(0), SequentialSampler(0),
                             ChunkDatasetOptions(1, 2));
    auto loader = data::make_data_loader(std::move(dataset), data::DataLoaderOptions(2).workers(workers));
    std::vector<int> seen;
    size_t errors = 0;
    auto it = loader->begin();
    while (true) {
      try {
        if (it == loader->end()) break;
        seen.insert(seen.end(), it->begin(), it->end());
        ++it;
      } catch (const data::WorkerException& e) {
        ++errors;
        EXPECT_NE(std::string(e.what()).find("Chunks: chunk 1 cannot be read"), std::string::npos) << e.what();
        if (workers > 0) {  // a loader worker wraps the dataset's WorkerException again
          EXPECT_EQ(std::string(e.what()).find("Caught exception in DataLoader worker thread. Original message: "
                                               "Caught exception in DataLoader worker thread."),
                    0u);
        }
        // The loop goes on: the iterator now stands before the next batch (with workers, the
        // exception may even be the first result, thrown by the first comparison).
      }
    }
    EXPECT_EQ(errors, 1u);
    EXPECT_EQ(sorted(seen), (std::vector<int>{0, 1, 4, 5, 6, 7}));
  }
}

TEST(ChunkDataset, BadOptionsAndRequestsAreErrors) {
  EXPECT_THROWS_WITH(ChunkDatasetOptions(0, 4), "Preloader count is 0. At least one preloader needs to be specified.");
  EXPECT_THROWS_WITH(ChunkDatasetOptions(1, 0), "Batch size is 0. A positive batch size needs to be specified.");
  EXPECT_THROWS_WITH(ChunkDatasetOptions(1, 4, 0), "Cache size is 0.");
  EXPECT_THROWS_WITH(ChunkDatasetOptions(1, 4, 3), "Cache size is less than batch size.");
  EXPECT_THROWS_WITH(ChunkDatasetOptions(1, 4, 8, 0), "cross_chunk_shuffle_count needs to be greater than 0.");
  SequentialChunks dataset(Chunks({4}), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(1, 4));
  auto loader = data::make_data_loader(std::move(dataset), data::DataLoaderOptions(5));
  auto it = loader->begin();
  EXPECT_THROWS_WITH((void)(it == loader->end()),
                     "The requested batch size does not match with the initialized batch size.\n The requested "
                     "batch size is 5, while the dataset is created with batch size equal to 4");
}

TEST(ChunkDataset, ALoaderLeftMidEpochStopsWithoutHanging) {
  // A small cache keeps the preloaders blocked on a full cache when the loader goes away.
  for (size_t workers : {0, 3}) {
    auto dataset = data::datasets::make_shared_dataset<SequentialChunks>(
        Chunks(std::vector<size_t>(50, 10)), SequentialSampler(0), SequentialSampler(0), ChunkDatasetOptions(2, 4, 4));
    auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(4).workers(workers));
    auto it = loader->begin();
    EXPECT_EQ(it->size(), 4u);
    ++it;
  }  // the loader and then the dataset are destroyed here
}

}  // namespace
}  // namespace ember
