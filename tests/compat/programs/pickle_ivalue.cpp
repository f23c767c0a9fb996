// c10::IValue and torch::pickle_save / torch::pickle_load: kinds, accessors and printing of IValues,
// round trips of a tensor, a dict and a list through the torch.save format, and bad input refused.
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <torch/torch.h>

void show(const std::string& name, const c10::IValue& value) {
  std::cout << name << ": " << value.tagKind() << " int=" << value.isInt() << " double=" << value.isDouble()
            << " list=" << value.isList() << " intlist=" << value.isIntList() << " tensorlist=" << value.isTensorList()
            << " -> " << value << "\n";
}

void expect_error(const std::string& name, const std::vector<char>& bytes) {
  try {
    torch::pickle_load(bytes);
    std::cout << name << ": loaded\n";
  } catch (const c10::Error&) {
    std::cout << name << ": error\n";
  }
}

int main() {
  std::cout << std::fixed << std::setprecision(4);
  show("none", c10::IValue());
  show("int", c10::IValue(42));
  show("double", c10::IValue(2.5));
  show("whole double", c10::IValue(3.0));
  show("bool", c10::IValue(true));
  show("string", c10::IValue("hello"));
  show("ints", c10::IValue(std::vector<int64_t>{1, 2, 3}));
  show("doubles", c10::IValue(std::vector<double>{0.5, -1.0}));
  show("tensors", c10::IValue(std::vector<torch::Tensor>{torch::ones({2})}));
  show("tuple", c10::IValue(c10::ivalue::Tuple::create({c10::IValue(1), c10::IValue("a")})));
  show("single", c10::IValue(c10::ivalue::Tuple::create({c10::IValue(7)})));

  c10::impl::GenericList mixed(c10::AnyType::get());
  mixed.push_back(c10::IValue(1));
  mixed.push_back(c10::IValue(0.25));
  mixed.push_back(c10::IValue("s"));
  mixed.push_back(c10::IValue());
  mixed.push_back(c10::IValue(false));
  show("mixed", c10::IValue(mixed));

  c10::IValue number(7);
  std::cout << "toInt " << number.toInt() << " toDouble of double " << c10::IValue(1.5).toDouble() << " toBool "
            << c10::IValue(true).toBool() << " toStringRef " << c10::IValue("abc").toStringRef() << " toString "
            << c10::IValue("xyz").toString()->string() << "\n";
  std::vector<int64_t> ints = c10::IValue(std::vector<int64_t>{4, 5}).toIntVector();
  std::cout << "toIntVector " << ints.size() << " " << ints[0] << " " << ints[1] << "\n";
  std::cout << "tuple elements "
            << c10::IValue(c10::ivalue::Tuple::create({c10::IValue(1), c10::IValue(2)})).toTupleRef().elements().size()
            << "\n";
  std::cout << "equal " << (c10::IValue(3) == c10::IValue(3)) << " " << (c10::IValue("a") == c10::IValue("b")) << "\n";
  try {
    number.toDouble();
    std::cout << "toDouble of int: no error\n";
  } catch (const c10::Error&) {
    std::cout << "toDouble of int: error\n";
  }

  // A tensor: a transposed view, saved with its storage and strides.
  torch::Tensor base = torch::arange(6).to(torch::kFloat).reshape({2, 3});
  c10::IValue tensor_back = torch::pickle_load(torch::pickle_save(base.t()));
  torch::Tensor t = tensor_back.toTensor();
  std::cout << "tensor: " << tensor_back.tagKind() << " sizes " << t.sizes() << " strides " << t.strides() << "\n"
            << t << "\n";

  // A dict of tensors and numbers.
  c10::Dict<std::string, torch::Tensor> weights;
  weights.insert("w", torch::tensor({1.5, -2.0}));
  weights.insert("b", torch::tensor({3}, torch::kLong));
  c10::IValue dict_back = torch::pickle_load(torch::pickle_save(weights));
  c10::impl::GenericDict dict = dict_back.toGenericDict();
  std::cout << "dict: " << dict_back.tagKind() << " size " << dict.size() << " contains w " << dict.contains("w")
            << "\n";
  for (const auto& entry : dict) {
    std::cout << entry.key().toStringRef() << " -> " << entry.value().toTensor() << "\n";
  }

  // A list of mixed values, with a typed int list inside.
  mixed.push_back(c10::IValue(std::vector<int64_t>{8, 9}));
  c10::IValue list_back = torch::pickle_load(torch::pickle_save(c10::IValue(mixed)));
  show("list back", list_back);
  show("int list back", list_back.toListRef()[5]);
  c10::IValue tuple_back = torch::pickle_load(
      torch::pickle_save(c10::ivalue::Tuple::create({c10::IValue(-1), c10::IValue(1e-3), c10::IValue("t")})));
  show("tuple back", tuple_back);

  // Bad input.
  std::vector<char> good = torch::pickle_save(weights);
  expect_error("empty", {});
  expect_error("truncated", std::vector<char>(good.begin(), good.begin() + good.size() / 2));
  expect_error("not a zip", std::vector<char>(100, 'x'));
  return 0;
}
