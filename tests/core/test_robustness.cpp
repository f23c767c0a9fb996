// Hostile and careless input to the library (issue 16): sizes whose products overflow or that no
// machine holds, JSON nested 100,000 deep, names that are not UTF-8, absurd thread counts, and
// gradients that overflow float32. Each case must end in an ember::Error with a message naming
// the op and the values, never a crash, a hang or another exception type. One line per case.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <tuple>

#include <gtest/gtest.h>

#include "core/caching_allocator.h"
#include "core/sanitizers.h"
#include "core/shape.h"
#include "core/threads.h"
#include "nn/json_guard.h"
#include "test_util.h"

// Under AddressSanitizer a refused allocation must come back as nullptr (and so as an
// OutOfMemoryError), not abort the process; ASAN_OPTIONS still overrides this.
#ifdef EMBER_ASAN
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace ember {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2to62 = int64_t(1) << 62;
constexpr int64_t k2to40 = int64_t(1) << 40;
constexpr int64_t k2to50 = int64_t(1) << 50;
// 3 * kWrapsTo2 is 2 modulo 2^64: a shape [3, kWrapsTo2] "has" 2 elements if nobody checks.
constexpr int64_t kWrapsTo2 = 6148914691236517206;

// A call that must throw an ember::Error whose message contains `needle`; with `oom`, the
// error must be an OutOfMemoryError (overflowing sizes and refused allocations alike).
struct ErrorCase {
  const char* name;
  std::function<void()> run;
  std::string needle;
  bool oom = false;
};

void expect_error(const ErrorCase& c) {
  SCOPED_TRACE(c.name);
  try {
    c.run();
    ADD_FAILURE() << c.name << ": no exception (expected one containing \"" << c.needle << "\")";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(c.needle), std::string::npos) << c.name << ": message \"" << what << "\"";
    EXPECT_LT(what.size(), 1000u) << c.name << ": the message is unbounded";
    if (c.oom) EXPECT_NE(dynamic_cast<const OutOfMemoryError*>(&e), nullptr) << c.name << ": not an OutOfMemoryError";
  } catch (const std::exception& e) {
    ADD_FAILURE() << c.name << ": threw a " << typeid(e).name() << " instead of ember::Error: " << e.what();
  }
}

void expect_errors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) expect_error(c);
}

// ---- sizes ----

TEST(Robustness, SizesThatOverflowAreOutOfMemoryErrors) {
  expect_errors({
      {"empty 2^62 floats", [] { empty({k2to62}); },
       "empty: cannot allocate a tensor of shape [4611686018427387904] float32 (the size overflows 64 bits)", true},
      {"empty 2^62 doubles", [] { empty({k2to62}, kFloat64); }, "float64 (the size overflows 64 bits)", true},
      {"zeros 2^32 x 2^32",
       [] {
         zeros({int64_t(1) << 32, int64_t(1) << 32});
       },
       "empty: cannot allocate a tensor of shape [4294967296, 4294967296] float32 (the size overflows", true},
      {"ones whose numel wraps to 2",
       [] {
         ones({3, kWrapsTo2});
       },
       "(the size overflows 64 bits)", true},
      {"full",
       [] {
         full({kMax, 2}, 1.0);
       },
       "(the size overflows 64 bits)", true},
      {"rand", [] { rand({k2to62}); }, "rand: cannot allocate a tensor of shape [4611686018427387904] float32", true},
      {"randn", [] { randn({kMax}); }, "randn: cannot allocate", true},
      {"randint INT64_MAX", [] { randint(0, 10, {kMax}); },
       "randint: cannot allocate a tensor of shape [9223372036854775807] int64 (the size overflows 64 bits)", true},
      {"zero-element shape whose strides overflow",
       [] {
         empty({0, k2to62, k2to62});
       },
       "overflows 64 bits", true},
      {"from_blob",
       [] {
         from_blob(nullptr, {k2to62, 4});
       },
       "from_blob: cannot allocate", true},
      {"multinomial",
       [] {
         multinomial(ones({2, 3}), kMax, true);
       },
       "multinomial: cannot allocate a tensor of shape [2, 9223372036854775807] int64", true},
      {"linspace", [] { linspace(0, 1, k2to62); }, "linspace: cannot allocate", true},
      {"eye", [] { eye(k2to40, k2to40); }, "eye: cannot allocate", true},
      {"randperm", [] { randperm(k2to62); }, "randperm: cannot allocate", true},
      {"nn::Linear", [] { nn::Linear(k2to40, k2to40); },
       "cannot allocate a tensor of shape [1099511627776, "
       "1099511627776] float32 (the size overflows 64 bits)",
       true},
      {"arange", [] { arange(k2to62); }, "arange: cannot allocate", true},
  });
}

