// Ember's CPU emulator of the CUDA runtime: device memory, copies, streams and error state.
//
// One emulated device. Device memory is one mmap'd arena apart from the host heap, so every pointer
// can be told apart: copies check their cudaMemcpyKind against where the pointers live, and
// launches check every pointer argument (scheduler.cpp). The arena is PROT_NONE, and a kernel, an
// emulated copy or a cuBLAS call opens only the allocations its pointers point into (DeviceAccess),
// so a host read of a device pointer faults, and so does a kernel's read of an allocation it was
// not given; the SIGSEGV handler here says which, names the allocation and aborts.
// Fresh and freed device memory is filled with 0xFF bytes (NaN as float or double) and, under ASan,
// freed memory and the tail of each allocation are poisoned. Everything runs synchronously on the
// calling thread, so streams are in-order by construction; errors follow CUDA's split:
// launch-configuration errors come back from cudaGetLastError, errors while a kernel runs are
// sticky and surface at the next synchronizing call. Not here: kernel launches (scheduler.cpp).
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <sys/mman.h>

#include "cuda/emu/emu.h"
#include "cuda/emu/internal.h"

#ifdef EMBER_EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace ember::cuda::emu {

namespace {

constexpr size_t kAlignment = 256;  // of cudaMalloc'd pointers
constexpr size_t kPage = 4096;

// ---- errors ----
struct Errors {
  std::mutex mutex;
  cudaError_t last = cudaSuccess;    // returned and cleared by cudaGetLastError
  cudaError_t sticky = cudaSuccess;  // a kernel failed: every call from the next sync on returns it
  bool sticky_reported = false;
  std::string detail;  // what the emulator saw when it raised detail_error
  cudaError_t detail_error = cudaSuccess;
};
Errors& errors() {
  static Errors e;
  return e;
}

// A synchronizing call reports a pending sticky error.
cudaError_t synchronize_errors() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.sticky != cudaSuccess) e.sticky_reported = true;
  return e.sticky;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// ---- device memory: one arena, first fit over freed ranges, then a bump pointer ----
class Arena {
 public:
  Arena() {
    size_ = env_size("EMBER_EMU_MEMORY_MB", 4096) << 20;
    void* p = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
    if (!base_) size_ = 0;
  }

