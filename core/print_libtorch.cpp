// libtorch's C++ tensor format (ATen's Formatting.cpp in torch 1.13), for Ember::torch_compat:
//
//    0.4963  0.7682
//    0.0885  0.1320
//   [ CPUFloatType{2,2} ]
//
// One format is chosen per matrix from its values: integers ("  3"), fixed with 4 decimals, fixed
// with a common power-of-ten factor printed above the values ("0.001 *"), or scientific. Wide
// matrices are cut into "Columns a to b" blocks of a fixed line size, and tensors of 3 or more dims
// print one "(i,j,.,.) = " matrix at a time. The quirks of the original are kept on purpose (no
// newline after "Columns a to b", one extra blank before the later rows of a scaled matrix, the
// signed comparison that picks the largest exponent), because the point of this format is output
// that compares line by line with libtorch's. Checked by tests/compat/programs/printing.cpp.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <vector>

#include "core/print.h"

namespace ember {
namespace {

// Restores the stream's flags and precision on scope exit (the format setters below change them).
class StreamStateGuard {
 public:
  explicit StreamStateGuard(std::ostream& os) : os_(os), flags_(os.flags()), precision_(os.precision()) {}
  ~StreamStateGuard() {
    os_.flags(flags_);
    os_.precision(precision_);
  }
  StreamStateGuard(const StreamStateGuard&) = delete;
  StreamStateGuard& operator=(const StreamStateGuard&) = delete;

 private:
  std::ostream& os_;
  std::ios_base::fmtflags flags_;
  std::streamsize precision_;
};

// A row-major block of values: the whole tensor, or one matrix of it.
struct Values {
  const double* data;
  int64_t rows;
  int64_t cols;
  int64_t size() const { return rows * cols; }
};

// Number of digits before the decimal point of |v| (1 for 0): floor(log10|v|) + 1.
double digits_before_point(double magnitude) { return magnitude != 0 ? std::floor(std::log10(magnitude)) + 1 : 1; }

// How the values of one matrix (or vector) are written: the stream's mode is set here, and the
// caller divides each value by `scale` and pads it to `width`.
struct NumberLayout {
  double scale = 1;
  int64_t width = 0;
};

NumberLayout choose_layout(std::ostream& os, const Values& v) {
  constexpr int kDecimals = 4;
  constexpr int64_t kScientificWidth = 11;  // "-1.2345e+05"
  const int64_t n = v.size();
  bool int_mode = true;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isfinite(v.data[i]) && v.data[i] != std::ceil(v.data[i])) {
      int_mode = false;
      break;
    }
  }
  // Digit counts of the smallest and the largest finite magnitudes. As in libtorch, the largest is
  // updated only when the signed value exceeds the current largest magnitude.
  int64_t first = 0;
  while (first < n && !std::isfinite(v.data[first])) ++first;
  double exp_min = 1;
  double exp_max = 1;
  if (first < n) {
    double lo = std::fabs(v.data[first]);
    double hi = lo;
    for (int64_t i = first; i < n; ++i) {
      double z = std::fabs(v.data[i]);
      if (!std::isfinite(z)) continue;
      if (z < lo) lo = z;
      if (v.data[i] > hi) hi = z;
    }
    exp_min = digits_before_point(lo);
    exp_max = digits_before_point(hi);
  }

  NumberLayout layout;
  if (int_mode) {
    if (exp_max > 9) {
      layout.width = kScientificWidth;
      os << std::scientific << std::setprecision(kDecimals);
    } else {
      layout.width = static_cast<int64_t>(exp_max) + 1;
      os << std::defaultfloat;
    }
  } else if (exp_max - exp_min > 4) {
    layout.width = kScientificWidth;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) ++layout.width;  // three-digit exponents
    os << std::scientific << std::setprecision(kDecimals);
  } else if (exp_max > 5 || exp_max < 0) {
    layout.width = 7;  // "-1.2345", after dividing by the common factor
    layout.scale = std::pow(10, exp_max - 1);
    os << std::fixed << std::setprecision(kDecimals);
  } else {
    layout.width = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
    os << std::fixed << std::setprecision(kDecimals);
  }
  return layout;
}