TEST(Robustness, HugeAllocationsAreOutOfMemoryErrors) {
  // 4 PiB: the product fits, no machine running these tests has the memory.
  expect_errors({
      {"empty 2^50 floats", [] { empty({k2to50}); },
       "empty: cannot allocate a tensor of shape [1125899906842624] float32 (4096.00 TiB): cpu out of memory", true},
      {"empty 2^40 floats", [] { empty({k2to40}); }, "[1099511627776] float32 (4.00 TiB): cpu out of memory", true},
      {"int64 max bools", [] { empty({kMax}, kBool); }, "cpu out of memory", true},
      {"zeros 2^25 x 2^25",
       [] {
         zeros({int64_t(1) << 25, int64_t(1) << 25}, kFloat64);
       },
       "cpu out of memory", true},
      {"one_hot with 2^50 classes",
       [] {
         one_hot(tensor({0, 1}, kInt64), k2to50);
       },
       "out of memory", true},
      {"randperm 2^50", [] { randperm(k2to50); }, "randperm: cannot allocate", true},
  });
  // Memory is still usable afterwards.
  EXPECT_EQ(ones({3}).sum().item<float>(), 3.0f);
}

TEST(Robustness, CachingAllocatorRefusesSizesItCannotRound) {
  struct NoMemory : DeviceMemory {
    void* raw_alloc(size_t) override { return nullptr; }
    void raw_free(void*) override {}
  } device;
  CachingAllocator alloc(device, "test");
  expect_errors({
      {"SIZE_MAX bytes", [&] { alloc.allocate(SIZE_MAX); }, "test out of memory: tried to allocate", true},
      {"refused by the device", [&] { alloc.allocate(4096); }, "test out of memory: tried to allocate 4.00 KiB", true},
  });
}

TEST(Robustness, NegativeSizesAreErrors) {
  expect_errors({
      {"empty",
       [] {
         empty({2, -3});
       },
       "empty: negative dimension -3 in shape [2, -3]"},
      {"randn",
       [] {
         randn({-1, 2});
       },
       "randn: negative dimension -1"},
      {"randint", [] { randint(5, {-2}); }, "randint: negative dimension -2"},
      {"from_blob", [] { from_blob(nullptr, {-4}); }, "from_blob: negative dimension -4"},
      {"from_vector", [] { from_vector(std::vector<float>{1}, {-1}); }, "from_vector: negative dimension -1"},
      {"expand to a negative size", [] { ones({1}).expand({-5}); }, "expand: negative dimension -5"},
      {"expand, leading",
       [] {
         ones({2}).expand({-2, 2});
       },
       "expand: negative dimension -2"},
      {"eye", [] { eye(-1); }, "eye: n and m must be non-negative"},
      {"randperm", [] { randperm(-1); }, "randperm: n must be non-negative"},
      {"nn::Embedding", [] { nn::Embedding(-1, 4); },
       "Embedding: num_embeddings and embedding_dim must be non-negative"},
      {"one_hot", [] { one_hot(tensor({0}, kInt64), -5); },
       "one_hot: num_classes must be -1 (inferred) or non-negative"},
  });
}

