// <torch/torch.h>, part: c10::IValue (also at::IValue, torch::IValue), c10::Dict and the
// GenericList / GenericDict / ivalue::Tuple that libtorch's programs build and read.
//
//   c10::Dict<std::string, torch::Tensor> weights;
//   weights.insert("w", torch::ones({2, 2}));
//   c10::IValue value(weights);                       // value.isGenericDict(), tagKind() "GenericDict"
//   c10::IValue list(std::vector<int64_t>{1, 2});     // isList() and isIntList(); toIntVector()
//   auto pair = c10::ivalue::Tuple::create({c10::IValue(1), c10::IValue("a")});
//   std::cout << c10::IValue(pair) << '\n';           // "(1, a)", as libtorch prints
//
// Kinds: None, Tensor, Double, Int, Bool, String, GenericList, Tuple, GenericDict, with libtorch's
// names, return types and printing. Differences: toList() / toIntList() return copies (libtorch's
// share the list); c10::Dict and tuples are shared as in libtorch. Element types are the few tags
// c10::AnyType, IntType, FloatType, BoolType, StringType, TensorType, NoneType, enough for
// GenericList(elementType) and GenericDict(keyType, valueType) and for isIntList() and friends.
// Not here: TorchScript's internals (Object, Future, Capsule, Storage, Device IValues, intrusive_ptr).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember_compat/aliases.h"

namespace c10 {

// ---- element types (c10::Type, reduced to a tag) ----
struct Type {
  enum class Kind : uint8_t { Any, Int, Float, Bool, String, Tensor, None };
  Kind kind;
  std::string str() const {
    static constexpr const char* kNames[] = {"Any", "int", "float", "bool", "str", "Tensor", "NoneType"};
    return kNames[static_cast<int>(kind)];
  }
  std::string annotation_str() const { return str(); }
};
using TypePtr = std::shared_ptr<const Type>;

namespace detail {
template <Type::Kind K>
struct TypeTag {
  static TypePtr get() {
    static const TypePtr type = std::make_shared<const Type>(Type{K});
    return type;
  }
};
}  // namespace detail
struct AnyType : detail::TypeTag<Type::Kind::Any> {};
struct IntType : detail::TypeTag<Type::Kind::Int> {};
struct FloatType : detail::TypeTag<Type::Kind::Float> {};
struct BoolType : detail::TypeTag<Type::Kind::Bool> {};
struct StringType : detail::TypeTag<Type::Kind::String> {};
struct TensorType : detail::TypeTag<Type::Kind::Tensor> {};
struct NoneType : detail::TypeTag<Type::Kind::None> {};

class IValue;
template <class Key, class Value>
class Dict;
namespace ivalue {
struct Tuple;
struct ConstantString;
}  // namespace ivalue
namespace impl {
class GenericList;
using GenericDict = Dict<IValue, IValue>;
}  // namespace impl

namespace detail {
struct ListImpl;
struct DictImpl;
// The element type of a list of T, and the type of an IValue-held T.
template <class T>
TypePtr type_of() {
  if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, int32_t>)
    return IntType::get();
  else if constexpr (std::is_same_v<T, double>)
    return FloatType::get();
  else if constexpr (std::is_same_v<T, bool>)
    return BoolType::get();
  else if constexpr (std::is_same_v<T, std::string>)
    return StringType::get();
  else if constexpr (std::is_same_v<T, ember::Tensor>)
    return TensorType::get();
  else
    return AnyType::get();
}
}  // namespace detail

// A value of any of the kinds above. Copies are cheap: strings, lists, tuples and dicts are shared.
class IValue {
 public:
  enum class Tag : uint8_t { None, Tensor, Double, Int, Bool, Tuple, String, GenericList, GenericDict };

