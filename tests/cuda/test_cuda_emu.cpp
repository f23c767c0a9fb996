// The CUDA emulator's own checks (built with -DEMBER_CUDA=EMULATE only): it must catch what a GPU
// would get wrong silently or only sometimes, and run block_reduce correctly in every thread order.
//
// Kernels here are written like cuda/*.cu's and launched through EMBER_LAUNCH. Errors a kernel
// raises are sticky, as on a GPU, so each test that provokes one resets the emulated context.
#ifdef EMBER_CUDA_EMULATE

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <regex>
#include <string>
#include <type_traits>
#include <vector>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "core/sanitizers.h"
#include "cuda/block_reduce.cuh"
#include "cuda/cuda_backend.h"
#include "cuda/emu/cublas_v2.h"
#include "cuda/emu/emu.h"
#include "cuda/kernels.h"
#include "cuda/launch.h"
#include "cuda/launchers.h"
#include "test_util.h"

namespace emu = ember::cuda::emu;

namespace {

__global__ void write_index(int n, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = float(i);
}

__global__ void barrier_in_branch(float* out) {
  if (threadIdx.x < 16) __syncthreads();  // the other 16 threads never arrive
  out[threadIdx.x] = 1;
}

__global__ void barriers_at_two_sites(float* out) {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

// out[b] = sum of (b * blockDim.x + t) over the block's threads t, through block_reduce.
__global__ void block_sums(double* out) {
  double* scratch = shared_scratch<double>();
  const double mine = double(blockIdx.x) * blockDim.x + threadIdx.x;
  const double total = block_reduce(
      mine, [](double a, double b) { return a + b; }, scratch);
  if (threadIdx.x == blockDim.x - 1) out[blockIdx.x] = total;  // the last thread: all must see the result
}

// Writes one value per thread into dynamic shared memory: needs blockDim.x floats of it.
__global__ void fill_shared(float* out) {
  float* scratch = shared_scratch<float>();
  scratch[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = scratch[blockDim.x - 1 - threadIdx.x];
}

// Writes 1 through a functor's pointer, as elementwise.cu's functors do.
// A functor of one pointer: no padding, so the emulator checks it with every compiler (with or
// without __builtin_clear_padding).
struct WriteOne {
  float* out;
  __device__ void operator()(int i) const { out[i] = 1; }
};
static_assert(std::has_unique_object_representations_v<WriteOne>);
template <typename Op>
__global__ void apply_to_each(int n, Op op) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) op(i);
}

// Reads in[i + offset]: with an offset past `in`'s allocation it reads memory it was not given.
__global__ void copy_shifted(int n, int offset, float* out, const float* in) {
  const int i = threadIdx.x;
  if (i < n) out[i] = in[i + offset];
}

class CudaEmulator : public ::testing::Test {
 protected:
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
  ~CudaEmulator() override {
    for (void* p : owned_) cudaFree(p);
  }
  emu::Order saved_ = emu::order();
  std::vector<void*> owned_;
};

TEST_F(CudaEmulator, KernelsRunEveryThreadOfEveryBlock) {
  const int n = 1000;
  float* d = device_array<float>(n);
  EMBER_LAUNCH(4, 256, 0, nullptr, write_index)(n, d);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(h[i], float(i)) << "element " << i;
}

TEST_F(CudaEmulator, BlockReduceIsCorrectInEveryThreadOrder) {
  for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse, emu::Order::Shuffle}) {
    emu::set_order(order);
    for (int block : {32, 64, 256, 1024}) {
      const int grid = 3;
      double* d = device_array<double>(grid);
      EMBER_LAUNCH(grid, block, block * sizeof(double), nullptr, block_sums)(d);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      std::vector<double> h(grid);
      ASSERT_EQ(cudaMemcpy(h.data(), d, grid * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
      for (int b = 0; b < grid; ++b) {
        const double first = double(b) * block, last = first + block - 1;
        EXPECT_EQ(h[b], (first + last) * block / 2) << emu::order_name(order) << " order, block " << block;
      }
    }
  }
}

TEST_F(CudaEmulator, ABarrierNotEveryThreadReachesIsReportedAtTheNextSync) {
  float* d = device_array<float>(32);
  EMBER_LAUNCH(1, 32, 0, nullptr, barrier_in_branch)(d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // the launch itself was fine
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const std::string detail = emu::last_error_detail();
  EXPECT_NE(detail.find("barrier_in_branch"), std::string::npos) << detail;
  EXPECT_NE(detail.find("reached by 16 of the 32 threads"), std::string::npos) << detail;
  EXPECT_EQ(cudaMemset(d, 0, 4), cudaErrorLaunchFailure);  // sticky: the context is gone
}

TEST_F(CudaEmulator, ThreadsWaitingAtDifferentBarriersAreReported) {
  float* d = device_array<float>(32);
  EMBER_LAUNCH(1, 32, 0, nullptr, barriers_at_two_sites)(d);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_NE(emu::last_error_detail().find("different __syncthreads()"), std::string::npos) << emu::last_error_detail();
}

TEST_F(CudaEmulator, AHostPointerPassedToAKernelIsReported) {
  std::vector<float> host(64, -1.0f);
  EMBER_LAUNCH(1, 64, 0, nullptr, write_index)(64, host.data());
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaErrorIllegalAddress);
  const std::string detail = emu::last_error_detail();
  EXPECT_NE(detail.find("write_index"), std::string::npos) << detail;
  EXPECT_NE(detail.find("pointer argument #1"), std::string::npos) << detail;
  EXPECT_NE(detail.find("host pointer"), std::string::npos) << detail;
  EXPECT_EQ(host[5], -1.0f);  // the kernel never ran
}

TEST_F(CudaEmulator, FreedDeviceMemoryPassedToAKernelIsReported) {
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 256), cudaSuccess);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  EMBER_LAUNCH(1, 32, 0, nullptr, write_index)(32, static_cast<float*>(p));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_NE(emu::last_error_detail().find("no live device allocation"), std::string::npos) << emu::last_error_detail();
}

