// Where a tensor's bytes live: the CPU, or a CUDA device with an index.
//
// Mirrors torch::Device: Device(kCUDA, 1), Device("cuda:1"), kCPU. Which kernels run for a
// device is decided in exactly one place, backend_for() in core/backend.h.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU, CUDA };

inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;

  Device() = default;
  Device(DeviceType t, int i = 0) : type(t), index(i) {}  // NOLINT: implicit like torch::Device
  explicit Device(const std::string& spec);               // "cpu", "cuda", "cuda:1"

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && (is_cpu() || index == o.index); }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
