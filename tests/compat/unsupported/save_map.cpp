// torch::save of a value Ember cannot save stops the build with a message naming what it can save.
// expect: torch::save: Ember saves a Tensor
#include <map>

#include <torch/torch.h>

int main() {
  std::map<std::string, double> values{{"lr", 0.1}};
  torch::save(values, "values.pt");
}
