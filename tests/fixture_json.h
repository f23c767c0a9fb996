// Reading the PyTorch reference fixtures (tests/fixtures/*.json, written by scripts/gen_*_fixtures.py).
//
//   nlohmann::json cases = ember::test::load_fixture("print.json");
//   Tensor x = ember::test::tensor_from_json(cases["matrix_1x3"]["inputs"][0]);
//
// A tensor is stored as {"shape": [...], "dtype": "float32", "values": [...] (row-major),
// "requires_grad": bool}; nan and infinities are the strings "nan", "inf", "-inf".
// Only a reader: the fixtures are never written from C++.
#pragma once

#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <cstdlib>

#include <ember/ember.h>
#include <nlohmann/json.hpp>

namespace ember::test {

inline nlohmann::json load_fixture(const std::string& file) {
  // The environment's EMBER_FIXTURE_DIR first: a test binary carried elsewhere (the GPU bundle) reads its copy.
  const char* moved = std::getenv("EMBER_FIXTURE_DIR");
  std::string path = std::string(moved != nullptr && *moved != '\0' ? moved : EMBER_FIXTURE_DIR) + "/" + file;
  std::ifstream in(path);
  EMBER_CHECK(in.good(), "load_fixture: cannot open {} (run the generator in scripts/)", path);
  return nlohmann::json::parse(in);
}

inline ScalarType dtype_from_name(const std::string& name) {
  if (name == "float32") return kFloat32;
  if (name == "float64") return kFloat64;
  if (name == "int64") return kInt64;
  if (name == "bfloat16") return kBFloat16;
  if (name == "float16") return kFloat16;
  if (name == "uint8") return kUInt8;
  if (name == "int8") return kInt8;
  if (name == "int16") return kInt16;
  if (name == "int32") return kInt32;
  EMBER_CHECK(name == "bool", "dtype_from_name: unknown dtype '{}'", name);
  return kBool;
}

inline double value_from_json(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return v.get<double>();
}

// Rebuilds a tensor exactly: float32 values were written as the doubles they widen to.
inline Tensor tensor_from_json(const nlohmann::json& j) {
  std::vector<int64_t> shape = j.at("shape").get<std::vector<int64_t>>();
  ScalarType dt = dtype_from_name(j.at("dtype").get<std::string>());
  Tensor t;
  if (is_integral(dt)) {  // exact through int64, then narrowed
    t = from_vector(j.at("values").get<std::vector<int64_t>>(), shape, dtype(kInt64)).to(dt);
  } else {
    std::vector<double> values;
    for (const auto& v : j.at("values")) values.push_back(value_from_json(v));
    t = from_vector(values, shape, dtype(dt));
  }
  if (j.value("requires_grad", false)) t.requires_grad_();
  return t;
}

inline tensor_list tensors_from_json(const nlohmann::json& list) {
  tensor_list out;
  for (const auto& j : list) out.push_back(tensor_from_json(j));
  return out;
}

}  // namespace ember::test
