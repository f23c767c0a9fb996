// Warps in the CUDA emulator (built with -DEMBER_CUDA=EMULATE only): shuffles, votes, __syncwarp,
// __activemask, __reduce_*_sync and warp-level MMA (cuda/mma_sync.cuh) against host references in the
// three thread orders, and each misuse a GPU leaves undefined reported as a sticky error naming the
// call, the lanes and the mask.
//
// Kernels are launched through EMBER_LAUNCH; a thread's lane is its linear index in the block modulo
// 32 (x fastest), as on a GPU. Each test that provokes an error resets the emulated context.
#ifdef EMBER_CUDA_EMULATE

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/bfloat16.h"
#include "core/half.h"
#include "cuda/emu/emu.h"
#include "cuda/launch.h"
#include "cuda/mma_sync.cuh"
#include "cuda/warp_reduce.cuh"

namespace emu = ember::cuda::emu;
using ember::cuda::MmaA;
using ember::cuda::MmaB;
using ember::cuda::MmaC;
using ember::cuda::MmaInput;

namespace {

constexpr emu::Order kOrders[] = {emu::Order::Forward, emu::Order::Reverse, emu::Order::Shuffle};

__device__ unsigned linear_thread() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }

// The lanes the calling thread's warp has: 32, or fewer in the last warp of the block.
__device__ unsigned warp_lanes_mask() {
  const unsigned n = blockDim.x * blockDim.y * blockDim.z, first = linear_thread() / 32 * 32;
  return n - first >= 32 ? 0xffffffffu : (1u << (n - first)) - 1;
}

enum Mode { kIdx, kUp, kDown, kXor };

template <typename T>
__device__ T shuffle_value(unsigned i) {
  return T(1000 + 3 * i) + T(i % 2 ? 0.5 : 0);  // distinct per thread; a fraction for float and double
}

// out[i] = what thread i receives from one shuffle of every thread's shuffle_value(i).
template <typename T>
__global__ void shuffle_each(T* out, int mode, int arg, int width) {
  const unsigned i = linear_thread(), mask = warp_lanes_mask();
  const T mine = shuffle_value<T>(i);
  T got = mine;
  if (mode == kIdx) got = __shfl_sync(mask, mine, arg, width);
  if (mode == kUp) got = __shfl_up_sync(mask, mine, unsigned(arg), width);
  if (mode == kDown) got = __shfl_down_sync(mask, mine, unsigned(arg), width);
  if (mode == kXor) got = __shfl_xor_sync(mask, mine, arg, width);
  out[i] = got;
}

// The lane `lane` reads, as the CUDA programming guide describes each shuffle with `width`.
int expected_source(Mode mode, int lane, int arg, int width) {
  const int start = lane / width * width, pos = lane % width;
  switch (mode) {
    case kIdx:
      return start + ((arg % width) + width) % width;  // srcLane modulo width, within the segment
    case kUp:
      return pos >= arg ? lane - arg : lane;  // from a lower lane of the segment, else its own value
    case kDown:
      return pos + arg < width ? lane + arg : lane;
    case kXor:
      return (lane ^ arg) / width > lane / width ? lane : lane ^ arg;  // never from a later segment
  }
  return lane;
}

