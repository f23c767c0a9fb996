// Printing tensors in PyTorch's Python format (placeholder, replaced by the full formatter).
#include <iostream>

#include "core/tensor.h"

namespace ember {
std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  auto v = t.to_vector<double>();
  os << "tensor([";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os << "])";
}
}  // namespace ember
