// c10::Error and torch::Error: what a libtorch program catches, from TORCH_CHECK and from the library.
#include <iostream>
#include <string>

#include <torch/torch.h>

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

void positive(double v) { TORCH_CHECK(v > 0, "expected a positive value, got ", v, " (", v * 2, " doubled)"); }
void bare(bool ok) { TORCH_CHECK(ok); }
int internal(int v) {
  TORCH_INTERNAL_ASSERT(v < 10, "v was ", v);
  return v;
}

int main() {
  try {
    positive(-2.5);
  } catch (const c10::Error& e) {
    std::cout << "c10::Error: " << first_line(e.what()) << '\n';
    std::cout << "without backtrace: " << e.what_without_backtrace() << '\n';
  }
  try {
    bare(false);
  } catch (const c10::Error& e) {
    std::cout << "c10::Error: " << first_line(e.what()) << '\n';
  }
  try {
    positive(1.0);
    std::cout << "no error for 1.0\n";
  } catch (const c10::Error& e) {
    std::cout << "unexpected\n";
  }
  try {
    internal(12);
  } catch (const c10::Error& e) {
    const std::string m = first_line(e.what());
    std::cout << "internal assert: " << (m.find("v < 10 INTERNAL ASSERT FAILED at ") == 0) << ' '
              << (m.find("please report a bug to PyTorch. v was 12") != std::string::npos) << '\n';
  }
  // Errors raised by the library itself are c10::Error / torch::Error too.
  try {
    torch::ones({2, 3}).matmul(torch::ones({2, 3}));
  } catch (const torch::Error& e) {
    std::cout << "matmul shape mismatch: torch::Error\n";
  }
  try {
    torch::ones({2}).view({3});
  } catch (const std::exception& e) {  // libtorch 1.13 throws a std::runtime_error here
    std::cout << "bad view: caught\n";
  }
  try {
    torch::ones({2}).backward();
  } catch (const std::exception& e) {
    std::cout << "backward without grad: std::exception: " << first_line(e.what()) << '\n';
  }
  // An error inside a custom check, rethrown as std::exception.
  try {
    try {
      positive(0);
    } catch (const c10::Error&) {
      throw;
    }
  } catch (const std::exception& e) {
    std::cout << "rethrown: " << first_line(e.what()) << '\n';
  }
}
