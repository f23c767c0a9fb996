// The data loader, as libtorch's torch::data::make_data_loader: batches of a dataset's examples in
// the order a sampler gives, fetched on the calling thread (workers = 0) or by worker threads that
// each hold a copy of the dataset and run ahead by up to max_jobs batches.
//
//   auto dataset = ember::data::datasets::MNIST(root).map(ember::data::transforms::Stack<>());
//   auto loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
//       std::move(dataset), ember::data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) {        // each pass is an epoch (RandomSampler: a new permutation)
//     train_step(batch.data, batch.target);
//   }
//
// With workers, batches still come in the sampler's order (enforce_ordering, the default, as
// libtorch); an exception thrown while a worker builds a batch is rethrown where that batch would
// have been returned. Starting a new pass while the previous one is unfinished discards its
// outstanding batches (libtorch throws instead). At most kMaxDataLoaderWorkers workers; if one
// cannot be started, those already running are stopped and joined before the error is thrown.
// A worker's exception arrives as a WorkerException, as libtorch.
//
// A stateful dataset (datasets.h; chunk.h's ChunkDataset) gets a StatefulDataLoader: no sampler,
// the dataset's own order, and each pass calls the dataset's reset().
//
//   auto loader = ember::data::make_data_loader(std::move(chunk_dataset),
//                                               ember::data::DataLoaderOptions(32).workers(2));
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "data/datasets.h"
#include "data/samplers.h"
#include "nn/options.h"

namespace ember::data {

// More worker threads than this only cost memory (each holds a copy of the dataset) and start-up.
inline constexpr size_t kMaxDataLoaderWorkers = 1024;

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT: implicit, as libtorch
  EMBER_ARG(size_t, batch_size) = 1;
  EMBER_ARG(size_t, workers) = 0;                                // 0: batches are built on the calling thread
  EMBER_ARG(std::optional<size_t>, max_jobs);                    // batches requested ahead; 2 * workers if unset
  EMBER_ARG(std::optional<std::chrono::milliseconds>, timeout);  // longest wait for a worker's batch
  EMBER_ARG(bool, enforce_ordering) = true;                      // batches in the sampler's order
  EMBER_ARG(bool, drop_last) = false;                            // skip a last batch smaller than batch_size
};

// The options with every default resolved.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * options.workers())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()) {
    EMBER_CHECK(batch_size > 0, "DataLoaderOptions: batch_size must be positive, got 0");
    EMBER_CHECK(workers <= kMaxDataLoaderWorkers, "DataLoaderOptions: workers must be at most {}, got {}",
                kMaxDataLoaderWorkers, workers);
    EMBER_CHECK(workers == 0 || max_jobs > 0, "DataLoaderOptions: max_jobs must be positive with {} workers", workers);
  }
  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
};

// An input iterator over one pass of a loader; the end iterator holds no batch. As libtorch's, it
// fetches its first batch when first used (compared, dereferenced or incremented), not in begin(),
// so an exception for that batch is thrown inside the caller's loop. After a fetch throws, the
// iterator stands before the next batch: using it again (or ++) fetches that one, skipping none.
template <typename Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Iterator() = default;
  explicit Iterator(std::function<std::optional<Batch>()> next) : next_(std::move(next)), state_(State::kFresh) {}

  Batch& operator*() {
    settle();
    EMBER_CHECK(batch_.has_value(), "DataLoader iterator: dereferenced past the end");
    return *batch_;
  }
  Batch* operator->() { return &**this; }
  Iterator& operator++() {
    if (state_ == State::kAfterError) {  // the failed fetch was the batch this steps past
      fetch();
      return *this;
    }
    settle();
    EMBER_CHECK(batch_.has_value(), "DataLoader iterator: incremented past the end");
    fetch();
    return *this;
  }
  // Iterators are equal when both are at the end (or are the same iterator).
  bool operator==(const Iterator& other) const {
    if (this == &other) return true;
    settle();
    other.settle();
    return !batch_ && !other.batch_;
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  enum class State { kHolding, kFresh, kAfterError };

  void settle() const {
    if (state_ != State::kHolding) fetch();
  }
  void fetch() const {
    batch_.reset();
    state_ = State::kAfterError;  // until next_ returns
    batch_ = next_();
    state_ = State::kHolding;
  }

  std::function<std::optional<Batch>()> next_;
  mutable std::optional<Batch> batch_;
  mutable State state_ = State::kHolding;  // the end iterator holds nothing
};

// What a worker's exception becomes where its batch would have been returned, as libtorch: the
// original, kept in original_exception, and its message after "Caught exception in DataLoader
// worker thread. Original message: ". (With workers = 0 the dataset's exception arrives as it is.)
// Unlike libtorch's, it is an ember::Error (so caught as c10::Error too), as every library failure.
struct WorkerException : public Error {
  explicit WorkerException(std::exception_ptr original)
      : Error(describe(original)), original_exception(std::move(original)), message(Error::what()) {}