class CudaWarp : public ::testing::Test {
 public:  // the helpers are used by the check functions below the fixture
  void TearDown() override {
    emu::reset_errors();
    emu::set_order(saved_);
  }
  template <typename T>
  T* device_array(size_t n) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    owned_.push_back(p);
    return static_cast<T*>(p);
  }
  template <typename T>
  std::vector<T> to_host(const T* d, size_t n) {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
  template <typename T>
  T* to_device(const std::vector<T>& h) {
    T* d = device_array<T>(h.size());
    EXPECT_EQ(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    return d;
  }
  // The sticky error a kernel left: a launch failure, whose detail must hold every one of `parts`.
  void expect_failure(const std::vector<std::string>& parts) {
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    const std::string detail = emu::last_error_detail();
    for (const std::string& part : parts) EXPECT_NE(detail.find(part), std::string::npos) << part << " in: " << detail;
    emu::reset_errors();
  }
  ~CudaWarp() override {
    for (void* p : owned_) cudaFree(p);
  }
  emu::Order saved_ = emu::order();
  std::vector<void*> owned_;
};

template <typename T>
void check_shuffles(CudaWarp& test, T* d, dim3 block) {
  const int n = int(block.x * block.y * block.z);
  for (Mode mode : {kIdx, kUp, kDown, kXor})
    for (int width : {1, 2, 4, 8, 16, 32})
      for (int arg : {0, 1, 3, 5, 16, 31, -1, -7}) {
        if (mode != kIdx && arg < 0) continue;
        EMBER_LAUNCH(1, block, 0, nullptr, shuffle_each<T>)(d, int(mode), arg, width);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
        const std::vector<T> h = test.to_host(d, n);
        for (int i = 0; i < n; ++i) {
          const int lane = i % 32, warp_start = i - lane;
          const int src = warp_start + expected_source(mode, lane, arg, width);
          ASSERT_EQ(h[i], shuffle_value<T>(unsigned(src)))
              << emu::order_name(emu::order()) << " order, mode " << mode << ", width " << width << ", arg " << arg
              << ", thread " << i << " of a block of " << n;
        }
      }
}

TEST_F(CudaWarp, ShufflesMatchTheHostReference) {
  // Whole warps, in 1-D and 3-D blocks (lanes numbered x fastest), and each type CUDA shuffles.
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    check_shuffles(*this, device_array<int>(64), dim3(64));
    check_shuffles(*this, device_array<double>(64), dim3(8, 4, 2));
    check_shuffles(*this, device_array<float>(96), dim3(96));
  }
  check_shuffles(*this, device_array<unsigned long long>(64), dim3(16, 4));
  check_shuffles(*this, device_array<long long>(32), dim3(32));
  check_shuffles(*this, device_array<unsigned>(32), dim3(32));
}

TEST_F(CudaWarp, ShufflesInAPartialWarpKeepTheirSegments) {
  // A block of 48: warp 1 has lanes 0-15 only. Segments of 16 lie inside it, so every shuffle is legal.
  int* d = device_array<int>(48);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    for (Mode mode : {kIdx, kUp, kDown, kXor}) {
      EMBER_LAUNCH(1, 48, 0, nullptr, shuffle_each<int>)(d, int(mode), 5, 16);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
      const std::vector<int> h = to_host(d, 48);
      for (int i = 0; i < 48; ++i)
        ASSERT_EQ(h[i], shuffle_value<int>(unsigned(i - i % 32 + expected_source(mode, i % 32, 5, 16))))
            << "mode " << mode << ", thread " << i;
    }
  }
}

// out[4 * i + 0..3] = ballot, any, all and the lane's predicate, for the lanes named in `mask` (and
// present in the warp) only.
__global__ void votes(unsigned* out, unsigned warp_mask, unsigned salt) {
  const unsigned i = linear_thread(), lane = i % 32, mask = warp_mask & warp_lanes_mask();
  const int predicate = ((i * 2654435761u + salt) >> 7) % 3 == 0;
  if (!(mask >> lane & 1)) return;
  out[4 * i] = __ballot_sync(mask, predicate);
  out[4 * i + 1] = unsigned(__any_sync(mask, predicate));
  out[4 * i + 2] = unsigned(__all_sync(mask, predicate || lane % 8 != 0));
  out[4 * i + 3] = unsigned(predicate);
}

