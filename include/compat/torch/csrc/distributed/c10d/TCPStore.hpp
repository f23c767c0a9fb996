// libtorch's <torch/csrc/distributed/c10d/TCPStore.hpp>: c10d::TCPStore is in Store.hpp.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>
