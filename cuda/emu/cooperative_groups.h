// Refuses cooperative groups under -DEMBER_CUDA=EMULATE: the CPU emulator models warps through the
// warp intrinsics only, not thread groups, and grid-wide sync needs blocks that run at the same time,
// which it does not have (docs/GPU.md, "The CPU emulator"). A kernel that includes <cooperative_groups.h> fails to compile there instead of passing.
#pragma once
#error "the CUDA emulator (cuda/emu) cannot model <cooperative_groups.h>: it has no thread groups and runs one block at a time; use the warp intrinsics (__shfl_sync, ...), which it models, or test this kernel on a GPU"
