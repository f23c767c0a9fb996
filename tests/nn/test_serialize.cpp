// safetensors files (nn/serialize.h): round trips, the file scripts/gen_optim_fixtures.py writes
// byte by byte (Ember must read it and write the same bytes), every malformed file, and atomic writes.
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/resource.h>

#include "fixture_json.h"
#include "test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

// A fresh, empty directory per test.
class Safetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ember_serialize_{}_{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A file from a header text and data bytes, with the length prefix and padding done right.
std::string file_bytes(std::string header, const std::string& data, bool pad = true) {
  if (pad) header.append((8 - header.size() % 8) % 8, ' ');
  uint64_t n = header.size();
  std::string out(reinterpret_cast<const char*>(&n), 8);
  return out + header + data;
}

Tensor bools(std::vector<double> values, IntArrayRef shape) { return from_vector(values, shape).gt(0.5); }

// What the script writes (reference_tensors() and REFERENCE_METADATA in gen_optim_fixtures.py).
NamedTensors reference_tensors() {
  return {{"weight", tensor({{0.5, -1.25, 3.0}, {1e-8, -0.0, 65504.0}})},
          {"scale", scalar_tensor(3.141592653589793, dtype(kFloat64))},
          {"ids", from_vector(std::vector<int64_t>{0, -1, int64_t(1) << 40, -(int64_t(1) << 62)}, {4})},
          {"mask", bools({1, 0, 0, 1}, {2, 2})},
          {"empty", zeros({0, 3})},
          {"blocks.0.attn.bias", tensor({1.0, 2.0, 3.0}, dtype(kFloat64))}};
}
const std::map<std::string, std::string> kReferenceMetadata = {
    {"format", "pt"}, {"step", "42"}, {"note", "caf\xc3\xa9 \"quoted\""}};

void expect_same_tensors(const NamedTensors& actual, const NamedTensors& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE(expected[i].first);
    EXPECT_EQ(actual[i].first, expected[i].first);
    EXPECT_EQ(actual[i].second.dtype(), expected[i].second.dtype());
    EXPECT_EQ(actual[i].second.sizes(), expected[i].second.sizes());
    EXPECT_TRUE(equal(actual[i].second, expected[i].second));
  }
}

TEST_F(Safetensors, RoundTripEveryDtype) {
  Tensor wide = arange(12, dtype(kFloat64)).reshape({3, 4});
  NamedTensors tensors = {{"f32", arange(24).reshape({2, 3, 4}) / 7},
                          {"f64", wide},
                          {"i64", arange(-5, 5, dtype(kInt64))},
                          {"bool", bools({1, 0, 1}, {3})},
                          {"scalar", scalar_tensor(2.5)},
                          {"empty", zeros({2, 0}, dtype(kInt64))},
                          {"transposed", wide.t()},  // written in row-major order of the view
                          {"grad", ones({2}, requires_grad()) * 3}};
  save_safetensors(path("t.safetensors"), tensors, {{"epoch", "3"}});
  SafetensorsFile f = load_safetensors(path("t.safetensors"));
  expect_same_tensors(f.tensors, tensors);
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"epoch", "3"}}));
  EXPECT_FALSE(f.at("grad").requires_grad());
  EXPECT_TRUE(f.at("transposed").is_contiguous());
  EXPECT_TRUE(f.contains("f64"));
  EXPECT_FALSE(f.contains("nope"));
  EXPECT_THROWS_WITH(f.at("nope"), "has no tensor 'nope'");
  EXPECT_EQ(entries(), std::vector<std::string>{"t.safetensors"});
}

TEST_F(Safetensors, WithPrefixSelectsAndStrips) {
  save_safetensors(path("p.safetensors"), {{"model.w", ones({1})}, {"optim.x", zeros({1})}, {"model.b", zeros({2})}});
  NamedTensors model = load_safetensors(path("p.safetensors")).with_prefix("model.");
  ASSERT_EQ(model.size(), 2u);
  EXPECT_EQ(model[0].first, "w");
  EXPECT_EQ(model[1].first, "b");
}

TEST_F(Safetensors, LoadsTheFileWrittenByThePythonScript) {
  SafetensorsFile f = load_safetensors(std::string(EMBER_FIXTURE_DIR) + "/serialize/reference.safetensors");
  expect_same_tensors(f.tensors, reference_tensors());
  EXPECT_EQ(f.metadata, kReferenceMetadata);
  EXPECT_TRUE(std::signbit(f.at("weight").to_vector<float>()[4]));  // -0.0 survives
}

TEST_F(Safetensors, WritesTheBytesThePythonScriptWrites) {
  save_safetensors(path("ember.safetensors"), reference_tensors(), kReferenceMetadata);
  const std::string expected = read_bytes(std::string(EMBER_FIXTURE_DIR) + "/serialize/reference.safetensors");
  const std::string actual = read_bytes(path("ember.safetensors"));
  ASSERT_EQ(actual.size(), expected.size());
  EXPECT_TRUE(actual == expected) << "header written: " << actual.substr(8, 120);
  uint64_t n = 0;
  std::memcpy(&n, actual.data(), 8);
  EXPECT_EQ(n % 8, 0u);  // padded with spaces to a multiple of 8
}

