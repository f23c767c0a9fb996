// One direction of one LSTM layer as a single op: the CPU's fused kernel (core/cpu/rnn.cpp) where
// the backend has one, else the recurrence composed from tensor ops, which the caller supplies
// (nn/rnn.cpp writes it once, for every mode and device). Not the projection (proj_size) or the
// other modes: nn::LSTM with proj_size, GRU and RNN always compose.
//
//   LstmLayerOutputs y = ember::lstm_layer({xw, w_hh, b_hh, h0, c0}, batch_sizes, reverse, composed);
//   // xw (N, 4H), w_hh (4H, H), b_hh (4H) or undefined, h0 and c0 (B, H):
//   // y.output (N, H), y.h_n and y.c_n (B, H)
#pragma once

#include <functional>
#include <vector>

#include "core/tensor.h"

namespace ember {

struct LstmLayerInputs {
  Tensor xw;    // (N, 4H): x W_ih^T + b_ih for every packed row, gates i, f, g, o
  Tensor w_hh;  // (4H, H)
  Tensor b_hh;  // (4H) or undefined
  Tensor h0;    // (B, H), B = batch_sizes[0]
  Tensor c0;    // (B, H)
};

struct LstmLayerOutputs {
  Tensor output;  // (N, H): h of every packed row
  Tensor h_n;     // (B, H): each sequence's final state
  Tensor c_n;     // (B, H)
};

using LstmLayerComposed = std::function<LstmLayerOutputs(const LstmLayerInputs&)>;

// Rows of step t: batch_sizes[t], non-increasing, after the rows of the steps before; reverse runs
// the steps last to first. With the fused kernel the graph has one node (LstmLayerBackward0) whose
// backward is the fused backward kernel; with create_graph (a gradient of the gradient wanted), or
// on a backend without that kernel, it runs `composed` again and differentiates that instead.
LstmLayerOutputs lstm_layer(const LstmLayerInputs& in, const std::vector<int64_t>& batch_sizes, bool reverse,
                            const LstmLayerComposed& composed);

}  // namespace ember
