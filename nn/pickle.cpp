// pickle_save / pickle_load (nn/pickle.h): a protocol-2 pickler and a restricted unpickler for the
// values of torch.save archives; the zip container is nn/pickle_zip.h.
//
// The unpickler builds a graph of Obj nodes (containers may be filled after they were memoized),
// then checks it (depth, cycles, kinds) while converting it into PickleValues.
#include "nn/pickle.h"

#include <array>
#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "nn/pickle_zip.h"

namespace ember {

PickleValue::PickleValue(Tensor t) : kind(t.defined() ? Kind::Tensor : Kind::None), tensor(std::move(t)) {}

PickleValue PickleValue::boolean_value(bool b) {
  PickleValue v;
  v.kind = Kind::Bool;
  v.boolean = b;
  return v;
}
PickleValue PickleValue::int_value(int64_t i) {
  PickleValue v;
  v.kind = Kind::Int;
  v.integer = i;
  return v;
}
PickleValue PickleValue::double_value(double d) {
  PickleValue v;
  v.kind = Kind::Double;
  v.real = d;
  return v;
}
PickleValue PickleValue::string(std::string s) {
  PickleValue v;
  v.kind = Kind::String;
  v.text = std::move(s);
  return v;
}
PickleValue PickleValue::list(Items items, ListType type) {
  PickleValue v;
  v.kind = Kind::List;
  v.list_type = type;
  v.items = std::make_shared<const Items>(std::move(items));
  return v;
}
PickleValue PickleValue::tuple(Items items) {
  PickleValue v;
  v.kind = Kind::Tuple;
  v.items = std::make_shared<const Items>(std::move(items));
  return v;
}
PickleValue PickleValue::dict(Entries entries) {
  PickleValue v;
  v.kind = Kind::Dict;
  v.entries = std::make_shared<const Entries>(std::move(entries));
  return v;
}

namespace {

// ---------------------------------------------------------------- storage types

struct StorageType {
  const char* name;  // torch.<name>
  ScalarType dtype;
};
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", kFloat32}, {"DoubleStorage", kFloat64},   {"LongStorage", kInt64}, {"IntStorage", kInt32},
    {"ShortStorage", kInt16},   {"CharStorage", kInt8},        {"ByteStorage", kUInt8}, {"BoolStorage", kBool},
    {"HalfStorage", kFloat16},  {"BFloat16Storage", kBFloat16}};

const char* storage_name(ScalarType dtype) {
  for (const StorageType& type : kStorageTypes) {
    if (type.dtype == dtype) return type.name;
  }
  EMBER_FAIL("pickle_save: no storage type for dtype {}", dtype_name(dtype));
}

// ---------------------------------------------------------------- pickler (protocol 2)

namespace op {
constexpr char kMark = '(', kStop = '.', kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M', kNone = 'N';
constexpr char kBinPersId = 'Q', kReduce = 'R', kBinUnicode = 'X', kEmptyList = ']', kAppend = 'a';
constexpr char kBuild = 'b', kGlobal = 'c', kDict = 'd', kEmptyDict = '}', kAppends = 'e', kBinGet = 'h';
constexpr char kLongBinGet = 'j', kList = 'l', kBinPut = 'q', kLongBinPut = 'r', kSetItem = 's', kTuple = 't';
constexpr char kEmptyTuple = ')', kSetItems = 'u', kBinFloat = 'G', kPop = '0', kPopMark = '1', kDup = '2';
constexpr char kProto = '\x80', kTuple1 = '\x85', kTuple2 = '\x86', kTuple3 = '\x87', kNewTrue = '\x88';
constexpr char kNewFalse = '\x89', kLong1 = '\x8a', kLong4 = '\x8b', kShortBinUnicode = '\x8c';
constexpr char kBinUnicode8 = '\x8d', kStackGlobal = '\x93', kMemoize = '\x94', kFrame = '\x95';
}  // namespace op

class Pickler {
 public:
  std::vector<char> out;
  std::vector<std::pair<Storage, size_t>> storages;  // data/<i>: a storage and its bytes to write