TEST_F(CudaEmulator, ACopyWhoseKindDisagreesWithThePointersIsAnError) {
  float* d = device_array<float>(4);
  std::vector<float> h(4);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_NE(emu::last_error_detail().find("cudaMemcpy: destination"), std::string::npos) << emu::last_error_detail();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky
  EXPECT_EQ(cudaMemcpyAsync(h.data(), h.data(), 16, cudaMemcpyHostToDevice, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(h.data(), d, 32, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);  // past the end
  EXPECT_NE(emu::last_error_detail().find("past the end"), std::string::npos) << emu::last_error_detail();
  EXPECT_EQ(cudaMemcpy(h.data(), d, 16, cudaMemcpyDeviceToHost), cudaSuccess);
}

#ifndef EMBER_ASAN  // under ASan the stray write is ASan's report instead
TEST_F(CudaEmulator, WritingPastTheLaunchsSharedMemoryIsReported) {
  float* d = device_array<float>(64);
  EMBER_LAUNCH(1, 64, 64 * sizeof(float), nullptr, fill_shared)(d);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EMBER_LAUNCH(1, 64, 32 * sizeof(float), nullptr, fill_shared)(d);  // half of what it needs
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_NE(emu::last_error_detail().find("past the 128 bytes of dynamic shared memory"), std::string::npos)
      << emu::last_error_detail();
}
#endif

TEST_F(CudaEmulator, LaunchLimitsAreTheHardwaresAndNotSticky) {
  float* d = device_array<float>(2048);
  EMBER_LAUNCH(1, 1025, 0, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EMBER_LAUNCH(dim3(1, 65536), 32, 0, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EMBER_LAUNCH(0, 32, 0, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EMBER_LAUNCH(1, dim3(32, 1, 65), 0, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EMBER_LAUNCH(1, 32, 48 * 1024 + 8, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(write_index, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024), cudaSuccess);
  EMBER_LAUNCH(1, 32, 48 * 1024 + 8, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EMBER_LAUNCH(2, 1024, 0, nullptr, write_index)(2048, d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(CudaEmulator, CublasGemmIsColumnMajorAndChecksItsArguments) {
  // C (2, 2) = A (2, 3) @ B (3, 2), all column-major.
  const std::vector<float> a = {1, 4, 2, 5, 3, 6}, b = {1, 0, 1, 0, 1, 1};
  float* da = device_array<float>(6);
  float* db = device_array<float>(6);
  float* dc = device_array<float>(4);
  ASSERT_EQ(cudaMemcpy(da, a.data(), 24, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db, b.data(), 24, cudaMemcpyHostToDevice), cudaSuccess);
  cublasHandle_t h = nullptr;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  const float one = 1, zero = 0;
  ASSERT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, da, 2, 0, db, 3, 0, &zero, dc, 2, 0, 1),
      CUBLAS_STATUS_SUCCESS);
  std::vector<float> c(4);
  ASSERT_EQ(cudaMemcpy(c.data(), dc, 16, cudaMemcpyDeviceToHost), cudaSuccess);
  // Row i of A . column j of B: A = [[1 2 3] [4 5 6]], B = [[1 0] [0 1] [1 1]].
  EXPECT_EQ(c, (std::vector<float>{4, 10, 5, 11}));
  // C (3, 3) = A^T @ A with A read transposed: lda is still A's stored rows (2).
  float* dt = device_array<float>(9);
  ASSERT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, 3, 3, 2, &one, da, 2, 0, da, 2, 0, &zero, dt, 3, 0, 1),
      CUBLAS_STATUS_SUCCESS);
  std::vector<float> t(9);
  ASSERT_EQ(cudaMemcpy(t.data(), dt, 36, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(t, (std::vector<float>{17, 22, 27, 22, 29, 36, 27, 36, 45}));
  // cuBLAS's argument rules.
  EXPECT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, da, 1, 0, db, 3, 0, &zero, dc, 2, 0, 1),
      CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, 3, 3, 2, &one, da, 1, 0, da, 2, 0, &zero, dt, 3, 0, 1),
      CUBLAS_STATUS_INVALID_VALUE);  // lda < k for a transposed A
  EXPECT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, da, 2, 0, db, 2, 0, &zero, dc, 2, 0, 1),
      CUBLAS_STATUS_INVALID_VALUE);  // ldb < k
  EXPECT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, da, 2, 0, db, 3, 0, &zero, dc, 1, 0, 1),
      CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_EQ(
      cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 3, &one, da, 2, 0, db, 3, 0, &zero, dc, 2, 0, 1),
      CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasSgemmStridedBatched(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, da, 2, 0, db, 3, 0, &zero, dc,
                                      2, 0, 1),
            CUBLAS_STATUS_NOT_INITIALIZED);
  // A host matrix faults like a kernel would.
  EXPECT_EQ(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.data(), 2, 0, db, 3, 0, &zero, dc,
                                      2, 0, 1),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}