  IValue() = default;
  IValue(ember::Tensor t) : tag_(Tag::Tensor), tensor_(std::move(t)) {}  // NOLINT: implicit, as in libtorch
  IValue(double d) : tag_(Tag::Double) { payload_.d = d; }               // NOLINT
  IValue(int64_t i) : tag_(Tag::Int) { payload_.i = i; }                 // NOLINT
  IValue(int32_t i) : IValue(static_cast<int64_t>(i)) {}                 // NOLINT
  IValue(bool b) : tag_(Tag::Bool) { payload_.b = b; }                   // NOLINT
  IValue(std::string s) : tag_(Tag::String), string_(std::make_shared<const std::string>(std::move(s))) {}  // NOLINT
  IValue(const char* s) : IValue(std::string(s)) {}                                                         // NOLINT
  IValue(std::string_view s) : IValue(std::string(s)) {}                                                    // NOLINT
  IValue(std::nullopt_t) : IValue() {}                                                                      // NOLINT
  template <class T>
  IValue(std::optional<T> v) : IValue() {  // NOLINT
    if (v.has_value()) *this = IValue(std::move(*v));
  }
  IValue(const ember::Scalar& s);  // NOLINT: double, int or bool, as the scalar holds
  IValue(impl::GenericList list);  // NOLINT
  template <class T, class = std::enable_if_t<std::is_constructible_v<IValue, T>>>
  IValue(const std::vector<T>& items);                       // NOLINT: c10::List<T> is a std::vector here
  IValue(ember::IntArrayRef items) : IValue(items.vec()) {}  // NOLINT
  IValue(std::shared_ptr<ivalue::Tuple> tuple);              // NOLINT
  template <class... Args>
  IValue(const std::tuple<Args...>& t);  // NOLINT
  template <class Key, class Value>
  IValue(Dict<Key, Value> dict);  // NOLINT