TEST(Robustness, ViewsWhoseSizesOverflowAreErrors) {
  const Tensor two = ones({2});
  expect_errors({
      {"view wrapping to 2",
       [&] {
         two.view({3, kWrapsTo2});
       },
       "view: shape [3, 6148914691236517206] is invalid for input of size 2 (the product of the sizes overflows"},
      {"reshape wrapping to 2",
       [&] {
         two.reshape({3, kWrapsTo2});
       },
       "reshape: shape [3, 6148914691236517206]"},
      {"view with -1",
       [&] {
         two.view({-1, k2to62, 4});
       },
       "overflows 64 bits"},
      {"view of an empty tensor",
       [] {
         ones({0}).view({0, k2to62, k2to62});
       },
       "overflows 64 bits"},
      {"unflatten",
       [&] {
         two.unflatten(0, {3, kWrapsTo2});
       },
       "unflatten: shape [3, 6148914691236517206]"},
      {"from_vector",
       [] {
         from_vector(std::vector<float>{1, 2}, {3, kWrapsTo2});
       },
       "from_vector: shape"},
      {"expand",
       [] {
         ones({1, 1}).expand({k2to40, k2to40});
       },
       "expand: shape [1099511627776, 1099511627776] has too "
       "many elements"},
      {"as_strided stride", [] { ones({4}).as_strided({2}, {kMax}); }, "as_strided: sizes [2] and strides"},
      {"as_strided size", [] { ones({4}).as_strided({kMax}, {1}); }, "reach outside the storage"},
      {"as_strided product",
       [] {
         ones({4}).as_strided({k2to62, 4}, {0, 0});
       },
       "as_strided: shape"},
      {"as_strided negative", [] { ones({4}).as_strided({2}, {-1}, 1); }, "reach outside the storage"},
      {"split_with_sizes wrapping to 0",
       [] {
         ones({0}).split_with_sizes({kMax, kMax, 2});
       },
       "split_with_sizes: sizes [9223372036854775807, 9223372036854775807, 2] add up to more than 64 bits hold"},
      {"cat of sizes that add past int64",
       [] {
         Tensor a = ones({1}).expand({kMax});
         cat({a, a});
       },
       "cat: the sizes in dimension 0 add up to more than 64 bits hold (at tensor 1, shape [9223372036854775807])"},
      {"narrow length", [] { arange(10).narrow(0, 1, kMax); },
       "narrow: start (1) + length (9223372036854775807) "
       "exceeds dimension size (10)"},
      {"narrow start", [] { arange(10).narrow(0, kMax, 1); }, "narrow: start (9223372036854775807)"},
      {"arange to 1e300", [] { arange(0.0, 1e300); }, "arange: invalid size, possible overflow?"},
      {"arange to inf", [] { arange(0.0, std::numeric_limits<double>::infinity()); }, "arange: unsupported range"},
      {"arange nan step", [] { arange(0.0, 1.0, std::nan("")); }, "arange: upper bound"},
      {"one_hot of INT64_MAX", [] { one_hot(from_vector(std::vector<int64_t>{kMax}, {1})); },
       "one_hot: cannot infer num_classes"},
  });
}