  void value(const PickleValue& v, int depth) {
    EMBER_CHECK(depth <= kPickleMaxDepth, "pickle_save: containers nested deeper than {}", kPickleMaxDepth);
    using Kind = PickleValue::Kind;
    switch (v.kind) {
      case Kind::None:
        return emit(op::kNone);
      case Kind::Bool:
        return emit(v.boolean ? op::kNewTrue : op::kNewFalse);
      case Kind::Int:
        return integer(v.integer);
      case Kind::Double: {
        uint64_t bits;
        std::memcpy(&bits, &v.real, 8);
        emit(op::kBinFloat);
        for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));  // big-endian
        return;
      }
      case Kind::String:
        return string(v.text);
      case Kind::Tensor:
        return tensor(v.tensor);
      case Kind::List:
        return list(v, depth);
      case Kind::Tuple:
        return tuple(v, depth);
      case Kind::Dict:
        return dict(v, depth);
    }
  }

 private:
  void emit(char opcode) { out.push_back(opcode); }

  void integer(int64_t i) {
    if (i >= 0 && i < 256) {
      emit(op::kBinInt1);
      put_le(out, i, 1);
    } else if (i >= 0 && i < 65536) {
      emit(op::kBinInt2);
      put_le(out, i, 2);
    } else if (i >= INT32_MIN && i <= INT32_MAX) {
      emit(op::kBinInt);
      put_le(out, static_cast<uint32_t>(i), 4);
    } else {  // LONG1 of 8 bytes: libtorch's unpickler reads no other length (Python reads any)
      emit(op::kLong1);
      out.push_back('\x08');
      put_le(out, static_cast<uint64_t>(i), 8);
    }
  }

  void string(const std::string& s) {
    emit(op::kBinUnicode);
    put_le(out, s.size(), 4);
    out.insert(out.end(), s.begin(), s.end());
  }

  void global(const char* module, const char* name) {
    emit(op::kGlobal);
    out.insert(out.end(), module, module + std::strlen(module));
    out.push_back('\n');
    out.insert(out.end(), name, name + std::strlen(name));
    out.push_back('\n');
  }

  // A container written before is fetched from the memo, so sharing survives and a list held
  // twice is not written twice.
  bool fetch_memo(const void* container) {
    auto it = memo_.find(container);
    if (it == memo_.end()) return false;
    emit(op::kLongBinGet);
    put_le(out, it->second, 4);
    return true;
  }
  void put_memo(const void* container) {
    const uint32_t index = static_cast<uint32_t>(memo_.size());
    memo_.emplace(container, index);
    emit(op::kLongBinPut);
    put_le(out, index, 4);
  }

  void list(const PickleValue& v, int depth) {
    static constexpr const char* kBuilders[] = {nullptr, "build_intlist", "build_doublelist", "build_boollist",
                                                "build_tensorlist"};
    if (fetch_memo(v.items.get())) return;
    const char* builder = kBuilders[static_cast<int>(v.list_type)];
    if (builder != nullptr) {  // as libtorch writes its typed lists: build_intlist([...])
      global("torch.jit._pickle", builder);
      emit(op::kMark);
    }
    emit(op::kEmptyList);
    if (builder == nullptr) put_memo(v.items.get());
    if (!v.items->empty()) {
      emit(op::kMark);
      for (const PickleValue& item : *v.items) value(item, depth + 1);
      emit(op::kAppends);
    }
    if (builder != nullptr) {
      emit(op::kTuple);
      emit(op::kReduce);
      put_memo(v.items.get());
    }
  }

  void tuple(const PickleValue& v, int depth) {
    if (fetch_memo(v.items.get())) return;
    const size_t n = v.items->size();
    if (n == 0) {
      emit(op::kEmptyTuple);
    } else {
      if (n > 3) emit(op::kMark);
      for (const PickleValue& item : *v.items) value(item, depth + 1);
      emit(n == 1 ? op::kTuple1 : n == 2 ? op::kTuple2 : n == 3 ? op::kTuple3 : op::kTuple);
    }
    put_memo(v.items.get());
  }

  void dict(const PickleValue& v, int depth) {
    if (fetch_memo(v.entries.get())) return;
    emit(op::kEmptyDict);
    put_memo(v.entries.get());
    if (v.entries->empty()) return;
    emit(op::kMark);
    for (const auto& [key, item] : *v.entries) {
      value(key, depth + 1);
      value(item, depth + 1);
    }
    emit(op::kSetItems);
  }

  // torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, OrderedDict())
  // with the storage a persistent id ('storage', torch.FloatStorage, key, 'cpu', numel).
  void tensor(const Tensor& t) {
    Tensor cpu = t.device().is_cpu() ? t : t.to(Device(kCPU)).contiguous();
    const size_t element = element_size(cpu.dtype());
    const size_t numel = cpu.storage()->nbytes / element;
    auto key = std::make_pair(cpu.storage().get(), cpu.dtype());
    auto it = storage_keys_.find(key);
    if (it == storage_keys_.end()) {
      it = storage_keys_.emplace(key, storages.size()).first;
      storages.emplace_back(cpu.storage(), numel * element);
    }
    global("torch._utils", "_rebuild_tensor_v2");
    emit(op::kMark);
    emit(op::kMark);
    string("storage");
    global("torch", storage_name(cpu.dtype()));
    string(std::to_string(it->second));
    string("cpu");
    integer(static_cast<int64_t>(numel));
    emit(op::kTuple);
    emit(op::kBinPersId);
    integer(cpu.storage_offset());
    int_tuple(cpu.sizes());
    int_tuple(cpu.strides());
    emit(t.requires_grad() ? op::kNewTrue : op::kNewFalse);
    global("collections", "OrderedDict");  // backward hooks: none
    emit(op::kEmptyTuple);
    emit(op::kReduce);
    emit(op::kTuple);
    emit(op::kReduce);
  }

  void int_tuple(IntArrayRef values) {
    emit(op::kMark);
    for (int64_t v : values) integer(v);
    emit(op::kTuple);
  }

  std::unordered_map<const void*, uint32_t> memo_;
  std::map<std::pair<const StorageImpl*, ScalarType>, size_t> storage_keys_;
};