TEST_F(CudaWarp, VotesMatchTheHostReference) {
  unsigned* d = device_array<unsigned>(4 * 64);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    for (dim3 block : {dim3(8, 8), dim3(8, 5)})  // 2 warps; the second of 8 lanes only in a block of 40
      for (unsigned warp_mask : {0xffffffffu, 0x0000ffffu, 0x80000001u, 0x00f0f00fu})
        for (unsigned salt : {0u, 17u, 1234567u}) {
          const int n = int(block.x * block.y);
          ASSERT_EQ(cudaMemset(d, 0, 4 * n * sizeof(unsigned)), cudaSuccess);
          EMBER_LAUNCH(1, block, 0, nullptr, votes)(d, warp_mask, salt);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
          const std::vector<unsigned> h = to_host(d, 4 * n);
          for (int w = 0; w < 2; ++w) {
            const int lanes = std::min(32, n - 32 * w);
            const unsigned mask = warp_mask & (lanes == 32 ? 0xffffffffu : (1u << lanes) - 1);
            unsigned ballot = 0;
            bool all = true;
            for (int l = 0; l < 32; ++l) {
              if (!(mask >> l & 1)) continue;
              const unsigned i = unsigned(32 * w + l);
              const bool p = ((i * 2654435761u + salt) >> 7) % 3 == 0;
              if (p) ballot |= 1u << l;
              all = all && (p || l % 8 != 0);
            }
            for (int l = 0; l < 32; ++l) {
              if (!(mask >> l & 1)) continue;
              const int i = 32 * w + l;
              EXPECT_EQ(h[4 * i], ballot) << "mask " << mask << ", thread " << i;
              EXPECT_EQ(h[4 * i + 1], unsigned(ballot != 0)) << "mask " << mask << ", thread " << i;
              EXPECT_EQ(h[4 * i + 2], unsigned(all)) << "mask " << mask << ", thread " << i;
            }
          }
        }
  }
}

// out[3 * i + 0..2] = __reduce_{add,min,max}_sync over the warp's lanes, as int and as unsigned.
__global__ void warp_reduces(int* out_int, unsigned* out_unsigned) {
  const unsigned i = linear_thread(), mask = warp_lanes_mask();
  const int value = int((i * 2654435761u) >> 20) - 2048;  // negative and positive
  out_int[3 * i] = __reduce_add_sync(mask, value);
  out_int[3 * i + 1] = __reduce_min_sync(mask, value);
  out_int[3 * i + 2] = __reduce_max_sync(mask, value);
  out_unsigned[3 * i] = __reduce_add_sync(mask, unsigned(value));
  out_unsigned[3 * i + 1] = __reduce_min_sync(mask, unsigned(value));
  out_unsigned[3 * i + 2] = __reduce_max_sync(mask, unsigned(value));
}

TEST_F(CudaWarp, ReduceSyncMatchesTheHostReference) {
  const int n = 80;  // a partial third warp of 16 lanes
  int* di = device_array<int>(3 * n);
  unsigned* du = device_array<unsigned>(3 * n);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    EMBER_LAUNCH(1, n, 0, nullptr, warp_reduces)(di, du);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
    const std::vector<int> hi = to_host(di, 3 * n);
    const std::vector<unsigned> hu = to_host(du, 3 * n);
    for (int i = 0; i < n; ++i) {
      int sum = 0, lo = INT32_MAX, hi_value = INT32_MIN;
      unsigned usum = 0, ulo = UINT32_MAX, uhi = 0;
      for (int j = i - i % 32; j < std::min(n, i - i % 32 + 32); ++j) {
        const int v = int((unsigned(j) * 2654435761u) >> 20) - 2048;
        sum += v, lo = std::min(lo, v), hi_value = std::max(hi_value, v);
        usum += unsigned(v), ulo = std::min(ulo, unsigned(v)), uhi = std::max(uhi, unsigned(v));
      }
      EXPECT_EQ(hi[3 * i], sum) << "thread " << i;
      EXPECT_EQ(hi[3 * i + 1], lo) << "thread " << i;
      EXPECT_EQ(hi[3 * i + 2], hi_value) << "thread " << i;
      EXPECT_EQ(hu[3 * i], usum) << "thread " << i;
      EXPECT_EQ(hu[3 * i + 1], ulo) << "thread " << i;
      EXPECT_EQ(hu[3 * i + 2], uhi) << "thread " << i;
    }
  }
}

// Each lane writes its slot of shared memory, waits at __syncwarp, then reads its neighbour's: in
// every thread order the neighbour has written by then.
__global__ void neighbour_through_shared(int* out) {
  EMBER_DYNAMIC_SHARED(raw);
  int* slots = reinterpret_cast<int*>(raw);
  const unsigned i = threadIdx.x;
  slots[i] = int(10 * i);
  __syncwarp();
  out[i] = slots[i / 32 * 32 + (i + 1) % 32];
}

