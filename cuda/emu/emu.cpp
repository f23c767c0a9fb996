// Ember's CPU emulator of the CUDA runtime: device memory, copies, streams, errors and kernel launches.
//
// One emulated device. Device memory is one mmap'd arena apart from the host heap, so every pointer
// can be told apart: copies check their cudaMemcpyKind against where the pointers live, and
// launches check every pointer argument. Fresh and freed device memory is filled with 0xFF bytes
// (NaN as float or double) and, under ASan, freed memory and the tail of each allocation are
// poisoned. Everything runs synchronously on the calling thread, so streams are in-order by
// construction; errors follow CUDA's split: launch-configuration errors come back from
// cudaGetLastError, errors while a kernel runs are sticky and surface at the next synchronizing call.
//
// Kernels: blocks run one at a time in a shuffled order. Within a block each CUDA thread is a
// ucontext fiber on this OS thread; __syncthreads() switches back to the scheduler, which resumes
// the block's threads forward, reversed or shuffled once all of them have arrived. The first block
// of a kernel's first launch always runs as fibers; if it reaches no barrier and the kernel uses no
// dynamic shared memory, its other blocks and later launches run their threads as plain calls (a
// barrier met there is reported).
// Not emulated: concurrency between blocks, warps and warp-synchronous code, the memory model,
// device math and its rounding, timing.
#include "cuda/emu/emu.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define EMBER_EMU_ASAN 1
#endif

namespace ember::cuda::emu {

thread_local const ThreadCoords* t_coords = nullptr;

namespace {

// ---- limits of the emulated device (an H100's) ----
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
constexpr unsigned kMaxGridX = 2147483647u, kMaxGridYZ = 65535;
constexpr size_t kSharedDefault = 48 * 1024;      // per block, without opting in
constexpr size_t kSharedOptin = 227 * 1024;       // with cudaFuncAttributeMaxDynamicSharedMemorySize
constexpr size_t kAlignment = 256;                 // of cudaMalloc'd pointers
constexpr unsigned char kPoisonByte = 0xFF;       // NaN in every float and double

// ---- errors ----
struct Errors {
  std::mutex mutex;
  cudaError_t last = cudaSuccess;     // returned and cleared by cudaGetLastError
  cudaError_t sticky = cudaSuccess;   // a kernel failed: every call from the next sync on returns it
  bool sticky_reported = false;
  std::string detail;                // what the emulator saw when it raised detail_error
  cudaError_t detail_error = cudaSuccess;
};
Errors& errors() {
  static Errors e;
  return e;
}

// Records a non-sticky error (the call returns it, and cudaGetLastError returns it once).
cudaError_t fail(cudaError_t err, const std::string& detail) {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.last = err;
  e.detail = detail;
  e.detail_error = err;
  return err;
}

// Records an error of a running kernel: sticky, surfacing at the next synchronizing call.
void fail_sticky(cudaError_t err, const std::string& detail) {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.sticky != cudaSuccess) return;
  e.sticky = err;
  e.detail = detail;
  e.detail_error = err;
  std::fprintf(stderr, "CUDA emulator: %s\n", detail.c_str());
}

// What a call returns before doing anything: the sticky error once it has been reported.
cudaError_t dead_context() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  return e.sticky_reported ? e.sticky : cudaSuccess;
}

// A synchronizing call reports a pending sticky error.
cudaError_t synchronize_errors() {
  Errors& e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.sticky != cudaSuccess) e.sticky_reported = true;
  return e.sticky;
}

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

// ---- device memory: one arena, first fit over freed ranges, then a bump pointer ----
class Arena {
 public:
  Arena() {
    size_ = env_size("EMBER_EMU_MEMORY_MB", 4096) << 20;
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
    if (!base_) size_ = 0;
  }

  void* allocate(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t rounded = std::max<size_t>(kAlignment, (nbytes + kAlignment - 1) / kAlignment * kAlignment);
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
    unpoison(p, nbytes);
    std::memset(p, kPoisonByte, nbytes);  // uninitialized device memory reads as NaN
    poison(p + nbytes, rounded - nbytes);
    return p;
  }

