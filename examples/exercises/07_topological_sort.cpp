// Exercise 7: the topological sort of a tiny engine (exercises.h's Graph, a scalar engine like
// micrograd's). Backward visits values in reverse of this order, so each value's grad is complete
// before its local() passes it on. Visit each value once, even one used twice (a diamond).
#include "exercises.h"

namespace ember::exercises {

std::vector<Value*> topological_order([[maybe_unused]] Value* root) {
  // your sort here: parents before children, root last, each value once
  return {};
}

}  // namespace ember::exercises