  std::exception_ptr original_exception;
  std::string message;

 private:
  static std::string describe(const std::exception_ptr& original) {
    std::string text = "Caught exception in DataLoader worker thread.";
    try {
      std::rethrow_exception(original);
    } catch (const std::exception& e) {
      text += " Original message: ";
      text += e.what();
    } catch (...) {
      text += " The exception is not a std::exception.";
    }
    return text;
  }
};

// What the two loaders share: the passes, the worker threads and the order of their results.
// Batch is what a pass yields; BatchRequest what the loader asks the dataset for (indices from a
// sampler, or a batch size for a stateful dataset). A subclass starts the workers and says where
// the next request comes from.
template <typename Dataset, typename Batch, typename BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  explicit DataLoaderBase(DataLoaderOptions options, std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : options_(options), main_thread_dataset_(std::move(main_thread_dataset)) {}
  DataLoaderBase(const DataLoaderBase&) = delete;
  DataLoaderBase& operator=(const DataLoaderBase&) = delete;
  virtual ~DataLoaderBase() { join(); }

  // Starts a pass over the dataset (an epoch) and returns its first batch.
  Iterator<Batch> begin() {
    EMBER_CHECK(!joined_, "DataLoader: begin() after join(); the workers are stopped");
    reset();
    return Iterator<Batch>([this] { return next(); });
  }
  Iterator<Batch> end() { return Iterator<Batch>(); }

  // Stops the workers (after the batch each is building); the loader gives no more batches.
  void join() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (joined_) return;
      joined_ = true;
    }
    jobs_ready_.notify_all();
    for (auto& worker : workers_) worker.join();
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  // The next request of this pass, or nullopt at its end.
  virtual std::optional<BatchRequest> get_batch_request() = 0;

  // Where a pass starts over: the sampler (stateless) or the dataset (stateful). Called with no
  // request outstanding, so a stateful dataset is never reset under a worker.
  virtual void reset_source() = 0;

  // Starts options().workers threads, each running worker_thread on the dataset make_body() gives
  // it; if one cannot be started, those already running are stopped before the error is thrown.
  template <typename MakeBody>
  void start_workers(MakeBody make_body) {
    workers_.reserve(options_.workers);
    for (size_t w = 0; w < options_.workers; ++w) {
      try {
        workers_.emplace_back(make_body());
      } catch (const std::exception& e) {
        join();
        EMBER_FAIL("DataLoader: could not start worker {} of {}: {}", w + 1, options_.workers, e.what());
      } catch (...) {
        join();
        throw;
      }
    }
  }

  void worker_thread(Dataset& dataset) {
    while (true) {
      std::optional<std::pair<uint64_t, BatchRequest>> job;  // a request need not be default-constructible
      {
        std::unique_lock<std::mutex> lock(mutex_);
        jobs_ready_.wait(lock, [&] { return joined_ || !jobs_.empty(); });
        if (joined_) return;
        job.emplace(std::move(jobs_.front()));
        jobs_.pop_front();
      }
      Result result;
      try {
        result.batch = dataset.get_batch(std::move(job->second));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        results_.emplace(job->first, std::move(result));
      }
      results_ready_.notify_all();
    }
  }

  const FullDataLoaderOptions options_;
  std::unique_ptr<Dataset> main_thread_dataset_;  // the dataset the calling thread reads (workers = 0)

 private:
  // A new pass: the outstanding work of an unfinished one is discarded, the source reset, then the
  // workers are given max_jobs requests.
  void reset() {
    discard();
    reset_source();
    exhausted_ = false;
    next_to_schedule_ = 0;
    next_to_return_ = 0;
    if (!workers_.empty()) prefetch(options_.max_jobs);
  }

  // Drops the queued requests and waits for those being built, whose batches are dropped too.
  void discard() {
    if (workers_.empty()) return;
    std::unique_lock<std::mutex> lock(mutex_);
    in_flight_ -= jobs_.size();
    jobs_.clear();
    results_ready_.wait(lock, [&] { return results_.size() == in_flight_; });
    results_.clear();
    in_flight_ = 0;
  }

  // A worker's answer: a batch, nothing (a stateful dataset at its end) or an exception.
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  // Queues up to n requests for the workers.
  void prefetch(size_t n) {
    std::vector<std::pair<uint64_t, BatchRequest>> new_jobs;
    for (size_t k = 0; k < n && !exhausted_; ++k) {
      auto request = get_batch_request();
      if (!request) {
        exhausted_ = true;
        break;
      }
      new_jobs.emplace_back(next_to_schedule_++, std::move(*request));
    }
    if (new_jobs.empty()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& job : new_jobs) jobs_.push_back(std::move(job));
      in_flight_ += new_jobs.size();
    }
    jobs_ready_.notify_all();
  }

  std::optional<Batch> next() {
    if (workers_.empty()) {
      auto request = get_batch_request();
      if (!request) return std::nullopt;
      return main_thread_dataset_->get_batch(std::move(*request));
    }
    while (true) {
      Result result;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (in_flight_ == 0) return std::nullopt;
        // The result to take next: the next in sequence, or (without ordering) any that is ready.
        auto ready = [&] {
          return options_.enforce_ordering ? results_.count(next_to_return_) > 0 : !results_.empty();
        };
        if (options_.timeout) {
          EMBER_CHECK(results_ready_.wait_for(lock, *options_.timeout, ready),
                      "Timeout in DataLoader: no batch from the workers within {} ms", options_.timeout->count());
        } else {
          results_ready_.wait(lock, ready);
        }
        auto it = options_.enforce_ordering ? results_.find(next_to_return_) : results_.begin();
        result = std::move(it->second);
        results_.erase(it);
        --in_flight_;
        ++next_to_return_;
      }
      // A stateful dataset's end: no new request replaces it, and the pass ends when the
      // requests already given out have all come back.
      if (!result.batch && !result.error) continue;
      prefetch(1);
      if (result.error) throw WorkerException(result.error);
      return std::move(result.batch);
    }
  }

  std::vector<std::thread> workers_;
  bool exhausted_ = false;  // the requests of this pass have all been given out
  uint64_t next_to_schedule_ = 0;
  uint64_t next_to_return_ = 0;

  // Shared with the workers, under mutex_.
  std::mutex mutex_;
  std::condition_variable jobs_ready_, results_ready_;
  std::deque<std::pair<uint64_t, BatchRequest>> jobs_;
  std::map<uint64_t, Result> results_;
  size_t in_flight_ = 0;  // requests queued or being built, plus results not yet returned
  bool joined_ = false;
};

