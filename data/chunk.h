// Chunk datasets, as libtorch's torch::data::datasets::ChunkDataset: for data too large to index
// example by example (many files, or one file read in pieces). A ChunkDataReader reads a whole
// chunk; the ChunkDataset's preloader threads read chunks in the chunk sampler's order, shuffle
// each chunk's examples with the example sampler and cut them into batches held in a bounded
// cache, from which get_batch() takes them. It is a stateful dataset (datasets.h): the loader asks
// only for the next batch, nullopt ends the epoch, and save/load checkpoint the chunk sampler.
//
//   struct Reader : ember::data::datasets::ChunkDataReader<ember::data::Example<>> {
//     using BatchType = ChunkType;                        // what get_batch returns (optional'ed)
//     ChunkType read_chunk(size_t i) override { ... }     // the examples of file i
//     size_t chunk_count() override { return files.size(); }
//     void reset() override {}
//   };
//   ember::data::datasets::ChunkDataset<Reader> dataset(Reader{}, samplers::RandomSampler(0),
//       samplers::RandomSampler(0), ChunkDatasetOptions(/*preloader_count=*/2, /*batch_size=*/32));
//   auto loader = ember::data::make_data_loader(std::move(dataset), DataLoaderOptions(32));
//   for (auto& batch : *loader) { ... }                   // batch: std::vector<Example<>>
//
// The samplers are reset with the chunk count and each chunk's size, so the sizes they are built
// with do not matter. With one preloader and sequential samplers the batches come in the chunks'
// order; with more, chunks are read in parallel and their batches arrive as they finish. Each
// batch holds batch_size examples except the epoch's last. cross_chunk_shuffle_count chunks are
// read together and their examples shuffled as one.
//
// Where Ember differs from libtorch 1.13 (both are fixes): after load(), only the next reset()
// resumes from the loaded position (libtorch keeps resuming at every later reset, so its second
// epoch is empty); a failed chunk read's exception is handed to the next get_batch as soon as it
// reaches the front of the cache (libtorch holds it back until a full batch or the end) and it
// never takes examples of a later chunk with it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/samplers.h"
#include "nn/options.h"

namespace ember::data::datasets {

// Reads whole chunks: a chunk could be a file, or one piece of a large file.
template <typename ExampleType_, typename ChunkType_ = std::vector<ExampleType_>>
class ChunkDataReader {
 public:
  virtual ~ChunkDataReader() = default;

  using ChunkType = ChunkType_;
  using ExampleType = ExampleType_;

  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  virtual size_t chunk_count() = 0;
  // Forgets any state kept between reads (called at the start of each epoch).
  virtual void reset() = 0;
};

namespace detail {

// A reader's batch: its BatchType where it names one (libtorch requires it), else its ChunkType.
template <typename Reader, typename = void>
struct reader_batch {
  using type = typename Reader::ChunkType;
};
template <typename Reader>
struct reader_batch<Reader, std::void_t<typename Reader::BatchType>> {
  using type = typename Reader::BatchType;
};
template <typename Reader>
using reader_batch_t = typename reader_batch<Reader>::type;

// The cache between the preloaders and get_batch: a queue of batches (the last one possibly
// still filling) and of the preloaders' exceptions, holding at most `capacity` examples (a chunk
// that does not fit waits until enough are taken; a chunk larger than the capacity goes in once
// the cache is empty). Example samplers are reset per chunk, under the cache's lock.
template <typename UnwrappedBatch, typename ExampleSampler = samplers::RandomSampler>
class BatchDataBuffer {
 public:
  using UnwrappedBatchType = UnwrappedBatch;
  using BatchType = std::optional<UnwrappedBatchType>;
  using BatchRequestType = typename ExampleSampler::BatchRequestType;

  BatchDataBuffer(size_t batch_size, ExampleSampler& example_sampler, size_t queue_capacity)
      : batch_size_(batch_size), example_sampler_(example_sampler), queue_capacity_(queue_capacity) {}

  // The next batch; waits for a full one unless the preloaders are done; nullopt when all is taken.
  // A preloader's exception is thrown as a WorkerException.
  BatchType get_batch() {
    std::unique_lock<std::mutex> lock(queue_mutex_);
    cv_read_.wait(lock, [this] {
      return total_example_count_in_queue_ >= batch_size_ || stop_ ||
             (!batch_queue_.empty() && batch_queue_.front().exception);
    });
    if (batch_queue_.empty()) return std::nullopt;  // stopped, and nothing left
    UnwrappedBatchData batch = std::move(batch_queue_.front());
    batch_queue_.pop();
    if (batch.exception) throw WorkerException(batch.exception);
    total_example_count_in_queue_ -= batch.batch_data.size();
    lock.unlock();
    cv_write_.notify_all();
    return std::move(batch.batch_data);
  }

