// nn::utils::rnn: variable-length sequences for the recurrent modules, as torch::nn::utils::rnn.
//
//   namespace rnn = ember::nn::utils::rnn;
//   ember::Tensor padded = rnn::pad_sequence({a, b, c});                  // (T_max, 3, *), zeros after each end
//   ember::Tensor lengths = ember::from_vector<int64_t>({5, 3, 2}, {3}, ember::dtype(ember::kInt64));
//   rnn::PackedSequence packed = rnn::pack_padded_sequence(padded, lengths);
//   auto [out, state] = lstm->forward_with_packed_input(packed);
//   auto [out_padded, out_lengths] = rnn::pad_packed_sequence(out);     // (T_max, 3, H), lengths {5, 3, 2}
//
// A PackedSequence holds the rows of every sequence step by step (time-major): step t has
// batch_sizes[t] rows, the sequences still running at t, longest first. Packing and padding are
// composed from narrow/cat/stack/index_select, so gradients flow through them on every device.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "core/tensor.h"

namespace ember::nn::utils::rnn {

// The inverse of a permutation (int64, 1-D): out[permutation[i]] = i. Undefined in, undefined out.
Tensor invert_permutation(const Tensor& permutation);

class PackedSequence {
 public:
  // data (sum(batch_sizes), *); batch_sizes int64 (T) on the CPU; sorted_indices (B) the order in
  // which the original batch was sorted (undefined: it was sorted already). unsorted_indices, when
  // not given, is the inverse of sorted_indices.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {}, Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  // The same sequence with data (and the indices) on another device or dtype; batch_sizes stays on the CPU.
  PackedSequence to(const TensorOptions& options) const;
  PackedSequence cuda() const;
  PackedSequence cpu() const;
  bool is_cuda() const { return data_.is_cuda(); }

 private:
  Tensor data_;
  Tensor batch_sizes_;
  Tensor sorted_indices_;
  Tensor unsorted_indices_;
};

// input (T, B, *) (or (B, T, *) with batch_first), padded; lengths (B) int64, each in [1, T].
// With enforce_sorted the lengths must not increase; otherwise the batch is sorted here and the
// PackedSequence remembers the order.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false, bool enforce_sorted = true);

// The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths (B) int64), in the
// original batch order. total_length pads to that many steps (at least the longest sequence).
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// sequences: B tensors (L_i, *) -> (L_max, B, *) (or (B, L_max, *)), padding_value after each end.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0);

// pad_sequence then pack_padded_sequence with each sequence's length.
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