TEST_F(CudaEmulator, AHostPointerInsideAFunctorIsReported) {
  std::vector<float> host(64, -1.0f);
  EMBER_LAUNCH(1, 64, 0, nullptr, apply_to_each<WriteOne>)(64, WriteOne{host.data()});
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const std::string detail = emu::last_error_detail();
  EXPECT_NE(detail.find("apply_to_each<WriteOne>"), std::string::npos) << detail;
  EXPECT_NE(detail.find("argument #1 (a struct of 8 bytes) holds at byte 0"), std::string::npos) << detail;
  EXPECT_NE(detail.find("host pointer"), std::string::npos) << detail;
  EXPECT_EQ(host[5], -1.0f);  // the kernel never ran
}

TEST_F(CudaEmulator, AFreedPointerInsideAFunctorIsReported) {
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 256), cudaSuccess);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  EMBER_LAUNCH(1, 32, 0, nullptr, apply_to_each<WriteOne>)(32, WriteOne{static_cast<float*>(p)});
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_NE(emu::last_error_detail().find("no live device allocation"), std::string::npos) << emu::last_error_detail();
}

TEST_F(CudaEmulator, AFunctorWithDevicePointersRuns) {
  float* d = device_array<float>(64);
  EMBER_LAUNCH(1, 64, 0, nullptr, apply_to_each<WriteOne>)(64, WriteOne{d});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> h(64);
  ASSERT_EQ(cudaMemcpy(h.data(), d, 64 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, std::vector<float>(64, 1.0f));
}

// A kernel's fault surfaces at a later call. With EMBER_CUDA_SYNC=1 (set_sync_launches) the launch
// check waits for the kernel and names it; without, the later call says an earlier kernel may be
// the culprit and how to find it.
TEST_F(CudaEmulator, SyncedLaunchesNameTheKernelThatFailed) {
  float* d = device_array<float>(32);
  ember::cuda::set_sync_launches(true);
  EMBER_LAUNCH(1, 32, 0, nullptr, barrier_in_branch)(d);
  try {
    ember::cuda::check_launch("barrier_in_branch");
    ADD_FAILURE() << "check_launch did not report the faulting kernel";
  } catch (const ember::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("CUDA error: kernel 'barrier_in_branch' failed: "), std::string::npos) << what;
    EXPECT_NE(what.find("so this kernel is the one that failed"), std::string::npos) << what;
  }
  ember::cuda::set_sync_launches(false);
}

