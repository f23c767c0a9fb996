// Warp-level matrix multiply-accumulate on tensor cores: PTX's mma.sync m16n8k16, bf16 or f16 inputs,
// float32 accumulators. One call by all 32 lanes of a warp computes D (16x8) = A (16x16) B (16x8) + C.
//
//   using namespace ember::cuda;
//   const unsigned lane = threadIdx.x % 32;
//   MmaA a = load_mma_a<MmaInput::BF16>(A, lda, lane);  // A: 16x16 floats, row-major, rounded to bf16
//   MmaB b = load_mma_b<MmaInput::BF16>(B, ldb, lane);  // B: 16x8 floats, row-major (k, n)
//   MmaC c = load_mma_c(C, ldc, lane);                  // C: 16x8 floats, row-major
//   store_mma_c(D, ldd, mma_m16n8k16<MmaInput::BF16>(a, b, c), lane);
//
// Fragments are the registers PTX defines ("Matrix Fragments for mma.m16n8k16 with floating point
// type"), with g = lane >> 2 and t = lane % 4: A is 4 b32 registers, each two elements of one row,
// (g, 2t), (g + 8, 2t), (g, 2t + 8), (g + 8, 2t + 8) and the next column; B is 2, elements (2t, g) and
// (2t + 8, g) with the next row; C and D are 4 floats, (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
// A register holds its first element in the low 16 bits. Under nvcc (sm_80 and later) the product is
// the mma.sync instruction. Under the CPU emulator the warp's fragments meet in a warp collective
// (every lane must call it, the warp must be whole) and each element is computed as
//   d = c; for k = 0..15: d = float32(d + a[m][k] * b[k][n])
// in that order: each product of two bf16 or f16 values is exact in float32, so only the 16 additions
// round (to nearest even). A GPU's adder tree orders and rounds them its own way, so results agree to
// float32 rounding of the sum, not bit for bit. Not here: ldmatrix, other shapes, f16 accumulators.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "cuda/reduced_float.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "cuda/mma_sync.cuh: mma.sync m16n8k16 with bf16 needs sm_80 or later"
#endif

