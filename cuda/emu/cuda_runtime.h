// The CUDA runtime API and kernel language as Ember's CPU emulator provides them (-DEMBER_CUDA=EMULATE).
//
//   EMBER_LAUNCH(grid, block, shmem, stream, my_kernel<float>)(n, out, in);   // cuda/launch.h
//
// Under EMULATE, cuda/*.cu are compiled by g++ as C++ with cuda/emu/ first on the include path, so
// <cuda_runtime.h> is this file: the kernel keywords become plain C++, threadIdx / blockIdx /
// blockDim / gridDim read the coordinates of the thread the emulator is running, __syncthreads()
// is a scheduling point between fibers (cuda/emu/emu.cpp), and the runtime calls work on an arena
// of "device" memory apart from the host heap. It declares only what Ember uses; it is not a
// general CUDA implementation and says nothing about timing, memory model or device math.
#pragma once

#include <math.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
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

// ---- what the emulator cannot model: a compile error, never a kernel that passes here ----
// A block's threads run one at a time between barriers: there are no warps (nothing runs in
// lockstep, so shuffles, votes, warp barriers and warp-synchronous code have no meaning here), no
// memory model (a fence orders nothing: only one thread ever runs) and no tensor cores. A kernel that
// calls any of these fails to compile under EMULATE, naming the call, instead of passing untested.
// warpSize is left undeclared for the same reason. <mma.h> (wmma) and <cooperative_groups.h> are
// refused by the headers of those names in this folder.
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
#define EMBER_EMU_NO_WARPS "it runs a block's threads one at a time and has no warps"
#define EMBER_EMU_NO_MEMORY_MODEL "it runs one thread at a time and has no memory model"
EMBER_EMU_NOT_MODELLED(__shfl_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__shfl_up_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__shfl_down_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__shfl_xor_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__ballot_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__any_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__all_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__uni_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__activemask, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__syncwarp, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__match_any_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__match_all_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__reduce_add_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__reduce_min_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__reduce_max_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__reduce_and_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__reduce_or_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__reduce_xor_sync, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__lane_id, EMBER_EMU_NO_WARPS)
EMBER_EMU_NOT_MODELLED(__threadfence, EMBER_EMU_NO_MEMORY_MODEL)
EMBER_EMU_NOT_MODELLED(__threadfence_block, EMBER_EMU_NO_MEMORY_MODEL)
EMBER_EMU_NOT_MODELLED(__threadfence_system, EMBER_EMU_NO_MEMORY_MODEL)
#undef EMBER_EMU_NOT_MODELLED
#undef EMBER_EMU_NO_WARPS
#undef EMBER_EMU_NO_MEMORY_MODEL

// Fibers of one block never run at the same time, so a read-modify-write is atomic.
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