TEST_F(CudaEmulator, UnsyncedLaunchesSayTheFailingKernelMayBeAnEarlierOne) {
  float* d = device_array<float>(32);
  ember::cuda::set_sync_launches(false);
  EMBER_LAUNCH(1, 32, 0, nullptr, barrier_in_branch)(d);
  EXPECT_NO_THROW(ember::cuda::check_launch("barrier_in_branch"));  // the fault is not known yet
  EMBER_LAUNCH(1, 32, 0, nullptr, write_index)(32, d);
  EXPECT_THROWS_WITH(ember::cuda::synchronize(),
                     "a kernel launched earlier may have failed (CUDA reports a kernel's fault at a later call): "
                     "rerun with EMBER_CUDA_SYNC=1");
  // From then on every launch check reports it, under the later kernel's name, with the same warning.
  EXPECT_THROWS_WITH(ember::cuda::check_launch("write_index"), "CUDA error at the launch of kernel 'write_index'");
  EXPECT_THROWS_WITH(ember::cuda::check_launch("write_index"), "rerun with EMBER_CUDA_SYNC=1");
}

using CudaEmulatorDeathTest = CudaEmulator;

// compute-sanitizer's leak check at exit must see no cached blocks: Ember frees its allocator's cache,
// cuBLAS handle and stream at exit. The emulator's EMBER_EMU_LEAK_CHECK=1 prints what is left.
TEST_F(CudaEmulatorDeathTest, DeviceMemoryIsFreedAtExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("EMBER_EMU_LEAK_CHECK", "1", 1);
        {
          const ember::Tensor a = ember::randn({64, 64}).to(ember::Device(ember::kCUDA));
          const ember::Tensor b = a.matmul(a).softmax(-1);
          std::fprintf(stderr, "reserved %zu\n", ember::cuda::memory_reserved());
          (void)b.cpu();
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "reserved [1-9][0-9]*.*ember CUDA emulator: 0 bytes of device memory in 0 allocations live at exit");
}

TEST_F(CudaEmulatorDeathTest, HostCodeReadingDeviceMemoryAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const ember::Tensor t = ember::ones({16}).to(ember::Device(ember::kCUDA));
  const float* device_data = t.data_ptr<float>();
  EXPECT_DEATH(
      std::printf("%f\n", device_data[3]),
      "host code read device memory at 0x[0-9a-f]+ \\(12 bytes into a block of [0-9]+ bytes allocated by cudaMalloc");
  EXPECT_EQ(t.cpu().data_ptr<float>()[3], 1.0f);  // the way to read it
}

TEST_F(CudaEmulatorDeathTest, AKernelReadingAnAllocationItWasNotGivenAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  float* in = device_array<float>(1024);
  float* out = device_array<float>(32);
  EMBER_LAUNCH(1, 32, 0, nullptr, copy_shifted)(32, 0, out, in);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_DEATH(
      {
        EMBER_LAUNCH(1, 32, 0, nullptr, copy_shifted)(32, 4096, out, in);  // 16 KiB past in's 4 KiB
        cudaDeviceSynchronize();
      },
      "kernel 'copy_shifted' accessed device memory at 0x[0-9a-f]+ .*which none of its pointer arguments points into");
}

// The trainer's printed losses on the emulated GPU match the CPU's (same seed, same data): the
// whole CUDA backend, cuBLAS included, trained for 20 steps. About 10 s of CPU.
std::map<std::string, double> charlm_losses(const std::string& device, const std::string& dtype = "float32") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("ember_emu_charlm_" + device + "_" + dtype + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const std::string cmd = std::string(EMBER_EXAMPLES_DIR) + "/charlm/ember-charlm train --preset tiny --device " +
                          device + " --dtype " + dtype + " --max_iters 20 --eval_interval 10 --eval_iters 2 --data " +
                          EMBER_SOURCE_DIR + "/data/tinyshakespeare.txt --out_dir " + dir.string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string output;
  char buf[4096];
  while (pipe && std::fgets(buf, sizeof buf, pipe)) output += buf;
  const int status = pipe ? pclose(pipe) : -1;
  std::filesystem::remove_all(dir);
  EXPECT_EQ(status, 0) << cmd << "\n" << output;
  // "step 10: train loss 4.0900, val loss 4.0853" at each evaluation, "step 12/20 loss 4.0556" in between.
  std::map<std::string, double> losses;
  const std::regex eval(R"(step (\d+): train loss (\d+\.\d+), val loss (\d+\.\d+))"),
      step(R"(step (\d+)/\d+ loss (\d+\.\d+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), eval); it != std::sregex_iterator(); ++it) {
    losses["train@" + (*it)[1].str()] = std::stod((*it)[2]);
    losses["val@" + (*it)[1].str()] = std::stod((*it)[3]);
  }
  for (auto it = std::sregex_iterator(output.begin(), output.end(), step); it != std::sregex_iterator(); ++it)
    losses["step@" + (*it)[1].str()] = std::stod((*it)[2]);
  return losses;
}

