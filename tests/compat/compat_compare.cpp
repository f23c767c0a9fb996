// compat_compare: compares a program's output with libtorch's, line by line, number by number.
//
//   compat_compare expected.txt actual.txt [--rtol 1e-5]
//
// Each line is split into numbers and the text between them. The text must be equal once blanks are
// removed (column widths move with a sign: "-0.0000" against " 0.0000"). Two numbers are equal when
//   |a - b| <= rtol * max(|a|, |b|) + one unit in the last printed digit of the expected number,
// because both sides round to what they print: 0.12345 and 0.12346 may print as 0.1234 and 0.1235.
// Integers ("3", a shape, a count) have no such unit and must match to rtol. nan equals nan.
// Exits 0 when everything matches; otherwise prints the first differences and the largest one.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

namespace {

struct Number {
  double value;
  double unit;  // one unit in the last printed digit; 0 for integers
  std::string text;
};

struct ParsedLine {
  std::vector<Number> numbers;
  std::string text;  // everything else, blanks removed, a '#' where each number was
};

// Decimal numbers as C++ streams print them: -12, 0.1234, 1.5e-05, 3.14159e+08, nan, inf.
const std::regex kNumber(R"([-+]?(nan|inf|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?))");

double last_digit_unit(const std::string& token) {
  size_t point = token.find('.');
  size_t exp = token.find_first_of("eE");
  if (point == std::string::npos) return 0;
  size_t decimals = (exp == std::string::npos ? token.size() : exp) - point - 1;
  int exponent = exp == std::string::npos ? 0 : std::stoi(token.substr(exp + 1));
  return std::pow(10.0, exponent - static_cast<int>(decimals));
}

ParsedLine parse(const std::string& line) {
  ParsedLine out;
  auto keep_text = [&](const std::string& s) {
    for (char c : s) {
      if (!std::isspace(static_cast<unsigned char>(c))) out.text += c;
    }
  };
  std::string rest = line;
  std::smatch m;
  while (std::regex_search(rest, m, kNumber)) {
    keep_text(m.prefix());
    std::string token = m.str();
    out.numbers.push_back({std::strtod(token.c_str(), nullptr), last_digit_unit(token), token});
    out.text += '#';
    rest = m.suffix();
  }
  keep_text(rest);
  return out;
}

std::vector<std::string> read_lines(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "compat_compare: cannot read " << path << "\n";
    std::exit(2);
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--rtol")) {
    std::cerr << "usage: compat_compare expected.txt actual.txt [--rtol 1e-5]\n";
    return 2;
  }
  const double rtol = argc == 5 ? std::atof(argv[4]) : 1e-5;
  const std::vector<std::string> expected = read_lines(argv[1]);
  const std::vector<std::string> actual = read_lines(argv[2]);

  int failures = 0;
  double worst = 0;  // largest |a - b| / max(|a|, |b|) among numbers that differ
  std::string worst_where;
  auto report = [&](size_t line, const std::string& why) {
    if (++failures <= 10) {
      std::cerr << "line " << line + 1 << ": " << why << "\n  expected: " << expected[line]
                << "\n  actual:   " << actual[line] << "\n";
    }
  };
  const size_t n = std::min(expected.size(), actual.size());
  size_t numbers = 0;
  for (size_t i = 0; i < n; ++i) {
    ParsedLine e = parse(expected[i]);
    ParsedLine a = parse(actual[i]);
    if (e.text != a.text || e.numbers.size() != a.numbers.size()) {
      report(i, "the text differs");
      continue;
    }
    for (size_t k = 0; k < e.numbers.size(); ++k, ++numbers) {
      const double x = e.numbers[k].value;
      const double y = a.numbers[k].value;
      if (std::isnan(x) && std::isnan(y)) continue;
      const double scale = std::max(std::fabs(x), std::fabs(y));
      const double diff = std::fabs(x - y);
      if (x == y || diff <= rtol * scale + e.numbers[k].unit) continue;
      const double rel = scale > 0 ? diff / scale : diff;
      if (rel > worst) {
        worst = rel;
        worst_where = "line " + std::to_string(i + 1) + ": " + e.numbers[k].text + " vs " + a.numbers[k].text;
      }
      report(i, "number " + std::to_string(k + 1) + " differs: " + e.numbers[k].text + " vs " + a.numbers[k].text);
      break;
    }
  }
  if (expected.size() != actual.size()) {
    ++failures;
    std::cerr << "line counts differ: expected " << expected.size() << ", actual " << actual.size() << "\n";
  }
  if (failures > 0) {
    std::cerr << failures << " difference(s) between " << argv[1] << " and " << argv[2];
    if (!worst_where.empty()) std::cerr << "; largest relative difference " << worst << " (" << worst_where << ")";
    std::cerr << "\n";
    return 1;
  }
  std::cout << "compat_compare: " << n << " lines and " << numbers << " numbers match (rtol " << rtol << ")\n";
  return 0;
}