  bool isNone() const { return tag_ == Tag::None; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isString() const { return tag_ == Tag::String; }
  bool isList() const { return tag_ == Tag::GenericList; }
  bool isTuple() const { return tag_ == Tag::Tuple; }
  bool isGenericDict() const { return tag_ == Tag::GenericDict; }
  bool isScalar() const { return isDouble() || isInt() || isBool(); }
  bool isIntList() const { return is_list_of(Type::Kind::Int); }
  bool isDoubleList() const { return is_list_of(Type::Kind::Float); }
  bool isBoolList() const { return is_list_of(Type::Kind::Bool); }
  bool isTensorList() const { return is_list_of(Type::Kind::Tensor); }

  const ember::Tensor& toTensor() const& { return expect(Tag::Tensor), tensor_; }
  ember::Tensor toTensor() && { return expect(Tag::Tensor), std::move(tensor_); }
  double toDouble() const { return expect(Tag::Double), payload_.d; }
  int64_t toInt() const { return expect(Tag::Int), payload_.i; }
  bool toBool() const { return expect(Tag::Bool), payload_.b; }
  ember::Scalar toScalar() const;
  const std::string& toStringRef() const { return expect(Tag::String), *string_; }
  std::string_view toStringView() const { return toStringRef(); }
  std::shared_ptr<const ivalue::ConstantString> toString() const;
  std::string toNone() const { return expect(Tag::None), "None"; }
  impl::GenericList toList() const;
  ember::ArrayRef<IValue> toListRef() const;
  std::shared_ptr<ivalue::Tuple> toTuple() const { return expect(Tag::Tuple), tuple_; }
  ivalue::Tuple& toTupleRef() const { return expect(Tag::Tuple), *tuple_; }
  impl::GenericDict toGenericDict() const;
  std::vector<int64_t> toIntList() const { return typed_vector<int64_t>(Type::Kind::Int, "IntList"); }
  std::vector<int64_t> toIntVector() const { return toIntList(); }
  std::vector<double> toDoubleList() const { return typed_vector<double>(Type::Kind::Float, "DoubleList"); }
  std::vector<double> toDoubleVector() const { return toDoubleList(); }
  std::vector<bool> toBoolList() const { return typed_vector<bool>(Type::Kind::Bool, "BoolList"); }
  std::vector<ember::Tensor> toTensorList() const {
    return typed_vector<ember::Tensor>(Type::Kind::Tensor, "TensorList");
  }
  std::vector<ember::Tensor> toTensorVector() const { return toTensorList(); }
  // v.to<T>() for the kinds above (at::Tensor, double, int64_t, bool, std::string, std::vector<...>,
  // c10::Dict<K, V>).
  template <class T>
  T to() const;

  std::string tagKind() const {
    static constexpr const char* kNames[] = {"None",  "Tensor", "Double",      "Int",        "Bool",
                                             "Tuple", "String", "GenericList", "GenericDict"};
    return kNames[static_cast<int>(tag_)];
  }
  // Whether both hold the same object (Python's `is`); scalars compare by value.
  bool is(const IValue& other) const;
  friend bool operator==(const IValue& lhs, const IValue& rhs);
  friend bool operator!=(const IValue& lhs, const IValue& rhs) { return !(lhs == rhs); }
  friend std::ostream& operator<<(std::ostream& out, const IValue& v);

  // For the conversion to and from ember::PickleValue (ember_compat/pickle.h) and c10::Dict.
  const std::shared_ptr<detail::ListImpl>& list_impl() const { return list_; }
  const std::shared_ptr<detail::DictImpl>& dict_impl() const { return dict_; }
  static IValue from_list(std::shared_ptr<detail::ListImpl> list);
  static IValue from_dict(std::shared_ptr<detail::DictImpl> dict);

 private:
  void expect(Tag tag) const {
    static constexpr const char* kNames[] = {"None",  "Tensor", "Double",      "Int",        "Bool",
                                             "Tuple", "String", "GenericList", "GenericDict"};
    EMBER_CHECK(tag_ == tag, "Expected {} but got {}", kNames[static_cast<int>(tag)], tagKind());
  }
  bool is_list_of(Type::Kind kind) const;
  template <class T>
  std::vector<T> typed_vector(Type::Kind kind, const char* name) const;

  Tag tag_ = Tag::None;
  union {
    double d;
    int64_t i;
    bool b;
  } payload_{};
  ember::Tensor tensor_;
  std::shared_ptr<const std::string> string_;
  std::shared_ptr<detail::ListImpl> list_;
  std::shared_ptr<ivalue::Tuple> tuple_;
  std::shared_ptr<detail::DictImpl> dict_;
};

namespace detail {
struct ListImpl {
  std::vector<IValue> items;
  TypePtr element = AnyType::get();
};

// Dict keys hash and compare as Python's do: 1, 1.0 and True are one key; tensors by identity.
inline bool key_equal(const IValue& a, const IValue& b) { return a.isTensor() || b.isTensor() ? a.is(b) : a == b; }
inline size_t key_hash(const IValue& key) {
  if (key.isString()) return std::hash<std::string>()(key.toStringRef());
  if (key.isInt()) return std::hash<int64_t>()(key.toInt());
  if (key.isBool()) return std::hash<int64_t>()(key.toBool());
  if (key.isDouble()) {
    const double d = key.toDouble();
    if (std::trunc(d) == d && std::abs(d) < 9e18) return std::hash<int64_t>()(static_cast<int64_t>(d));
    return std::hash<double>()(d);
  }
  if (key.isTensor()) return std::hash<const void*>()(key.toTensor().unsafeGetTensorImpl());
  EMBER_CHECK(key.isNone(), "c10::Dict: a {} cannot be a key (only str, int, float, bool, Tensor, None)",
              key.tagKind());
  return 0;
}

// Entries in insertion order, with an index from hash to positions.
struct DictImpl {
  std::vector<std::pair<IValue, IValue>> entries;
  std::unordered_multimap<size_t, size_t> index;
  TypePtr key_type = AnyType::get();
  TypePtr value_type = AnyType::get();

