// The distributed samplers and the samplers' save/load (data/samplers.h): each rank's share, the
// wrap-around with allow_duplicates, one permutation per epoch across ranks, resuming from an
// archive mid-epoch, and bad arguments. The orders libtorch 1.13 draws are checked by the compat
// program distributed_samplers (its expected output comes from real libtorch).
#include <algorithm>
#include <set>
#include <sstream>
#include <vector>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace ember::data::samplers {
namespace {

template <typename S>
std::vector<size_t> drain(S& sampler, size_t batch_size) {
  std::vector<size_t> all;
  while (auto batch = sampler.next(batch_size)) {
    EXPECT_LE(batch->size(), batch_size);
    all.insert(all.end(), batch->begin(), batch->end());
  }
  return all;
}

TEST(DistributedSamplers, SequentialSharesWrapAroundWithDuplicates) {
  // 10 indices over 3 ranks: shares of ceil(10/3) = 4, the last wrapping to 0 and 1.
  std::vector<std::vector<size_t>> expected = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}};
  for (size_t rank = 0; rank < 3; ++rank) {
    DistributedSequentialSampler sampler(10, 3, rank);
    EXPECT_EQ(drain(sampler, 3), expected[rank]) << rank;
    EXPECT_FALSE(sampler.next(3).has_value());
    sampler.reset();
    EXPECT_EQ(drain(sampler, 10), expected[rank]) << rank;
  }
  // Without duplicates: floor(10/3) = 3 each, index 9 never visited.
  DistributedSequentialSampler last(10, 3, 2, /*allow_duplicates=*/false);
  EXPECT_EQ(drain(last, 2), (std::vector<size_t>{6, 7, 8}));
  // A new size re-divides the shares.
  last.reset(4);
  EXPECT_EQ(drain(last, 2), (std::vector<size_t>{2}));
}

TEST(DistributedSamplers, RandomRanksSplitOnePermutationPerEpoch) {
  auto shares = [](size_t epoch, bool allow_duplicates) {
    std::vector<std::vector<size_t>> out;
    for (size_t rank = 0; rank < 4; ++rank) {
      DistributedRandomSampler sampler(10, 4, rank, allow_duplicates);
      sampler.set_epoch(epoch);
      sampler.reset();
      out.push_back(drain(sampler, 2));
    }
    return out;
  };
  auto epoch0 = shares(0, true);
  std::multiset<size_t> seen;
  for (const auto& share : epoch0) {
    EXPECT_EQ(share.size(), 3u);  // ceil(10 / 4)
    seen.insert(share.begin(), share.end());
  }
  // Every index once, and two of them (the padding, 0 and 1 before the shuffle) twice.
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(seen.count(i), i < 2 ? 2u : 1u) << i;
  EXPECT_EQ(shares(0, true), epoch0);  // the same seed on every process
  EXPECT_NE(shares(1, true), epoch0);  // a new epoch, a new order
  std::set<size_t> without;
  for (const auto& share : shares(3, false)) {
    EXPECT_EQ(share.size(), 2u);  // floor(10 / 4)
    without.insert(share.begin(), share.end());
  }
  EXPECT_EQ(without.size(), 8u);
  EXPECT_LT(*without.rbegin(), 8u);  // libtorch shuffles only the first 8 indices
}

TEST(DistributedSamplers, ResumeFromAnArchiveMidEpoch) {
  DistributedRandomSampler sampler(50, 2, 1);
  sampler.set_epoch(5);
  sampler.reset();
  (void)sampler.next(7);
  serialize::OutputArchive out;
  sampler.save(out);
  std::vector<size_t> rest = drain(sampler, 7);

  std::stringstream bytes;
  out.save_to(bytes);
  serialize::InputArchive in;
  in.load_from(bytes);
  DistributedRandomSampler resumed(50, 2, 1);
  resumed.load(in);
  EXPECT_EQ(resumed.epoch(), 5u);
  EXPECT_EQ(drain(resumed, 7), rest);

  DistributedSequentialSampler seq(20, 2, 0);
  (void)seq.next(4);
  serialize::OutputArchive seq_out;
  seq.save(seq_out);
  std::stringstream seq_bytes;
  seq_out.save_to(seq_bytes);
  serialize::InputArchive seq_in;
  seq_in.load_from(seq_bytes);
  DistributedSequentialSampler seq_resumed(20, 2, 0);
  seq_resumed.load(seq_in);
  EXPECT_EQ(drain(seq_resumed, 100), (std::vector<size_t>{4, 5, 6, 7, 8, 9}));

  // The single-process samplers save their position too.
  manual_seed(3);
  RandomSampler random(9);
  (void)random.next(4);
  serialize::OutputArchive random_out;
  random.save(random_out);
  std::vector<size_t> random_rest = drain(random, 2);
  std::stringstream random_bytes;
  random_out.save_to(random_bytes);
  serialize::InputArchive random_in;
  random_in.load_from(random_bytes);
  RandomSampler random_resumed(9);
  random_resumed.load(random_in);
  EXPECT_EQ(drain(random_resumed, 2), random_rest);
}

TEST(DistributedSamplers, BadArgumentsAreRefused) {
  EXPECT_THROWS_WITH(DistributedSequentialSampler(10, 0, 0), "num_replicas must be positive");
  EXPECT_THROWS_WITH(DistributedRandomSampler(10, 2, 2), "rank 2 is not below num_replicas 2");
  // A position from another rank's share, or one that is not a count.
  serialize::OutputArchive out;
  out.write("sample_index_", scalar_tensor(int64_t{15}, kLong));
  out.write("epoch_", scalar_tensor(2.5));
  std::stringstream bytes;
  out.save_to(bytes);
  serialize::InputArchive in;
  in.load_from(bytes);
  DistributedSequentialSampler rank0(20, 2, 0);
  EXPECT_THROWS_WITH(rank0.load(in), "sample_index_ 15 is outside this rank's share [0, 10]");
  DistributedRandomSampler random(20, 2, 0);
  EXPECT_THROWS_WITH(random.load(in), "'epoch_' must be one integer, got a float32 tensor");
  // A sampler of the program's own that keeps no position.
  struct Counting : Sampler<> {
    void reset(std::optional<size_t>) override {}
    std::optional<std::vector<size_t>> next(size_t) override { return std::nullopt; }
  } counting;
  serialize::OutputArchive sink;
  EXPECT_THROWS_WITH(counting.save(sink), "Sampler::save: this sampler keeps no position");
}

// transforms::Collate: a batch reduced by a function, as libtorch's (BatchLambda under another name).
TEST(DataTransforms, CollateReducesABatchWithAFunction) {
  Tensor values = arange(6, kFloat).reshape({6, 1});
  auto dataset = datasets::TensorDataset(values).map(transforms::Collate<TensorExample>(
      [](std::vector<TensorExample> batch) { return TensorExample(batch.back().data * 10); }));
  auto loader = make_data_loader<SequentialSampler>(std::move(dataset), DataLoaderOptions().batch_size(4));
  std::vector<float> lasts;
  for (auto& example : *loader) lasts.push_back(example.data.item<float>());
  EXPECT_EQ(lasts, (std::vector<float>{30.0f, 50.0f}));
}

}  // namespace
}  // namespace ember::data::samplers