  // False when p is not the start of a live allocation.
  bool release(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(static_cast<size_t>(static_cast<unsigned char*>(ptr) - base_));
    if (!contains(ptr) || it == live_.end()) return false;
    size_t offset = it->first, size = it->second.rounded;
    std::memset(base_ + offset, kPoisonByte, it->second.requested);
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

  // "" when [p, p + n) lies inside one live allocation, else what is wrong with it.
  std::string check_range(const void* p, size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t offset = static_cast<size_t>(static_cast<const unsigned char*>(p) - base_);
    auto it = live_.upper_bound(offset);
    if (it == live_.begin()) return "points to no live device allocation (freed, or never allocated)";
    --it;
    if (offset >= it->first + it->second.requested) return "points to no live device allocation (freed, or never allocated)";
    if (offset + n > it->first + it->second.requested)
      return "runs " + std::to_string(offset + n - it->first - it->second.requested) +
             " bytes past the end of its allocation of " + std::to_string(it->second.requested) + " bytes";
    return "";
  }

  size_t size() const { return size_; }
  size_t used() const { return used_; }

 private:
  struct Block {
    size_t requested, rounded;
  };
  std::mutex mutex_;
  unsigned char* base_ = nullptr;
  size_t size_ = 0, top_ = 0, used_ = 0;
  std::map<size_t, Block> live_;   // offset -> block
  std::map<size_t, size_t> free_;  // offset -> size, below top_
};

Arena& arena() {
  static Arena* a = new Arena;  // leaked: device memory outlives static destructors, as on a GPU
  return *a;
}

// ---- streams: handles only; work runs at once, in call order ----
std::mutex g_stream_mutex;
std::set<cudaStream_t> g_streams;
int g_current_device = 0;

bool valid_stream(cudaStream_t s) {
  std::lock_guard<std::mutex> lock(g_stream_mutex);
  return s == nullptr || g_streams.count(s) > 0;
}

// ---- the scheduler ----
Order order_from_env() {
  const char* v = std::getenv("EMBER_EMU_ORDER");
  const std::string s = v ? v : "";
  if (s == "reverse") return Order::Reverse;
  if (s == "shuffle") return Order::Shuffle;
  return Order::Forward;
}

struct Settings {
  Order order = order_from_env();
  bool always_fibers = env_size("EMBER_EMU_FIBERS", 0) != 0;
  std::mt19937_64 rng{env_size("EMBER_EMU_SEED", 1)};
  std::mutex mutex;
  std::set<const void*> uses_barrier;            // kernels seen at a __syncthreads
  std::set<const void*> no_barrier;              // kernels whose first block reached none
  std::map<const void*, size_t> shared_optin;    // cudaFuncSetAttribute's dynamic shared memory
};
Settings& settings() {
  static Settings s;
  return s;
}

#ifdef EMBER_EMU_ASAN
constexpr size_t kStackSize = 512 * 1024;
#else
constexpr size_t kStackSize = 128 * 1024;
#endif

struct Fiber {
  enum State { Running, AtBarrier, Done };
  ucontext_t context;
  unsigned char* stack = nullptr;  // kStackSize bytes above a guard page
  ThreadCoords coords;
  State state = Running;
  const char* barrier_file = nullptr;
  int barrier_line = 0;
  void* fake_stack = nullptr;  // ASan's bookkeeping across switches
};

// One block being run as fibers on this OS thread.
struct BlockRun {
  const KernelCall* call = nullptr;
  std::vector<Fiber>* fibers = nullptr;
  Fiber* current = nullptr;
  ucontext_t scheduler;
  const void* scheduler_stack = nullptr;
  size_t scheduler_stack_size = 0;
  std::string error;  // a kernel body threw
};
thread_local BlockRun* t_block = nullptr;  // null outside fiber mode
thread_local bool t_reached_barrier = false;
thread_local std::vector<unsigned char> t_shared;

struct DirectBarrier {};  // thrown by __syncthreads in the fast path

void start_switch(void** fake_stack, const void* bottom, size_t size) {
#ifdef EMBER_EMU_ASAN
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
  (void)fake_stack, (void)bottom, (void)size;
#endif
}
void finish_switch(void* fake_stack, const void** bottom, size_t* size) {
#ifdef EMBER_EMU_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, bottom, size);
#else
  (void)fake_stack, (void)bottom, (void)size;
#endif
}

void fiber_main() {
  BlockRun* run = t_block;
  finish_switch(nullptr, &run->scheduler_stack, &run->scheduler_stack_size);
  Fiber* self = run->current;
  try {
    run->call->run(run->call->context);
  } catch (const std::exception& e) {
    run->error = e.what();
  } catch (...) {
    run->error = "unknown exception";
  }
  self->state = Fiber::Done;
  start_switch(nullptr, run->scheduler_stack, run->scheduler_stack_size);  // this fiber is finished
  swapcontext(&self->context, &run->scheduler);
}

void resume(BlockRun& run, Fiber& f) {
  run.current = &f;
  t_coords = &f.coords;
  f.state = Fiber::Running;
  void* fake = nullptr;
  start_switch(&fake, f.stack, kStackSize);
  swapcontext(&run.scheduler, &f.context);
  finish_switch(fake, nullptr, nullptr);
}

thread_local std::vector<Fiber> t_fibers;

void ensure_fibers(size_t n) {
  while (t_fibers.size() < n) {
    Fiber f;
    void* mem = mmap(nullptr, kStackSize + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw std::bad_alloc();
    mprotect(mem, 4096, PROT_NONE);  // a guard page below the stack
    f.stack = static_cast<unsigned char*>(mem) + 4096;
    t_fibers.push_back(f);
  }
}

std::vector<unsigned> thread_order(unsigned n, Order order) {
  std::vector<unsigned> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);
  if (order == Order::Reverse) std::reverse(ids.begin(), ids.end());
  if (order == Order::Shuffle) std::shuffle(ids.begin(), ids.end(), settings().rng);
  return ids;
}

ThreadCoords coords_of(const KernelCall& call, unsigned block, unsigned thread) {
  ThreadCoords c;
  c.grid_dim = call.grid;
  c.block_dim = call.block;
  c.block_idx = dim3(block % call.grid.x, block / call.grid.x % call.grid.y, block / (call.grid.x * call.grid.y));
  c.thread_idx = dim3(thread % call.block.x, thread / call.block.x % call.block.y,
                      thread / (call.block.x * call.block.y));
  return c;
}

// Runs one block with each thread a fiber. Returns "" or the error, naming the kernel.
std::string run_block_fibers(const KernelCall& call, unsigned block, unsigned nthreads, Order order) {
  ensure_fibers(nthreads);
  BlockRun run;
  run.call = &call;
  run.fibers = &t_fibers;
  for (unsigned t = 0; t < nthreads; ++t) {
    Fiber& f = t_fibers[t];
    f.coords = coords_of(call, block, t);
    f.state = Fiber::Running;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = kStackSize;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiber_main, 0);
  }
  BlockRun* outer = t_block;
  t_block = &run;
  std::string error;
  for (;;) {
    for (unsigned t : thread_order(nthreads, order)) {
      if (t_fibers[t].state == Fiber::Done) continue;
      resume(run, t_fibers[t]);
      if (!run.error.empty()) break;
    }
    if (!run.error.empty()) {
      error = "kernel '" + std::string(call.name) + "' threw: " + run.error;
      break;
    }
    unsigned waiting = 0, done = 0;
    const Fiber* first = nullptr;
    for (unsigned t = 0; t < nthreads; ++t) {
      if (t_fibers[t].state == Fiber::Done) ++done;
      if (t_fibers[t].state != Fiber::AtBarrier) continue;
      ++waiting;
      if (!first) first = &t_fibers[t];
      if (t_fibers[t].barrier_line != first->barrier_line || std::strcmp(t_fibers[t].barrier_file, first->barrier_file)) {
        error = "kernel '" + std::string(call.name) + "': threads of block " + std::to_string(block) +
                " wait at different __syncthreads() (" + first->barrier_file + ":" +
                std::to_string(first->barrier_line) + " and " + t_fibers[t].barrier_file + ":" +
                std::to_string(t_fibers[t].barrier_line) + ")";
        break;
      }
    }
    if (!error.empty() || waiting == 0) break;
    if (done > 0) {
      error = "kernel '" + std::string(call.name) + "': __syncthreads() at " + first->barrier_file + ":" +
              std::to_string(first->barrier_line) + " reached by " + std::to_string(waiting) + " of the " +
              std::to_string(nthreads) + " threads of block " + std::to_string(block) + "; " + std::to_string(done) +
              " exited without reaching it (a barrier in divergent code)";
      break;
    }
  }
  t_block = outer;
  t_coords = nullptr;
  return error;
}