  size_t find(const IValue& key) const {
    auto [begin, end] = index.equal_range(key_hash(key));
    for (auto it = begin; it != end; ++it) {
      if (key_equal(entries[it->second].first, key)) return it->second;
    }
    return entries.size();
  }
  std::pair<size_t, bool> insert(IValue key, IValue value, bool assign) {
    const size_t at = find(key);
    if (at != entries.size()) {
      if (assign) entries[at].second = std::move(value);
      return {at, false};
    }
    index.emplace(key_hash(key), entries.size());
    entries.emplace_back(std::move(key), std::move(value));
    return {entries.size() - 1, true};
  }
  void erase(size_t at) {
    entries.erase(entries.begin() + static_cast<ptrdiff_t>(at));
    index.clear();
    for (size_t i = 0; i < entries.size(); ++i) index.emplace(key_hash(entries[i].first), i);
  }
};

}  // namespace detail

// libtorch's GenericList (c10::List<IValue>): the items and their element type.
namespace impl {
class GenericList : public std::vector<IValue> {
 public:
  explicit GenericList(TypePtr element_type) : element_(std::move(element_type)) {}
  GenericList(std::vector<IValue> items, TypePtr element_type)
      : std::vector<IValue>(std::move(items)), element_(std::move(element_type)) {}
  const TypePtr& elementType() const { return element_; }
  IValue get(size_t i) const { return at(i); }
  void set(size_t i, IValue v) { at(i) = std::move(v); }
  std::vector<IValue> vec() const { return *this; }
  static GenericList from_ivalue(const IValue& v) { return v.toList(); }

 private:
  TypePtr element_;
};
}  // namespace impl

namespace detail {
// An IValue as T, for typed dicts and IValue::to<T>().
template <class T>
T ivalue_to(const IValue& v) {
  if constexpr (std::is_same_v<T, IValue>)
    return v;
  else if constexpr (std::is_same_v<T, ember::Tensor>)
    return v.toTensor();
  else if constexpr (std::is_same_v<T, double>)
    return v.toDouble();
  else if constexpr (std::is_same_v<T, int64_t>)
    return v.toInt();
  else if constexpr (std::is_same_v<T, bool>)
    return v.toBool();
  else if constexpr (std::is_same_v<T, std::string>)
    return v.toStringRef();
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
    return v.toIntVector();
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return v.toDoubleVector();
  else if constexpr (std::is_same_v<T, std::vector<bool>>)
    return v.toBoolList();
  else if constexpr (std::is_same_v<T, std::vector<ember::Tensor>>)
    return v.toTensorVector();
  else if constexpr (std::is_same_v<T, std::vector<IValue>>)
    return v.toList();
  else
    return T::from_ivalue(v);  // c10::Dict<K, V>, impl::GenericList
}
}  // namespace detail

namespace ivalue {
// A tuple's elements (libtorch's c10::ivalue::Tuple, held by std::shared_ptr here).
struct Tuple {
  std::vector<IValue> elements_;
  explicit Tuple(std::vector<IValue> elements) : elements_(std::move(elements)) {}
  static std::shared_ptr<Tuple> create(std::vector<IValue> elements) {
    return std::make_shared<Tuple>(std::move(elements));
  }
  template <class... Args>
  static std::shared_ptr<Tuple> create(Args&&... args) {
    return create(std::vector<IValue>{IValue(std::forward<Args>(args))...});
  }
  const std::vector<IValue>& elements() const { return elements_; }
  size_t size() const { return elements_.size(); }
};
struct ConstantString {
  std::string value;
  const std::string& string() const { return value; }
  std::string_view string_view() const { return value; }
};
}  // namespace ivalue

// c10::Dict<Key, Value>: an insertion-ordered dict, shared by its copies (libtorch's semantics).
// Dict<IValue, IValue> (impl::GenericDict) is made with GenericDict(keyType, valueType).
template <class Key, class Value>
class Dict {
  static constexpr bool kGeneric = std::is_same_v<Key, IValue> && std::is_same_v<Value, IValue>;