TEST(Robustness, HugeStepsAndChunkCountsGiveTheRightViews) {
  // Computing ceil((end - start) / step) as (end - start + step - 1) / step overflowed here.
  EXPECT_TRUE(equal(arange(10).slice(0, 0, 10, kMax), tensor({0}, kInt64)));
  EXPECT_TRUE(equal(arange(10).slice(0, 3, 10, kMax - 1), tensor({3}, kInt64)));
  tensor_list chunks = arange(5).chunk(kMax);
  ASSERT_EQ(chunks.size(), 5u);
  EXPECT_TRUE(equal(chunks[4], tensor({4}, kInt64)));
  EXPECT_TRUE(equal(arange(4).narrow(0, 4, 0), arange(0)));
  // Still correct on ordinary sizes.
  EXPECT_TRUE(equal(eye(2, 3), tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}})));
  EXPECT_TRUE(equal(arange(1, 2, 0.25), tensor({1.0, 1.25, 1.5, 1.75})));
  std::vector<int64_t> perm = randperm(6).to_vector<int64_t>();
  std::sort(perm.begin(), perm.end());
  EXPECT_EQ(perm, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

// ---- JSON ----

namespace fs = std::filesystem;

class RobustFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ember_robust_{}_{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // A safetensors file with this header text and data.
  std::string write(const std::string& name, std::string header, const std::string& data = "") {
    header.append((8 - header.size() % 8) % 8, ' ');
    const uint64_t n = header.size();
    std::ofstream out(path(name), std::ios::binary);
    out << std::string(reinterpret_cast<const char*>(&n), 8) << header << data;
    return path(name);
  }
  fs::path dir_;
};

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST_F(RobustFiles, DeeplyNestedHeadersAreRejectedBeforeParsing) {
  // 200 KB nested 100,000 deep: copying or dumping such a value would overflow the stack.
  const std::string deep = write("deep.safetensors", "{\"a\":" + nested(100000) + "}");
  const std::string deep_meta = write("meta.safetensors", "{\"__metadata__\":{\"k\":" + nested(100000) + "}}");
  // Brackets inside strings do not count.
  const std::string in_string = write("str.safetensors", "{\"__metadata__\":{\"k\":\"" + nested(1000) + "\"}}");
  expect_errors({
      {"100,000 deep", [&] { load_safetensors(deep); },
       "the JSON nests arrays and objects more than 64 deep (at byte 68)"},
      {"in the metadata", [&] { load_safetensors(deep_meta); }, "more than 64 deep"},
      {"65 deep", [&] { load_safetensors(write("65.safetensors", "{\"a\":" + nested(64) + "}")); },
       "more than 64 deep"},
  });
  // 64 deep is parsed, and then rejected for its layout.
  expect_error({"64 deep", [&] { load_safetensors(write("64.safetensors", "{\"a\":" + nested(63) + "}")); },
                "tensor 'a': expected an object with dtype, shape and data_offsets"});
  EXPECT_EQ(load_safetensors(in_string).metadata.at("k").size(), 2000u);
}

TEST_F(RobustFiles, HeadersWithWrongTypesAreErrors) {
  const std::string ok = R"("shape":[2],"data_offsets":[0,8])";
  const std::string data(8, '\0');
  expect_errors({
      {"dtype a number", [&] { load_safetensors(write("a", R"({"w":{"dtype":5,)" + ok + "}}", data)); },
       "tensor 'w': dtype must be a string, got 5"},
      {"shape a string",
       [&] { load_safetensors(write("b", R"({"w":{"dtype":"F32","shape":"2","data_offsets":[0,8]}})", data)); },
       "shape must be a list of sizes"},
      {"shape negative",
       [&] { load_safetensors(write("c", R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data)); },
       "must hold non-negative integers"},
      {"shape fractional",
       [&] { load_safetensors(write("d", R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}})", data)); },
       "must hold non-negative integers"},
      {"offsets an object",
       [&] { load_safetensors(write("e", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":{"a":0}}})", data)); },
       "data_offsets must be [begin, end]"},
      {"metadata value a number", [&] { load_safetensors(write("f", R"({"__metadata__":{"k":1}})")); },
       "__metadata__ value of 'k' must be a string, got 1"},
      {"metadata a list", [&] { load_safetensors(write("g", R"({"__metadata__":[1]})")); },
       "__metadata__ must map strings to strings"},
      {"header a list", [&] { load_safetensors(write("h", "[1,2]")); }, "the header must be a JSON object, got array"},
      {"lone surrogate escape", [&] { load_safetensors(write("i", R"({"__metadata__":{"k":"\ud800"}})")); },
       "the header is not valid JSON"},
      {"invalid UTF-8 in the header", [&] { load_safetensors(write("j", "{\"\xff\":1}")); }, "not valid JSON"},
  });
}

TEST_F(RobustFiles, ErrorMessagesQuoteOnlyAShortPrefixOfUserData) {
  const std::string big(100000, 'x');
  expect_errors({
      {"a long dtype value",
       [&] { load_safetensors(write("a", R"({"w":{"dtype":[")" + big + R"("],"shape":[],"data_offsets":[0,0]}})")); },
       "dtype must be a string, got [\"xxxx"},
      {"a long wrong value", [&] { load_safetensors(write("b", R"({"w":")" + big + R"("})")); },
       "expected an object with dtype, shape and data_offsets, got \"xxxxxxxx"},
      {"a long name", [&] { load_safetensors(write("c", "{\"" + big + "\":1}")); }, "(100000 bytes in all)"},
      {"an unterminated string", [&] { load_safetensors(write("d", "{\"" + big)); }, "the header is not valid JSON"},
      {"a long unknown dtype",
       [&] { load_safetensors(write("e", R"({"w":{"dtype":")" + big + R"(","shape":[],"data_offsets":[0,0]}})")); },
       "unknown dtype 'xxxx"},
  });
}

TEST_F(RobustFiles, NamesThatAreNotUtf8AreErrorsNamingTheByte) {
  const Tensor w = ones({2});
  expect_errors({
      {"tensor name ff fe",
       [&] {
         save_safetensors(path("a"), {{"\xff\xfe", w}});
       },
       "save_safetensors: the tensor name '\\xff\\xfe' is not valid UTF-8 (byte 0 of it, 0xff)"},
      {"metadata value with a surrogate",
       [&] {
         save_safetensors(path("b"), {{"w", w}}, {{"k", "ok\xed\xa0\x80"}});
       },
       "the metadata value 'ok\\xed\\xa0\\x80' is not valid UTF-8 (byte 2 of it, 0xed)"},
      {"metadata key cut short",
       [&] {
         save_safetensors(path("c"), {{"w", w}}, {{"ab\xe2\x82", "v"}});
       },
       "the metadata key 'ab\\xe2\\x82' is not valid UTF-8 (byte 2 of it, 0xe2)"},
  });
  EXPECT_FALSE(fs::exists(path("a")));
  // Multi-byte UTF-8 is fine.
  save_safetensors(path("d"), {{"w\xc3\xa9\xe2\x82\xac", w}}, {{"k\xf0\x9f\x98\x80", "v"}});
  SafetensorsFile f = load_safetensors(path("d"));
  EXPECT_TRUE(equal(f.at("w\xc3\xa9\xe2\x82\xac"), w));
  EXPECT_EQ(f.metadata.at("k\xf0\x9f\x98\x80"), "v");
}

TEST(Robustness, Utf8ValidationFollowsRfc3629) {
  const size_t ok = std::string::npos;
  const std::vector<std::pair<std::string, size_t>> cases = {
      {"", ok},
      {"abc", ok},
      {"\xc3\xa9", ok},
      {"\xe2\x82\xac", ok},
      {"\xf0\x9f\x98\x80", ok},
      {"\xf4\x8f\xbf\xbf", ok},
      {"\xed\x9f\xbf", ok},     // U+D7FF, just below the surrogates
      {"a\xff", 1},             // never in UTF-8
      {"\xc0\xaf", 0},          // overlong '/'
      {"\xe0\x80\xaf", 0},      // overlong, 3 bytes
      {"\xed\xa0\x80", 0},      // U+D800, a surrogate
      {"\xf4\x90\x80\x80", 0},  // U+110000
      {"ab\xe2\x82", 2},        // cut short
      {"\x80", 0},              // a continuation byte alone
  };
  for (const auto& [text, at] : cases) EXPECT_EQ(first_invalid_utf8(text), at) << excerpt(text);
  EXPECT_EQ(excerpt(std::string(100, 'a'), 4), "aaaa... (100 bytes in all)");
  EXPECT_EQ(excerpt("a\nb\xff"), "a\\x0ab\\xff");
}

// The reason given for each kind of invalid UTF-8, at the offset first_invalid_utf8 found.
TEST(Robustness, InvalidUtf8IsDescribed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\xff", "invalid UTF-8 at byte 1 (0xFF cannot start a character)"},
      {"\xc0\xaf", "invalid UTF-8 at byte 0 (overlong 2-byte form of U+002F)"},
      {"\xe0\x80\xaf", "invalid UTF-8 at byte 0 (overlong 3-byte form of U+002F)"},
      {"\xed\xa0\x80", "invalid UTF-8 at byte 0 (U+D800 is a UTF-16 surrogate)"},
      {"\xf4\x90\x80\x80", "invalid UTF-8 at byte 0 (U+110000 is above U+10FFFF)"},
      {"ab\xe2\x82", "invalid UTF-8 at byte 2 (a 3-byte character cut off by the end)"},
      {"x\xe2\x41\x82", "invalid UTF-8 at byte 2 (0x41 is not a continuation byte)"},
      {"\x80", "invalid UTF-8 at byte 0 (0x80 cannot start a character)"},
  };
  for (const auto& [text, message] : cases)
    EXPECT_EQ(describe_invalid_utf8(text, first_invalid_utf8(text)), message) << excerpt(text);
}

