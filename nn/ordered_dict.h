// OrderedDict<Key, Value>: a vector of (key, value) items with a key index, as torch::OrderedDict.
//
//   ember::OrderedDict<std::string, Tensor> dict;
//   dict.insert("w", w);                          // a key given twice throws "Key 'w' already defined"
//   for (const auto& item : dict) std::cout << item.key() << " " << item->sizes();
//   for (const auto& [name, t] : model->named_parameters()) ...   // items also unpack into two names
//   Tensor& t = dict["w"];  auto& first = dict[0];  Tensor* maybe = dict.find("b");
//
// Iteration follows insertion order. Lookups by key are hashed; erase is linear (it shifts later
// items and their indices), as in libtorch. Not a multimap: keys are unique.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"

namespace ember {

// One entry: key() / value(), and * / -> reaching the value, as libtorch's OrderedDict::Item.
template <typename Key, typename Value>
class OrderedDictItem {
 public:
  OrderedDictItem(Key key, Value value) : pair_(std::move(key), std::move(value)) {}

  Value& operator*() { return value(); }
  const Value& operator*() const { return value(); }
  Value* operator->() { return &value(); }
  const Value* operator->() const { return &value(); }

  const Key& key() const noexcept { return pair_.first; }
  Value& value() noexcept { return pair_.second; }
  const Value& value() const noexcept { return pair_.second; }
  const std::pair<Key, Value>& pair() const noexcept { return pair_; }

  // Structured bindings: auto& [key, value] = item.
  template <size_t I>
  decltype(auto) get() const {
    if constexpr (I == 0)
      return (pair_.first);
    else
      return (pair_.second);
  }
  template <size_t I>
  decltype(auto) get() {
    if constexpr (I == 0)
      return static_cast<const Key&>(pair_.first);
    else
      return (pair_.second);
  }

 private:
  std::pair<Key, Value> pair_;
};

template <typename Key, typename Value>
class OrderedDict {
 public:
  using Item = OrderedDictItem<Key, Value>;
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  // `key_description` names the keys in error messages ("Key", "Parameter", "Submodule").
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const Item& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  Item& front() {
    EMBER_CHECK(!items_.empty(), "Called front() on an empty OrderedDict");
    return items_.front();
  }
  const Item& front() const {
    EMBER_CHECK(!items_.empty(), "Called front() on an empty OrderedDict");
    return items_.front();
  }
  Item& back() {
    EMBER_CHECK(!items_.empty(), "Called back() on an empty OrderedDict");
    return items_.back();
  }
  const Item& back() const {
    EMBER_CHECK(!items_.empty(), "Called back() on an empty OrderedDict");
    return items_.back();
  }

  // By position.
  Item& operator[](size_t index) {
    EMBER_CHECK(index < items_.size(), "Index {} is out of bounds", index);
    return items_[index];
  }
  const Item& operator[](size_t index) const {
    EMBER_CHECK(index < items_.size(), "Index {} is out of bounds", index);
    return items_[index];
  }
  // By key; throws "<Key> '<key>' is not defined" when absent.
  Value& operator[](const Key& key) {
    if (Value* value = find(key)) return *value;
    throw_not_defined(key);
  }
  const Value& operator[](const Key& key) const {
    if (const Value* value = find(key)) return *value;
    throw_not_defined(key);
  }
  // A pointer to the value under `key`, or nullptr.
  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }

  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void reserve(size_t capacity) {
    index_.reserve(capacity);
    items_.reserve(capacity);
  }

  // Appends; a key already present is an error ("Key 'w' already defined").
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    Key owned(std::forward<K>(key));
    if (contains(owned)) throw_message(owned, "already defined");
    index_.emplace(owned, items_.size());
    items_.emplace_back(std::move(owned), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  Value& insert(Key key, Value&& value) { return insert<Key, Value>(std::move(key), std::move(value)); }
  // Inserts every item of `other` (its keys must all be new), in its order.
  void update(const OrderedDict& other) {
    reserve(size() + other.size());
    for (const Item& item : other) insert(item.key(), item.value());
  }
  void update(OrderedDict&& other) {
    reserve(size() + other.size());
    for (Item& item : other) insert(item.key(), std::move(item.value()));
  }
  void erase(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) throw_not_defined(key);
    const size_t position = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    for (auto& entry : index_)
      if (entry.second > position) --entry.second;
  }
  void clear() {
    index_.clear();
    items_.clear();
  }

  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> result;
    result.reserve(size());
    for (const Item& item : items_) result.push_back(item.key());
    return result;
  }
  std::vector<Value> values() const {
    std::vector<Value> result;
    result.reserve(size());
    for (const Item& item : items_) result.push_back(item.value());
    return result;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> result;
    result.reserve(size());
    for (const Item& item : items_) result.push_back(item.pair());
    return result;
  }

  friend bool operator==(const OrderedDict& a, const OrderedDict& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a.items_[i].key() == b.items_[i].key() && a.items_[i].value() == b.items_[i].value())) return false;
    return true;
  }

 private:
  [[noreturn]] void throw_message(const Key& key, const char* what) const {
    std::ostringstream message;
    message << key_description_ << " '" << key << "' " << what;
    detail::throw_error(message.str());
  }
  [[noreturn]] void throw_not_defined(const Key& key) const { throw_message(key, "is not defined"); }

  std::unordered_map<Key, size_t> index_;
  std::vector<Item> items_;
  std::string key_description_ = "Key";
};

}  // namespace ember

// Structured bindings for OrderedDictItem.
template <typename Key, typename Value>
struct std::tuple_size<ember::OrderedDictItem<Key, Value>> : std::integral_constant<size_t, 2> {};
template <typename Key, typename Value>
struct std::tuple_element<0, ember::OrderedDictItem<Key, Value>> {
  using type = const Key;
};
template <typename Key, typename Value>
struct std::tuple_element<1, ember::OrderedDictItem<Key, Value>> {
  using type = Value;
};
