// Refuses tensor-core code under -DEMBER_CUDA=EMULATE: nvcuda::wmma needs warps and matrix units, which
// the CPU emulator does not have (docs/GPU.md, "The CPU emulator"). A kernel that includes <mma.h>
// fails to compile there instead of passing untested; test it on a GPU (scripts/gpu_bundle.sh).
#pragma once
#error "the CUDA emulator (cuda/emu) cannot model <mma.h> (wmma, tensor cores): it has no warps; test this kernel on a GPU"