// Runs one block with each thread a plain call, in `order`. Returns "" or the error.
std::string run_block_direct(const KernelCall& call, unsigned block, unsigned nthreads, Order order) {
  try {
    for (unsigned t : thread_order(nthreads, order)) {
      const ThreadCoords c = coords_of(call, block, t);
      t_coords = &c;
      call.run(call.context);
    }
  } catch (const DirectBarrier&) {
    t_coords = nullptr;
    return "kernel '" + std::string(call.name) + "' reached __syncthreads() only after its first block: " +
           "the emulator ran it without fibers; rerun with EMBER_EMU_FIBERS=1";
  }
  t_coords = nullptr;
  return "";
}

std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// "" when the launch is one the hardware accepts, else why not (and the error to return).
std::string check_config(const KernelCall& call, cudaError_t& err) {
  err = cudaErrorInvalidConfiguration;
  const dim3 b = call.block, g = call.grid;
  const std::string what = "kernel '" + std::string(call.name) + "' launched with grid " + dims(g) + " and block " +
                           dims(b) + ": ";
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) return what + "a dimension is 0";
  if (uint64_t(b.x) * b.y * b.z > kMaxThreadsPerBlock)
    return what + "more than " + std::to_string(kMaxThreadsPerBlock) + " threads per block";
  if (b.x > kMaxBlockDim[0] || b.y > kMaxBlockDim[1] || b.z > kMaxBlockDim[2])
    return what + "block dims are limited to (1024, 1024, 64)";
  if (g.x > kMaxGridX || g.y > kMaxGridYZ || g.z > kMaxGridYZ)
    return what + "grid dims are limited to (2^31 - 1, 65535, 65535)";
  size_t limit = kSharedDefault;
  {
    Settings& s = settings();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.shared_optin.find(call.key);
    if (it != s.shared_optin.end()) limit = std::max(limit, it->second);
  }
  if (call.shmem > limit) {
    err = cudaErrorInvalidValue;
    return what + std::to_string(call.shmem) + " bytes of dynamic shared memory, more than the " +
           std::to_string(limit) + " allowed" +
           (limit == kSharedDefault ? " (beyond 48 KiB a kernel must opt in with cudaFuncSetAttribute)" : "");
  }
  if (!valid_stream(call.stream)) {
    err = cudaErrorInvalidResourceHandle;
    return what + "the stream was never created or was destroyed";
  }
  return "";
}

}  // namespace