TEST_F(CudaWarp, SyncwarpWaitsForEveryLane) {
  int* d = device_array<int>(64);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    EMBER_LAUNCH(1, 64, 64 * sizeof(int), nullptr, neighbour_through_shared)(d);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
    const std::vector<int> h = to_host(d, 64);
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(h[i], 10 * (i / 32 * 32 + (i + 1) % 32)) << emu::order_name(order) << " " << i;
  }
}

// Lanes below `split` ask __activemask() inside a branch, the others exit first.
__global__ void active_in_branch(unsigned* out, unsigned split) {
  const unsigned i = linear_thread();
  out[i] = 0;
  if (i % 32 < split) out[i] = __activemask();
}

TEST_F(CudaWarp, ActivemaskNamesTheLanesInTheBranch) {
  unsigned* d = device_array<unsigned>(48);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    for (unsigned split : {32u, 20u, 1u}) {
      EMBER_LAUNCH(1, 48, 0, nullptr, active_in_branch)(d, split);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
      const std::vector<unsigned> h = to_host(d, 48);
      for (unsigned i = 0; i < 48; ++i) {
        const unsigned lanes = i < 32 ? 32 : 16, in_branch = std::min(split, lanes);
        const unsigned expected = in_branch == 32 ? 0xffffffffu : (1u << in_branch) - 1;
        EXPECT_EQ(h[i], i % 32 < split ? expected : 0u) << emu::order_name(order) << ", split " << split << ", " << i;
      }
    }
  }
}

// out[blockIdx.x * blockDim.x + i] = the sum over the thread's warp, through warp_reduce.
__global__ void warp_sums(double* out) {
  const unsigned i = linear_thread(), n = blockDim.x * blockDim.y;
  const double mine = 0.25 * double(blockIdx.x * n + i);
  out[blockIdx.x * n + i] = warp_reduce(mine, [](double a, double b) { return a + b; });
}

TEST_F(CudaWarp, WarpReduceSumsEachWarpOnEveryLaunch) {
  // Launched twice per shape: a kernel that calls a warp primitive keeps running as fibers after the
  // first block of its first launch (the scheduler's fast path would run it as a plain loop).
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    for (dim3 block : {dim3(32), dim3(256), dim3(1024), dim3(16, 8)}) {
      const int grid = 3, n = int(block.x * block.y);
      double* d = device_array<double>(grid * n);
      for (int launch = 0; launch < 2; ++launch) {
        EMBER_LAUNCH(grid, block, 0, nullptr, warp_sums)(d);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
        const std::vector<double> h = to_host(d, grid * n);
        for (int t = 0; t < grid * n; ++t) {
          const double first = 0.25 * (t - t % 32), last = first + 0.25 * 31;
          ASSERT_EQ(h[t], (first + last) * 16) << emu::order_name(order) << " order, launch " << launch << ", " << t;
        }
      }
    }
  }
}

// Every thread adds 1 twice, with a barrier between: the emulator's atomics must lose no update when
// threads are switched at barriers and blocks follow one another.
__global__ void count_twice(unsigned long long* counter, float* total) {
  atomicAdd(counter, 1ull);
  atomicAdd(total, 1.0f);
  __syncthreads();
  atomicAdd(counter, 1ull);
  unsigned long long seen = *counter, want;
  do {
    want = seen;
    seen = atomicCAS(counter, want, want + 1);
  } while (seen != want);
}

TEST_F(CudaWarp, AtomicsLoseNoUpdate) {
  auto* counter = device_array<unsigned long long>(1);
  float* total = device_array<float>(1);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    ASSERT_EQ(cudaMemset(counter, 0, sizeof(unsigned long long)), cudaSuccess);
    ASSERT_EQ(cudaMemset(total, 0, sizeof(float)), cudaSuccess);
    EMBER_LAUNCH(16, 256, 0, nullptr, count_twice)(counter, total);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(to_host(counter, 1)[0], 3ull * 16 * 256) << emu::order_name(order);
    EXPECT_EQ(to_host(total, 1)[0], 16.0f * 256) << emu::order_name(order);
  }
}

// ---- misuse: each is undefined on a GPU and a sticky error here ----