TEST_F(RobustFiles, OptimizerStateJsonIsBoundedAndChecked) {
  Tensor p = ones({2}).requires_grad_();
  optim::SGD sgd({p}, optim::SGDOptions(0.1));
  auto load_with_groups = [&](const std::string& groups) {
    save_safetensors(path("opt"), {}, {{"type", "SGD"}, {"param_groups", groups}});
    sgd.load(path("opt"));
  };
  optim::SGDOptions options(0.1);
  expect_errors({
      {"param_groups 100,000 deep", [&] { load_with_groups(nested(100000)); },
       "SGD load_state: " + path("opt") + ": param_groups: the JSON nests arrays and objects more than 64 deep"},
      {"param_groups not JSON", [&] { load_with_groups("{"); }, "param_groups: not valid JSON"},
      {"a long wrong lr", [&] { load_with_groups(R"([{"params":[0],"lr":")" + std::string(10000, 'x') + "\"}]"); },
       "the saved option 'lr' has the wrong type: \"xxxx"},
      {"a long parameter id", [&] { load_with_groups(R"([{"params":[")" + std::string(10000, 'x') + "\"]}]"); },
       "parameter group 0 lists parameter \"xxx"},
      {"from_json of text that is not JSON", [&] { options.from_json("not json"); },
       "SGDOptions::from_json: not valid JSON"},
      {"from_json of a list", [&] { options.from_json("[1]"); }, "the saved options must be a JSON object, got [1]"},
      {"from_json deep", [&] { options.from_json(nested(100000)); }, "more than 64 deep"},
      {"Adam from_json", [&] { optim::AdamOptions().from_json("{\"lr\":"); }, "from_json: not valid JSON"},
  });
}