  void* allocate(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t rounded = std::max<size_t>(kAlignment, round_up(nbytes, kAlignment));
    size_t offset = SIZE_MAX;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < rounded) continue;
      offset = it->first;
      if (it->second > rounded) free_[offset + rounded] = it->second - rounded;
      free_.erase(it);
      break;
    }
    if (offset == SIZE_MAX) {
      if (rounded > size_ - top_) return nullptr;
      offset = top_;
      top_ += rounded;
    }
    live_[offset] = Block{nbytes, rounded};
    used_ += rounded;
    unsigned char* p = base_ + offset;
    const auto pages = open_locked(p, rounded);
    unpoison(p, nbytes);
    std::memset(p, kPoisonByte, nbytes);  // uninitialized device memory reads as NaN
    poison(p + nbytes, rounded - nbytes);
    close(pages);
    return p;
  }

  // False when p is not the start of a live allocation.
  bool release(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(static_cast<size_t>(static_cast<unsigned char*>(ptr) - base_));
    if (!contains(ptr) || it == live_.end()) return false;
    size_t offset = it->first, size = it->second.rounded;
    const auto pages = open_locked(base_ + offset, size);
    std::memset(base_ + offset, kPoisonByte, it->second.requested);
    close(pages);
    poison(base_ + offset, size);
    used_ -= size;
    live_.erase(it);
    auto next = free_.find(offset + size);
    if (next != free_.end()) {
      size += next->second;
      free_.erase(next);
    }
    auto prev = free_.lower_bound(offset);
    if (prev != free_.begin() && std::prev(prev)->first + std::prev(prev)->second == offset) {
      --prev;
      prev->second += size;
    } else {
      free_[offset] = size;
    }
    return true;
  }

  bool contains(const void* p) const {
    auto* b = static_cast<const unsigned char*>(p);
    return base_ && b >= base_ && b < base_ + size_;
  }

  std::string check_range(const void* p, size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t offset = static_cast<size_t>(static_cast<const unsigned char*>(p) - base_);
    auto it = live_.upper_bound(offset);
    if (it == live_.begin() || offset >= std::prev(it)->first + std::prev(it)->second.requested)
      return "points to no live device allocation (freed, or never allocated)";
    --it;
    if (offset + n > it->first + it->second.requested)
      return "runs " + std::to_string(offset + n - it->first - it->second.requested) +
             " bytes past the end of its allocation of " + std::to_string(it->second.requested) + " bytes";
    return "";
  }

  // Writes what p is ("N bytes into a block of M bytes ...") into buf without allocating: called
  // from the SIGSEGV handler, where the arena's mutex may be held (then it says less).
  void describe(const void* p, char* buf, size_t size) {
    const size_t offset = static_cast<size_t>(static_cast<const unsigned char*>(p) - base_);
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      std::snprintf(buf, size, "%zu bytes into the device arena", offset);
      return;
    }
    auto it = live_.upper_bound(offset);
    if (it != live_.begin() && offset < std::prev(it)->first + std::prev(it)->second.rounded) {
      --it;
      std::snprintf(buf, size, "%zu bytes into a block of %zu bytes allocated by cudaMalloc at %p", offset - it->first,
                    it->second.requested, static_cast<void*>(base_ + it->first));
    } else {
      std::snprintf(buf, size, "in freed or never allocated device memory, %zu bytes into the arena", offset);
    }
  }

  // The pages of the live allocation that p points into, opened; {nullptr, 0} when there is none.
  std::pair<unsigned char*, size_t> open_allocation(const void* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t offset = static_cast<size_t>(static_cast<const unsigned char*>(p) - base_);
    auto it = live_.upper_bound(offset);
    if (!contains(p) || it == live_.begin() || offset >= std::prev(it)->first + std::prev(it)->second.rounded)
      return {nullptr, 0};
    --it;
    return open_locked(base_ + it->first, it->second.rounded);
  }
  void close(std::pair<unsigned char*, size_t> pages) {
    if (pages.second > 0) mprotect(pages.first, pages.second, PROT_NONE);
  }

  size_t size() const { return size_; }
  size_t used() const { return used_; }
  size_t live_allocations() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.size();
  }

 private:
  struct Block {
    size_t requested, rounded;
  };
  // [p, p + n) rounded out to whole pages, made readable and writable; returns those pages.
  std::pair<unsigned char*, size_t> open_locked(unsigned char* p, size_t n) {
    unsigned char* begin = base_ + (p - base_) / kPage * kPage;
    const size_t len = round_up(static_cast<size_t>(p + n - begin), kPage);
    mprotect(begin, len, PROT_READ | PROT_WRITE);
    return {begin, len};
  }

  std::mutex mutex_;
  unsigned char* base_ = nullptr;
  size_t size_ = 0, top_ = 0, used_ = 0;
  std::map<size_t, Block> live_;   // offset -> block
  std::map<size_t, size_t> free_;  // offset -> size, below top_
};

struct sigaction g_previous_segv;

// A fault inside the arena is host code reading or writing device memory: say so and abort.
// Any other fault goes to the handler that was there before (ASan's, or the default).
void on_segv(int sig, siginfo_t* info, void* ucontext);

Arena& arena() {
  static Arena* a = [] {
    auto* fresh = new Arena;  // leaked: device memory outlives static destructors, as on a GPU
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous_segv);
    return fresh;
  }();
  return *a;
}

