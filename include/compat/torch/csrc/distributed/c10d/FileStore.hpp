// libtorch's <torch/csrc/distributed/c10d/FileStore.hpp>: c10d::FileStore is in Store.hpp.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>
