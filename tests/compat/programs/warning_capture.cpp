// TORCH_WARN / TORCH_WARN_ONCE captured by a warning handler, as tests of libtorch code do.
#include <iostream>
#include <string>
#include <vector>

#include <torch/torch.h>

struct CaptureWarnings : public c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::SourceLocation& source_location, const std::string& msg, const bool verbatim) override {
    messages.push_back(msg);
  }
};

void check_shape(const torch::Tensor& t) {
  if (t.dim() != 2) TORCH_WARN("expected a 2-D tensor, got ", t.dim(), "-D with ", t.numel(), " elements");
}

void deprecated_api() { TORCH_WARN_ONCE("deprecated_api() is deprecated; use new_api()"); }

int main() {
  CaptureWarnings handler;
  {
    c10::Warning::WarningHandlerGuard guard(&handler);
    check_shape(torch::ones({2, 3}));
    check_shape(torch::ones({4}));
    check_shape(torch::ones({1, 2, 3}));
    for (int i = 0; i < 3; ++i) deprecated_api();
    TORCH_WARN("value ", 1.5, ' ', true, ' ', std::string("text"));
  }
  std::cout << handler.messages.size() << " warnings captured\n";
  for (const std::string& m : handler.messages) std::cout << "  " << m << '\n';

  // warnAlways turns TORCH_WARN_ONCE into TORCH_WARN.
  CaptureWarnings always;
  {
    c10::Warning::WarningHandlerGuard guard(&always);
    c10::Warning::set_warnAlways(true);
    for (int i = 0; i < 3; ++i) deprecated_api();
    c10::Warning::set_warnAlways(false);
    for (int i = 0; i < 3; ++i) deprecated_api();
  }
  std::cout << always.messages.size() << " with warnAlways\n";

  // After the guard, the handler is no longer called.
  check_shape(torch::ones({5}));
  std::cout << handler.messages.size() << " after the guard\n";
  std::cout << "handler restored: " << (c10::Warning::get_warning_handler() != &handler) << '\n';
}
