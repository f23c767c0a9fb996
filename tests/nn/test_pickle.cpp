// pickle_load of archives Python's torch.save wrote (tests/fixtures/pickle/, from
// scripts/gen_pickle_fixtures.py), pickle_save -> pickle_load round trips, and bad input: refused
// globals, truncated and corrupted archives, out-of-range storages, recursion bombs, random mutations.
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "fixture_json.h"
#include "nn/pickle.h"
#include "nn/pickle_zip.h"

namespace ember {
namespace {

using Kind = PickleValue::Kind;
using nlohmann::json;
using namespace std::string_literals;

std::vector<char> read_fixture(const std::string& name) {
  const char* moved = std::getenv("EMBER_FIXTURE_DIR");
  const std::string dir = moved != nullptr && *moved != '\0' ? moved : EMBER_FIXTURE_DIR;
  std::ifstream in(dir + "/pickle/" + name + ".pt", std::ios::binary);
  EXPECT_TRUE(in.good()) << name << ": run scripts/gen_pickle_fixtures.py";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

PickleValue load(const std::vector<char>& bytes) { return pickle_load(bytes.data(), bytes.size()); }

ScalarType dtype_from(const std::string& name) {
  static const std::map<std::string, ScalarType> kDtypes = {
      {"float32", kFloat32}, {"float64", kFloat64}, {"int64", kInt64}, {"int32", kInt32},     {"int16", kInt16},
      {"int8", kInt8},       {"uint8", kUInt8},     {"bool", kBool},   {"float16", kFloat16}, {"bfloat16", kBFloat16}};
  return kDtypes.at(name);
}

// Checks `value` against the fixture's description; `storages` maps the fixture's storage ids to
// the storage Ember gave the first tensor with that id, so views must share exactly where PyTorch's did.
void expect_matches(const PickleValue& value, const json& expected, const std::string& path,
                    std::map<int, const StorageImpl*>& storages) {
  const std::string type = expected["type"];
  static const std::map<std::string, Kind> kKinds = {
      {"none", Kind::None},    {"bool", Kind::Bool},  {"int", Kind::Int},
      {"float", Kind::Double}, {"str", Kind::String}, {"list", Kind::List},
      {"tuple", Kind::Tuple},  {"dict", Kind::Dict},  {"tensor", Kind::Tensor}};
  ASSERT_EQ(static_cast<int>(value.kind), static_cast<int>(kKinds.at(type))) << path << " should be a " << type;
  if (type == "bool") EXPECT_EQ(value.boolean, expected["value"].get<bool>()) << path;
  if (type == "int") EXPECT_EQ(value.integer, expected["value"].get<int64_t>()) << path;
  if (type == "float") EXPECT_EQ(value.real, expected["value"].get<double>()) << path;
  if (type == "str") EXPECT_EQ(value.text, expected["value"].get<std::string>()) << path;
  if (type == "list" || type == "tuple") {
    ASSERT_EQ(value.items->size(), expected["items"].size()) << path;
    for (size_t i = 0; i < value.items->size(); ++i) {
      expect_matches(value.items->at(i), expected["items"][i], path + "[" + std::to_string(i) + "]", storages);
    }
  }
  if (type == "dict") {
    ASSERT_EQ(value.entries->size(), expected["entries"].size()) << path;
    for (size_t i = 0; i < value.entries->size(); ++i) {
      const auto& [key, item] = value.entries->at(i);
      expect_matches(key, expected["entries"][i][0], path + ".key" + std::to_string(i), storages);
      expect_matches(item, expected["entries"][i][1], path + "." + expected["entries"][i][0].dump(), storages);
    }
  }
  if (type == "tensor") {
    const Tensor& t = value.tensor;
    EXPECT_EQ(t.dtype(), dtype_from(expected["dtype"])) << path;
    EXPECT_EQ(t.sizes().vec(), expected["shape"].get<std::vector<int64_t>>()) << path;
    EXPECT_EQ(t.strides().vec(), expected["stride"].get<std::vector<int64_t>>()) << path;
    EXPECT_EQ(t.storage_offset(), expected["offset"].get<int64_t>()) << path;
    EXPECT_EQ(t.requires_grad(), expected["requires_grad"].get<bool>()) << path;
    auto [it, first] = storages.emplace(expected["storage"].get<int>(), t.storage().get());
    EXPECT_EQ(it->second, t.storage().get()) << path << ": views of one storage must share it";
    const Tensor flat = t.detach().reshape({-1});
    if (is_floating_point(t.dtype())) {
      EXPECT_EQ(flat.to(kFloat64).to_vector<double>(), expected["values"].get<std::vector<double>>()) << path;
    } else {
      std::vector<int64_t> want;
      for (const json& v : expected["values"]) want.push_back(v.is_boolean() ? v.get<bool>() : v.get<int64_t>());
      EXPECT_EQ(flat.to(kInt64).to_vector<int64_t>(), want) << path;
    }
  }
}

const char* const kFixtures[] = {"tensor",        "dict",       "mixed",     "views",     "dtypes",
                                 "noncontiguous", "state_dict", "parameter", "protocol4", "model"};

TEST(PickleLoad, ReadsWhatTorchSaveWrote) {
  const json expected = test::load_fixture("pickle/expected.json");
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    std::map<int, const StorageImpl*> storages;
    expect_matches(load(read_fixture(name)), expected[name], name, storages);
  }
}

// pickle_save writes each storage whole with the tensors as views of it, so offsets, strides and
// sharing come back as PyTorch wrote them.
TEST(PickleSave, RoundTripsEveryFixture) {
  const json expected = test::load_fixture("pickle/expected.json");
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    std::map<int, const StorageImpl*> storages;
    const std::vector<char> bytes = pickle_save(load(read_fixture(name)));
    expect_matches(load(bytes), expected[name], name, storages);
  }
}

TEST(PickleSave, RoundTripsBuiltValues) {
  using ListType = PickleValue::ListType;
  Tensor base = arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3});
  PickleValue shared = PickleValue::list({PickleValue::int_value(1)});
  PickleValue value = PickleValue::dict({
      {PickleValue::string("t"), PickleValue(base.t())},
      {PickleValue::string("ints"), PickleValue::list({PickleValue::int_value(-5), PickleValue::int_value(INT64_MAX),
                                                       PickleValue::int_value(INT64_MIN)},
                                                      ListType::Int)},
      {PickleValue::string("shared"), PickleValue::tuple({shared, shared})},
      {PickleValue::int_value(7), PickleValue::double_value(-0.125)},
  });
  PickleValue back = load(pickle_save(value));
  ASSERT_EQ(back.kind, Kind::Dict);
  ASSERT_EQ(back.entries->size(), 4u);
  const Tensor t = back.entries->at(0).second.tensor;
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(t.equal(base.t()));
  const PickleValue& ints = back.entries->at(1).second;
  EXPECT_EQ(ints.list_type, ListType::Int);
  EXPECT_EQ(ints.items->at(1).integer, INT64_MAX);
  EXPECT_EQ(ints.items->at(2).integer, INT64_MIN);
  const PickleValue& pair = back.entries->at(2).second;
  EXPECT_EQ(pair.items->at(0).items, pair.items->at(1).items) << "a list held twice comes back shared";
  EXPECT_EQ(back.entries->at(3).first.integer, 7);
  EXPECT_EQ(back.entries->at(3).second.real, -0.125);
}

