// <ATen/autocast_mode.h> for programs built against Ember: libtorch 1.13 declares its autocast
// switches there (at::autocast::set_enabled / is_enabled and set_autocast_gpu_dtype /
// get_autocast_gpu_dtype for CUDA, set_cpu_enabled, set_autocast_cpu_dtype, is_cpu_enabled,
// get_autocast_cpu_dtype for the CPU, clear_cache, increment_nesting, decrement_nesting). In Ember
// they are the static members of ember::autocast (autograd/autocast.h), which `at::` reaches through
// the `using namespace ember` of the compat header: the CPU with bfloat16, CUDA with float16 or
// bfloat16.
#pragma once

#include <torch/torch.h>