__global__ void lane_outside_its_mask(int* out) {
  if (threadIdx.x == 5) out[0] = int(__ballot_sync(0x1u, 1));
}
__global__ void half_the_warp_exits(int* out) {
  if (threadIdx.x % 32 < 16) out[threadIdx.x] = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
}
__global__ void shuffle_beside_a_barrier(int* out) {
  if (threadIdx.x < 16) {
    out[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 0);
  } else {
    __syncthreads();
  }
}
__global__ void different_votes(int* out) {
  out[threadIdx.x] = threadIdx.x % 2 ? __any_sync(0xffffffffu, 1) : __all_sync(0xffffffffu, 1);
}
__global__ void different_masks(int*) {
  if (threadIdx.x == 0) __syncwarp(0x3u);
  if (threadIdx.x == 1 || threadIdx.x == 2) __syncwarp(0x7u);
}
__global__ void whole_warp_mask_in_a_partial_warp(int* out) {
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
}
__global__ void read_outside_the_mask(int* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_down_sync(0x0000ffffu, int(threadIdx.x), 4, 32);
}
__global__ void width_not_a_power_of_two(int* out) {
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, int(threadIdx.x), 1, 12);
}

TEST_F(CudaWarp, MisusedCollectivesAreReportedInEveryOrder) {
  int* d = device_array<int>(64);
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    SCOPED_TRACE(emu::order_name(order));
    EMBER_LAUNCH(1, 32, 0, nullptr, lane_outside_its_mask)(d);
    expect_failure({"lane_outside_its_mask", "__ballot_sync (mask 0x00000001) in warp 0 of block 0",
                    "called by lane 5, which its mask does not name"});
    EMBER_LAUNCH(1, 64, 0, nullptr, half_the_warp_exits)(d);
    expect_failure(
        {"__shfl_down_sync (mask 0xffffffff) in warp 0 of block 0: lanes 0-15 arrived; missing: "
         "lanes 16-31 (exited)"});
    EMBER_LAUNCH(1, 32, 0, nullptr, shuffle_beside_a_barrier)(d);
    expect_failure({"__shfl_sync (mask 0xffffffff) in warp 0", "missing: lanes 16-31 (at __syncthreads() at ",
                    "test_cuda_warp.cpp:"});
    EMBER_LAUNCH(1, 32, 0, nullptr, different_votes)(d);
    expect_failure({"__all_sync (mask 0xffffffff) in warp 0",
                    "missing: lanes 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31 (at __any_sync with "
                    "mask 0xffffffff)"});
    EMBER_LAUNCH(1, 32, 0, nullptr, different_masks)(d);
    expect_failure(
        {"__syncwarp (mask 0x00000003) in warp 0 of block 0: lane 0 arrived; missing: lane 1 (at "
         "__syncwarp with mask 0x00000007)"});
    EMBER_LAUNCH(1, 48, 0, nullptr, whole_warp_mask_in_a_partial_warp)(d);
    expect_failure({"__shfl_down_sync (mask 0xffffffff) in warp 1 of block 0",
                    "the mask names lanes 16-31, which do not exist (the warp has 16 lanes in a block of 48 threads)"});
    EMBER_LAUNCH(1, 32, 0, nullptr, read_outside_the_mask)(d);
    expect_failure(
        {"__shfl_down_sync (mask 0x0000ffff) in warp 0", "lane 12 reads lane 16, which the mask does not name"});
    EMBER_LAUNCH(1, 32, 0, nullptr, width_not_a_power_of_two)(d);
    expect_failure({"__shfl_xor_sync (mask 0xffffffff)", "width must be a power of 2 from 1 to 32"});
  }
}

// ---- warp-level MMA (cuda/mma_sync.cuh) ----