 public:
  // One entry: key() and value(), as libtorch's DictEntryRef.
  class Entry {
   public:
    Entry(detail::DictImpl* impl, size_t at) : impl_(impl), at_(at) {}
    Key key() const { return detail::ivalue_to<Key>(impl_->entries[at_].first); }
    Value value() const { return detail::ivalue_to<Value>(impl_->entries[at_].second); }
    template <class V>
    void setValue(V&& value) const {
      impl_->entries[at_].second = IValue(std::forward<V>(value));
    }

   private:
    friend class Dict;
    detail::DictImpl* impl_;
    size_t at_;
  };
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const Entry*;
    using reference = const Entry&;
    iterator(detail::DictImpl* impl, size_t at) : entry_(impl, at) {}
    const Entry& operator*() const { return entry_; }
    const Entry* operator->() const { return &entry_; }
    iterator& operator++() {
      ++entry_.at_;
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++entry_.at_;
      return before;
    }
    bool operator==(const iterator& o) const { return entry_.at_ == o.entry_.at_ && entry_.impl_ == o.entry_.impl_; }
    bool operator!=(const iterator& o) const { return !(*this == o); }

   private:
    Entry entry_;
  };

  template <bool G = kGeneric, class = std::enable_if_t<!G>>
  Dict() : impl_(std::make_shared<detail::DictImpl>()) {
    impl_->key_type = detail::type_of<Key>();
    impl_->value_type = detail::type_of<Value>();
  }
  Dict(TypePtr key_type, TypePtr value_type) : impl_(std::make_shared<detail::DictImpl>()) {
    impl_->key_type = std::move(key_type);
    impl_->value_type = std::move(value_type);
  }
  explicit Dict(std::shared_ptr<detail::DictImpl> impl) : impl_(std::move(impl)) {}

  iterator begin() const { return iterator(impl_.get(), 0); }
  iterator end() const { return iterator(impl_.get(), impl_->entries.size()); }
  bool empty() const { return impl_->entries.empty(); }
  size_t size() const { return impl_->entries.size(); }
  void clear() const {
    impl_->entries.clear();
    impl_->index.clear();
  }
  template <class K, class V>
  std::pair<iterator, bool> insert(K&& key, V&& value) const {
    auto [at, inserted] =
        impl_->insert(IValue(Key(std::forward<K>(key))), IValue(Value(std::forward<V>(value))), false);
    return {iterator(impl_.get(), at), inserted};
  }
  template <class K, class V>
  std::pair<iterator, bool> insert_or_assign(K&& key, V&& value) const {
    auto [at, inserted] = impl_->insert(IValue(Key(std::forward<K>(key))), IValue(Value(std::forward<V>(value))), true);
    return {iterator(impl_.get(), at), inserted};
  }
  void erase(iterator it) const { impl_->erase(it->at_); }
  size_t erase(const Key& key) const {
    const size_t at = impl_->find(IValue(key));
    if (at == impl_->entries.size()) return 0;
    impl_->erase(at);
    return 1;
  }
  Value at(const Key& key) const {
    const size_t at = impl_->find(IValue(key));
    EMBER_CHECK(at != impl_->entries.size(), "Argument passed to at() was not in the map.");
    return detail::ivalue_to<Value>(impl_->entries[at].second);
  }
  iterator find(const Key& key) const { return iterator(impl_.get(), impl_->find(IValue(key))); }
  bool contains(const Key& key) const { return impl_->find(IValue(key)) != impl_->entries.size(); }
  void reserve(size_t count) const { impl_->entries.reserve(count); }
  Dict copy() const { return Dict(std::make_shared<detail::DictImpl>(*impl_)); }
  bool is(const Dict& other) const { return impl_ == other.impl_; }
  TypePtr keyType() const { return impl_->key_type; }
  TypePtr valueType() const { return impl_->value_type; }

  const std::shared_ptr<detail::DictImpl>& impl() const { return impl_; }
  static Dict from_ivalue(const IValue& v) { return Dict(v.toGenericDict().impl()); }

 private:
  std::shared_ptr<detail::DictImpl> impl_;
};

