// The CUDA runtime API and kernel language as Ember's CPU emulator provides them (-DEMBER_CUDA=EMULATE).
//
//   EMBER_LAUNCH(grid, block, shmem, stream, my_kernel<float>)(n, out, in);   // cuda/launch.h
//
// Under EMULATE, cuda/*.cu are compiled by g++ as C++ with cuda/emu/ first on the include path, so
// <cuda_runtime.h> is this file: the kernel keywords become plain C++, threadIdx / blockIdx /
// blockDim / gridDim read the coordinates of the thread the emulator is running, __syncthreads()
// and the warp collectives (__shfl*_sync, votes, __syncwarp) are scheduling points between fibers
// (cuda/emu/scheduler.cpp), and the runtime calls work on an arena
// of "device" memory apart from the host heap. It declares only what Ember uses; it is not a
// general CUDA implementation and says nothing about timing, memory model or device math.
#pragma once

#include <math.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

// ---- the kernel language ----
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// Static __shared__ arrays: one copy per OS thread, not zeroed between blocks (no Ember kernel
// declares one; dynamic shared memory, EMBER_DYNAMIC_SHARED, is fresh and poisoned per block).
#define __shared__ static thread_local

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
using uint3 = dim3;

// ---- runtime types ----
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

inline constexpr unsigned cudaStreamDefault = 0x00;
inline constexpr unsigned cudaStreamNonBlocking = 0x01;

struct CUstream_st;
using cudaStream_t = CUstream_st*;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major, minor;
  int multiProcessorCount;
};

// ---- runtime calls (cuda/emu/emu.cpp) ----
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaMalloc(void** ptr, size_t nbytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind, cudaStream_t s = nullptr);
cudaError_t cudaMemset(void* ptr, int value, size_t nbytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t nbytes, cudaStream_t s = nullptr);
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t err);
const char* cudaGetErrorString(cudaError_t err);

template <typename T>
cudaError_t cudaMalloc(T** ptr, size_t nbytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), nbytes);
}

#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
#define EMBER_EMU_HAS_CLEAR_PADDING 1  // g++ 11+, clang 16+: struct arguments' pointers can be checked
#endif
#endif

namespace ember::cuda::emu {

// ---- what a running kernel thread sees ----
struct ThreadCoords {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
};
extern thread_local const ThreadCoords* t_coords;  // the thread the emulator is running now

void syncthreads(const char* file, int line);
unsigned char* dynamic_shared();  // this block's dynamic shared memory
bool is_device_pointer(const void* p);
cudaError_t set_max_dynamic_shared(const void* kernel, int nbytes);

// ---- launching ----
struct PointerArg {
  int index;  // position in the kernel's parameter list
  const void* value;
};

struct StructArg {
  int index;          // position in the kernel's parameter list
  const void* bytes;  // the argument as the kernel receives it: its pointer-sized words are checked
  size_t size;
  bool padding_cleared;  // false: a word may be stale padding, so it only opens the allocation it points to
};

struct KernelCall {
  const char* name;
  const void* key;                   // the kernel's address: what the emulator remembers it by
  void (*run)(const void* context);  // runs the kernel body once, as the current thread
  const void* context;
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  const PointerArg* pointers;  // every pointer-typed kernel argument, checked before anything runs
  int n_pointers;
  const StructArg* structs;  // every struct argument that can hold a pointer (functors, OffsetCalc)
  int n_structs;
};
void launch(const KernelCall& call);

// EMBER_LAUNCH(grid, block, shmem, stream, kernel)(args...) under the emulator. Arguments are
// converted to the kernel's parameter types, as a <<<>>> launch does, and each thread gets its own
// copy. Pointer arguments are checked to be device memory, and so is every pointer-sized word of a
// struct argument (a functor's pointers) that holds a device or mapped host address.
template <typename... P>
class Launch {
 public:
  Launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t s = nullptr)
      : name_(name), kernel_(kernel), grid_(grid), block_(block), shmem_(shmem), stream_(s) {}

  template <typename... A>
  void operator()(A&&... args) const {
    static_assert(sizeof...(A) == sizeof...(P), "EMBER_LAUNCH: wrong number of kernel arguments");
    using Params = std::tuple<std::decay_t<P>...>;
    struct Context {
      void (*kernel)(P...);
      Params params;
    };
    Context ctx{kernel_, Params(std::forward<A>(args)...)};
    PointerArg pointers[sizeof...(P) + 1];
    StructArg structs[sizeof...(P) + 1];
    int n = 0, n_structs = 0;
    collect(ctx.params, pointers, n, structs, n_structs, std::index_sequence_for<P...>{});
    const KernelCall call{name_,
                          reinterpret_cast<const void*>(kernel_),
                          [](const void* c) {
                            const Context* x = static_cast<const Context*>(c);
                            std::apply(x->kernel, x->params);
                          },
                          &ctx,
                          grid_,
                          block_,
                          shmem_,
                          stream_,
                          pointers,
                          n,
                          structs,
                          n_structs};
    launch(call);
  }

