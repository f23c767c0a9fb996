// Exercise 7: the topological sort of a tiny engine (exercises.h's Graph, a scalar engine like
// micrograd's). Backward visits values in reverse of this order, so each value's grad is complete
// before its local() passes it on. Visit each value once, even one used twice (a diamond).
// The reference solution (built with -DEMBER_EXERCISE_SOLUTIONS=ON); try it yourself first.
#include <functional>
#include <set>

#include "../exercises.h"

namespace ember::exercises {

// Depth first: a value goes into the order after all its parents have (post-order).
std::vector<Value*> topological_order(Value* root) {
  std::vector<Value*> order;
  std::set<Value*> visited;
  std::function<void(Value*)> visit = [&](Value* v) {
    if (!visited.insert(v).second) return;
    for (Value* p : v->parents) visit(p);
    order.push_back(v);
  };
  visit(root);
  return order;
}

}  // namespace ember::exercises