// ---- bad input ----

// An archive whose data.pkl is `pickle` (protocol-2 bytes), with the given storages.
std::vector<char> archive(const std::string& pickle,
                          const std::vector<std::pair<std::string, std::string>>& data = {}) {
  ZipWriter zip;
  for (const auto& [name, bytes] : data) zip.add("archive/data/" + name, bytes.data(), bytes.size());
  zip.add("archive/data.pkl", pickle.data(), pickle.size());
  zip.add("archive/version", "3\n", 2);
  return zip.finish();
}

void expect_refused(const std::vector<char>& bytes, const std::string& message_part) {
  try {
    load(bytes);
    ADD_FAILURE() << "pickle_load accepted it; expected an error with '" << message_part << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pickle_load"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  }
}

// A float tensor of `size` and `stride` at `offset` on storage "0" of `numel` elements.
std::string tensor_pickle(const std::string& key, int numel, int offset, const std::string& size_stride) {
  std::string bytes =
      "\x80\x02"
      "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\0\0\0storage"
      "ctorch\nFloatStorage\nX"s;
  bytes += static_cast<char>(key.size());  // appended one by one: GCC 12 misreads a chain of + here
  bytes += "\0\0\0"s;
  bytes += key;
  bytes += "X\x03\0\0\0cpuK"s;
  bytes += static_cast<char>(numel);
  bytes += "tQK";
  bytes += static_cast<char>(offset);
  bytes += size_stride;
  bytes +=
      "\x89"
      "ccollections\nOrderedDict\n)RtR.";
  return bytes;
}

TEST(PickleLoad, RefusesGlobalsWithoutRunningThem) {
  // What pickle.dumps of an object whose __reduce__ is (os.system, ('touch /tmp/x',)) holds.
  expect_refused(archive("\x80\x02"
                         "cposix\nsystem\nX\x0c\0\0\0touch /tmp/x\x85R."s),
                 "refuses the global 'posix.system'");
  expect_refused(archive("\x80\x02"
                         "cbuiltins\neval\nX\x01\0\0\0"
                         "1\x85R."s),
                 "refuses the global 'builtins.eval'");
  expect_refused(archive("\x80\x02X\x02\0\0\0osX\x06\0\0\0system\x93."s), "refuses the global 'os.system'");
  expect_refused(read_fixture("evil"), "refuses the global");  // written by torch.save itself
}

TEST(PickleLoad, RefusesBadOpcodesAndStructure) {
  expect_refused(archive("\x80\x02"
                         "S'text'\n."),
                 "opcode the restricted unpickler does not allow");
  expect_refused(archive("\x80\x02K\x01"), "ends without a STOP");
  expect_refused(archive("\x80\x02X\xff\xff\0\0ab."s), "truncated");
  expect_refused(archive("\x80\x02h\x05."), "memo index");
  expect_refused(archive("\x80\x02"
                         "a."),
                 "pops an empty stack");
  expect_refused(archive("\x80\x02K\x01K\x02"
                         "a."),
                 "APPEND on a int");
  expect_refused(archive("\x80\x02]q\x00h\x00"
                         "a."s),
                 "contains itself");
  // A recursion bomb: 5000 nested lists, far fewer bytes than a deep stack would need.
  std::string bomb = "\x80\x02";
  for (int i = 0; i < 5000; ++i) bomb += "]";
  for (int i = 0; i < 4999; ++i) bomb += "a";
  expect_refused(archive(bomb + "."), "deeper than");
}

TEST(PickleLoad, RefusesBadStorages) {
  const std::string six_floats(24, '\0');
  const std::string matrix = std::string("K\x02K\x03\x86K\x03K\x01\x86");  // size (2, 3), stride (3, 1)
  EXPECT_NO_THROW(load(archive(tensor_pickle("0", 6, 0, matrix), {{"0", six_floats}})));
  expect_refused(archive(tensor_pickle("7", 6, 0, matrix), {{"0", six_floats}}), "has no entry archive/data/7");
  expect_refused(archive(tensor_pickle("0", 9, 0, matrix), {{"0", six_floats}}), "holds 24 bytes");
  expect_refused(archive(tensor_pickle("0", 6, 1, matrix), {{"0", six_floats}}), "reaches element 6");
  expect_refused(archive(tensor_pickle("0", 6, 0, "K\x02K\x04\x86K\x03K\x01\x86"), {{"0", six_floats}}),
                 "reaches element");
  // 2^62 x 4: the element count overflows 64 bits.
  const std::string huge = "\x8a\x08\0\0\0\0\0\0\0\x40K\x04\x86K\x00K\x00\x86"s;
  expect_refused(archive(tensor_pickle("0", 6, 0, huge), {{"0", six_floats}}), "overflows");
}

TEST(PickleLoad, RefusesBadArchives) {
  const std::vector<char> good = read_fixture("dict");
  expect_refused({}, "not a zip archive");
  expect_refused(std::vector<char>(good.begin(), good.begin() + 100), "not a zip archive");
  expect_refused(std::vector<char>(good.begin(), good.end() - 1), "");
  std::vector<char> flipped = good;
  flipped[70] ^= 0x5a;  // a byte of data.pkl: its CRC-32 no longer matches
  expect_refused(flipped, "CRC-32");
  std::vector<char> moved = archive("\x80\x02N.");  // no zip64 record: the end record's offset is the one
  moved[moved.size() - 6] ^= 0x10;                  // the central directory's offset, 16 bytes off
  expect_refused(moved, "corrupt zip archive");
  ZipWriter no_pickle;
  no_pickle.add("archive/version", "3\n", 2);
  expect_refused(no_pickle.finish(), "no <folder>/data.pkl");
}

// Every mutation of a valid archive either loads or throws ember::Error: never a crash or a hang.
TEST(PickleLoad, SurvivesRandomMutations) {
  const std::vector<char> good = read_fixture("views");
  std::mt19937 rng(1234);
  int loaded = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<char> bytes = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes[at] = static_cast<char>(rng());
          break;
        case 1:
          bytes[at] ^= static_cast<char>(1 << (rng() % 8));
          break;
        case 2:
          bytes.resize(at);
          break;
        default:
          bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(at), static_cast<char>(rng()));
      }
      if (bytes.empty()) break;
    }
    try {
      load(bytes);
      ++loaded;
    } catch (const Error&) {
      ++refused;
    }
  }
  EXPECT_EQ(loaded + refused, 400);
}

// The same unpickler sees what a mutated data.pkl holds: re-zipped, so the CRC passes and the bytes
// reach the opcodes.
TEST(PickleLoad, SurvivesRandomMutationsOfThePickle) {
  const std::vector<char> good = read_fixture("views");
  ZipReader reader(good.data(), good.size());
  const std::string pickle(reader.entries().at("archive/data.pkl"));
  const std::string storage(reader.entries().at("archive/data/0"));
  std::mt19937 rng(99);
  for (int trial = 0; trial < 400; ++trial) {
    std::string bytes = pickle;
    for (int e = 0, edits = 1 + static_cast<int>(rng() % 3); e < edits; ++e) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng() % 2 ? rng() : bytes[rng() % bytes.size()]);
    }
    try {
      load(archive(bytes, {{"0", storage}}));
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace ember