TEST_F(CudaWarp, PackingRoundsToNearestEvenAsEmbersHostTypes) {
  std::mt19937 rng(7);
  std::vector<float> values = {0.0f,          -0.0f,        1.0f,         1.00390625f,   1.01171875f,   65504.0f,
                               65519.0f,      65520.0f,     1e30f,        -1e-30f,       5.9604645e-8f, 2.9802322e-8f,
                               2.9802326e-8f, 8.940697e-8f, 6.097555e-5f, 3.3895314e38f, INFINITY,      -INFINITY};
  for (int i = 0; i < 100000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (!std::isnan(f)) values.push_back(f);
  }
  for (float f : values) {
    ASSERT_EQ(ember::cuda::round_to_bf16(f), ember::BFloat16(f).bits) << f;
    ASSERT_EQ(ember::cuda::round_to_f16(f), ember::Half(f).bits) << f;
    ASSERT_EQ(ember::cuda::f16_to_float(ember::cuda::round_to_f16(f)), float(ember::Half(f))) << f;
    ASSERT_EQ(ember::cuda::bf16_to_float(ember::cuda::round_to_bf16(f)), float(ember::BFloat16(f))) << f;
  }
  EXPECT_TRUE(std::isnan(ember::cuda::bf16_to_float(ember::cuda::round_to_bf16(NAN))));
  EXPECT_TRUE(std::isnan(ember::cuda::f16_to_float(ember::cuda::round_to_f16(NAN))));
  EXPECT_EQ(ember::cuda::pack_bf16x2(1.0f, -2.0f), 0xc0003f80u);  // lo in bits 0-15
  EXPECT_EQ(ember::cuda::pack_f16x2(1.0f, -2.0f), 0xc0003c00u);
}

// Every lane's raw fragments: 4 A registers, 2 B registers, 4 C floats.
template <MmaInput T>
__global__ void fragments(uint32_t* out_a, uint32_t* out_b, float* out_c, const float* A, const float* B,
                          const float* C) {
  const unsigned lane = threadIdx.x;
  const MmaA a = ember::cuda::load_mma_a<T>(A, 16, lane);
  const MmaB b = ember::cuda::load_mma_b<T>(B, 8, lane);
  const MmaC c = ember::cuda::load_mma_c(C, 8, lane);
  for (int r = 0; r < 4; ++r) out_a[4 * lane + r] = a.x[r];
  for (int r = 0; r < 2; ++r) out_b[2 * lane + r] = b.x[r];
  for (int r = 0; r < 4; ++r) out_c[4 * lane + r] = c.x[r];
}

TEST_F(CudaWarp, MmaFragmentsHoldThePtxLayout) {
  // Elements numbered by position, all exact in bf16 and f16: a[r][c] = r * 16 + c, b[k][n] = k * 8 + n.
  std::vector<float> A(256), B(128), C(128);
  for (int i = 0; i < 256; ++i) A[i] = float(i);
  for (int i = 0; i < 128; ++i) B[i] = float(i), C[i] = float(i) + 0.5f;
  float *dA = to_device(A), *dB = to_device(B), *dC = to_device(C);
  uint32_t* da = device_array<uint32_t>(128);
  uint32_t* db = device_array<uint32_t>(64);
  float* dc = device_array<float>(128);
  EMBER_LAUNCH(1, 32, 0, nullptr, fragments<MmaInput::F16>)(da, db, dc, dA, dB, dC);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
  const std::vector<uint32_t> a = to_host(da, 128), b = to_host(db, 64);
  const std::vector<float> c = to_host(dc, 128);
  auto half = [](uint32_t reg, int h) { return float(ember::Half::from_bits(uint16_t(reg >> (16 * h)))); };
  // The PTX ISA's table for mma.m16n8k16 (.f16/.bf16): element i of a lane's A, B and C fragments.
  for (int lane = 0; lane < 32; ++lane) {
    const int group = lane >> 2, tig = lane % 4;
    for (int i = 0; i < 8; ++i) {
      const int row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
      const int col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      EXPECT_EQ(half(a[4 * lane + i / 2], i % 2), A[row * 16 + col]) << "lane " << lane << ", a" << i;
    }
    for (int i = 0; i < 4; ++i) {
      const int row = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0), col = group;
      EXPECT_EQ(half(b[2 * lane + i / 2], i % 2), B[row * 8 + col]) << "lane " << lane << ", b" << i;
    }
    for (int i = 0; i < 4; ++i) {
      const int row = i < 2 ? group : group + 8, col = tig * 2 + (i & 1);
      EXPECT_EQ(c[4 * lane + i], C[row * 8 + col]) << "lane " << lane << ", c" << i;
    }
  }
}