void on_segv(int sig, siginfo_t* info, void* ucontext) {
  if (arena().contains(info->si_addr)) {
    char where[160], message[600];
    arena().describe(info->si_addr, where, sizeof where);
    const int n =
        t_running_kernel
            ? std::snprintf(message, sizeof message,
                            "ember CUDA emulator: kernel '%s' accessed device memory at %p (%s), which none of its "
                            "pointer arguments points into: an index out of bounds? Stack:\n",
                            t_running_kernel, info->si_addr, where)
            : std::snprintf(message, sizeof message,
                            "ember CUDA emulator: host code read device memory at %p (%s). Device memory is only "
                            "readable by kernels: copy it to the host first (Tensor::cpu(), cudaMemcpy). Host "
                            "stack:\n",
                            info->si_addr, where);
    if (write(STDERR_FILENO, message, std::min<size_t>(size_t(n), sizeof message - 1)) < 0) _exit(134);
    void* frames[32];
    backtrace_symbols_fd(frames, backtrace(frames, 32), STDERR_FILENO);
    std::abort();
  }
  if (g_previous_segv.sa_flags & SA_SIGINFO) {
    g_previous_segv.sa_sigaction(sig, info, ucontext);
  } else if (g_previous_segv.sa_handler != SIG_DFL && g_previous_segv.sa_handler != SIG_IGN) {
    g_previous_segv.sa_handler(sig);
  } else {
    signal(SIGSEGV, SIG_DFL);  // returning re-runs the faulting access, which now kills the process
  }
}

// ---- streams: handles only; work runs at once, in call order ----
std::mutex g_stream_mutex;
std::set<cudaStream_t> g_streams;
int g_current_device = 0;

}  // namespace

// ---- internal.h ----

cudaError_t fail(cudaError_t err, const std::string& detail) {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.last = err;
  e.detail = detail;
  e.detail_error = err;
  return err;
}

void fail_sticky(cudaError_t err, const std::string& detail) {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.sticky != cudaSuccess) return;
  e.sticky = err;
  e.detail = detail;
  e.detail_error = err;
  std::fprintf(stderr, "CUDA emulator: %s\n", detail.c_str());
}

cudaError_t dead_context() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  return e.sticky_reported ? e.sticky : cudaSuccess;
}

bool valid_stream(cudaStream_t s) {
  std::lock_guard<std::mutex> lock(g_stream_mutex);
  return s == nullptr || g_streams.count(s) > 0;
}

std::string check_device_range(const void* p, size_t n) { return arena().check_range(p, n); }

void DeviceAccess::open(const void* p) {
  const auto pages = arena().open_allocation(p);
  if (pages.second > 0) opened_.push_back(pages);
}

DeviceAccess::~DeviceAccess() {
  for (const auto& pages : opened_) arena().close(pages);
}

thread_local const char* t_running_kernel = nullptr;

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

size_t env_size(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

void poison(void* p, size_t n) {
#ifdef EMBER_EMU_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

void unpoison(void* p, size_t n) {
#ifdef EMBER_EMU_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

// ---- emu.h and cuda_runtime.h's helpers ----

void reset_errors() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.last = e.sticky = cudaSuccess;
  e.sticky_reported = false;
  e.detail.clear();
  e.detail_error = cudaSuccess;
}

std::string last_error_detail() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  return e.detail;
}

void report_illegal_address(const std::string& what) { fail_sticky(cudaErrorIllegalAddress, what); }

bool is_device_pointer(const void* p) { return arena().contains(p); }

namespace {

// EMBER_EMU_LEAK_CHECK=1: at exit, says how much device memory is still allocated (what
// compute-sanitizer's --leak-check full reports on a GPU). Registered at the program's first CUDA
// call, so it runs after whatever Ember registers later to free its memory at exit.
void report_live_memory() {
  const char* v = std::getenv("EMBER_EMU_LEAK_CHECK");
  if (v == nullptr || std::string(v) != "1") return;
  std::fprintf(stderr, "ember CUDA emulator: %zu bytes of device memory in %zu allocations live at exit\n",
               arena().used(), arena().live_allocations());
}

}  // namespace

}  // namespace ember::cuda::emu

using namespace ember::cuda::emu;

// ---- the runtime API ----

cudaError_t cudaGetDeviceCount(int* count) {
  static const bool registered = std::atexit(report_live_memory) == 0;
  (void)registered;
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice, "cudaSetDevice: the emulator has one device, 0");
  g_current_device = device;
  return dead_context();
}

