// Ember's CPU emulator of CUDA kernel launches: blocks, threads as fibers, __syncthreads() and warps.
//
// Blocks run one at a time in a shuffled order, on the launching OS thread (so atomics are plain
// read-modify-writes). Within a block each CUDA thread is a fiber on this OS thread;
// __syncthreads() switches back to the scheduler, which resumes the block's threads forward,
// reversed or shuffled once all of them have arrived. A warp collective (__shfl_sync, ...) waits the
// same way for the lanes of its mask; the last lane to arrive computes every lane's result and
// makes them ready again. The first block of a kernel's first launch always runs as fibers; if it
// reaches no barrier or collective and the kernel uses no dynamic shared memory, its other blocks
// and later launches run their threads as a plain loop (a barrier met there is reported). Before
// anything runs, every pointer argument, and every pointer-sized word of a struct argument
// (functors, OffsetCalc), is checked against device memory, and the allocations they point into are
// opened for the kernel (the rest stay PROT_NONE). Not emulated: concurrency between blocks, lockstep
// execution within a warp (a lane runs alone between collectives), the memory model, device math and
// its rounding, timing. Device memory, copies and errors: runtime.cpp; what each warp call computes:
// warp.cpp.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "cuda/emu/emu.h"
#include "cuda/emu/internal.h"

#ifdef EMBER_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace ember::cuda::emu {

thread_local const ThreadCoords* t_coords = nullptr;

namespace {

// ---- settings and what the scheduler has learnt about each kernel ----
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
  std::set<const void*> uses_barrier;          // kernels seen at a __syncthreads
  std::set<const void*> no_barrier;            // kernels whose first block reached none
  std::map<const void*, size_t> shared_optin;  // cudaFuncSetAttribute's dynamic shared memory
  bool logging = false;                        // start_launch_log() to stop_launch_log()
  std::vector<std::string> launched;
};
Settings& settings() {
  static Settings s;
  return s;
}

// ---- context switches ----
// On x86-64 a switch saves the callee-saved registers and the FP control words on the old stack
// and loads them from the new one: no system call, unlike swapcontext, which saves the signal mask
// (two sigprocmask calls per switch made them 90% of the emulator's time). Elsewhere, ucontext.
#if defined(__x86_64__)
extern "C" void ember_emu_switch(void** save_sp, void* load_sp);
asm(R"(
  .text
  .globl ember_emu_switch
  .hidden ember_emu_switch
  .type ember_emu_switch, @function
ember_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ember_emu_switch, .-ember_emu_switch
)");

struct Context {
  void* sp = nullptr;
};
void switch_context(Context& from, Context& to) { ember_emu_switch(&from.sp, to.sp); }