// ---- threads ----

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Robustness, ThreadCountsOutsideTheRangeAreErrors) {
  const int before = get_num_threads();
  ::unsetenv("EMBER_MAX_THREADS");
  const int max = max_num_threads();
  EXPECT_GE(max, kThreadsPerCore);
  expect_errors({
      {"100000", [] { set_num_threads(100000); },
       fmt::format("set_num_threads: 100000 threads is outside the range 1 to {} ({} x the", max, kThreadsPerCore)},
      {"max + 1", [&] { set_num_threads(max + 1); }, "EMBER_MAX_THREADS overrides the limit"},
      {"0", [] { set_num_threads(0); }, "set_num_threads: 0 threads is outside the range 1 to"},
      {"-1", [] { set_num_threads(-1); }, "set_num_threads: -1 threads is outside the range"},
      {"INT_MIN", [] { set_num_threads(std::numeric_limits<int>::min()); }, "is outside the range"},
  });
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  {
    ScopedEnv env("EMBER_MAX_THREADS", "1000");
    EXPECT_EQ(max_num_threads(), 1000);
    expect_error({"over the override", [] { set_num_threads(1001); },
                  "1001 threads is outside the range 1 to 1000 (EMBER_MAX_THREADS=1000;"});
  }
  {
    ScopedEnv env("EMBER_MAX_THREADS", "many");
    expect_error({"a bad override", [] { set_num_threads(2); }, "EMBER_MAX_THREADS='many' is not a positive integer"});
  }
  set_num_threads(before);
  EXPECT_EQ(get_num_threads(), before);
}