// ---------------------------------------------------------------- restricted unpickler

// The globals a torch.save archive may name; every other one is refused before anything is built.
enum class Global : uint8_t { RebuildTensor, RebuildParameter, OrderedDict, StorageType, BuildList, RestoreTypeTag };

// A node of the unpickled graph. Containers are filled after they are created (and possibly
// memoized), so they are nodes shared by pointer; the graph is checked when converted.
struct Obj {
  enum class Kind : uint8_t { None, Bool, Int, Double, String, Tensor, List, Tuple, Dict, Global };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;  // a string; a global's qualified name
  Tensor tensor;
  Global global = Global::OrderedDict;
  ScalarType dtype = kFloat32;                                   // StorageType
  PickleValue::ListType list_type = PickleValue::ListType::Any;  // BuildList, and the lists it built
  std::vector<std::shared_ptr<Obj>> items;                       // list, tuple; a dict's key, value, key, ...
};
using ObjPtr = std::shared_ptr<Obj>;

const char* kind_name(Obj::Kind kind) {
  static constexpr const char* kNames[] = {"None",   "bool", "int",   "float", "str",
                                           "tensor", "list", "tuple", "dict",  "global"};
  return kNames[static_cast<int>(kind)];
}

class Unpickler {
 public:
  Unpickler(std::string_view pickle, const ZipReader& zip, std::string prefix)
      : in_(pickle), zip_(zip), prefix_(std::move(prefix)) {}

  // Containers are emptied before they are freed: no deep recursion in destructors, no cycle leaks.
  ~Unpickler() {
    for (const ObjPtr& container : containers_) container->items.clear();
  }

  PickleValue run() {
    while (true) {
      EMBER_CHECK(pos_ < in_.size(), "pickle_load: data.pkl ends without a STOP opcode");
      opcode_at_ = pos_;
      const char opcode = in_[pos_++];
      if (opcode == op::kStop) break;
      step(opcode);
    }
    check(!stack_.empty(), "STOP with an empty stack");
    return convert(stack_.back(), 0);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    EMBER_FAIL("pickle_load: data.pkl: {} (opcode 0x{:02x} at byte {})", what, static_cast<uint8_t>(in_[opcode_at_]),
               opcode_at_);
  }
  void check(bool condition, const char* what) const {
    if (!condition) fail(what);
  }

