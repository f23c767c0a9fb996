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
// Not here: libtorch's stateful datasets.
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

// An input iterator over one pass of a loader; the end iterator holds no batch.
template <typename Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Iterator() = default;
  explicit Iterator(std::function<std::optional<Batch>()> next) : next_(std::move(next)), batch_(next_()) {}

  Batch& operator*() {
    EMBER_CHECK(batch_.has_value(), "DataLoader iterator: dereferenced past the end");
    return *batch_;
  }
  Batch* operator->() { return &**this; }
  Iterator& operator++() {
    EMBER_CHECK(batch_.has_value(), "DataLoader iterator: incremented past the end");
    batch_ = next_();
    return *this;
  }
  // Iterators are equal when both are at the end (or are the same iterator).
  bool operator==(const Iterator& other) const { return this == &other || (!batch_ && !other.batch_); }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  std::function<std::optional<Batch>()> next_;
  std::optional<Batch> batch_;
};

template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(options), sampler_(std::move(sampler)) {
    if (options_.workers == 0) {
      main_thread_dataset_.emplace(std::move(dataset));
      return;
    }
    workers_.reserve(options_.workers);
    for (size_t w = 0; w < options_.workers; ++w) {
      try {  // each worker reads its own copy of the dataset
        workers_.emplace_back([this, copy = dataset]() mutable { worker_thread(copy); });
      } catch (const std::exception& e) {
        join();  // the destructor will not run: stop the workers already started
        EMBER_FAIL("DataLoader: could not start worker {} of {}: {}", w + 1, options_.workers, e.what());
      } catch (...) {
        join();
        throw;
      }
    }
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() { join(); }

  // Starts a pass over the dataset (an epoch): resets the sampler and returns the first batch.
  Iterator<BatchType> begin() {
    reset();
    return Iterator<BatchType>([this] { return next(); });
  }
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  // Stops the workers; the loader gives no more batches afterwards.
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

 private:
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };

  // The sampler's next request, or nullopt at the end (and for a short last batch with drop_last).
  std::optional<BatchRequestType> get_batch_request() {
    auto indices = sampler_.next(options_.batch_size);
    if (!indices || (options_.drop_last && indices->size() < options_.batch_size)) return std::nullopt;
    return indices;
  }

  void reset() {
    EMBER_CHECK(!joined_, "DataLoader: begin() after join(); the workers are stopped");
    if (!workers_.empty()) {
      std::unique_lock<std::mutex> lock(mutex_);
      in_flight_ -= jobs_.size();  // outstanding work of an unfinished pass is discarded
      jobs_.clear();
      results_ready_.wait(lock, [&] { return results_.size() == in_flight_; });
      results_.clear();
      in_flight_ = 0;
    }
    sampler_.reset(std::nullopt);
    exhausted_ = false;
    next_to_schedule_ = 0;
    next_to_return_ = 0;
    if (!workers_.empty()) prefetch(options_.max_jobs);
  }

  // Queues up to n requests for the workers.
  void prefetch(size_t n) {
    std::vector<std::pair<uint64_t, BatchRequestType>> new_jobs;
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

  std::optional<BatchType> next() {
    if (workers_.empty()) {
      auto request = get_batch_request();
      if (!request) return std::nullopt;
      return main_thread_dataset_->get_batch(*request);
    }
    Result result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (in_flight_ == 0) return std::nullopt;
      // The batch to return next: the next in sequence, or (without ordering) any that is ready.
      auto ready = [&] { return options_.enforce_ordering ? results_.count(next_to_return_) > 0 : !results_.empty(); };
      if (options_.timeout) {
        EMBER_CHECK(results_ready_.wait_for(lock, *options_.timeout, ready),
                    "Timeout in DataLoader: no batch from the "
                    "workers within {} ms",
                    options_.timeout->count());
      } else {
        results_ready_.wait(lock, ready);
      }
      auto it = options_.enforce_ordering ? results_.find(next_to_return_) : results_.begin();
      result = std::move(it->second);
      results_.erase(it);
      --in_flight_;
      ++next_to_return_;
    }
    prefetch(1);
    if (result.error) std::rethrow_exception(result.error);
    return std::move(result.batch);
  }

  void worker_thread(Dataset& dataset) {
    while (true) {
      std::pair<uint64_t, BatchRequestType> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        jobs_ready_.wait(lock, [&] { return joined_ || !jobs_.empty(); });
        if (joined_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      Result result;
      try {
        result.batch.emplace(dataset.get_batch(job.second));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        results_.emplace(job.first, std::move(result));
      }
      results_ready_.notify_all();
    }
  }

  const FullDataLoaderOptions options_;
  Sampler sampler_;  // used by the calling thread only
  std::optional<Dataset> main_thread_dataset_;
  std::vector<std::thread> workers_;
  bool exhausted_ = false;
  uint64_t next_to_schedule_ = 0;
  uint64_t next_to_return_ = 0;

  // Shared with the workers, under mutex_.
  std::mutex mutex_;
  std::condition_variable jobs_ready_, results_ready_;
  std::deque<std::pair<uint64_t, BatchRequestType>> jobs_;
  std::map<uint64_t, Result> results_;
  size_t in_flight_ = 0;  // requests queued or being built, plus results not yet returned
  bool joined_ = false;
};

template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

// The sampler built from the dataset's size: make_data_loader(dataset, 64) shuffles (RandomSampler),
// make_data_loader<samplers::SequentialSampler>(dataset, 64) does not.
template <typename Sampler = samplers::RandomSampler, typename Dataset,
          typename = std::enable_if_t<std::is_constructible_v<Sampler, size_t>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        DataLoaderOptions options = {}) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(), "make_data_loader: expected the dataset to be sized in order to construct the Sampler");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

}  // namespace ember::data