// D = A B + C for one 16x16 by 16x8 tile, each lane loading and storing its own fragments.
template <MmaInput T>
__global__ void tile_mma(float* D, const float* A, const float* B, const float* C) {
  const unsigned lane = linear_thread() % 32;
  const MmaA a = ember::cuda::load_mma_a<T>(A, 16, lane);
  const MmaB b = ember::cuda::load_mma_b<T>(B, 8, lane);
  const MmaC c = ember::cuda::load_mma_c(C, 8, lane);
  ember::cuda::store_mma_c(D, 8, ember::cuda::mma_m16n8k16<T>(a, b, c), lane);
}

template <MmaInput T>
void check_mma(CudaWarp& test, const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
               const char* what, bool exact) {
  float* dD = test.device_array<float>(128);
  EMBER_LAUNCH(1, dim3(8, 4), 0, nullptr, tile_mma<T>)(dD, test.to_device(A), test.to_device(B), test.to_device(C));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << emu::last_error_detail();
  const std::vector<float> D = test.to_host(dD, 128);
  auto rounded = [](float v) {
    return double(T == MmaInput::BF16 ? float(ember::BFloat16(v)) : float(ember::Half(v)));
  };
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double ref = C[m * 8 + n], magnitude = std::fabs(C[m * 8 + n]);
      for (int k = 0; k < 16; ++k) {
        const double p = rounded(A[m * 16 + k]) * rounded(B[k * 8 + n]);
        ref += p;
        magnitude += std::fabs(p);
      }
      const double tolerance = exact ? 0 : 16 * std::ldexp(magnitude, -24);  // 16 roundings of float32 sums
      const double diff = std::fabs(double(D[m * 8 + n]) - ref);
      ASSERT_LE(diff, tolerance) << what << ": D[" << m << "][" << n << "] = " << D[m * 8 + n] << ", float64 " << ref
                                 << " (" << emu::order_name(emu::order()) << " order)";
    }
}

template <MmaInput T>
void check_mma_tiles(CudaWarp& test) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<float> A(256), B(128), C(128);
  for (int tile = 0; tile < 4; ++tile) {
    for (float& v : A) v = normal(rng);
    for (float& v : B) v = normal(rng) * 4;
    for (float& v : C) v = normal(rng);
    check_mma<T>(test, A, B, C, "normal values", false);
  }
  for (float& v : A) v = float(small(rng));  // small integers: every sum is exact
  for (float& v : B) v = float(small(rng));
  for (float& v : C) v = float(small(rng) * 64);
  check_mma<T>(test, A, B, C, "small integers", true);
  // Edge values: signed zeros, powers of two near the top and bottom of the input's range (f16's
  // subnormals), values that round on input, and a C that the products cancel.
  const float edges[] = {0.0f, -0.0f, 1.0f, -1.0f, 1.00390625f, 0.333333f, 1024.0f, -3.0e-5f, 6.0e-8f, 60000.0f};
  for (int i = 0; i < 256; ++i) A[i] = edges[(i * 7) % 10];
  for (int i = 0; i < 128; ++i) B[i] = edges[(i * 3 + 1) % 10] * (i % 2 ? 1e-3f : 1.0f), C[i] = i % 3 ? -1.0f : 0.0f;
  check_mma<T>(test, A, B, C, "edge values", false);
}

TEST_F(CudaWarp, MmaMatchesAFloat64ProductOfTheRoundedInputs) {
  for (emu::Order order : kOrders) {
    emu::set_order(order);
    check_mma_tiles<MmaInput::BF16>(*this);
    check_mma_tiles<MmaInput::F16>(*this);
  }
}

TEST_F(CudaWarp, MmaInAPartialWarpIsReported) {
  float* d = device_array<float>(256);
  EMBER_LAUNCH(1, 16, 0, nullptr, tile_mma<MmaInput::BF16>)(d, d, d, d);
  expect_failure({"mma.sync.m16n8k16 (bf16) (mask 0xffffffff) in warp 0", "the mask names lanes 16-31"});
}

}  // namespace

#endif  // EMBER_CUDA_EMULATE