cudaError_t cudaGetDevice(int* device) {
  *device = g_current_device;
  return dead_context();
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties: the emulator has one device, 0");
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "Ember CPU emulator");
  prop->totalGlobalMem = arena().size();
  prop->sharedMemPerBlock = kSharedDefault;
  prop->sharedMemPerBlockOptin = kSharedOptin;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = kMaxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) prop->maxThreadsDim[i] = int(kMaxBlockDim[i]);
  prop->maxGridSize[0] = int(kMaxGridX);
  prop->maxGridSize[1] = prop->maxGridSize[2] = int(kMaxGridYZ);
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 1;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t nbytes) {
  if (cudaError_t e = dead_context()) return e;
  *ptr = arena().allocate(nbytes);
  if (*ptr == nullptr)
    return fail(cudaErrorMemoryAllocation, "cudaMalloc: " + std::to_string(nbytes) + " bytes do not fit in the " +
                                               std::to_string(arena().size() >> 20) +
                                               " MiB of emulated device memory (EMBER_EMU_MEMORY_MB)");
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return dead_context();
  if (cudaError_t e = synchronize_errors()) return e;  // cudaFree synchronizes
  if (!arena().release(ptr))
    return fail(cudaErrorInvalidDevicePointer,
                "cudaFree(" + hex(ptr) + "): not a pointer cudaMalloc returned, or freed twice");
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  *total = arena().size();
  *free = arena().size() - arena().used();
  return dead_context();
}

namespace {

// "" when the pointer is where `kind` says it is and the range is inside one allocation.
std::string check_side(const char* op, const char* which, const void* p, size_t n, bool want_device) {
  const bool on_device = is_device_pointer(p);
  const std::string name = std::string(op) + ": " + which + " " + hex(p);
  if (want_device && !on_device) return name + " is host memory, but the copy kind says device";
  if (!want_device && on_device) return name + " is device memory, but the copy kind says host";
  if (on_device) {
    std::string why = check_device_range(p, n);
    if (!why.empty()) return name + " " + why;
  }
  return "";
}

cudaError_t copy(const char* op, void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind) {
  if (nbytes == 0) return cudaSuccess;
  std::string bad;
  switch (kind) {
    case cudaMemcpyHostToHost:
    case cudaMemcpyHostToDevice:
    case cudaMemcpyDeviceToHost:
    case cudaMemcpyDeviceToDevice: {
      const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
      const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
      bad = check_side(op, "destination", dst, nbytes, dst_dev);
      if (bad.empty()) bad = check_side(op, "source", src, nbytes, src_dev);
      break;
    }
    case cudaMemcpyDefault:
      if (is_device_pointer(dst)) bad = check_side(op, "destination", dst, nbytes, true);
      if (bad.empty() && is_device_pointer(src)) bad = check_side(op, "source", src, nbytes, true);
      break;
    default:
      return fail(cudaErrorInvalidMemcpyDirection,
                  std::string(op) + ": unknown cudaMemcpyKind " + std::to_string(kind));
  }
  if (!bad.empty()) return fail(cudaErrorInvalidValue, bad);
  DeviceAccess access;
  access.open(dst);
  access.open(src);
  std::memmove(dst, src, nbytes);
  return cudaSuccess;
}

cudaError_t set(const char* op, void* ptr, int value, size_t nbytes) {
  if (nbytes == 0) return cudaSuccess;
  const std::string bad = check_side(op, "pointer", ptr, nbytes, true);
  if (!bad.empty()) return fail(cudaErrorInvalidValue, bad);
  DeviceAccess access;
  access.open(ptr);
  std::memset(ptr, value, nbytes);
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind) {
  if (cudaError_t e = synchronize_errors()) return e;
  return copy("cudaMemcpy", dst, src, nbytes, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind, cudaStream_t s) {
  if (cudaError_t e = dead_context()) return e;
  if (!valid_stream(s)) return fail(cudaErrorInvalidResourceHandle, "cudaMemcpyAsync: unknown stream");
  return copy("cudaMemcpyAsync", dst, src, nbytes, kind);
}

cudaError_t cudaMemset(void* ptr, int value, size_t nbytes) {
  if (cudaError_t e = dead_context()) return e;
  return set("cudaMemset", ptr, value, nbytes);
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t nbytes, cudaStream_t s) {
  if (cudaError_t e = dead_context()) return e;
  if (!valid_stream(s)) return fail(cudaErrorInvalidResourceHandle, "cudaMemsetAsync: unknown stream");
  return set("cudaMemsetAsync", ptr, value, nbytes);
}

cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  if (cudaError_t e = dead_context()) return e;
  if (flags > cudaStreamNonBlocking) return fail(cudaErrorInvalidValue, "cudaStreamCreateWithFlags: unknown flags");
  static int next = 1;
  std::lock_guard<std::mutex> lock(g_stream_mutex);
  *s = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(0x1000 + 16 * next++));  // a handle, never dereferenced
  g_streams.insert(*s);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  std::lock_guard<std::mutex> lock(g_stream_mutex);
  if (g_streams.erase(s) == 0) return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: unknown stream");
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (!valid_stream(s)) return fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: unknown stream");
  return synchronize_errors();
}