namespace impl {
// libtorch's conversions between a GenericDict and a typed Dict (they share the entries).
template <class Key, class Value>
Dict<Key, Value> toTypedDict(const GenericDict& dict) {
  return Dict<Key, Value>(dict.impl());
}
template <class Key, class Value>
GenericDict toGenericDict(const Dict<Key, Value>& dict) {
  return GenericDict(dict.impl());
}
}  // namespace impl

// ---- IValue's members that need the types above ----
inline IValue::IValue(const ember::Scalar& s) {
  if (s.isFloatingPoint()) {
    *this = IValue(s.to<double>());
  } else if (s.isBool()) {
    *this = IValue(s.to<bool>());
  } else {
    *this = IValue(s.to<int64_t>());
  }
}
inline IValue::IValue(impl::GenericList list) : tag_(Tag::GenericList), list_(std::make_shared<detail::ListImpl>()) {
  list_->element = list.elementType();
  list_->items = std::move(list);
}
template <class T, class>
IValue::IValue(const std::vector<T>& items) : tag_(Tag::GenericList), list_(std::make_shared<detail::ListImpl>()) {
  list_->element = detail::type_of<T>();
  list_->items.reserve(items.size());
  for (const auto& item : items) list_->items.emplace_back(static_cast<T>(item));
}
inline IValue::IValue(std::shared_ptr<ivalue::Tuple> tuple) : tag_(Tag::Tuple), tuple_(std::move(tuple)) {}
template <class... Args>
IValue::IValue(const std::tuple<Args...>& t)
    : IValue(std::apply(
          [](const auto&... items) { return ivalue::Tuple::create(std::vector<IValue>{IValue(items)...}); }, t)) {}
template <class Key, class Value>
IValue::IValue(Dict<Key, Value> dict) : tag_(Tag::GenericDict), dict_(dict.impl()) {}

inline IValue IValue::from_list(std::shared_ptr<detail::ListImpl> list) {
  IValue v;
  v.tag_ = Tag::GenericList;
  v.list_ = std::move(list);
  return v;
}
inline IValue IValue::from_dict(std::shared_ptr<detail::DictImpl> dict) {
  IValue v;
  v.tag_ = Tag::GenericDict;
  v.dict_ = std::move(dict);
  return v;
}

inline ember::Scalar IValue::toScalar() const {
  if (isDouble()) return payload_.d;
  if (isInt()) return payload_.i;
  if (isBool()) return payload_.b;
  EMBER_FAIL("IValue is not a Scalar");
}
inline std::shared_ptr<const ivalue::ConstantString> IValue::toString() const {
  return std::make_shared<const ivalue::ConstantString>(ivalue::ConstantString{toStringRef()});
}
inline impl::GenericList IValue::toList() const {
  expect(Tag::GenericList);
  return impl::GenericList(list_->items, list_->element);
}
inline ember::ArrayRef<IValue> IValue::toListRef() const {
  expect(Tag::GenericList);
  return ember::ArrayRef<IValue>(list_->items.data(), list_->items.size());
}
inline impl::GenericDict IValue::toGenericDict() const {
  expect(Tag::GenericDict);
  return impl::GenericDict(dict_);
}
inline bool IValue::is_list_of(Type::Kind kind) const { return isList() && list_->element->kind == kind; }
template <class T>
std::vector<T> IValue::typed_vector(Type::Kind kind, const char* name) const {
  EMBER_CHECK(is_list_of(kind), "Expected {} but got {}", name, isList() ? "GenericList" : tagKind());
  std::vector<T> out;
  out.reserve(list_->items.size());
  for (const IValue& item : list_->items) out.push_back(detail::ivalue_to<T>(item));
  return out;
}
template <class T>
T IValue::to() const {
  return detail::ivalue_to<T>(*this);
}

