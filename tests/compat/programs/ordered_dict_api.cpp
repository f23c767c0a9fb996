// torch::OrderedDict itself: insertion order, insert/update, lookups, errors on duplicate and
// missing keys, copy semantics.
#include <iostream>
#include <string>

#include <torch/torch.h>

int main() {
  torch::OrderedDict<std::string, int> dict;
  std::cout << dict.is_empty() << " " << dict.size() << std::endl;
  dict.insert("b", 2);
  dict.insert("a", 1);
  dict.insert("c", 3);
  for (const auto& item : dict) std::cout << item.key() << "=" << item.value() << " ";
  std::cout << std::endl;
  std::cout << dict["a"] << " " << dict[0].key() << " " << *dict.find("c") << std::endl;
  dict["a"] = 10;
  std::cout << dict["a"] << std::endl;
  try {
    dict.insert("b", 20);
    std::cout << "no error" << std::endl;
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "duplicate: " << (what.find("Key 'b' already defined") != std::string::npos) << std::endl;
  }
  try {
    dict["zzz"];
    std::cout << "no error" << std::endl;
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "missing: " << (what.find("Key 'zzz' is not defined") != std::string::npos) << std::endl;
  }
  torch::OrderedDict<std::string, int> other;
  other.insert("d", 4);
  other.insert("e", 5);
  dict.update(other);
  std::cout << dict.size() << " " << dict.back().key() << std::endl;
  torch::OrderedDict<std::string, int> copy = dict;
  copy["d"] = 40;
  std::cout << dict["d"] << " " << copy["d"] << std::endl;
  auto keys = dict.keys();
  auto values = dict.values();
  for (size_t i = 0; i < keys.size(); ++i) std::cout << keys[i] << ":" << values[i] << " ";
  std::cout << std::endl;
  const auto& pairs = dict.pairs();
  std::cout << pairs.size() << " " << pairs[1].first << pairs[1].second << std::endl;
  dict.erase("a");
  std::cout << dict.size() << " " << dict.contains("a") << " " << dict[1].key() << std::endl;
  dict.clear();
  std::cout << dict.is_empty() << std::endl;
}