 private:
  template <typename Params, size_t... I>
  static void collect(Params& params, PointerArg* out, int& n, StructArg* structs, int& n_structs,
                      std::index_sequence<I...>) {
    (
        [&] {
          using T = std::tuple_element_t<I, Params>;
          if constexpr (std::is_pointer_v<T>) out[n++] = PointerArg{static_cast<int>(I), std::get<I>(params)};
          if constexpr (std::is_class_v<T> && alignof(T) >= alignof(void*)) {
#ifdef EMBER_EMU_HAS_CLEAR_PADDING
            // Padding is zeroed, so that only the struct's fields are read as possible pointers.
            __builtin_clear_padding(&std::get<I>(params));
            constexpr bool checked = true;
#else
            // Without the builtin (Clang before 16) padding may hold any stale word: the struct's words
            // still open the allocations they point into, so its pointers work, but nothing is reported,
            // unless the struct has no padding and no floats (every byte belongs to a pointer or an integer).
            constexpr bool checked = std::has_unique_object_representations_v<T>;
#endif
            structs[n_structs++] = StructArg{static_cast<int>(I), &std::get<I>(params), sizeof(T), checked};
          }
        }(),
        ...);
  }

  const char* name_;
  void (*kernel_)(P...);
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

}  // namespace ember::cuda::emu

template <typename... P>
cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaErrorInvalidValue;
  return ember::cuda::emu::set_max_dynamic_shared(reinterpret_cast<const void*>(kernel), value);
}

#define threadIdx (::ember::cuda::emu::t_coords->thread_idx)
#define blockIdx (::ember::cuda::emu::t_coords->block_idx)
#define blockDim (::ember::cuda::emu::t_coords->block_dim)
#define gridDim (::ember::cuda::emu::t_coords->grid_dim)
#define __syncthreads() ::ember::cuda::emu::syncthreads(__FILE__, __LINE__)

// ---- warps (cuda/emu/scheduler.cpp) ----
// A block's threads form warps of 32 by linear index (x fastest, then y, then z); the last warp of a
// block whose size is not a multiple of 32 is partial. A warp collective is a scheduling point, as
// __syncthreads() is: the calling lane waits until every lane named in `mask` has made the same call
// (same op, mask and `agree`), then the last lane to arrive runs `resolve` once over all of them,
// which writes each lane's result. Whatever a GPU leaves undefined (a caller outside its mask, a mask
// lane that exits or waits elsewhere, a shuffle from a lane outside the mask) fails the kernel with a
// sticky error that names the op, the lanes and the mask.
inline constexpr int warpSize = 32;