TEST_F(Safetensors, NoMetadataMeansNoMetadataEntry) {
  save_safetensors(path("m.safetensors"), {{"a", ones({1})}});
  const std::string bytes = read_bytes(path("m.safetensors"));
  EXPECT_EQ(bytes.find("__metadata__"), std::string::npos);
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";  // 54 bytes
  EXPECT_EQ(bytes.substr(8, 56), header + "  ");
  EXPECT_EQ(bytes.size(), 8u + 56u + 4u);
}

TEST_F(Safetensors, BadFilesGiveClearErrors) {
  const std::string p = path("bad.safetensors");
  auto load_bytes = [&](const std::string& bytes) {
    write_bytes(p, bytes);
    load_safetensors(p);
  };
  const std::string f32x2(8, '\0');  // two float32 zeros
  auto one = [&](const std::string& info) { return file_bytes(R"({"w":)" + info + "}", f32x2); };

  EXPECT_THROWS_WITH(load_safetensors(path("missing.safetensors")), "missing.safetensors: cannot open");
  EXPECT_THROWS_WITH(load_bytes("abc"), "bad.safetensors: file is truncated: 3 bytes");
  EXPECT_THROWS_WITH(load_bytes(std::string("\xff\x00\x00\x00\x00\x00\x00\x00", 8) + "{}"),
                     "header length 255 goes past the end of the file (10 bytes");
  EXPECT_THROWS_WITH(load_bytes(file_bytes("{\"w\": [1, 2", "")), "the header is not valid JSON");
  EXPECT_THROWS_WITH(load_bytes(file_bytes("[1, 2]", "")), "the header must be a JSON object, got array");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"Q8","shape":[2],"data_offsets":[0,8]})")),
                     "tensor 'w': unknown dtype 'Q8'");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"U16","shape":[4],"data_offsets":[0,8]})")),
                     "tensor 'w': dtype U16 is not supported by Ember");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[2]})")),
                     "tensor 'w': the field \"data_offsets\" is missing");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})")),
                     "tensor 'w': shape [-2] must hold non-negative integers");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})")),
                     "tensor 'w': data_offsets [0, 8] span 8 bytes, but shape [3] of F32 needs 12");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[2],"data_offsets":[8,0]})")),
                     "tensor 'w': data_offsets [8, 0] end before they begin");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})")),
                     "tensor 'w': data_offsets [0, 16] go past the end of the data (8 bytes; the file is truncated)");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})")),
                     "tensor 'w': 4 bytes before its data_offsets [4, 8] belong to no tensor");
  EXPECT_THROWS_WITH(load_bytes(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})")),
                     "4 bytes after the last tensor's data belong to no tensor");
  EXPECT_THROWS_WITH(load_bytes(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                           R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                           f32x2)),
                     "tensors 'a' and 'b' overlap");
  EXPECT_THROWS_WITH(load_bytes(file_bytes(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                           R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                           f32x2)),
                     "the header names 'w' twice");
  EXPECT_THROWS_WITH(load_bytes(file_bytes(R"({"__metadata__":{"k":1}})", "")),
                     "__metadata__ value of 'k' must be a string");
  EXPECT_THROWS_WITH(
      load_bytes(file_bytes(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x02", 2))),
      "tensor 'm': BOOL element 1 holds the byte 2, not 0 or 1");
  // A correct file made the same way loads (the helpers above are not what fails).
  load_bytes(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"));
  // Unpadded headers are valid too.
  load_bytes(file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f32x2, /*pad=*/false));
}

TEST_F(Safetensors, BadTensorListsAreRejectedBeforeWriting) {
  EXPECT_THROWS_WITH(save_safetensors(path("a.safetensors"), {{"w", ones({1})}, {"w", ones({1})}}),
                     "the tensor name 'w' appears twice");
  EXPECT_THROWS_WITH(save_safetensors(path("a.safetensors"), {{"__metadata__", ones({1})}}), "is reserved");
  EXPECT_THROWS_WITH(save_safetensors(path("a.safetensors"), {{"w", Tensor()}}), "tensor 'w' is undefined");
  EXPECT_THROWS_WITH(save_safetensors(path("no/such/dir/a.safetensors"), {{"w", ones({1})}}),
                     "cannot create a temporary file beside");
  EXPECT_TRUE(entries().empty());
}

// A write that fails halfway (the file-size limit stops it) leaves the old file whole and no
// temporary file behind.
TEST_F(Safetensors, FailedWriteKeepsThePreviousFile) {
  const std::string p = path("ckpt.safetensors");
  save_safetensors(p, {{"w", ones({4})}}, {{"version", "1"}});
  const std::string before = read_bytes(p);

  struct rlimit old_limit {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of being killed
  struct rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    save_safetensors(p, {{"w", ones({100000})}}, {{"version", "2"}});
  } catch (const Error& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);

  EXPECT_NE(message.find("save_safetensors: writing"), std::string::npos) << message;
  EXPECT_EQ(read_bytes(p), before);
  EXPECT_EQ(load_safetensors(p).metadata.at("version"), "1");
  EXPECT_EQ(entries(), std::vector<std::string>{"ckpt.safetensors"});
}

TEST_F(Safetensors, OverwritesAnExistingFile) {
  const std::string p = path("w.safetensors");
  save_safetensors(p, {{"w", ones({3})}});
  save_safetensors(p, {{"w", zeros({2})}});
  EXPECT_TRUE(equal(load_safetensors(p).at("w"), zeros({2})));
  EXPECT_EQ(entries(), std::vector<std::string>{"w.safetensors"});
}

// ---- module checkpoints ----

// A small model with a buffer: Sequential(Linear, ReLU, Linear) plus a registered "scale" buffer.
struct TinyImpl : nn::Module {
  TinyImpl() : nn::Module("Tiny") {
    mlp = register_module("mlp", nn::Sequential(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2)));
    scale = register_buffer("scale", full({2}, 2.0));
  }
  nn::Sequential mlp{nullptr};
  Tensor scale;
};
EMBER_MODULE(Tiny);

