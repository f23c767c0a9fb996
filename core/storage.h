// Storage: a reference-counted block of bytes on one device, shared by a tensor and its views.
//
// The version counter lives here because every view of a tensor shares its storage: an
// in-place write through any view bumps the one counter that autograd's saved tensors check.
// Bytes come from the device's backend allocator (core/backend.h); storage never frees
// memory it did not allocate unless given a deleter (from_blob).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/device.h"

namespace ember {

struct StorageImpl {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  uint32_t version = 0;                // bumped by every in-place write
  std::function<void(void*)> deleter;  // returns `data` to whoever allocated it

  StorageImpl(void* d, size_t n, Device dev, std::function<void(void*)> del)
      : data(d), nbytes(n), device(dev), deleter(std::move(del)) {}
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl() {
    if (deleter) deleter(data);
  }
};

using Storage = std::shared_ptr<StorageImpl>;

// Allocates `nbytes` on `device` through its backend.
Storage make_storage(size_t nbytes, Device device);

// Debug statistic: bytes held right now by storages from make_storage (all devices; from_blob
// memory is not counted). Tests use it to show that training steps do not leak.
int64_t storage_bytes_in_use();

}  // namespace ember