  const char* take(size_t n) {
    check(in_.size() - pos_ >= n, "truncated: the opcode's argument runs past the end");
    const char* p = in_.data() + pos_;
    pos_ += n;
    return p;
  }
  uint64_t take_le(int bytes) { return get_le(take(bytes), bytes); }
  std::string take_line() {
    const size_t end = in_.find('\n', pos_);
    check(end != std::string_view::npos, "truncated: a GLOBAL's name has no newline");
    std::string line(in_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return line;
  }

  ObjPtr make(Obj::Kind kind) {
    auto obj = std::make_shared<Obj>();
    obj->kind = kind;
    if (kind == Obj::Kind::List || kind == Obj::Kind::Tuple || kind == Obj::Kind::Dict) containers_.push_back(obj);
    return obj;
  }
  void push(ObjPtr obj) { stack_.push_back(std::move(obj)); }
  ObjPtr pop() {
    check(stack_.size() > marks_.back_or_zero(), "pops an empty stack");
    ObjPtr top = std::move(stack_.back());
    stack_.pop_back();
    return top;
  }
  // The items above the last MARK, which is removed.
  std::vector<ObjPtr> pop_mark() {
    check(!marks_.empty(), "no MARK to pop to");
    const size_t mark = marks_.pop();
    std::vector<ObjPtr> items(std::make_move_iterator(stack_.begin() + mark), std::make_move_iterator(stack_.end()));
    stack_.resize(mark);
    return items;
  }
  Obj& top(Obj::Kind kind, const char* opcode_name) {
    check(stack_.size() > marks_.back_or_zero(), "needs a value on the stack");
    Obj& obj = *stack_.back();
    if (obj.kind != kind)
      fail(fmt::format("{} on a {}, expected a {}", opcode_name, kind_name(obj.kind), kind_name(kind)));
    return obj;
  }

  void push_int(int64_t i) {
    ObjPtr obj = make(Obj::Kind::Int);
    obj->integer = i;
    push(std::move(obj));
  }
  void push_string(size_t size) {
    ObjPtr obj = make(Obj::Kind::String);
    obj->text.assign(take(size), size);
    push(std::move(obj));
  }
  void push_tuple(std::vector<ObjPtr> items) {
    ObjPtr obj = make(Obj::Kind::Tuple);
    obj->items = std::move(items);
    push(std::move(obj));
  }
  void memo_put(uint64_t index) {
    check(!stack_.empty(), "memoizes from an empty stack");
    memo_[index] = stack_.back();
  }
  void memo_get(uint64_t index) {
    auto it = memo_.find(index);
    check(it != memo_.end(), "memo index that was never stored");
    push(it->second);
  }
  void append(Obj& list, std::vector<ObjPtr> items) {
    list.items.insert(list.items.end(), std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
  }

  void step(char opcode) {
    using Kind = Obj::Kind;
    switch (opcode) {
      case op::kProto:
        check(static_cast<uint8_t>(*take(1)) <= 5, "pickle protocol above 5");
        return;
      case op::kFrame:  // protocol 4's framing carries no meaning for a reader holding all bytes
        take(8);
        return;
      case op::kMark:
        return marks_.push(stack_.size());
      case op::kPop:
        pop();
        return;
      case op::kPopMark:
        pop_mark();
        return;
      case op::kDup:
        check(!stack_.empty(), "DUP of an empty stack");
        return push(stack_.back());
      case op::kNone:
        return push(make(Kind::None));
      case op::kNewTrue:
      case op::kNewFalse: {
        ObjPtr obj = make(Kind::Bool);
        obj->boolean = opcode == op::kNewTrue;
        return push(std::move(obj));
      }
      case op::kBinInt1:
        return push_int(static_cast<int64_t>(take_le(1)));
      case op::kBinInt2:
        return push_int(static_cast<int64_t>(take_le(2)));
      case op::kBinInt:
        return push_int(static_cast<int32_t>(take_le(4)));
      case op::kLong1:
      case op::kLong4: {
        const uint64_t n = opcode == op::kLong1 ? take_le(1) : take_le(4);
        check(n <= 8, "an integer that does not fit in 64 bits");
        uint64_t bits = n == 0 ? 0 : take_le(static_cast<int>(n));
        if (n > 0 && n < 8 && (bits >> (8 * n - 1)) != 0) bits |= ~uint64_t{0} << (8 * n);  // sign-extend
        return push_int(static_cast<int64_t>(bits));
      }
      case op::kBinFloat: {
        const char* p = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(p[i]);  // big-endian
        ObjPtr obj = make(Kind::Double);
        std::memcpy(&obj->real, &bits, 8);
        return push(std::move(obj));
      }
      case op::kShortBinUnicode:
        return push_string(take_le(1));
      case op::kBinUnicode:
        return push_string(take_le(4));
      case op::kBinUnicode8: {
        const uint64_t n = take_le(8);
        check(n <= in_.size(), "a string longer than data.pkl");
        return push_string(n);
      }
      case op::kEmptyList:
        return push(make(Kind::List));
      case op::kEmptyDict:
        return push(make(Kind::Dict));
      case op::kEmptyTuple:
        return push_tuple({});
      case op::kList: {
        ObjPtr obj = make(Kind::List);
        obj->items = pop_mark();
        return push(std::move(obj));
      }
      case op::kTuple:
        return push_tuple(pop_mark());
      case op::kTuple1:
      case op::kTuple2:
      case op::kTuple3: {
        const size_t n = static_cast<size_t>(opcode - op::kTuple1) + 1;
        check(stack_.size() >= marks_.back_or_zero() + n, "TUPLE1/2/3 with too few values on the stack");
        std::vector<ObjPtr> items(stack_.end() - n, stack_.end());
        stack_.resize(stack_.size() - n);
        return push_tuple(std::move(items));
      }
      case op::kDict: {
        std::vector<ObjPtr> items = pop_mark();
        check(items.size() % 2 == 0, "DICT with an odd number of keys and values");
        ObjPtr obj = make(Kind::Dict);
        obj->items = std::move(items);
        return push(std::move(obj));
      }
      case op::kAppend: {
        ObjPtr item = pop();
        return append(top(Kind::List, "APPEND"), {std::move(item)});
      }
      case op::kAppends: {
        std::vector<ObjPtr> items = pop_mark();
        return append(top(Kind::List, "APPENDS"), std::move(items));
      }
      case op::kSetItem: {
        ObjPtr value = pop();
        ObjPtr key = pop();
        return append(top(Kind::Dict, "SETITEM"), {std::move(key), std::move(value)});
      }
      case op::kSetItems: {
        std::vector<ObjPtr> items = pop_mark();
        check(items.size() % 2 == 0, "SETITEMS with an odd number of keys and values");
        return append(top(Kind::Dict, "SETITEMS"), std::move(items));
      }
      case op::kBinPut:
        return memo_put(take_le(1));
      case op::kLongBinPut:
        return memo_put(take_le(4));
      case op::kMemoize:
        return memo_put(memo_.size());
      case op::kBinGet:
        return memo_get(take_le(1));
      case op::kLongBinGet:
        return memo_get(take_le(4));
      case op::kGlobal: {
        std::string module = take_line();
        std::string name = take_line();
        return push(resolve_global(module, name));
      }
      case op::kStackGlobal: {
        ObjPtr name = pop();
        ObjPtr module = pop();
        check(name->kind == Kind::String && module->kind == Kind::String, "STACK_GLOBAL of non-strings");
        return push(resolve_global(module->text, name->text));
      }
      case op::kBinPersId:
        return push(persistent_storage(pop()));
      case op::kReduce: {
        ObjPtr args = pop();
        ObjPtr callable = pop();
        check(callable->kind == Kind::Global, "REDUCE of something that is not an allowed global");
        check(args->kind == Kind::Tuple, "REDUCE with arguments that are not a tuple");
        return push(reduce(*callable, args->items));
      }
      case op::kBuild: {  // a state_dict's OrderedDict carries `_metadata` as its state: dropped
        ObjPtr state = pop();
        top(Kind::Dict, "BUILD");
        check(state->kind == Kind::Dict || state->kind == Kind::None, "BUILD with a state that is not a dict");
        return;
      }
      default:
        fail("an opcode the restricted unpickler does not allow");
    }
  }

  ObjPtr resolve_global(const std::string& module, const std::string& name) {
    ObjPtr obj = make(Obj::Kind::Global);
    obj->text = module + "." + name;
    if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
      obj->global = Global::RebuildTensor;
    } else if (module == "torch._utils" && name == "_rebuild_parameter") {
      obj->global = Global::RebuildParameter;
    } else if (module == "collections" && name == "OrderedDict") {
      obj->global = Global::OrderedDict;
    } else if (module == "torch.jit._pickle" && name == "restore_type_tag") {
      obj->global = Global::RestoreTypeTag;
    } else if (module == "torch.jit._pickle" && name.rfind("build_", 0) == 0) {
      using ListType = PickleValue::ListType;
      const std::pair<const char*, ListType> builders[] = {{"build_intlist", ListType::Int},
                                                           {"build_doublelist", ListType::Double},
                                                           {"build_boollist", ListType::Bool},
                                                           {"build_tensorlist", ListType::Tensor}};
      obj->global = Global::BuildList;
      bool known = false;
      for (const auto& [builder, type] : builders) {
        if (name == builder) obj->list_type = type, known = true;
      }
      if (!known) fail("refuses the global '" + obj->text + "'");
    } else {
      bool known = false;
      for (const StorageType& type : kStorageTypes) {
        if (module == "torch" && name == type.name)
          obj->global = Global::StorageType, obj->dtype = type.dtype, known = true;
      }
      if (!known)
        fail("refuses the global '" + obj->text +
             "' (only tensors, None, bool, int, float, str, list, tuple, dict and OrderedDict are read)");
    }
    return obj;
  }

  int64_t int_arg(const ObjPtr& obj, const char* what) {
    if (obj->kind != Obj::Kind::Int) fail(fmt::format("{} is a {}, expected an int", what, kind_name(obj->kind)));
    return obj->integer;
  }

  // ('storage', torch.FloatStorage, key, location, numel): the entry <prefix>/data/<key>, read once
  // per key, as a 1-d CPU tensor of numel elements.
  ObjPtr persistent_storage(const ObjPtr& pid) {
    check(pid->kind == Obj::Kind::Tuple && pid->items.size() == 5, "a persistent id that is not a 5-tuple");
    const auto& f = pid->items;
    check(f[0]->kind == Obj::Kind::String && f[0]->text == "storage", "a persistent id that is not a 'storage'");
    check(f[1]->kind == Obj::Kind::Global && f[1]->global == Global::StorageType,
          "a persistent id without a storage type");
    check(f[2]->kind == Obj::Kind::String && f[3]->kind == Obj::Kind::String,
          "a storage key or location that is not a str");
    const ScalarType dtype = f[1]->dtype;
    const int64_t numel = int_arg(f[4], "a storage's size");
    const std::string& key = f[2]->text;
    auto cached = storages_.find(key);
    if (cached == storages_.end()) {
      auto entry = zip_.entries().find(prefix_ + "/data/" + key);
      if (entry == zip_.entries().end()) fail("storage '" + key + "' has no entry " + prefix_ + "/data/" + key);
      const std::string_view bytes = entry->second;
      if (numel < 0 || static_cast<uint64_t>(numel) != bytes.size() / element_size(dtype) ||
          bytes.size() % element_size(dtype) != 0) {
        fail(fmt::format("storage '{}' of {} {} elements, but its entry holds {} bytes", key, numel, dtype_name(dtype),
                         bytes.size()));
      }
      Tensor storage = raw_empty({numel}, dtype, Device(kCPU), "pickle_load");
      if (!bytes.empty()) std::memcpy(storage.raw_data_ptr(), bytes.data(), bytes.size());
      cached = storages_.emplace(key, storage).first;
    }
    if (cached->second.dtype() != dtype || cached->second.numel() != numel) {
      fail("storage '" + key + "' is named twice with different types or sizes");
    }
    ObjPtr obj = make(Obj::Kind::Tensor);  // a storage: a 1-d tensor that only _rebuild_tensor_v2 takes
    obj->tensor = cached->second;
    obj->global = Global::StorageType;
    return obj;
  }

  std::vector<int64_t> int_tuple(const ObjPtr& obj, const char* what) {
    if (obj->kind != Obj::Kind::Tuple)
      fail(fmt::format("a tensor's {} is a {}, expected a tuple", what, kind_name(obj->kind)));
    std::vector<int64_t> values;
    for (const ObjPtr& item : obj->items) values.push_back(int_arg(item, what));
    return values;
  }

  ObjPtr reduce(const Obj& callable, const std::vector<ObjPtr>& args) {
    switch (callable.global) {
      case Global::RebuildTensor:
        return rebuild_tensor(args);
      case Global::RebuildParameter: {  // (tensor, requires_grad, backward_hooks)
        check(args.size() == 3 && args[0]->kind == Obj::Kind::Tensor && args[0]->global != Global::StorageType &&
                  args[1]->kind == Obj::Kind::Bool,
              "_rebuild_parameter with arguments other than (tensor, bool, hooks)");
        ObjPtr obj = make(Obj::Kind::Tensor);
        obj->tensor = raw_view(args[0]->tensor, args[0]->tensor.sizes().vec(), args[0]->tensor.strides().vec(),
                               args[0]->tensor.storage_offset());
        if (args[1]->boolean) obj->tensor.requires_grad_(true);
        return obj;
      }
      case Global::OrderedDict:
        check(args.empty(), "OrderedDict() with arguments");
        return make(Obj::Kind::Dict);
      case Global::RestoreTypeTag:  // (value, "Dict[str, Tensor]"): the value
        check(args.size() == 2, "restore_type_tag with other than two arguments");
        return args[0];
      case Global::BuildList: {  // ([...],): the list, typed
        check(args.size() == 1 && args[0]->kind == Obj::Kind::List, "build_*list of something that is not a list");
        ObjPtr obj = make(Obj::Kind::List);
        obj->items = args[0]->items;
        obj->list_type = callable.list_type;
        return obj;
      }
      case Global::StorageType:
        break;
    }
    fail("calls a storage type");
  }

  // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  ObjPtr rebuild_tensor(const std::vector<ObjPtr>& args) {
    check(args.size() == 6 || args.size() == 7, "_rebuild_tensor_v2 with other than 6 or 7 arguments");
    check(args[0]->kind == Obj::Kind::Tensor && args[0]->global == Global::StorageType,
          "_rebuild_tensor_v2 of something that is not a storage");
    check(args[4]->kind == Obj::Kind::Bool, "_rebuild_tensor_v2's requires_grad is not a bool");
    check(args[5]->kind == Obj::Kind::Dict, "_rebuild_tensor_v2's backward hooks are not an OrderedDict");
    check(args[5]->items.empty(), "_rebuild_tensor_v2 with backward hooks");
    const Tensor& storage = args[0]->tensor;
    const int64_t offset = int_arg(args[1], "a tensor's storage offset");
    std::vector<int64_t> sizes = int_tuple(args[2], "size");
    std::vector<int64_t> strides = int_tuple(args[3], "stride");
    check(sizes.size() == strides.size(), "a tensor whose size and stride differ in length");
    // Every element the view reaches must lie in the storage: offset + sum((size - 1) * stride) < numel.
    bool empty = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
      check(sizes[d] >= 0 && strides[d] >= 0, "a negative size or stride");
      empty = empty || sizes[d] == 0;
    }
    check(offset >= 0 && offset <= storage.numel(), "a storage offset outside the storage");
    if (!empty) {
      int64_t last = offset, numel = 1;
      for (size_t d = 0; d < sizes.size(); ++d) {
        int64_t reach = 0;
        const bool overflow = __builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
                              __builtin_add_overflow(last, reach, &last) ||
                              __builtin_mul_overflow(numel, sizes[d], &numel);
        check(!overflow, "a tensor whose size overflows 64 bits");
      }
      if (last >= storage.numel()) {
        fail(fmt::format("a tensor of size {} and stride {} at offset {} reaches element {} of a storage of {}",
                         shape_str(sizes), shape_str(strides), offset, last, storage.numel()));
      }
    }
    ObjPtr obj = make(Obj::Kind::Tensor);
    obj->tensor = raw_view(storage, std::move(sizes), std::move(strides), offset);
    if (args[4]->boolean) {
      check(is_floating_point(storage.dtype()), "requires_grad on a tensor that is not floating point");
      obj->tensor.requires_grad_(true);
    }
    return obj;
  }

  // The graph as PickleValues: at most kPickleMaxDepth deep, no cycles, only value kinds, each
  // shared node converted once.
  PickleValue convert(const ObjPtr& obj, int depth) {
    using Kind = Obj::Kind;
    if (depth > kPickleMaxDepth) EMBER_FAIL("pickle_load: data.pkl nests containers deeper than {}", kPickleMaxDepth);
    switch (obj->kind) {
      case Kind::None:
        return PickleValue::none();
      case Kind::Bool:
        return PickleValue::boolean_value(obj->boolean);
      case Kind::Int:
        return PickleValue::int_value(obj->integer);
      case Kind::Double:
        return PickleValue::double_value(obj->real);
      case Kind::String:
        return PickleValue::string(obj->text);
      case Kind::Tensor:
        if (obj->global == Global::StorageType) EMBER_FAIL("pickle_load: data.pkl holds a bare storage");
        return PickleValue(obj->tensor);
      case Kind::Global:
        EMBER_FAIL("pickle_load: data.pkl holds the global '{}' as a value", obj->text);
      case Kind::List:
      case Kind::Tuple:
      case Kind::Dict:
        break;
    }
    if (auto done = converted_.find(obj.get()); done != converted_.end()) return done->second;
    EMBER_CHECK(active_.insert(obj.get()).second, "pickle_load: data.pkl holds a {} that contains itself",
                kind_name(obj->kind));
    PickleValue::Items items;
    for (const ObjPtr& item : obj->items) items.push_back(convert(item, depth + 1));
    PickleValue value;
    if (obj->kind == Kind::List) {
      check_list_type(obj->list_type, items);
      value = PickleValue::list(std::move(items), obj->list_type);
    } else if (obj->kind == Kind::Tuple) {
      value = PickleValue::tuple(std::move(items));
    } else {
      value = PickleValue::dict(dict_entries(std::move(items)));
    }
    active_.erase(obj.get());
    converted_.emplace(obj.get(), value);
    return value;
  }

  static void check_list_type(PickleValue::ListType type, const PickleValue::Items& items) {
    using ListType = PickleValue::ListType;
    using VKind = PickleValue::Kind;
    static constexpr VKind kItemKind[] = {VKind::None, VKind::Int, VKind::Double, VKind::Bool, VKind::Tensor};
    if (type == ListType::Any) return;
    for (const PickleValue& item : items) {
      EMBER_CHECK(item.kind == kItemKind[static_cast<int>(type)],
                  "pickle_load: a typed list holds an item of another type");
    }
  }

  // Keys in first-insertion order; a later value for the same key replaces the earlier one, as in Python.
  static PickleValue::Entries dict_entries(PickleValue::Items flat) {
    using VKind = PickleValue::Kind;
    PickleValue::Entries entries;
    std::map<std::pair<int, std::string>, size_t> index;
    for (size_t i = 0; i + 1 < flat.size(); i += 2) {
      const PickleValue& key = flat[i];
      std::string repr;
      switch (key.kind) {
        case VKind::None:
          break;
        case VKind::Bool:
          repr = key.boolean ? "1" : "0";
          break;
        case VKind::Int:
          repr = std::to_string(key.integer);
          break;
        case VKind::Double:
          repr.assign(reinterpret_cast<const char*>(&key.real), sizeof(double));
          break;
        case VKind::String:
          repr = key.text;
          break;
        default:
          EMBER_FAIL("pickle_load: a dict key that is not None, bool, int, float or str");
      }
      auto [it, inserted] = index.emplace(std::make_pair(static_cast<int>(key.kind), repr), entries.size());
      if (inserted) {
        entries.emplace_back(std::move(flat[i]), std::move(flat[i + 1]));
      } else {
        entries[it->second].second = std::move(flat[i + 1]);
      }
    }
    return entries;
  }

  // MARK positions (Python's metastack); back_or_zero is where the current frame begins.
  struct Marks {
    std::vector<size_t> positions;
    bool empty() const { return positions.empty(); }
    void push(size_t p) { positions.push_back(p); }
    size_t pop() {
      size_t p = positions.back();
      positions.pop_back();
      return p;
    }
    size_t back_or_zero() const { return positions.empty() ? 0 : positions.back(); }
  };

  std::string_view in_;
  const ZipReader& zip_;
  std::string prefix_;
  size_t pos_ = 0;
  size_t opcode_at_ = 0;
  std::vector<ObjPtr> stack_;
  Marks marks_;
  std::unordered_map<uint64_t, ObjPtr> memo_;
  std::vector<ObjPtr> containers_;
  std::map<std::string, Tensor> storages_;
  std::unordered_map<const Obj*, PickleValue> converted_;
  std::unordered_set<const Obj*> active_;
};

}  // namespace

