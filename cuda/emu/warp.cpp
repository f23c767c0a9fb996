// The emulator's warp-level calls, on top of warp_collective (cuda/emu/scheduler.cpp): shuffles,
// votes and __reduce_*_sync. Each says what every lane of the mask receives once all have arrived;
// the scheduler does the waiting and reports lanes that never arrive.
//
// Shuffles follow PTX's shfl.sync (the CUDA intrinsics pass c = ((32 - width) << 8) | clamp): a
// segment of `width` lanes, a source lane outside the segment gives the lane its own value (up, down,
// and xor towards a later segment), and __shfl_sync's source lane is taken modulo width. Reading a
// lane the mask does not name is undefined on a GPU and an error here.
#include <cstring>
#include <string>

#include <cuda_runtime.h>

namespace ember::cuda::emu {

namespace {

constexpr unsigned kLanes = 32;

// What every lane of a shuffle must agree on, packed into warp_collective's `agree`.
uint64_t shuffle_agree(Shuffle mode, int size, int width) {
  return uint64_t(mode) | uint64_t(size) << 8 | uint64_t(width) << 16;
}

// The lane whose value `lane` receives, as shfl.sync computes it (PTX ISA, shfl.sync).
unsigned shuffle_source(Shuffle mode, unsigned lane, int arg, unsigned width) {
  const unsigned b = unsigned(arg) & 31;  // shfl.sync reads the low 5 bits of its lane operand
  const unsigned first = lane & ~(width - 1), last = first + width - 1;
  switch (mode) {
    case Shuffle::Idx:
      return first | (b & (width - 1));
    case Shuffle::Up:
      return lane >= first + b ? lane - b : lane;
    case Shuffle::Down:
      return lane + b <= last ? lane + b : lane;
    case Shuffle::Xor:
      return (lane ^ b) <= last ? lane ^ b : lane;
  }
  return lane;
}

std::string resolve_shuffle(const WarpLane* lanes, unsigned mask, uint64_t agree) {
  const auto mode = Shuffle(agree & 0xff);
  const size_t size = (agree >> 8) & 0xff;
  const unsigned width = unsigned(agree >> 16);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(mask >> l & 1)) continue;
    const unsigned src = shuffle_source(mode, l, lanes[l].arg, width);
    if (!(mask >> src & 1))
      return "lane " + std::to_string(l) + " reads lane " + std::to_string(src) +
             ", which the mask does not name (its value is undefined on a GPU)";
  }
  for (unsigned l = 0; l < kLanes; ++l)
    if (mask >> l & 1) std::memcpy(lanes[l].out, lanes[shuffle_source(mode, l, lanes[l].arg, width)].in, size);
  return "";
}

std::string resolve_ballot(const WarpLane* lanes, unsigned mask, uint64_t) {
  unsigned votes = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    if ((mask >> l & 1) && *static_cast<const int*>(lanes[l].in) != 0) votes |= 1u << l;
  for (unsigned l = 0; l < kLanes; ++l)
    if (mask >> l & 1) *static_cast<unsigned*>(lanes[l].out) = votes;
  return "";
}

enum class Reduce { Add, Min, Max };

std::string resolve_reduce(const WarpLane* lanes, unsigned mask, uint64_t agree) {
  const auto kind = Reduce(agree >> 1);
  const bool is_signed = agree & 1;
  uint32_t total = 0;
  bool first = true;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(mask >> l & 1)) continue;
    const uint32_t v = *static_cast<const uint32_t*>(lanes[l].in);
    if (first) {
      total = v;
    } else if (kind == Reduce::Add) {
      total += v;  // modulo 2^32, for int as for unsigned
    } else {
      const bool less = is_signed ? int32_t(v) < int32_t(total) : v < total;
      if (less == (kind == Reduce::Min)) total = v;
    }
    first = false;
  }
  for (unsigned l = 0; l < kLanes; ++l)
    if (mask >> l & 1) *static_cast<uint32_t*>(lanes[l].out) = total;
  return "";
}

}  // namespace

uint64_t shuffle(const char* op, Shuffle mode, unsigned mask, uint64_t bits, int size, int arg, int width) {
  if (width < 1 || width > int(kLanes) || (width & (width - 1)) != 0) {
    // Resolved as a collective all the same, so the error names the warp and the mask.
    const WarpLane mine{&bits, &bits, arg};
    warp_collective(op, mask, 0, [](const WarpLane*, unsigned, uint64_t) -> std::string {
      return "width must be a power of 2 from 1 to 32";
    }, mine);
    return bits;
  }
  uint64_t result = 0;
  warp_collective(op, mask, shuffle_agree(mode, size, width), resolve_shuffle, WarpLane{&bits, &result, arg});
  return result;
}

unsigned ballot(const char* op, unsigned mask, int predicate) {
  unsigned votes = 0;
  warp_collective(op, mask, 0, resolve_ballot, WarpLane{&predicate, &votes, 0});
  return votes;
}

uint32_t reduce(const char* op, unsigned mask, uint32_t value, bool is_signed) {
  const std::string name = op;
  const Reduce kind = name == "__reduce_add_sync" ? Reduce::Add
                      : name == "__reduce_min_sync" ? Reduce::Min
                                                    : Reduce::Max;
  uint32_t total = 0;
  warp_collective(op, mask, uint64_t(kind) << 1 | uint64_t(is_signed), resolve_reduce, WarpLane{&value, &total, 0});
  return total;
}

}  // namespace ember::cuda::emu