// A fresh context that starts in entry() on [stack, stack + size): the frame ember_emu_switch pops.
void make_context(Context& c, unsigned char* stack, size_t size, void (*entry)()) {
  auto* sp = reinterpret_cast<uint64_t*>((reinterpret_cast<uintptr_t>(stack) + size) & ~uintptr_t(15));
  *--sp = 0;                                   // entry's return address: it never returns
  *--sp = reinterpret_cast<uintptr_t>(entry);  // where ember_emu_switch's ret goes
  for (int r = 0; r < 6; ++r) *--sp = 0;       // rbp, rbx, r12 to r15
  uint32_t mxcsr = 0;
  uint16_t fpu_control = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpu_control));
  *--sp = mxcsr | (uint64_t(fpu_control) << 32);
  c.sp = sp;
}
#else
struct Context {
  ucontext_t uc;
};
void switch_context(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }
void make_context(Context& c, unsigned char* stack, size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

// ASan must be told of every switch between stacks.
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

// ---- fibers ----
#ifdef EMBER_EMU_ASAN
constexpr size_t kStackSize = 512 * 1024;
#else
constexpr size_t kStackSize = 128 * 1024;
#endif
constexpr size_t kGuardPage = 4096;

struct Fiber {
  // Ready: to be resumed. AtBarrier: waits at __syncthreads(). AtWarp: waits at a warp collective.
  // AtActiveMask: waits in __activemask() until no thread can run on. Ready and AtBarrier come first:
  // the scheduler's first pass after a barrier resumes both with one comparison.
  enum State { Ready, AtBarrier, Running, AtWarp, AtActiveMask, Done };
  Context context;
  unsigned char* stack = nullptr;  // kStackSize bytes above a guard page
  ThreadCoords coords;
  unsigned index = 0;  // linear thread index in the block: lane index % 32 of warp index / 32
  State state = Ready;
  const char* barrier_file = nullptr;
  int barrier_line = 0;
  // The collective an AtWarp fiber waits at; `lane` points into its suspended stack.
  const char* warp_op = nullptr;
  unsigned warp_mask = 0;
  uint64_t warp_agree = 0;
  WarpLane lane{};
  void* fake_stack = nullptr;  // ASan's bookkeeping across switches
};

// One block being run as fibers on this OS thread.
struct BlockRun {
  const KernelCall* call = nullptr;
  unsigned block = 0, nthreads = 0;
  Fiber* current = nullptr;
  bool released = false;         // a collective completed during this pass: its waiting lanes are Ready
  unsigned at_active_mask = 0;  // threads waiting in __activemask()
  Context scheduler;
  const void* scheduler_stack = nullptr;
  size_t scheduler_stack_size = 0;
  std::string error;  // a kernel body threw, or `fault`: a warp collective was misused
  bool fault = false;
};
thread_local BlockRun* t_block = nullptr;  // null outside fiber mode
thread_local bool t_reached_barrier = false;
thread_local std::vector<unsigned char> t_shared;
thread_local std::vector<Fiber> t_fibers;
thread_local std::vector<unsigned> t_order;

struct DirectBarrier {  // thrown by __syncthreads or a warp collective in the plain loop
  const char* what;
};
// A warp collective used in a way a GPU leaves undefined: fails the kernel with this text.
struct WarpFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void fiber_main() {
  BlockRun* run = t_block;
  finish_switch(nullptr, &run->scheduler_stack, &run->scheduler_stack_size);
  Fiber* self = run->current;
  try {
    run->call->run(run->call->context);
  } catch (const WarpFault& e) {
    run->error = e.what();
    run->fault = true;
  } catch (const std::exception& e) {
    run->error = e.what();
  } catch (...) {
    run->error = "unknown exception";
  }
  self->state = Fiber::Done;
  start_switch(nullptr, run->scheduler_stack, run->scheduler_stack_size);  // this fiber is finished
  switch_context(self->context, run->scheduler);
}

// Switches from the running fiber to the scheduler; returns when the fiber is resumed.
void yield_to_scheduler(BlockRun& run, Fiber& self) {
  start_switch(&self.fake_stack, run.scheduler_stack, run.scheduler_stack_size);
  switch_context(self.context, run.scheduler);
  finish_switch(self.fake_stack, &run.scheduler_stack, &run.scheduler_stack_size);
}

void resume(BlockRun& run, Fiber& f) {
  run.current = &f;
  t_coords = &f.coords;
  f.state = Fiber::Running;
  void* fake = nullptr;
  start_switch(&fake, f.stack, kStackSize);
  switch_context(run.scheduler, f.context);
  finish_switch(fake, nullptr, nullptr);
}

void ensure_fibers(size_t n) {
  while (t_fibers.size() < n) {
    Fiber f;
    void* mem = mmap(nullptr, kStackSize + kGuardPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw std::bad_alloc();
    mprotect(mem, kGuardPage, PROT_NONE);  // below the stack: an overflow faults
    f.stack = static_cast<unsigned char*>(mem) + kGuardPage;
    t_fibers.push_back(f);
  }
}

// The order in which a block's n threads run (or resume after a barrier); reuses one buffer.
const std::vector<unsigned>& thread_order(unsigned n, Order order) {
  t_order.resize(n);
  std::iota(t_order.begin(), t_order.end(), 0u);
  if (order == Order::Reverse) std::reverse(t_order.begin(), t_order.end());
  if (order == Order::Shuffle) std::shuffle(t_order.begin(), t_order.end(), settings().rng);
  return t_order;
}

ThreadCoords coords_of(const KernelCall& call, unsigned block, unsigned thread) {
  ThreadCoords c;
  c.grid_dim = call.grid;
  c.block_dim = call.block;
  c.block_idx = dim3(block % call.grid.x, block / call.grid.x % call.grid.y, block / (call.grid.x * call.grid.y));
  c.thread_idx =
      dim3(thread % call.block.x, thread / call.block.x % call.block.y, thread / (call.block.x * call.block.y));
  return c;
}

std::string where(const Fiber& f) { return std::string(f.barrier_file) + ":" + std::to_string(f.barrier_line); }

// ---- warps ----
constexpr unsigned kLanes = 32;

// The lanes warp w of a block of n threads has: all 32, or fewer in the last warp.
unsigned lanes_of_warp(unsigned w, unsigned n) {
  const unsigned count = std::min(kLanes, n - w * kLanes);
  return count == kLanes ? ~0u : (1u << count) - 1;
}

std::string mask_text(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// "lane 3", "lanes 0-15, 17": the lanes set in `bits` (appended piecewise: g++ 12's -Wrestrict
// misreads "-" + std::string).
std::string lanes_text(unsigned bits) {
  std::string text = std::popcount(bits) == 1 ? "lane " : "lanes ";
  bool first = true;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(bits >> l & 1)) continue;
    unsigned last = l;
    while (last + 1 < kLanes && (bits >> (last + 1) & 1)) ++last;
    if (!first) text += ", ";
    text += std::to_string(l);
    if (last > l) {
      text += '-';
      text += std::to_string(last);
    }
    first = false;
    l = last;
  }
  return text;
}

std::string collective_text(const char* op, unsigned mask, unsigned warp, unsigned block) {
  return std::string(op) + " (mask " + mask_text(mask) + ") in warp " + std::to_string(warp) + " of block " +
         std::to_string(block);
}

bool same_collective(const Fiber& f, const char* op, unsigned mask, uint64_t agree) {
  return f.state == Fiber::AtWarp && f.warp_mask == mask && f.warp_agree == agree &&
         (f.warp_op == op || !std::strcmp(f.warp_op, op));
}

// Once no thread can run on: each thread waiting in __activemask() gets the lanes of its warp waiting
// there with it (a converged warp's lanes, wherever the others are). True when any was waiting.
bool release_active_masks(BlockRun& run) {
  if (run.at_active_mask == 0) return false;
  unsigned waiting[kMaxThreadsPerBlock / kLanes] = {};
  for (unsigned t = 0; t < run.nthreads; ++t)
    if (t_fibers[t].state == Fiber::AtActiveMask) waiting[t / kLanes] |= 1u << (t % kLanes);
  for (unsigned t = 0; t < run.nthreads; ++t) {
    Fiber& f = t_fibers[t];
    if (f.state != Fiber::AtActiveMask) continue;
    *static_cast<unsigned*>(f.lane.out) = waiting[t / kLanes];
    f.state = Fiber::Ready;
  }
  run.at_active_mask = 0;
  return true;
}

// Why a warp collective can never complete: which lanes of its mask are missing and where they are.
std::string stuck_collective(const BlockRun& run, const Fiber& f) {
  const unsigned warp = f.index / kLanes;
  const Fiber* lanes = &t_fibers[warp * kLanes];
  unsigned arrived = 0;
  std::map<std::string, unsigned> missing;  // where a lane is -> the lanes there
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(f.warp_mask >> l & 1)) continue;
    const Fiber& other = lanes[l];
    if (same_collective(other, f.warp_op, f.warp_mask, f.warp_agree)) {
      arrived |= 1u << l;
      continue;
    }
    std::string at = other.state == Fiber::Done        ? "exited"
                     : other.state == Fiber::AtBarrier ? "at __syncthreads() at " + where(other)
                                                       : "at " + std::string(other.warp_op) + " with mask " +
                                                             mask_text(other.warp_mask);
    if (other.state == Fiber::AtWarp && other.warp_mask == f.warp_mask && !std::strcmp(other.warp_op, f.warp_op))
      at += ", but a different width or value type";
    missing[at] |= 1u << l;
  }
  std::string text =
      collective_text(f.warp_op, f.warp_mask, warp, run.block) + ": " + lanes_text(arrived) + " arrived; missing: ";
  bool first = true;
  for (const auto& [at, bits] : missing) {
    text += (first ? "" : ", ") + lanes_text(bits) + " (" + at + ")";
    first = false;
  }
  return text + ". Every lane named in the mask must reach the same collective";
}

