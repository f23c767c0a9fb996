// nn::utils::rnn: packing and padding, composed from differentiable ops (narrow, cat, stack,
// index_select), so a loss on the padded output reaches the packed input's gradient and back.
// The lengths and batch sizes are read on the host: they decide shapes, not values.
#include "nn/rnn_utils.h"

#include <algorithm>
#include <numeric>

namespace ember::nn::utils::rnn {

namespace {

std::vector<int64_t> host_int64(const Tensor& t) {
  return t.to(Device(kCPU), kInt64).contiguous().to_vector<int64_t>();
}

Tensor index_tensor(const std::vector<int64_t>& values, Device device) {
  return from_vector(values, {static_cast<int64_t>(values.size())}, dtype(kInt64)).to(device);
}

// `rows` rows of padding shaped like one row of `like` (1 or more trailing dims).
Tensor padding_rows(const Tensor& like, int64_t rows, double value) {
  std::vector<int64_t> shape(like.sizes().begin(), like.sizes().end());
  shape[0] = rows;
  return full(shape, value, like.options());
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  const std::vector<int64_t> order = host_int64(permutation);
  std::vector<int64_t> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    EMBER_CHECK(order[i] >= 0 && order[i] < static_cast<int64_t>(order.size()),
                "invert_permutation: {} is not an index of a permutation of {} elements", order[i], order.size());
    inverse[order[i]] = static_cast<int64_t>(i);
  }
  return index_tensor(inverse, permutation.device());
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices, Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
  EMBER_CHECK(batch_sizes_.defined() && batch_sizes_.device().is_cpu(),
              "PackedSequence: batch_sizes should always be on CPU; build a PackedSequence with pack_padded_sequence "
              "or pack_sequence");
}

PackedSequence PackedSequence::to(const TensorOptions& options) const {
  Tensor data = data_.to(options);
  auto move_index = [&](const Tensor& index) { return index.defined() ? index.to(data.device()) : Tensor(); };
  return PackedSequence(data, batch_sizes_, move_index(sorted_indices_), move_index(unsorted_indices_));
}

PackedSequence PackedSequence::cuda() const { return to(TensorOptions().device(Device(kCUDA))); }
PackedSequence PackedSequence::cpu() const { return to(TensorOptions().device(Device(kCPU))); }

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  EMBER_CHECK(input.defined() && input.dim() >= 2,
              "pack_padded_sequence: input must be (T, B, *) or (B, T, *) with batch_first, got {}",
              input.defined() ? fmt::format("{}", input.sizes()) : std::string("an undefined tensor"));
  std::vector<int64_t> lens = host_int64(lengths);
  const int64_t batch_dim = batch_first ? 0 : 1;
  const int64_t B = input.size(batch_dim), T = input.size(1 - batch_dim);
  EMBER_CHECK(static_cast<int64_t>(lens.size()) == B && lengths.dim() == 1,
              "pack_padded_sequence: expected {} lengths (one per sequence of input {}), got lengths of shape {}", B,
              input.sizes(), lengths.sizes());
  Tensor sorted_indices;
  if (enforce_sorted) {
    EMBER_CHECK(std::is_sorted(lens.rbegin(), lens.rend()),
                "pack_padded_sequence: `lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True (got {}). You can pass `enforce_sorted=false` to pack_padded_sequence and/or pack_sequence to "
                "sidestep this requirement if you do not need ONNX exportability.",
                fmt::join(lens, ", "));
  } else {
    std::vector<int64_t> order(lens.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lens[a] > lens[b]; });
    std::vector<int64_t> sorted_lens;
    for (int64_t i : order) sorted_lens.push_back(lens[i]);
    lens = sorted_lens;
    sorted_indices = index_tensor(order, input.device());
    input = input.index_select(batch_dim, sorted_indices);
  }
  EMBER_CHECK(lens.back() > 0,
              "pack_padded_sequence: Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0 ({})",
              lens.back());
  EMBER_CHECK(lens.front() <= T,
              "pack_padded_sequence: a length of {} exceeds the padded sequence length {} of input {}", lens.front(), T,
              input.sizes());
  // Step t holds the first batch_sizes[t] sequences (those longer than t), time-major.
  Tensor steps = batch_first ? input.transpose(0, 1) : input;  // (T, B, *)
  std::vector<int64_t> batch_sizes;
  tensor_list rows;
  for (int64_t t = 0; t < lens.front(); ++t) {
    const int64_t b = std::count_if(lens.begin(), lens.end(), [&](int64_t len) { return len > t; });
    batch_sizes.push_back(b);
    rows.push_back(steps.select(0, t).narrow(0, 0, b));
  }
  return PackedSequence(cat(rows, 0), index_tensor(batch_sizes, Device(kCPU)), sorted_indices, Tensor());
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = host_int64(sequence.batch_sizes());
  const Tensor& data = sequence.data();
  EMBER_CHECK(!batch_sizes.empty() && data.defined(), "pad_packed_sequence: the packed sequence is empty");
  const int64_t T = static_cast<int64_t>(batch_sizes.size()), B = batch_sizes[0];
  int64_t T_out = T;
  if (total_length) {
    EMBER_CHECK(*total_length >= T,
                "pad_packed_sequence: Expected total_length to be at least the length of the longest sequence in "
                "input, but got total_length={} and max sequence length being {}",
                *total_length, T);
    T_out = *total_length;
  }
  tensor_list steps;
  std::vector<int64_t> lengths(B, 0);
  int64_t offset = 0;
  for (int64_t t = 0; t < T; ++t) {
    const int64_t b = batch_sizes[t];
    Tensor rows = data.narrow(0, offset, b);
    steps.push_back(b < B ? cat({rows, padding_rows(data, B - b, padding_value)}, 0) : rows);
    for (int64_t i = 0; i < b; ++i) ++lengths[i];
    offset += b;
  }
  Tensor padded = stack(steps, 0);  // (T, B, *)
  if (T_out > T) {
    std::vector<int64_t> shape(padded.sizes().begin(), padded.sizes().end());
    shape[0] = T_out - T;
    padded = cat({padded, full(shape, padding_value, data.options())}, 0);
  }
  Tensor lengths_tensor = index_tensor(lengths, Device(kCPU));
  const Tensor& unsorted = sequence.unsorted_indices();
  if (unsorted.defined()) {
    padded = padded.index_select(1, unsorted);
    lengths_tensor = lengths_tensor.index_select(0, unsorted.to(Device(kCPU)));
  }
  if (batch_first) padded = padded.transpose(0, 1);
  return {padded, lengths_tensor};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  int64_t max_length = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK(s.defined() && s.dim() >= 1, "pad_sequence: each sequence must be (L, *), got {}",
                s.defined() ? fmt::format("{}", s.sizes()) : std::string("an undefined tensor"));
    EMBER_CHECK(s.sizes().slice(1) == sequences[0].sizes().slice(1),
                "pad_sequence: the sequences' trailing sizes differ: {} and {}", sequences[0].sizes(), s.sizes());
    max_length = std::max(max_length, s.size(0));
  }
  tensor_list padded;
  for (const Tensor& s : sequences) {
    padded.push_back(s.size(0) < max_length ? cat({s, padding_rows(s, max_length - s.size(0), padding_value)}, 0) : s);
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.defined() && s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), index_tensor(lengths, Device(kCPU)), false, enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