  // Shuffles a chunk's examples with the example sampler into batches, topping up the last batch
  // first. Waits while the cache is full; does nothing once stopped.
  void add_chunk_data(UnwrappedBatchType data) {
    std::unique_lock<std::mutex> lock(queue_mutex_);
    cv_write_.wait(lock, [this] { return total_example_count_in_queue_ < queue_capacity_ || stop_; });
    if (stop_) return;
    const size_t data_size = data.size();
    size_t remaining = data_size;
    example_sampler_.reset(data_size);
    auto fill_batch = [&](size_t count, UnwrappedBatchType& batch) {
      auto indices = example_sampler_.next(count);
      EMBER_CHECK(indices && indices->size() == count,
                  "ChunkDataset: the example sampler gave {} indices for {} of a chunk of {} examples",
                  indices ? indices->size() : 0, count, data_size);
      for (const size_t i : *indices)  // all checked before any is moved: a bad sampler adds nothing
        EMBER_CHECK(i < data_size, "ChunkDataset: the example sampler gave index {} for a chunk of {} examples", i,
                    data_size);
      for (const size_t i : *indices) batch.emplace_back(std::move(data[i]));
      remaining -= count;
      total_example_count_in_queue_ += count;  // counted as they go in, so a later throw leaves it true
    };
    if (!batch_queue_.empty()) {
      UnwrappedBatchData& last = batch_queue_.back();
      if (!last.exception && last.batch_data.size() < batch_size_) {
        fill_batch(std::min(remaining, batch_size_ - last.batch_data.size()), last.batch_data);
      }
    }
    while (remaining > 0) {
      UnwrappedBatchType batch;
      batch.reserve(batch_size_);
      fill_batch(std::min(remaining, batch_size_), batch);
      batch_queue_.emplace(std::move(batch));
    }
    lock.unlock();
    cv_read_.notify_all();
  }

  // Queues a preloader's exception for get_batch to throw.
  void add_chunk_data(std::exception_ptr error) {
    std::unique_lock<std::mutex> lock(queue_mutex_);
    cv_write_.wait(lock, [this] { return total_example_count_in_queue_ < queue_capacity_ || stop_; });
    if (stop_) return;
    batch_queue_.emplace(std::move(error));
    lock.unlock();
    cv_read_.notify_all();
  }

  // Wakes every waiter: get_batch returns what is left, then nullopt; add_chunk_data drops its data.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(queue_mutex_);
      stop_ = true;
    }
    cv_write_.notify_all();
    cv_read_.notify_all();
  }

 private:
  struct UnwrappedBatchData {
    explicit UnwrappedBatchData(UnwrappedBatchType data) : batch_data(std::move(data)) {}
    explicit UnwrappedBatchData(std::exception_ptr e) : exception(std::move(e)) {}
    UnwrappedBatchType batch_data;
    std::exception_ptr exception;
  };

  const size_t batch_size_;
  ExampleSampler& example_sampler_;
  const size_t queue_capacity_;

  std::mutex queue_mutex_;
  std::condition_variable cv_read_, cv_write_;
  std::queue<UnwrappedBatchData> batch_queue_;
  size_t total_example_count_in_queue_ = 0;  // the examples in batch_queue_
  bool stop_ = false;
};

}  // namespace detail

struct ChunkDatasetOptions {
  ChunkDatasetOptions() = delete;
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1)
      : preloader_count_(preloader_count),
        batch_size_(batch_size),
        cache_size_(cache_size),
        cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
    EMBER_CHECK(preloader_count_ > 0, "Preloader count is 0. At least one preloader needs to be specified.");
    EMBER_CHECK(batch_size_ > 0, "Batch size is 0. A positive batch size needs to be specified.");
    EMBER_CHECK(cache_size_ > 0, "Cache size is 0. A positive cache size needs to be specified.");
    EMBER_CHECK(cache_size_ >= batch_size_,
                "Cache size is less than batch size. Cache needs to be large enough to hold at least one batch.");
    EMBER_CHECK(cross_chunk_shuffle_count_ > 0, "cross_chunk_shuffle_count needs to be greater than 0.");
  }
  EMBER_ARG(size_t, preloader_count);                // threads reading chunks
  EMBER_ARG(size_t, batch_size);                     // examples in each batch (the loader must ask for as many)
  EMBER_ARG(size_t, cache_size) = 2048;              // examples held ahead of get_batch
  EMBER_ARG(size_t, cross_chunk_shuffle_count) = 1;  // chunks read together and shuffled as one
};

template <typename ChunkReader, typename ChunkSampler = samplers::RandomSampler,
          typename ExampleSampler = samplers::RandomSampler>