// ---- emu.h ----

Order order() { return settings().order; }
void set_order(Order o) { settings().order = o; }
const char* order_name(Order o) {
  return o == Order::Forward ? "forward" : o == Order::Reverse ? "reverse" : "shuffle";
}
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

// ---- what kernels call ----

void syncthreads(const char* file, int line) {
  t_reached_barrier = true;
  BlockRun* run = t_block;
  if (!run) throw DirectBarrier{};
  Fiber* self = run->current;
  self->state = Fiber::AtBarrier;
  self->barrier_file = file;
  self->barrier_line = line;
  start_switch(&self->fake_stack, run->scheduler_stack, run->scheduler_stack_size);
  swapcontext(&self->context, &run->scheduler);
  finish_switch(self->fake_stack, &run->scheduler_stack, &run->scheduler_stack_size);
}

unsigned char* dynamic_shared() { return t_shared.data(); }

void report_illegal_address(const std::string& what) { fail_sticky(cudaErrorIllegalAddress, what); }

bool is_device_pointer(const void* p) { return arena().contains(p); }

cudaError_t set_max_dynamic_shared(const void* kernel, int nbytes) {
  if (nbytes < 0 || size_t(nbytes) > kSharedOptin)
    return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: at most " + std::to_string(kSharedOptin) +
                                           " bytes of dynamic shared memory per block");
  Settings& s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.shared_optin[kernel] = size_t(nbytes);
  return cudaSuccess;
}

