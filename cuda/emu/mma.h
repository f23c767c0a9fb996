// Refuses nvcuda::wmma under -DEMBER_CUDA=EMULATE: its fragments' layout is opaque (left to each
// architecture), so the CPU emulator cannot say which lane holds what (docs/GPU.md, "The CPU
// emulator"). Tensor-core code goes through cuda/mma_sync.cuh instead: mma.sync m16n8k16, whose
// fragments the PTX ISA defines, runs on a GPU and in the emulator alike.
#pragma once
#error "the CUDA emulator (cuda/emu) cannot model <mma.h> (wmma, tensor cores): its fragment layout is opaque; use cuda/mma_sync.cuh (mma_m16n8k16), which the emulator runs, or test this kernel on a GPU"
