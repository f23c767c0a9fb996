// operator<<(ostream, Tensor): PyTorch's Python repr, rule for rule from torch 1.13 _tensor_str.py.
//
// One _Formatter decides, from the elements that will be shown, between integer mode ("1."),
// fixed ("0.4419") and scientific ("1.0000e-05") and the common width; the recursive printer
// then lays out brackets, wrapping and "..." exactly as Python does. Only the shown elements are
// copied to the host (one strided view, one to_vector), so every device prints the same way and a
// huge tensor prints instantly. Not a general formatting library.
#include "core/print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "core/shape.h"
#include "core/trace.h"

namespace ember {
namespace {

PrintOptions g_options;
PrintStyle g_style = PrintStyle::Python;

// The elements that will be shown, in row-major order: doubles for floating dtypes, text otherwise.
struct Elements {
  bool floating = false;
  std::vector<double> values;      // floating dtypes
  std::vector<std::string> texts;  // int64 and bool, as Python's str() writes them
};

Elements read_elements(const Tensor& t) {
  Elements e;
  e.floating = t.is_floating_point();
  if (e.floating) {
    e.values = t.to_vector<double>();
  } else if (t.dtype() == kBool) {
    for (bool b : t.to_vector<bool>()) e.texts.emplace_back(b ? "True" : "False");
  } else {
    for (int64_t v : t.to_vector<int64_t>()) e.texts.push_back(std::to_string(v));
  }
  return e;
}

// Python's "{:.{p}f}" / "{:.{p}e}": nan prints without a sign, infinities as "inf".
std::string format_double(double v, int precision, char conversion) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char fmt_spec[8] = {'%', '.', '*', conversion, '\0'};
  int n = std::snprintf(nullptr, 0, fmt_spec, precision, v);
  std::string out(static_cast<size_t>(n), '\0');
  std::snprintf(out.data(), out.size() + 1, fmt_spec, precision, v);
  return out;
}

// torch._tensor_str._Formatter: built from the shown elements, formats one element padded to width().
class Formatter {
 public:
  Formatter(const Elements& e, const PrintOptions& opts) : floating_(e.floating), precision_(opts.precision) {
    if (!floating_) {
      for (const std::string& s : e.texts) max_width_ = std::max(max_width_, s.size());
      return;
    }
    std::vector<double> finite;  // nonzero finite values
    for (double v : e.values) {
      if (std::isfinite(v) && v != 0) finite.push_back(v);
    }
    if (finite.empty()) return;  // PyTorch returns before applying sci_mode here
    double lo = std::abs(finite[0]);
    double hi = lo;
    for (double v : finite) {
      lo = std::min(lo, std::abs(v));
      hi = std::max(hi, std::abs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    bool wide_range = hi / lo > 1000.0 || hi > 1.0e8;
    sci_mode_ = int_mode_ ? wide_range : wide_range || lo < 1.0e-4;
    for (double v : finite) {
      size_t len = sci_mode_   ? format_double(v, precision_, 'e').size()
                   : int_mode_ ? format_double(v, 0, 'f').size() + 1
                               : format_double(v, precision_, 'f').size();
      max_width_ = std::max(max_width_, len);
    }
    if (opts.sci_mode) sci_mode_ = *opts.sci_mode;
  }

  size_t width() const { return max_width_; }

  std::string format(const Elements& e, int64_t i) const {
    std::string s;
    if (!floating_) {
      s = e.texts[i];
    } else if (sci_mode_) {
      s = format_double(e.values[i], precision_, 'e');
    } else if (int_mode_) {
      s = format_double(e.values[i], 0, 'f');
      if (std::isfinite(e.values[i])) s += '.';
    } else {
      s = format_double(e.values[i], precision_, 'f');
    }
    return s.size() < max_width_ ? std::string(max_width_ - s.size(), ' ') + s : s;
  }

 private:
  bool floating_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

// Which dims are summarised: all long dims, once numel() exceeds the threshold.
std::vector<bool> summarised_dims(const Tensor& t, const PrintOptions& opts) {
  const bool summarize = static_cast<double>(t.numel()) > opts.threshold;
  std::vector<bool> out;
  for (int64_t n : t.sizes()) out.push_back(summarize && n > 2 * static_cast<int64_t>(opts.edgeitems));
  return out;
}

// A view of just the shown elements (PyTorch's get_summarized_data, without copying the middle):
// a summarised dim of size n and stride s becomes two dims (2, edge) with strides ((n - edge) * s, s).
Tensor shown_view(const Tensor& t, const std::vector<bool>& summarised, int64_t edge) {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (summarised[d]) {
      sizes.push_back(2);
      strides.push_back((t.size(d) - edge) * t.stride(d));
      sizes.push_back(edge);
    } else {
      sizes.push_back(t.size(d));
    }
    strides.push_back(t.stride(d));
  }
  return raw_view(t, sizes, strides, t.storage_offset());
}

// Lays out the shown elements (row-major, summarised dims holding 2 * edgeitems rows) with
// brackets, wrapping and "..." where the middle rows were dropped.
class Printer {
 public:
  Printer(const Elements& e, std::vector<int64_t> sizes, std::vector<bool> summarised, const PrintOptions& opts)
      : e_(e), sizes_(std::move(sizes)), strides_(sizes_.size(), 1), summarised_(std::move(summarised)), opts_(opts) {
    for (int64_t d = static_cast<int64_t>(sizes_.size()) - 2; d >= 0; --d)
      strides_[d] = strides_[d + 1] * sizes_[d + 1];
  }

  std::string str(const Formatter& f, size_t d, int64_t offset, int64_t indent) const {
    if (d == sizes_.size()) return f.format(e_, offset);
    if (d + 1 == sizes_.size()) return vector_str(f, d, offset, indent);
    // Between slices: one blank line per remaining dim, then the indent (PyTorch's join string).
    std::string sep(1, ',');
    sep.append(sizes_.size() - d - 1, '\n');
    sep.append(static_cast<size_t>(indent + 1), ' ');
    std::string out = "[";
    bool first = true;
    for (int64_t i : rows(d)) {
      if (!first) out += sep;
      first = false;
      if (i < 0) {
        out += "...";
      } else {
        out += str(f, d + 1, offset + i * strides_[d], indent + 1);
      }
    }
    return out + "]";
  }

 private:
  // Row indices of dim d in display order; -1 marks the "..." between the two edges.
  std::vector<int64_t> rows(size_t d) const {
    std::vector<int64_t> r;
    for (int64_t i = 0; i < sizes_[d]; ++i) {
      if (summarised_[d] && i == sizes_[d] / 2) r.push_back(-1);
      r.push_back(i);
    }
    return r;
  }

  // _vector_str: as many elements per line as fit in linewidth - indent.
  std::string vector_str(const Formatter& f, size_t d, int64_t offset, int64_t indent) const {
    double element_length = static_cast<double>(f.width() + 2);
    auto per_line = std::max<int64_t>(
        1, static_cast<int64_t>(std::floor(static_cast<double>(opts_.linewidth - indent) / element_length)));
    std::vector<std::string> data;
    for (int64_t i : rows(d)) data.push_back(i < 0 ? " ..." : f.format(e_, offset + i * strides_[d]));
    std::string out = "[";
    for (size_t i = 0; i < data.size(); ++i) {
      if (i > 0) out += i % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
      out += data[i];
    }
    return out + "]";
  }

  const Elements& e_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  std::vector<bool> summarised_;
  const PrintOptions& opts_;
};

// _add_suffixes: ", suffix" on the last line while it fits in linewidth, else a new line.
std::string add_suffixes(const std::string& body, const std::vector<std::string>& suffixes, int64_t indent,
                         int64_t linewidth) {
  std::string out = body;
  size_t nl = body.rfind('\n');
  auto last_line_len =
      static_cast<int64_t>(body.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& s : suffixes) {
    auto len = static_cast<int64_t>(s.size());
    if (last_line_len + len + 2 > linewidth) {
      out += ",\n" + std::string(indent, ' ') + s;
      last_line_len = indent + len;
    } else {
      out += ", " + s;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

// Python's str(tuple): (0,) for one element, (2, 0) otherwise.
std::string tuple_str(IntArrayRef sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

void set_printoptions(std::optional<int> precision, std::optional<double> threshold, std::optional<int> edgeitems,
                      std::optional<int> linewidth, std::optional<bool> sci_mode) {
  EMBER_CHECK(!precision || *precision >= 0, "set_printoptions: precision must be >= 0, got {}", *precision);
  EMBER_CHECK(!edgeitems || *edgeitems >= 1, "set_printoptions: edgeitems must be >= 1, got {}", *edgeitems);
  if (precision) g_options.precision = *precision;
  if (threshold) g_options.threshold = *threshold;
  if (edgeitems) g_options.edgeitems = *edgeitems;
  if (linewidth) g_options.linewidth = *linewidth;
  g_options.sci_mode = sci_mode;
}

void set_printoptions(const PrintOptions& options) {
  set_printoptions(options.precision, options.threshold, options.edgeitems, options.linewidth, options.sci_mode);
}

PrintOptions get_printoptions() { return g_options; }

void set_print_style(PrintStyle style) { g_style = style; }
PrintStyle get_print_style() { return g_style; }

std::string to_string(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  trace::Quiet quiet;  // the copies made to print are not the program's kernels
  if (g_style == PrintStyle::LibTorch) {
    print_libtorch(os, t);
    return os;
  }
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  const std::string prefix = "tensor(";
  const auto indent = static_cast<int64_t>(prefix.size());
  const PrintOptions& opts = g_options;
  std::vector<std::string> suffixes;
  if (!t.is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  std::string body;
  std::string dtype_suffix = "dtype=torch." + std::string(dtype_name(t.dtype()));
  if (t.numel() == 0) {
    // No elements to infer the dtype from, so every non-default dtype is named.
    if (t.dim() != 1) suffixes.push_back("size=" + tuple_str(t.sizes()));
    if (t.dtype() != kFloat32) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    if (t.dtype() != kFloat32 && t.dtype() != kInt64 && t.dtype() != kBool) suffixes.push_back(dtype_suffix);
    std::vector<bool> summarised = summarised_dims(t, opts);
    std::vector<int64_t> shown_sizes = t.sizes().vec();
    for (size_t d = 0; d < shown_sizes.size(); ++d) {
      if (summarised[d]) shown_sizes[d] = 2 * static_cast<int64_t>(opts.edgeitems);
    }
    Elements e = read_elements(shown_view(t, summarised, opts.edgeitems));
    Formatter formatter(e, opts);
    Printer printer(e, shown_sizes, summarised, opts);
    body = printer.str(formatter, 0, 0, indent);
  }
  if (const std::string fn = t.grad_fn_name(); !fn.empty()) {
    suffixes.push_back("grad_fn=<" + fn + ">");
  } else if (t.requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return os << add_suffixes(prefix + body, suffixes, indent, opts.linewidth);
}

}  // namespace ember