std::vector<char> pickle_save(const PickleValue& value) {
  Pickler pickler;
  pickler.out = {op::kProto, '\x02'};
  pickler.value(value, 0);
  pickler.out.push_back(op::kStop);
  // libtorch's order: the storages, data.pkl, version.
  ZipWriter zip;
  for (size_t i = 0; i < pickler.storages.size(); ++i) {
    const auto& [storage, nbytes] = pickler.storages[i];
    zip.add("archive/data/" + std::to_string(i), static_cast<const char*>(storage->data), nbytes);
  }
  zip.add("archive/data.pkl", pickler.out.data(), pickler.out.size());
  const std::string version = "3\n";
  zip.add("archive/version", version.data(), version.size());
  return zip.finish();
}

}  // namespace ember

namespace ember {

PickleValue pickle_load(const char* data, size_t size) {
  ZipReader zip(data, size);
  // The archive's one top-level folder: "archive" from libtorch and torch.save to a buffer, the
  // file's stem from torch.save to a path.
  std::string prefix;
  for (const auto& [name, bytes] : zip.entries()) {
    const size_t slash = name.find('/');
    if (slash == std::string::npos || name.compare(slash, std::string::npos, "/data.pkl") != 0) continue;
    EMBER_CHECK(prefix.empty(), "pickle_load: the archive holds two data.pkl ({}/data.pkl and {})", prefix, name);
    prefix = name.substr(0, slash);
  }
  EMBER_CHECK(!prefix.empty(), "pickle_load: the archive has no <folder>/data.pkl entry (not a torch.save archive)");
  if (auto order = zip.entries().find(prefix + "/byteorder"); order != zip.entries().end()) {
    EMBER_CHECK(order->second == "little", "pickle_load: the archive's byte order is '{}'; only little is read",
                order->second);
  }
  Unpickler unpickler(zip.entries().at(prefix + "/data.pkl"), zip, prefix);
  return unpickler.run();
}

}  // namespace ember