namespace ember::cuda::emu {

struct WarpLane {
  const void* in;  // what the lane brings
  void* out;       // where its result goes
  int arg;         // the lane's own argument: a shuffle's source lane, offset or xor mask
};
// lanes[l] is lane l's part, for each lane l named in mask. Returns "" or what is wrong (which lane).
using WarpResolve = std::string (*)(const WarpLane* lanes, unsigned mask, uint64_t agree);
void warp_collective(const char* op, unsigned mask, uint64_t agree, WarpResolve resolve, const WarpLane& mine);
// __activemask(): the calling thread waits until no thread of the block can run on, then gets the
// lanes of its warp waiting in __activemask() with it: those a converged GPU warp would name.
unsigned active_lanes();

enum class Shuffle { Idx, Up, Down, Xor };
// One shuffle of a 4- or 8-byte value, with the source lane rule of PTX's shfl.sync.
uint64_t shuffle(const char* op, Shuffle mode, unsigned mask, uint64_t bits, int size, int arg, int width);
unsigned ballot(const char* op, unsigned mask, int predicate);
uint32_t reduce(const char* op, unsigned mask, uint32_t value, bool is_signed);

template <typename T>
inline constexpr bool kShuffleType =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> || std::is_same_v<T, unsigned long long> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <typename T>
T shuffle_as(const char* op, Shuffle mode, unsigned mask, T var, int arg, int width) {
  static_assert(kShuffleType<T>, "CUDA's warp shuffles take int, unsigned, long, unsigned long, long long, "
                                 "unsigned long long, float or double");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = shuffle(op, mode, mask, bits, int(sizeof(T)), arg, width);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

}  // namespace ember::cuda::emu

template <typename T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize) {
  return ember::cuda::emu::shuffle_as("__shfl_sync", ember::cuda::emu::Shuffle::Idx, mask, var, srcLane, width);
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ember::cuda::emu::shuffle_as("__shfl_up_sync", ember::cuda::emu::Shuffle::Up, mask, var, int(delta), width);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ember::cuda::emu::shuffle_as("__shfl_down_sync", ember::cuda::emu::Shuffle::Down, mask, var, int(delta),
                                      width);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize) {
  return ember::cuda::emu::shuffle_as("__shfl_xor_sync", ember::cuda::emu::Shuffle::Xor, mask, var, laneMask, width);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ember::cuda::emu::ballot("__ballot_sync", mask, predicate);
}
inline int __any_sync(unsigned mask, int predicate) {
  return ember::cuda::emu::ballot("__any_sync", mask, predicate) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  return ember::cuda::emu::ballot("__all_sync", mask, predicate) == mask;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { ember::cuda::emu::ballot("__syncwarp", mask, 0); }
// The lanes of the warp that call __activemask() together (see active_lanes): what a GPU returns when
// the lanes that took the same branch run converged, which it does not promise.
inline unsigned __activemask() { return ember::cuda::emu::active_lanes(); }
inline unsigned __reduce_add_sync(unsigned mask, unsigned value) {
  return ember::cuda::emu::reduce("__reduce_add_sync", mask, value, false);
}
inline int __reduce_add_sync(unsigned mask, int value) {
  return int(ember::cuda::emu::reduce("__reduce_add_sync", mask, uint32_t(value), true));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned value) {
  return ember::cuda::emu::reduce("__reduce_min_sync", mask, value, false);
}
inline int __reduce_min_sync(unsigned mask, int value) {
  return int(ember::cuda::emu::reduce("__reduce_min_sync", mask, uint32_t(value), true));
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned value) {
  return ember::cuda::emu::reduce("__reduce_max_sync", mask, value, false);
}
inline int __reduce_max_sync(unsigned mask, int value) {
  return int(ember::cuda::emu::reduce("__reduce_max_sync", mask, uint32_t(value), true));
}

// ---- what the emulator cannot model: a compile error, never a kernel that passes here ----
// A block's threads run one at a time between scheduling points, so there is no memory model (a
// fence orders nothing: only one thread ever runs), and of the warp-level calls only those above are
// modelled. A kernel that calls any of these fails to compile under EMULATE, naming the call, instead
// of passing untested. <mma.h> (wmma) and <cooperative_groups.h> are refused by the headers of those
// names in this folder; warp-level MMA goes through cuda/mma_sync.cuh.
namespace ember::cuda::emu {
template <typename...>
inline constexpr bool kNotModelled = false;
}  // namespace ember::cuda::emu

#define EMBER_EMU_NOT_MODELLED(name, why)                                                              \
  template <typename... A>                                                                             \
  int name(A&&...) {                                                                                   \
    static_assert(::ember::cuda::emu::kNotModelled<A...>,                                              \
                  "the CUDA emulator (cuda/emu) cannot model " #name ": " why " (docs/GPU.md, The CPU " \
                  "emulator); write the kernel with __syncthreads() and shared memory, or test it on a GPU"); \
    return 0;                                                                                          \
  }
#define EMBER_EMU_NO_MATCH "its warps model shuffles, votes, __syncwarp and __reduce_{add,min,max}_sync only"
#define EMBER_EMU_NO_MEMORY_MODEL "it runs one thread at a time and has no memory model"
EMBER_EMU_NOT_MODELLED(__uni_sync, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__match_any_sync, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__match_all_sync, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__reduce_and_sync, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__reduce_or_sync, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__reduce_xor_sync, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__lane_id, EMBER_EMU_NO_MATCH)
EMBER_EMU_NOT_MODELLED(__threadfence, EMBER_EMU_NO_MEMORY_MODEL)
EMBER_EMU_NOT_MODELLED(__threadfence_block, EMBER_EMU_NO_MEMORY_MODEL)
EMBER_EMU_NOT_MODELLED(__threadfence_system, EMBER_EMU_NO_MEMORY_MODEL)
#undef EMBER_EMU_NOT_MODELLED
#undef EMBER_EMU_NO_MATCH
#undef EMBER_EMU_NO_MEMORY_MODEL

// Atomic by construction: blocks run one at a time on the launching OS thread, and a thread is never
// switched out inside a read-modify-write (tests/cuda/test_cuda_warp.cpp would see a lost update).
template <typename T>
T atomicAdd(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
template <typename T>
T atomicCAS(T* address, T compare, T value) {
  const T old = *address;
  if (old == compare) *address = value;
  return old;
}