TEST_F(CudaEmulator, CharlmTrainsToTheCpusLossesOnCuda) {
  const std::map<std::string, double> cpu = charlm_losses("cpu"), cuda = charlm_losses("cuda");
  ASSERT_TRUE(cpu.count("train@20") && cpu.count("val@20")) << "the CPU run printed no loss at step 20";
  int compared = 0;
  for (const auto& [what, loss] : cpu) {  // printed to 4 decimals: at most a unit of rounding apart
    if (!cuda.count(what)) continue;      // progress lines are printed by time, so some steps differ
    EXPECT_NEAR(cuda.at(what), loss, 2e-4) << what;
    ++compared;
  }
  EXPECT_TRUE(cuda.count("train@20") && cuda.count("val@20")) << "the CUDA run printed no loss at step 20";
  EXPECT_GE(compared, 6);
}

// `--device cuda --dtype bfloat16` trains under CUDA autocast: its evaluated losses stay within
// bf16's rounding of the CPU autocast run's (the two lists differ in softmax and LayerNorm, see
// docs/GPU.md), and both are below the first evaluation, so the model learns.
TEST_F(CudaEmulator, CharlmTrainsUnderCudaAutocast) {
  const std::map<std::string, double> cpu = charlm_losses("cpu", "bfloat16"), cuda = charlm_losses("cuda", "bfloat16");
  for (const char* what : {"train@0", "val@0", "train@20", "val@20"}) {
    ASSERT_TRUE(cpu.count(what) && cuda.count(what)) << "no " << what << " loss printed";
    EXPECT_NEAR(cuda.at(what), cpu.at(what), 1e-2) << what;
  }
  EXPECT_LT(cuda.at("val@20"), cuda.at("val@0"));
}

// Every kernel of core/backend_kernels.h has a CUDA launcher, which the generated CudaBackend method
// calls (cuda/backend.cpp). A listed kernel without one fails the link of this test (and of
// libember_cuda.so) with launchers::<name> undefined; the count is checked against the entries
// read from the header's text, so a list left out of the expansions fails too.
TEST(CudaKernels, EveryListedKernelHasALauncher) {
  std::map<std::string, void*> launcher;
#define EMBER_LAUNCHER_ENTRY(name, ...) launcher[#name] = reinterpret_cast<void*>(&ember::cuda::launchers::name);
  EMBER_BACKEND_KERNELS(EMBER_LAUNCHER_ENTRY)
  EMBER_FUSED_KERNELS(EMBER_LAUNCHER_ENTRY)
  EMBER_FLASH_KERNELS(EMBER_LAUNCHER_ENTRY)
  EMBER_PHILOX_KERNELS(EMBER_LAUNCHER_ENTRY)
  EMBER_OPTIMIZER_KERNELS(EMBER_LAUNCHER_ENTRY)
#undef EMBER_LAUNCHER_ENTRY
  std::ifstream header(std::string(EMBER_SOURCE_DIR) + "/core/backend_kernels.h");
  ASSERT_TRUE(header) << "cannot read core/backend_kernels.h";
  const std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  const std::regex entry(R"(\n\s*X\((\w+),)");
  size_t listed = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it) {
    ++listed;
    const std::string name = (*it)[1];
    ASSERT_TRUE(launcher.count(name)) << name << " is listed but has no launcher";
    EXPECT_NE(launcher[name], nullptr) << name;
  }
  EXPECT_GE(listed, 40u);  // 22 kernels, 9 fused, 2 flash, 1 philox, 6 optimizer when this was written
  EXPECT_EQ(launcher.size(), listed);
}

}  // namespace

#endif  // EMBER_CUDA_EMULATE
