// Shared test helpers (see test_util.h).
#include "test_util.h"

#include <cmath>
#include <sstream>

namespace ember::test {

::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (!actual.defined() || !expected.defined())
    return ::testing::AssertionFailure() << "undefined tensor (actual defined: " << actual.defined()
                                         << ", expected defined: " << expected.defined() << ")";
  if (!(actual.sizes() == expected.sizes()))
    return ::testing::AssertionFailure() << "shape mismatch: actual " << shape_str(actual.sizes()) << " vs expected "
                                         << shape_str(expected.sizes());
  std::vector<double> a = actual.to_vector<double>(), e = expected.to_vector<double>();
  double worst = 0;
  size_t worst_i = 0;
  bool ok = true;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
    const bool same_inf = std::isinf(a[i]) && a[i] == e[i];
    if (both_nan || same_inf) continue;
    double diff = std::abs(a[i] - e[i]);
    if (!(diff <= atol + rtol * std::abs(e[i]))) ok = false;
    if (!(diff <= worst)) {
      worst = diff;
      worst_i = i;
    }
  }
  if (ok) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << "tensors differ (shape " << shape_str(actual.sizes()) << ", rtol " << rtol << ", atol " << atol << ")\n";
  os << "  largest difference " << worst << " at flat index " << worst_i << ": actual " << a[worst_i] << ", expected "
     << e[worst_i] << "\n  first values: actual [";
  for (size_t i = 0; i < std::min<size_t>(a.size(), 6); ++i) os << (i ? ", " : "") << a[i];
  os << "], expected [";
  for (size_t i = 0; i < std::min<size_t>(e.size(), 6); ++i) os << (i ? ", " : "") << e[i];
  os << "]";
  return ::testing::AssertionFailure() << os.str();
}

::testing::AssertionResult throws_with(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
  } catch (const Error& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message \"" << e.what() << "\" does not contain \"" << needle << "\"";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-ember exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw (expected a message containing \"" << needle << "\")";
}

}  // namespace ember::test