cudaError_t cudaDeviceSynchronize() { return synchronize_errors(); }

cudaError_t cudaGetLastError() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.sticky_reported) return e.sticky;
  const cudaError_t err = e.last;
  e.last = cudaSuccess;
  return err;
}

cudaError_t cudaPeekAtLastError() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  return e.sticky_reported ? e.sticky : e.last;
}

const char* cudaGetErrorName(cudaError_t err) {
  switch (err) {
#define EMBER_EMU_NAME(e) \
  case e:                 \
    return #e;
    EMBER_EMU_NAME(cudaSuccess)
    EMBER_EMU_NAME(cudaErrorInvalidValue)
    EMBER_EMU_NAME(cudaErrorMemoryAllocation)
    EMBER_EMU_NAME(cudaErrorInitializationError)
    EMBER_EMU_NAME(cudaErrorInvalidConfiguration)
    EMBER_EMU_NAME(cudaErrorInvalidDevicePointer)
    EMBER_EMU_NAME(cudaErrorInvalidMemcpyDirection)
    EMBER_EMU_NAME(cudaErrorNoDevice)
    EMBER_EMU_NAME(cudaErrorInvalidDevice)
    EMBER_EMU_NAME(cudaErrorNoKernelImageForDevice)
    EMBER_EMU_NAME(cudaErrorInvalidResourceHandle)
    EMBER_EMU_NAME(cudaErrorIllegalAddress)
    EMBER_EMU_NAME(cudaErrorLaunchFailure)
#undef EMBER_EMU_NAME
  }
  return "cudaErrorUnknown";
}

// CUDA's description, followed by what the emulator saw when it raised the error.
const char* cudaGetErrorString(cudaError_t err) {
  const char* text = "unknown error";
  switch (err) {
    case cudaSuccess:
      text = "no error";
      break;
    case cudaErrorInvalidValue:
      text = "invalid argument";
      break;
    case cudaErrorMemoryAllocation:
      text = "out of memory";
      break;
    case cudaErrorInitializationError:
      text = "initialization error";
      break;
    case cudaErrorInvalidConfiguration:
      text = "invalid configuration argument";
      break;
    case cudaErrorInvalidDevicePointer:
      text = "invalid device pointer";
      break;
    case cudaErrorInvalidMemcpyDirection:
      text = "invalid copy direction for memcpy";
      break;
    case cudaErrorNoDevice:
      text = "no CUDA-capable device is detected";
      break;
    case cudaErrorInvalidDevice:
      text = "invalid device ordinal";
      break;
    case cudaErrorNoKernelImageForDevice:
      text = "no kernel image is available for execution on the device";
      break;
    case cudaErrorInvalidResourceHandle:
      text = "invalid resource handle";
      break;
    case cudaErrorIllegalAddress:
      text = "an illegal memory access was encountered";
      break;
    case cudaErrorLaunchFailure:
      text = "unspecified launch failure";
      break;
  }
  thread_local std::string message;
  std::string detail;
  {
    Errors& e = errors();
    std::lock_guard<std::mutex> lock(e.mutex);
    if (e.detail_error == err) detail = e.detail;  // only the detail of this very error
  }
  message = detail.empty() || err == cudaSuccess ? text : std::string(text) + " [emulator: " + detail + "]";
  return message.c_str();
}