inline bool IValue::is(const IValue& other) const {
  if (tag_ != other.tag_) return false;
  switch (tag_) {
    case Tag::Tensor:
      return tensor_.unsafeGetTensorImpl() == other.tensor_.unsafeGetTensorImpl();
    case Tag::String:
      return string_ == other.string_;
    case Tag::GenericList:
      return list_ == other.list_;
    case Tag::Tuple:
      return tuple_ == other.tuple_;
    case Tag::GenericDict:
      return dict_ == other.dict_;
    default:
      return *this == other;
  }
}

// Python's ==: numbers by value across int, float and bool; containers element by element; tensors
// by torch::equal (libtorch's == compares one-element tensors only).
inline bool operator==(const IValue& lhs, const IValue& rhs) {
  using Tag = IValue::Tag;
  if (lhs.isScalar() && rhs.isScalar()) {
    if (lhs.isDouble() || rhs.isDouble()) return lhs.toScalar().to<double>() == rhs.toScalar().to<double>();
    return lhs.toScalar().to<int64_t>() == rhs.toScalar().to<int64_t>();
  }
  if (lhs.tag_ != rhs.tag_) return false;
  switch (lhs.tag_) {
    case Tag::None:
      return true;
    case Tag::Tensor:
      return lhs.is(rhs) || (lhs.tensor_.defined() && rhs.tensor_.defined() && lhs.tensor_.equal(rhs.tensor_));
    case Tag::String:
      return *lhs.string_ == *rhs.string_;
    case Tag::GenericList:
      return lhs.list_ == rhs.list_ || lhs.list_->items == rhs.list_->items;
    case Tag::Tuple:
      return lhs.tuple_ == rhs.tuple_ || lhs.tuple_->elements_ == rhs.tuple_->elements_;
    case Tag::GenericDict: {
      if (lhs.dict_ == rhs.dict_) return true;
      if (lhs.dict_->entries.size() != rhs.dict_->entries.size()) return false;
      for (const auto& [key, value] : lhs.dict_->entries) {
        const size_t at = rhs.dict_->find(key);
        if (at == rhs.dict_->entries.size() || !(rhs.dict_->entries[at].second == value)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// libtorch's printing: None, True/False, 3, 2. (a whole double), 0.10000000000000001, strings
// unquoted, [1, 2], (1,), {a: 1}, tensors as they print.
inline std::ostream& operator<<(std::ostream& out, const IValue& v) {
  using Tag = IValue::Tag;
  auto print_items = [&out](const std::vector<IValue>& items, const char* open, const char* close) -> std::ostream& {
    out << open;
    for (size_t i = 0; i < items.size(); ++i) out << (i > 0 ? ", " : "") << items[i];
    return out << close;
  };
  switch (v.tag_) {
    case Tag::None:
      return out << "None";
    case Tag::Tensor:
      return out << v.tensor_;
    case Tag::Double: {
      const double d = v.payload_.d;
      const int kind = std::fpclassify(d);
      if ((kind == FP_NORMAL || kind == FP_ZERO) && std::abs(d) < 1e10 && static_cast<double>(int64_t(d)) == d) {
        return out << int64_t(d) << ".";
      }
      const auto precision = out.precision();
      return out << std::setprecision(std::numeric_limits<double>::max_digits10) << d << std::setprecision(precision);
    }
    case Tag::Int:
      return out << v.payload_.i;
    case Tag::Bool:
      return out << (v.payload_.b ? "True" : "False");
    case Tag::String:
      return out << *v.string_;
    case Tag::GenericList:
      return print_items(v.list_->items, "[", "]");
    case Tag::Tuple:
      return print_items(v.tuple_->elements_, "(", v.tuple_->elements_.size() == 1 ? ",)" : ")");
    case Tag::GenericDict: {
      out << "{";
      bool first = true;
      for (const auto& [key, value] : v.dict_->entries) {
        out << (first ? "" : ", ") << key << ": " << value;
        first = false;
      }
      return out << "}";
    }
  }
  return out;
}

}  // namespace c10

namespace at {
using c10::IValue;
}
namespace torch {
using c10::IValue;
}