// The performance warnings of warn_cpu_environment: a coretype forced below an AVX-512 CPU, and an
// OpenBLAS that fell back to pre-AVX kernels because it does not know the CPU (Debian 12's 0.3.21
// chose Prescott on an Emerald Rapids Xeon); nothing where OpenBLAS chose well.
TEST(Robustness, CpuEnvironmentWarningsNameTheFix) {
  using detail::cpu_environment_warning;
  const std::string forced = cpu_environment_warning("Haswell", "Haswell", true, true);
  EXPECT_NE(forced.find("OPENBLAS_CORETYPE=Haswell forces OpenBLAS onto older kernels"), std::string::npos) << forced;
  const std::string fallback = cpu_environment_warning(nullptr, "Prescott", true, true);
  EXPECT_NE(fallback.find("OpenBLAS does not recognise this CPU and runs its Prescott (pre-AVX) kernels"),
            std::string::npos)
      << fallback;
  EXPECT_NE(fallback.find("Set OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << fallback;
  EXPECT_NE(cpu_environment_warning(nullptr, "Nehalem", false, true).find("OPENBLAS_CORETYPE=Haswell"),
            std::string::npos);
  EXPECT_NE(fallback.find("EMBER_NO_PERF_WARNINGS=1"), std::string::npos) << fallback;
  for (const auto& [env, core, avx512, avx2] : std::vector<std::tuple<const char*, const char*, bool, bool>>{
           {nullptr, "SkylakeX", true, true},      // OpenBLAS chose well
           {nullptr, "Zen", false, true},          // an AMD Zen
           {nullptr, "Prescott", false, false},    // an old CPU: Prescott is right for it
           {"SkylakeX", "SkylakeX", true, true},   // forced, to the right kernels
           {"Haswell", "Haswell", false, true},    // forced, on an AVX2 CPU
           {nullptr, nullptr, true, true}})        // no core name
    EXPECT_EQ(cpu_environment_warning(env, core, avx512, avx2), "") << (env ? env : "unset") << " " << (core ? core : "?");
}

// ---- anomaly mode ----

TEST(Robustness, AnomalyModeReportsInfInEveryFloatingDtype) {
  autograd::DetectAnomalyGuard anomaly;
  struct Case {
    const char* name;
    Tensor x;
    const char* value;
  };
  // d/dx x^2 = 2x, which overflows for x near the dtype's largest value.
  const std::vector<Case> cases = {
      {"float32 inf", tensor({1.0, 3e38}, kFloat32), "inf"},
      {"float32 -inf", tensor({-3e38}, kFloat32), "inf"},
      {"float64 inf", tensor({1e308}, kFloat64), "inf"},
      {"float64 -inf", tensor({1.0, -1e308}, kFloat64), "inf"},
  };
  for (const Case& c : cases) {
    Tensor x = c.x.detach().requires_grad_();
    expect_error({c.name, [&] { x.pow(2).sum().backward(); },
                  fmt::format("Function 'PowBackward0' returned {} values in its 0th output", c.value)});
  }
  // nan in float32 too, and a finite float32 gradient near the top of the range passes.
  Tensor y = tensor({-1.0}, kFloat32).requires_grad_();
  expect_error({"float32 nan", [&] { y.sqrt().sum().backward(); }, "returned nan values"});
  Tensor z = tensor({1e38}, kFloat32).requires_grad_();
  z.mul(3).sum().backward();
  EXPECT_FLOAT_EQ(z.grad().item<float>(), 3.0f);
}

}  // namespace
}  // namespace ember