std::vector<std::vector<double>> values_of(const nn::Module& m) {
  std::vector<std::vector<double>> out;
  for (const auto& [name, t] : nn::state_dict(m)) out.push_back(t.to_vector<double>());
  return out;
}

TEST_F(Safetensors, ModuleSaveLoadRoundTrip) {
  Tiny a, b;
  a->scale.fill_(3.0);
  ASSERT_NE(values_of(*a), values_of(*b));
  std::vector<std::string> names;
  for (const auto& [name, t] : nn::state_dict(*a)) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias", "scale"}));

  nn::save(a, path("tiny.safetensors"), {{"epoch", "7"}});
  Tensor held = b->mlp->ptr<nn::LinearImpl>(0)->weight;  // a handle an optimizer would hold
  nn::load(b, path("tiny.safetensors"));
  EXPECT_EQ(values_of(*a), values_of(*b));
  EXPECT_TRUE(equal(held, a->mlp->ptr<nn::LinearImpl>(0)->weight));  // loaded in place
  EXPECT_TRUE(b->named_parameters()[0].value().requires_grad());
  EXPECT_EQ(load_safetensors(path("tiny.safetensors")).metadata.at("epoch"), "7");
}

TEST_F(Safetensors, ModuleLoadErrorsNameTheTensorAndChangeNothing) {
  Tiny a;
  NamedTensors good = nn::state_dict(*a);
  auto expect_rejected = [&](NamedTensors state, const std::string& needle, bool strict = true) {
    Tiny b;
    const auto before = values_of(*b);
    save_safetensors(path("bad.safetensors"), state);
    EXPECT_THROWS_WITH(nn::load(b, path("bad.safetensors"), strict), needle);
    EXPECT_EQ(values_of(*b), before) << "the module changed although loading failed";
  };
  NamedTensors missing(good.begin(), good.end() - 2);
  missing.push_back(good.back());
  expect_rejected(missing, "Missing key(s) in state_dict: \"mlp.2.bias\".");
  NamedTensors extra = good;
  extra.emplace_back("mlp.9.weight", zeros({1}));
  expect_rejected(extra, "Unexpected key(s) in state_dict: \"mlp.9.weight\".");
  NamedTensors shape = good;
  shape[2].second = zeros({4, 2});
  expect_rejected(shape,
                  "size mismatch for mlp.2.weight: copying a param with shape [4, 2] from checkpoint, the "
                  "shape in current model is [2, 4]");
  NamedTensors type = good;
  type[4].second = full({2}, 2.0, dtype(kFloat64));
  expect_rejected(type, "dtype mismatch for scale: the checkpoint holds float64, the current model float32");
  expect_rejected(shape, "size mismatch for mlp.2.weight", /*strict=*/false);  // shapes are checked even so
  expect_rejected(missing, "nn::load: " + path("bad.safetensors"));

  // Not strict: missing and unexpected names are skipped, the rest loads.
  Tiny c;
  save_safetensors(path("partial.safetensors"), extra);
  nn::load(c, path("partial.safetensors"), /*strict=*/false);
  EXPECT_EQ(values_of(*c), values_of(*a));
  NamedTensors twice = good;
  twice.push_back(good[0]);
  Tiny d;
  EXPECT_THROWS_WITH(nn::load_state_dict(*d, twice), "Duplicate key(s) in state_dict: \"mlp.0.weight\".");
}

// A model saved from PyTorch (scripts/gen_optim_fixtures.py) loads into the same Ember model and
// computes the same output.
TEST_F(Safetensors, LoadsAPyTorchModel) {
  const std::string dir = std::string(EMBER_FIXTURE_DIR) + "/serialize/";
  nn::Sequential model(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2), nn::LayerNorm(nn::LayerNormOptions({2})));
  nn::load(model, dir + "torch_mlp.safetensors");
  const nlohmann::json fx = test::load_fixture("serialize/torch_mlp.json");
  EXPECT_TENSOR_CLOSE(model->forward(test::tensor_from_json(fx["x"])), test::tensor_from_json(fx["y"]), 1e-5, 1e-6);
}

}  // namespace
}  // namespace ember