// Runs one block with each thread a fiber. Returns "" or the error, naming the kernel.
std::string run_block_fibers(const KernelCall& call, unsigned block, unsigned nthreads, Order order) {
  ensure_fibers(nthreads);
  BlockRun run;
  run.call = &call;
  run.block = block;
  run.nthreads = nthreads;
  for (unsigned t = 0; t < nthreads; ++t) {
    Fiber& f = t_fibers[t];
    f.coords = coords_of(call, block, t);
    f.index = t;
    f.state = Fiber::Ready;
#ifdef EMBER_EMU_ASAN
    // A stack reused from an earlier block keeps the redzones of frames that never returned (a
    // finished fiber switches away from fiber_main; a faulted block abandons its waiting lanes).
    ASAN_UNPOISON_MEMORY_REGION(f.stack, kStackSize);
#endif
    make_context(f.context, f.stack, kStackSize, fiber_main);
  }
  BlockRun* outer = t_block;
  t_block = &run;
  const std::string kernel = "kernel '" + std::string(call.name) + "'";
  std::string error;
  for (;;) {
    // One round: every thread runs until it exits or waits at __syncthreads(). The first pass resumes
    // the threads the last barrier released; a thread a warp collective released during a pass is
    // resumed in that pass if it comes later in the order, else in another pass.
    const std::vector<unsigned>& ord = thread_order(nthreads, order);
    Fiber::State resumable = Fiber::AtBarrier;  // Ready or AtBarrier in the first pass, then Ready only
    do {
      run.released = false;
      for (unsigned t : ord) {
        if (t_fibers[t].state > resumable) continue;
        resume(run, t_fibers[t]);
        if (!run.error.empty()) break;
      }
      resumable = Fiber::Ready;
    } while (run.error.empty() && (run.released || release_active_masks(run)));
    if (!run.error.empty()) {
      error = kernel + (run.fault ? ": " : " threw: ") + run.error;
      break;
    }
    unsigned waiting = 0, done = 0;
    const Fiber* first = nullptr;
    for (unsigned t = 0; t < nthreads; ++t) {
      const Fiber& f = t_fibers[t];
      if (f.state != Fiber::AtBarrier) {
        if (f.state == Fiber::Done) ++done;
        if (f.state != Fiber::AtWarp) continue;
        error = kernel + ": " + stuck_collective(run, f);
        break;
      }
      ++waiting;
      if (!first) first = &f;
      const bool same_site =
          f.barrier_line == first->barrier_line &&
          (f.barrier_file == first->barrier_file || !std::strcmp(f.barrier_file, first->barrier_file));
      if (!same_site) {
        error = kernel + ": threads of block " + std::to_string(block) + " wait at different __syncthreads() (" +
                where(*first) + " and " + where(f) + ")";
        break;
      }
    }
    if (!error.empty() || waiting == 0) break;
    if (done > 0) {
      error = kernel + ": __syncthreads() at " + where(*first) + " reached by " + std::to_string(waiting) + " of the " +
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
  ThreadCoords c = coords_of(call, block, 0);
  t_coords = &c;
  try {
    for (unsigned t : thread_order(nthreads, order)) {
      c.thread_idx = dim3(t % call.block.x, t / call.block.x % call.block.y, t / (call.block.x * call.block.y));
      call.run(call.context);
    }
  } catch (const DirectBarrier& b) {
    t_coords = nullptr;
    return "kernel '" + std::string(call.name) + "' reached " + b.what + " only after its first block: " +
           "the emulator ran it without fibers; rerun with EMBER_EMU_FIBERS=1";
  }
  t_coords = nullptr;
  return "";
}

std::string dims(dim3 d) {
  std::string text = "(";  // appended piecewise: g++ 12's -Wrestrict misreads "(" + std::string
  text += std::to_string(d.x);
  text += ", ";
  text += std::to_string(d.y);
  text += ", ";
  text += std::to_string(d.z);
  text += ")";
  return text;
}

// "" when the launch is one the hardware accepts, else why not (and the error to return).
std::string check_config(const KernelCall& call, cudaError_t& err) {
  err = cudaErrorInvalidConfiguration;
  const dim3 b = call.block, g = call.grid;
  const std::string what =
      "kernel '" + std::string(call.name) + "' launched with grid " + dims(g) + " and block " + dims(b) + ": ";
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

// True when v is an address mapped in this process outside device memory: a host pointer. Words
// below 2^32 (sizes, strides, ints, floats) and above 2^47 (doubles, negative numbers) are never
// taken for one, so only a struct holding a real address is reported.
bool is_host_address(uintptr_t v) {
  if (v < (uintptr_t(1) << 32) || v >= (uintptr_t(1) << 47) || is_device_pointer(reinterpret_cast<void*>(v)))
    return false;
  unsigned char resident;
  return mincore(reinterpret_cast<void*>(v & ~uintptr_t(4095)), 1, &resident) == 0 || errno != ENOMEM;
}

// "" when every pointer the kernel is given points into a live device allocation, else the first
// that does not. Opens those allocations, and only those, in `access`.
std::string check_arguments(const KernelCall& call, DeviceAccess& access) {
  const std::string kernel = "kernel '" + std::string(call.name) + "': ";
  for (int i = 0; i < call.n_pointers; ++i) {
    const void* p = call.pointers[i].value;
    if (p == nullptr) continue;
    std::string why = is_device_pointer(p) ? check_device_range(p, 1) : "is a host pointer, not device memory";
    if (!why.empty())
      return kernel + "pointer argument #" + std::to_string(call.pointers[i].index) + " (" + hex(p) + ") " + why;
    access.open(p);
  }
  for (int i = 0; i < call.n_structs; ++i) {
    const StructArg& s = call.structs[i];
    for (size_t at = 0; at + sizeof(uintptr_t) <= s.size; at += sizeof(uintptr_t)) {
      uintptr_t v;
      std::memcpy(&v, static_cast<const unsigned char*>(s.bytes) + at, sizeof v);
      const void* p = reinterpret_cast<const void*>(v);
      if (!s.padding_cleared) {
        if (is_device_pointer(p) && check_device_range(p, 1).empty()) access.open(p);
        continue;
      }
      std::string why = is_device_pointer(p) ? check_device_range(p, 1)
                        : is_host_address(v) ? "is a host pointer, not device memory"
                                             : "";
      if (!why.empty())
        return kernel + "argument #" + std::to_string(s.index) + " (a struct of " + std::to_string(s.size) +
               " bytes) holds at byte " + std::to_string(at) + " a pointer (" + hex(p) + ") that " + why;
      if (is_device_pointer(p)) access.open(p);
    }
  }
  return "";
}

}  // namespace

// ---- emu.h ----

Order order() { return settings().order; }
void set_order(Order o) { settings().order = o; }
void start_launch_log() {
  Settings& s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.launched.clear();
  s.logging = true;
}
std::vector<std::string> stop_launch_log() {
  Settings& s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.logging = false;
  return std::exchange(s.launched, {});
}
const char* order_name(Order o) {
  return o == Order::Forward ? "forward" : o == Order::Reverse ? "reverse" : "shuffle";
}

// ---- what kernels call ----

void syncthreads(const char* file, int line) {
  t_reached_barrier = true;
  BlockRun* run = t_block;
  if (!run) throw DirectBarrier{"__syncthreads()"};
  Fiber* self = run->current;
  self->state = Fiber::AtBarrier;
  self->barrier_file = file;
  self->barrier_line = line;
  yield_to_scheduler(*run, *self);
}

void warp_collective(const char* op, unsigned mask, uint64_t agree, WarpResolve resolve, const WarpLane& mine) {
  t_reached_barrier = true;
  BlockRun* run = t_block;
  if (!run) throw DirectBarrier{op};
  Fiber* self = run->current;
  const unsigned warp = self->index / kLanes, lane = self->index % kLanes;
  const unsigned exists = lanes_of_warp(warp, run->nthreads);
  if (!(mask >> lane & 1))
    throw WarpFault(collective_text(op, mask, warp, run->block) + ": called by lane " + std::to_string(lane) +
                    ", which its mask does not name");
  if (mask & ~exists)
    throw WarpFault(collective_text(op, mask, warp, run->block) + ": the mask names " + lanes_text(mask & ~exists) +
                    ", which do not exist (the warp has " + std::to_string(std::popcount(exists)) +
                    " lanes in a block of " + std::to_string(run->nthreads) + " threads)");
  self->state = Fiber::AtWarp;
  self->warp_op = op;
  self->warp_mask = mask;
  self->warp_agree = agree;
  self->lane = mine;
  Fiber* lanes = &t_fibers[warp * kLanes];
  for (unsigned l = 0; l < kLanes; ++l)
    if ((mask >> l & 1) && !same_collective(lanes[l], op, mask, agree)) {
      yield_to_scheduler(*run, *self);  // the lane that completes the collective makes this one Ready
      return;
    }
  // The last lane to arrive: every lane's result, then all of them run on.
  WarpLane parts[kLanes] = {};
  for (unsigned l = 0; l < kLanes; ++l)
    if (mask >> l & 1) parts[l] = lanes[l].lane;
  const std::string wrong = resolve(parts, mask, agree);
  if (!wrong.empty()) throw WarpFault(collective_text(op, mask, warp, run->block) + ": " + wrong);
  for (unsigned l = 0; l < kLanes; ++l)
    if (mask >> l & 1) lanes[l].state = Fiber::Ready;
  self->state = Fiber::Running;
  run->released = true;
}

unsigned active_lanes() {
  t_reached_barrier = true;
  BlockRun* run = t_block;
  if (!run) throw DirectBarrier{"__activemask()"};
  Fiber* self = run->current;
  unsigned active = 0;
  self->state = Fiber::AtActiveMask;
  self->warp_op = "__activemask()";
  self->lane = WarpLane{nullptr, &active, 0};
  ++run->at_active_mask;
  yield_to_scheduler(*run, *self);  // release_active_masks writes `active`
  return active;
}

unsigned char* dynamic_shared() { return t_shared.data(); }

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
  DeviceAccess access;  // the allocations the kernel was given are open until it returns
  const std::string wrong_pointer = check_arguments(call, access);
  if (!wrong_pointer.empty()) {
    fail_sticky(cudaErrorIllegalAddress, wrong_pointer);
    return;
  }
  Settings& s = settings();
  const unsigned nthreads = call.block.x * call.block.y * call.block.z;
  const uint64_t nblocks = uint64_t(call.grid.x) * call.grid.y * call.grid.z;
  const size_t shared_capacity = std::max(kSharedOptin, call.shmem);
  if (t_shared.size() < shared_capacity) t_shared.resize(shared_capacity);

  // Blocks in a shuffled order (large grids: a random rotation of a stride walk over all blocks).
  thread_local std::vector<unsigned> blocks;
  blocks.clear();
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
    if (s.logging) s.launched.emplace_back(call.name);
  }
  t_running_kernel = call.name;
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
      const size_t bad =
          size_t(std::find_if(band, band + guard, [](unsigned char c) { return c != kPoisonByte; }) - band);
      if (bad < guard)
        error = "kernel '" + std::string(call.name) + "' wrote shared memory at byte " +
                std::to_string(call.shmem + bad) + ", past the " + std::to_string(call.shmem) +
                " bytes of dynamic shared memory it was launched with";
    }
#endif
    if (!error.empty()) {
      fail_sticky(cudaErrorLaunchFailure, error);
      break;
    }
  }
  t_running_kernel = nullptr;
  unpoison(t_shared.data(), t_shared.size());
}

}  // namespace ember::cuda::emu