void launch(const KernelCall& call) {
  if (dead_context() != cudaSuccess) return;
  cudaError_t err;
  const std::string bad = check_config(call, err);
  if (!bad.empty()) {
    fail(err, bad);
    return;
  }
  for (int i = 0; i < call.n_pointers; ++i) {
    const void* p = call.pointers[i].value;
    if (p == nullptr) continue;
    std::string why = is_device_pointer(p) ? arena().check_range(p, 1) : "is a host pointer, not device memory";
    if (why.empty()) continue;
    fail_sticky(cudaErrorIllegalAddress, "kernel '" + std::string(call.name) + "': pointer argument #" +
                                             std::to_string(call.pointers[i].index) + " (" + hex(p) + ") " + why);
    return;
  }
  Settings& s = settings();
  const unsigned nthreads = call.block.x * call.block.y * call.block.z;
  const uint64_t nblocks = uint64_t(call.grid.x) * call.grid.y * call.grid.z;
  const size_t shared_capacity = std::max(kSharedOptin, call.shmem);
  if (t_shared.size() < shared_capacity) t_shared.resize(shared_capacity);

  // Blocks in a shuffled order (large grids: a random rotation of a stride walk over all blocks).
  std::vector<unsigned> blocks;
  uint64_t stride = 1, start = 0;
  if (nblocks <= (1u << 20)) {
    blocks.resize(nblocks);
    std::iota(blocks.begin(), blocks.end(), 0u);
    std::shuffle(blocks.begin(), blocks.end(), s.rng);
  } else {
    stride = 1000003;  // a prime: coprime to nblocks unless it divides it
    while (std::gcd(stride, nblocks) != 1) stride += 2;
    start = s.rng() % nblocks;
  }
  bool fibers = s.always_fibers || call.shmem > 0, probe = true;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    fibers = fibers || s.uses_barrier.count(call.key) > 0;
    probe = s.no_barrier.count(call.key) == 0;  // a kernel's first launch probes its first block as fibers
  }
  for (uint64_t i = 0; i < nblocks; ++i) {
    const unsigned block = blocks.empty() ? unsigned((start + i * stride) % nblocks) : blocks[i];
    // Shared memory starts undefined (NaN bytes); past the launch's size it is poisoned for ASan,
    // and without ASan a guard band as long again is checked after the block for stray writes.
    const size_t guard = std::min(t_shared.size() - call.shmem, std::max<size_t>(call.shmem, 256));
    unpoison(t_shared.data(), t_shared.size());
    std::memset(t_shared.data(), kPoisonByte, call.shmem + guard);
    poison(t_shared.data() + call.shmem, t_shared.size() - call.shmem);
    std::string error;
    if (fibers || (i == 0 && probe)) {
      t_reached_barrier = false;
      error = run_block_fibers(call, block, nthreads, s.order);
      std::lock_guard<std::mutex> lock(s.mutex);
      if (t_reached_barrier) {
        s.uses_barrier.insert(call.key);
        fibers = true;
      } else {
        s.no_barrier.insert(call.key);
      }
    } else {
      error = run_block_direct(call, block, nthreads, s.order);
    }
#ifndef EMBER_EMU_ASAN
    if (error.empty()) {
      const unsigned char* band = t_shared.data() + call.shmem;
      const size_t bad = size_t(std::find_if(band, band + guard, [](unsigned char c) { return c != kPoisonByte; }) - band);
      if (bad < guard)
        error = "kernel '" + std::string(call.name) + "' wrote shared memory at byte " + std::to_string(call.shmem + bad) +
                ", past the " + std::to_string(call.shmem) + " bytes of dynamic shared memory it was launched with";
    }
#endif
    if (!error.empty()) {
      fail_sticky(cudaErrorLaunchFailure, error);
      break;
    }
  }
  unpoison(t_shared.data(), t_shared.size());
}

}  // namespace ember::cuda::emu

using namespace ember::cuda::emu;

// ---- the runtime API ----

cudaError_t cudaGetDeviceCount(int* count) {
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
    std::string why = arena().check_range(p, n);
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
      return fail(cudaErrorInvalidMemcpyDirection, std::string(op) + ": unknown cudaMemcpyKind " + std::to_string(kind));
  }
  if (!bad.empty()) return fail(cudaErrorInvalidValue, bad);
  std::memmove(dst, src, nbytes);
  return cudaSuccess;
}

cudaError_t set(const char* op, void* ptr, int value, size_t nbytes) {
  if (nbytes == 0) return cudaSuccess;
  const std::string bad = check_side(op, "pointer", ptr, nbytes, true);
  if (!bad.empty()) return fail(cudaErrorInvalidValue, bad);
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
    case cudaSuccess: text = "no error"; break;
    case cudaErrorInvalidValue: text = "invalid argument"; break;
    case cudaErrorMemoryAllocation: text = "out of memory"; break;
    case cudaErrorInitializationError: text = "initialization error"; break;
    case cudaErrorInvalidConfiguration: text = "invalid configuration argument"; break;
    case cudaErrorInvalidDevicePointer: text = "invalid device pointer"; break;
    case cudaErrorInvalidMemcpyDirection: text = "invalid copy direction for memcpy"; break;
    case cudaErrorNoDevice: text = "no CUDA-capable device is detected"; break;
    case cudaErrorInvalidDevice: text = "invalid device ordinal"; break;
    case cudaErrorNoKernelImageForDevice: text = "no kernel image is available for execution on the device"; break;
    case cudaErrorInvalidResourceHandle: text = "invalid resource handle"; break;
    case cudaErrorIllegalAddress: text = "an illegal memory access was encountered"; break;
    case cudaErrorLaunchFailure: text = "unspecified launch failure"; break;
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
