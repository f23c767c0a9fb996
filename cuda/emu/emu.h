// Controls of Ember's CPU emulator of CUDA, for its own tests and for CI (-DEMBER_CUDA=EMULATE).
//
//   ember::cuda::emu::set_order(ember::cuda::emu::Order::Reverse);
//
// The environment picks the same at start-up: EMBER_EMU_ORDER=forward|reverse|shuffle (the order in
// which a block's threads resume after each barrier; blocks always run in a shuffled order),
// EMBER_EMU_SEED (the shuffles' seed, default 1), EMBER_EMU_FIBERS=1 (every thread a fiber, no
// fast path), EMBER_EMU_MEMORY_MB (device memory, default 4096).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace ember::cuda::emu {

enum class Order { Forward, Reverse, Shuffle };

Order order();
void set_order(Order order);
const char* order_name(Order order);
// Drops a sticky error and the last error, as a fresh CUDA context would (tests only).
void reset_errors();
// What the emulator said about the last error it raised ("" when none).
std::string last_error_detail();
// Records an illegal address found by an emulated library call (cuBLAS): sticky, as a faulting kernel.
void report_illegal_address(const std::string& what);
// The kernels launched between the two calls, by their EMBER_LAUNCH spelling ("vectorized_kernel<4,
// UnaryApply<...>>"): for tests that check which kernel a path takes. Off (and free) otherwise.
void start_launch_log();
std::vector<std::string> stop_launch_log();

}  // namespace ember::cuda::emu
