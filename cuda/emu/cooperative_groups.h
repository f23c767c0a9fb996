// Refuses cooperative groups under -DEMBER_CUDA=EMULATE: tiled partitions are warps, and grid-wide
// sync needs blocks that run at the same time; the CPU emulator has neither (docs/GPU.md, "The CPU
// emulator"). A kernel that includes <cooperative_groups.h> fails to compile there instead of passing.
#pragma once
#error "the CUDA emulator (cuda/emu) cannot model <cooperative_groups.h>: it has no warps and runs one block at a time; test this kernel on a GPU"