class ChunkDataset final : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>,
                                                  detail::reader_batch_t<ChunkReader>, size_t> {
 public:
  using UnwrappedBatchType = detail::reader_batch_t<ChunkReader>;
  using BatchType = std::optional<UnwrappedBatchType>;
  using BatchRequestType = size_t;
  using ChunkSamplerType = ChunkSampler;
  using ExampleSamplerType = ExampleSampler;

  // preprocessing_policy, when given, is applied to the examples of each read (after the
  // cross-chunk concatenation, before the example sampler): a custom shuffle or filter.
  ChunkDataset(
      ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler, ChunkDatasetOptions options,
      std::function<void(UnwrappedBatchType&)> preprocessing_policy = std::function<void(UnwrappedBatchType&)>())
      : chunk_reader_(std::move(chunk_reader)),
        chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)),
        options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {}
  // The loader moves the dataset once, before reset() starts any thread.
  ChunkDataset(ChunkDataset&& other)
      : chunk_reader_(std::move(other.chunk_reader_)),
        chunk_sampler_(std::move(other.chunk_sampler_)),
        example_sampler_(std::move(other.example_sampler_)),
        options_(other.options_),
        preprocessing_policy_(std::move(other.preprocessing_policy_)),
        load_checkpoint_(other.load_checkpoint_) {
    EMBER_CHECK(other.preload_threads_.empty(), "ChunkDataset: cannot move a dataset whose preloaders are running");
  }
  ChunkDataset(const ChunkDataset&) = delete;
  ChunkDataset& operator=(const ChunkDataset&) = delete;
  ChunkDataset& operator=(ChunkDataset&&) = delete;
  ~ChunkDataset() override { stop_preloaders(); }

  // The next batch of this epoch, nullopt at its end. batch_size must be the options' batch size.
  BatchType get_batch(size_t batch_size) override {
    EMBER_CHECK(batch_buffer_ != nullptr, "Dataset needs to call reset() before calling get_batch().");
    EMBER_CHECK(batch_size == options_.batch_size(),
                "The requested batch size does not match with the initialized batch size.\n"
                " The requested batch size is {}, while the dataset is created with batch size equal to {}",
                batch_size, options_.batch_size());
    return batch_buffer_->get_batch();
  }
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  // Starts an epoch: stops the preloaders of the last one, resets the reader and the chunk sampler
  // (unless a position was just loaded) and starts preloader_count new ones.
  void reset() override {
    stop_preloaders();
    if (!load_checkpoint_) {
      chunk_reader_.reset();
      chunk_sampler_.reset(chunk_reader_.chunk_count());
    }
    load_checkpoint_ = false;
    batch_buffer_ = std::make_unique<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSamplerType>>(
        options_.batch_size(), example_sampler_, options_.cache_size());
    quit_worker_ = false;
    running_preloaders_ = options_.preloader_count();
    preload_threads_.reserve(options_.preloader_count());
    for (size_t i = 0; i < options_.preloader_count(); ++i) {
      try {
        preload_threads_.emplace_back([this] { preloader(); });
      } catch (...) {
        running_preloaders_ -= options_.preloader_count() - i;
        stop_preloaders();
        throw;
      }
    }
  }

  // A chunk dataset has no size: the loader cannot build a sampler from it.
  std::optional<size_t> size() const override { return std::nullopt; }

  ChunkSamplerType& chunk_sampler() { return chunk_sampler_; }

  // The chunk sampler's position: chunks given to the preloaders, read or not.
  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(chunk_index_guard_);
    chunk_sampler_.save(archive);
  }
  // Loads a position saved by save(); the next reset() resumes from it.
  void load(serialize::InputArchive& archive) override {
    std::lock_guard<std::mutex> lock(chunk_index_guard_);
    chunk_sampler_.load(archive);
    load_checkpoint_ = true;
  }

 private:
  void preloader() {
    while (!quit_worker_.load()) {
      std::vector<size_t> chunk_indices;
      try {
        std::lock_guard<std::mutex> lock(chunk_index_guard_);
        auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
        if (!next) break;
        chunk_indices.assign(next->begin(), next->end());
      } catch (...) {  // a chunk sampler that throws would throw again: this preloader stops
        batch_buffer_->add_chunk_data(std::current_exception());
        break;
      }
      try {
        UnwrappedBatchType data = chunk_reader_.read_chunk(chunk_indices.at(0));
        for (size_t i = 1; i < chunk_indices.size(); ++i) {
          auto more = chunk_reader_.read_chunk(chunk_indices[i]);
          std::move(more.begin(), more.end(), std::back_inserter(data));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (!data.empty()) batch_buffer_->add_chunk_data(std::move(data));  // empty chunks are skipped
      } catch (...) {  // a chunk that cannot be read: get_batch throws it, the next chunk follows
        batch_buffer_->add_chunk_data(std::current_exception());
      }
    }
    if (--running_preloaders_ == 0) batch_buffer_->stop();  // the last one out ends the epoch
  }

  void stop_preloaders() {
    if (batch_buffer_) batch_buffer_->stop();
    quit_worker_ = true;
    for (auto& thread : preload_threads_) thread.join();
    preload_threads_.clear();
  }

  ChunkReader chunk_reader_;
  ChunkSamplerType chunk_sampler_;
  ExampleSamplerType example_sampler_;
  const ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;
  std::unique_ptr<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSamplerType>> batch_buffer_;
  std::vector<std::thread> preload_threads_;
  std::atomic<bool> quit_worker_{false};
  std::atomic<size_t> running_preloaders_{0};
  mutable std::mutex chunk_index_guard_;  // the chunk sampler, shared by the preloaders
  bool load_checkpoint_ = false;
};

}  // namespace ember::data::datasets