void print_indent(std::ostream& os, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) os << ' ';
}

// The common factor line, "0.001 *", in the stream's default float format.
void print_scale(std::ostream& os, double scale) {
  StreamStateGuard guard(os);
  os << std::defaultfloat << scale << " *" << std::endl;
}

// A matrix in blocks of as many columns as fit in `linesize` characters.
void print_matrix(std::ostream& os, const Values& m, int64_t linesize, int64_t indent) {
  const NumberLayout layout = choose_layout(os, m);
  const int64_t per_line = (linesize - indent) / (layout.width + 1);
  print_indent(os, indent);
  for (int64_t first = 0; first < m.cols;) {
    const int64_t last = std::min(first + per_line, m.cols) - 1;
    if (per_line < m.cols) {
      if (first != 0) os << std::endl;
      os << "Columns " << first + 1 << " to " << last + 1;  // no newline: libtorch's layout
      print_indent(os, indent);
    }
    if (layout.scale != 1) {
      print_scale(os, layout.scale);
      print_indent(os, indent);
    }
    for (int64_t r = 0; r < m.rows; ++r) {
      const double* row = m.data + r * m.cols;
      for (int64_t c = first; c <= last; ++c) {
        os << std::setw(static_cast<int>(layout.width)) << row[c] / layout.scale;
        if (c != last) {
          os << ' ';
          continue;
        }
        os << std::endl;
        if (r != m.rows - 1) {
          print_indent(os, indent);
          if (layout.scale != 1) os << ' ';  // rows after the first of a scaled block sit one further right
        }
      }
    }
    first = last + 1;
  }
}

// Dims 0..D-3 counted with the first dim fastest, as libtorch walks them; one matrix each.
void print_matrices(std::ostream& os, const std::vector<double>& data, IntArrayRef sizes, int64_t linesize) {
  const int64_t outer = static_cast<int64_t>(sizes.size()) - 2;
  const int64_t rows = sizes[outer];
  const int64_t cols = sizes[outer + 1];
  std::vector<int64_t> counter(static_cast<size_t>(outer), 0);
  bool first_matrix = true;
  while (true) {
    if (!first_matrix) {
      int64_t d = 0;
      while (d < outer && ++counter[d] == sizes[d]) counter[d++] = 0;
      if (d == outer) break;
      os << std::endl;
    }
    first_matrix = false;
    os << "(";
    int64_t offset = 0;  // row-major offset of the matrix
    for (int64_t d = 0; d < outer; ++d) {
      os << counter[d] + 1 << ",";
      offset = offset * sizes[d] + counter[d];
    }
    os << ".,.) = " << std::endl;
    print_matrix(os, Values{data.data() + offset * rows * cols, rows, cols}, linesize, 1);
  }
}

}  // namespace

void print_libtorch(std::ostream& os, const Tensor& t, int64_t linesize) {
  StreamStateGuard guard(os);
  if (!t.defined()) {
    os << "[ Tensor (undefined) ]";
    return;
  }
  const std::vector<double> data = t.to_vector<double>();
  const IntArrayRef sizes = t.sizes();
  if (t.dim() == 0) {
    os << std::defaultfloat << data[0] << std::endl;
  } else if (t.numel() > 0 && t.dim() == 1) {
    const NumberLayout layout = choose_layout(os, Values{data.data(), 1, t.numel()});
    if (layout.scale != 1) print_scale(os, layout.scale);
    for (double v : data) os << std::setw(static_cast<int>(layout.width)) << v / layout.scale << std::endl;
  } else if (t.numel() > 0 && t.dim() == 2) {
    print_matrix(os, Values{data.data(), sizes[0], sizes[1]}, linesize, 0);
  } else if (t.numel() > 0) {
    print_matrices(os, data, sizes, linesize);
  }
  os << "[ " << t.toString() << "{";
  for (size_t d = 0; d < sizes.size(); ++d) os << (d ? "," : "") << sizes[d];
  os << "} ]";
}

}  // namespace ember