namespace ember::cuda {

enum class MmaInput { BF16, F16 };

struct MmaA {
  uint32_t x[4];  // 8 elements of A (16x16, row-major) per lane
};
struct MmaB {
  uint32_t x[2];  // 4 elements of B (16x8, "col": consecutive k in a register) per lane
};
struct MmaC {
  float x[4];  // 4 elements of C or D (16x8) per lane
};

// ---- bf16 and f16 bits, rounded to nearest even: the device types' conversions (cuda/reduced_float.h),
// which are ember::BFloat16's and ember::Half's bit for bit ----
__host__ __device__ inline uint16_t round_to_bf16(float f) { return DeviceBFloat16::round_from_float(f); }
__host__ __device__ inline uint16_t round_to_f16(float f) { return DeviceHalf::round_from_float(f); }
__host__ __device__ inline float bf16_to_float(uint16_t h) { return DeviceBFloat16::to_float(h); }
__host__ __device__ inline float f16_to_float(uint16_t h) { return DeviceHalf::to_float(h); }

template <MmaInput T>
__host__ __device__ inline uint16_t round_to_input(float f) {
  return T == MmaInput::BF16 ? round_to_bf16(f) : round_to_f16(f);
}
template <MmaInput T>
__host__ __device__ inline float input_to_float(uint16_t h) {
  return T == MmaInput::BF16 ? bf16_to_float(h) : f16_to_float(h);
}

// Two floats as one bf16x2 / f16x2 register: `lo` in bits 0-15, `hi` in bits 16-31.
template <MmaInput T>
__host__ __device__ inline uint32_t pack_x2(float lo, float hi) {
  return uint32_t(round_to_input<T>(lo)) | uint32_t(round_to_input<T>(hi)) << 16;
}
__host__ __device__ inline uint32_t pack_bf16x2(float lo, float hi) { return pack_x2<MmaInput::BF16>(lo, hi); }
__host__ __device__ inline uint32_t pack_f16x2(float lo, float hi) { return pack_x2<MmaInput::F16>(lo, hi); }

// ---- fragments from and to row-major tiles ----
// The element (row, col) of tile A, B or C/D that register `r` (and, for A and B, half `h`) of `lane`
// holds: the PTX ISA's layout, written once so that loads, stores and the emulator agree.
__host__ __device__ inline void mma_a_position(unsigned lane, int r, int h, int& row, int& col) {
  row = int(lane >> 2) + 8 * (r & 1);
  col = 2 * int(lane & 3) + 8 * (r >> 1) + h;
}
__host__ __device__ inline void mma_b_position(unsigned lane, int r, int h, int& row, int& col) {
  row = 2 * int(lane & 3) + 8 * r + h;
  col = int(lane >> 2);
}
__host__ __device__ inline void mma_c_position(unsigned lane, int i, int& row, int& col) {
  row = int(lane >> 2) + 8 * (i >> 1);
  col = 2 * int(lane & 3) + (i & 1);
}

// A: 16x16 row-major floats at A[row * lda + col], rounded to T.
template <MmaInput T>
__device__ inline MmaA load_mma_a(const float* A, int lda, unsigned lane) {
  MmaA a;
  for (int r = 0; r < 4; ++r) {
    int row, col;
    mma_a_position(lane, r, 0, row, col);
    a.x[r] = pack_x2<T>(A[row * lda + col], A[row * lda + col + 1]);
  }
  return a;
}

// B: 16x8 row-major floats at B[k * ldb + n], rounded to T.
template <MmaInput T>
__device__ inline MmaB load_mma_b(const float* B, int ldb, unsigned lane) {
  MmaB b;
  for (int r = 0; r < 2; ++r) {
    int row, col;
    mma_b_position(lane, r, 0, row, col);
    b.x[r] = pack_x2<T>(B[row * ldb + col], B[(row + 1) * ldb + col]);
  }
  return b;
}

// C: 16x8 row-major floats at C[row * ldc + col].
__device__ inline MmaC load_mma_c(const float* C, int ldc, unsigned lane) {
  MmaC c;
  for (int i = 0; i < 4; ++i) {
    int row, col;
    mma_c_position(lane, i, row, col);
    c.x[i] = C[row * ldc + col];
  }
  return c;
}

__device__ inline void store_mma_c(float* D, int ldd, const MmaC& d, unsigned lane) {
  for (int i = 0; i < 4; ++i) {
    int row, col;
    mma_c_position(lane, i, row, col);
    D[row * ldd + col] = d.x[i];
  }
}

#ifdef EMBER_CUDA_EMULATE
namespace mma_emulated {

struct Operands {
  MmaA a;
  MmaB b;
  MmaC c;
};

// Runs once for the whole warp (cuda/emu/scheduler.cpp): rebuilds A, B and C from the 32 lanes'
// fragments, then writes each lane's D elements.
template <MmaInput T>
std::string resolve(const emu::WarpLane* lanes, unsigned, uint64_t) {
  float A[16][16], B[16][8], C[16][8];
  for (unsigned lane = 0; lane < 32; ++lane) {
    const Operands& o = *static_cast<const Operands*>(lanes[lane].in);
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h) {
        int row, col;
        mma_a_position(lane, r, h, row, col);
        A[row][col] = input_to_float<T>(uint16_t(o.a.x[r] >> (16 * h)));
      }
    for (int r = 0; r < 2; ++r)
      for (int h = 0; h < 2; ++h) {
        int row, col;
        mma_b_position(lane, r, h, row, col);
        B[row][col] = input_to_float<T>(uint16_t(o.b.x[r] >> (16 * h)));
      }
    for (int i = 0; i < 4; ++i) {
      int row, col;
      mma_c_position(lane, i, row, col);
      C[row][col] = o.c.x[i];
    }
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    MmaC& d = *static_cast<MmaC*>(lanes[lane].out);
    for (int i = 0; i < 4; ++i) {
      int m, n;
      mma_c_position(lane, i, m, n);
      float sum = C[m][n];
      for (int k = 0; k < 16; ++k) sum += A[m][k] * B[k][n];  // the product is exact in float32
      d.x[i] = sum;
    }
  }
  return "";
}

}  // namespace mma_emulated
#endif

// D = A B + C for the warp's 16x16 A, 16x8 B and 16x8 C; all 32 lanes must call it together.
template <MmaInput T>
__device__ inline MmaC mma_m16n8k16(const MmaA& a, const MmaB& b, const MmaC& c) {
  MmaC d;
#ifdef EMBER_CUDA_EMULATE
  const mma_emulated::Operands mine{a, b, c};
  emu::warp_collective(T == MmaInput::BF16 ? "mma.sync.m16n8k16 (bf16)" : "mma.sync.m16n8k16 (f16)", 0xffffffffu, 0,
                       mma_emulated::resolve<T>, emu::WarpLane{&mine, &d, 0});
#else
  if constexpr (T == MmaInput::BF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d.x[0]), "=f"(d.x[1]), "=f"(d.x[2]), "=f"(d.x[3])
        : "r"(a.x[0]), "r"(a.x[1]), "r"(a.x[2]), "r"(a.x[3]), "r"(b.x[0]), "r"(b.x[1]), "f"(c.x[0]), "f"(c.x[1]),
          "f"(c.x[2]), "f"(c.x[3]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d.x[0]), "=f"(d.x[1]), "=f"(d.x[2]), "=f"(d.x[3])
        : "r"(a.x[0]), "r"(a.x[1]), "r"(a.x[2]), "r"(a.x[3]), "r"(b.x[0]), "r"(b.x[1]), "f"(c.x[0]), "f"(c.x[1]),
          "f"(c.x[2]), "f"(c.x[3]));
  }
#endif
  return d;
}

}  // namespace ember::cuda