// The loader of a map-style or stream dataset: the sampler says which indices (or how many
// examples) each batch holds. Each worker reads its own copy of the dataset.
template <typename Dataset, typename Sampler>
class StatelessDataLoader
    : public DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType> {
 public:
  using super = DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;
  using typename super::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : super(options), sampler_(std::move(sampler)) {
    if (this->options_.workers == 0) {
      this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
      return;
    }
    this->start_workers([&] { return [this, copy = dataset]() mutable { this->worker_thread(copy); }; });
  }

 private:
  void reset_source() override { sampler_.reset(std::nullopt); }

  // The sampler's next request, or nullopt at the end (and for a short last batch with drop_last).
  std::optional<BatchRequestType> get_batch_request() override {
    auto request = sampler_.next(this->options_.batch_size);
    if (!request || (this->options_.drop_last && request->size() < this->options_.batch_size)) return std::nullopt;
    return request;
  }

  Sampler sampler_;  // used by the calling thread only
};

// The loader of a stateful dataset (datasets::StatefulDataset, ChunkDataset): each request is the
// batch size, the dataset says when the epoch ends, and begin() calls its reset(). The workers all
// read the one dataset.
template <typename Dataset>
class StatefulDataLoader
    : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type, typename Dataset::BatchRequestType> {
 public:
  using super = DataLoaderBase<Dataset, typename Dataset::BatchType::value_type, typename Dataset::BatchRequestType>;
  using typename super::BatchRequestType;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : super(options, std::make_unique<Dataset>(std::move(dataset))) {
    this->start_workers([this] { return [this] { this->worker_thread(*this->main_thread_dataset_); }; });
  }

 private:
  void reset_source() override { this->main_thread_dataset_->reset(); }

  std::optional<BatchRequestType> get_batch_request() override { return this->options_.batch_size; }
};

template <typename Dataset, typename Sampler, typename = std::enable_if_t<!Dataset::is_stateful>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

// The sampler built from the dataset's size: make_data_loader(dataset, 64) shuffles (RandomSampler),
// make_data_loader<samplers::SequentialSampler>(dataset, 64) does not.
template <typename Sampler = samplers::RandomSampler, typename Dataset,
          typename = std::enable_if_t<!Dataset::is_stateful && std::is_constructible_v<Sampler, size_t>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        DataLoaderOptions options = {}) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(), "make_data_loader: expected the dataset to be sized in order to construct the Sampler");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

// A stateful dataset needs no sampler: make_data_loader(chunk_dataset, options).
template <typename Dataset, typename = std::enable_if_t<Dataset::is_stateful>>
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(Dataset dataset, DataLoaderOptions options = {}) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace ember::data
