// serialize::OutputArchive / InputArchive (nn/archive.h): a model, an optimizer and tensors of the
// program's own in one file, nested archives, reads into existing tensors, and every refusal.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

class Archive : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ember_archive_{}_{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

nn::Sequential small_model() { return nn::Sequential(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2)); }

void expect_same_parameters(const nn::Module& a, const nn::Module& b) {
  auto pa = a.named_parameters();
  auto pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].key(), pb[i].key());
    EXPECT_TRUE(pa[i].value().equal(pb[i].value())) << pa[i].key();
  }
}

TEST_F(Archive, ModelAndNestedTensorsRoundTrip) {
  manual_seed(1);
  nn::Sequential model = small_model();
  serialize::OutputArchive out;
  model->save(out);
  serialize::OutputArchive extra;
  extra.write("step", tensor({int64_t{1200}}));
  extra.write("scale", full({2}, 0.5));
  out.write("extra", extra);
  out.save_to(path("ckpt.safetensors"));

  manual_seed(2);
  nn::Sequential fresh = small_model();
  serialize::InputArchive in;
  in.load_from(path("ckpt.safetensors"));
  fresh->load(in);
  expect_same_parameters(*model, *fresh);

  EXPECT_EQ(in.keys(), (std::vector<std::string>{"0", "2", "extra"}));
  // As in libtorch, a module's tensor is read through its submodule's archive, not by a dotted key.
  Tensor bias;
  EXPECT_FALSE(in.try_read("0.bias", bias));
  serialize::InputArchive first;
  in.read("0", first);
  first.read("bias", bias);
  EXPECT_TRUE(bias.equal(model[0]->as<nn::Linear>()->bias));
  serialize::InputArchive extra_in;
  in.read("extra", extra_in);
  EXPECT_EQ(extra_in.keys(), (std::vector<std::string>{"step", "scale"}));
  Tensor step;
  extra_in.read("step", step);
  EXPECT_EQ(step.dtype(), kLong);
  EXPECT_EQ(step.item<int64_t>(), 1200);
  Tensor scale;
  extra_in("scale", scale);  // operator() reads
  EXPECT_TRUE(scale.equal(full({2}, 0.5)));
}

TEST_F(Archive, ReadIntoADefinedTensorReplacesItsDataInPlace) {
  serialize::OutputArchive out;
  out.write("w", arange(6, kFloat).reshape({2, 3}));
  std::stringstream bytes;
  out.save_to(bytes);
  serialize::InputArchive in;
  in.load_from(bytes);

  Tensor w = zeros({4}).requires_grad_();
  Tensor alias = w;  // a handle held elsewhere (an optimizer's) sees the new values
  in.read("w", w);
  EXPECT_EQ(alias.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(alias.requires_grad());
  EXPECT_EQ(alias[1][2].item<float>(), 5.0f);
  // The archive keeps its own copy: writing to what was read does not change a second read.
  {
    NoGradGuard no_grad;
    w.fill_(-1);
  }
  Tensor again;
  in.read("w", again);
  EXPECT_EQ(again[1][2].item<float>(), 5.0f);
}

TEST_F(Archive, OptimizerStateTravelsBesideTheModel) {
  manual_seed(3);
  nn::Sequential model = small_model();
  optim::Adam adam(model->parameters(), optim::AdamOptions(0.01));
  Tensor x = randn({5, 3});
  auto step = [&](nn::Sequential& m, optim::Adam& opt) {
    opt.zero_grad();
    m->forward(x).pow(2).sum().backward();
    opt.step();
  };
  for (int i = 0; i < 3; ++i) step(model, adam);

  serialize::OutputArchive out;
  out << model.ptr();
  serialize::OutputArchive optimizer_archive;
  optimizer_archive << adam;
  out.write("optimizer", optimizer_archive);
  std::string bytes;
  out.save_to([&](const void* data, size_t n) {
    bytes.append(static_cast<const char*>(data), n);
    return n;
  });

  manual_seed(4);
  nn::Sequential resumed = small_model();
  optim::Adam resumed_adam(resumed->parameters(), optim::AdamOptions(0.5));
  serialize::InputArchive in;
  in.load_from(bytes.data(), bytes.size());
  in >> resumed;  // the holder form
  serialize::InputArchive optimizer_in;
  in.read("optimizer", optimizer_in);
  optimizer_in >> resumed_adam;
  EXPECT_DOUBLE_EQ(resumed_adam.param_groups()[0].options().get_lr(), 0.01);

  // The next steps are the same bit for bit.
  for (int i = 0; i < 2; ++i) {
    step(model, adam);
    step(resumed, resumed_adam);
  }
  expect_same_parameters(*model, *resumed);
}

TEST_F(Archive, FilesOfNnSaveLoadThroughAnArchiveAndBack) {
  manual_seed(5);
  nn::Sequential model = small_model();
  nn::save(*model, path("model.safetensors"));
  nn::Sequential fresh = small_model();
  serialize::InputArchive in;
  in.load_from(path("model.safetensors"));
  fresh->load(in);
  expect_same_parameters(*model, *fresh);

  serialize::OutputArchive out;
  model->save(out);
  out.save_to(path("archive.safetensors"));
  nn::Sequential third = small_model();
  nn::load(*third, path("archive.safetensors"));
  expect_same_parameters(*model, *third);
}

TEST_F(Archive, ReaderFunctionsAreCalledUntilTheWholeArchiveIsRead) {
  serialize::OutputArchive out;
  out.write("v", tensor({1.0, 2.0, 3.0}));
  std::stringstream stream;
  out.save_to(stream);
  const std::string bytes = stream.str();
  int calls = 0;
  serialize::InputArchive in;
  in.load_from(
      [&](uint64_t pos, void* buf, size_t n) {
        ++calls;
        const size_t take = std::min<size_t>(n, 16);  // a reader that gives at most 16 bytes a call
        std::memcpy(buf, bytes.data() + pos, take);
        return take;
      },
      [&] { return bytes.size(); });
  EXPECT_EQ(calls, static_cast<int>((bytes.size() + 15) / 16));
  Tensor v;
  in.read("v", v);
  EXPECT_TRUE(v.equal(tensor({1.0, 2.0, 3.0})));
}

TEST_F(Archive, BadUseIsRefusedWithTheReason) {
  serialize::OutputArchive out;
  out.write("w", ones({2}));
  EXPECT_THROWS_WITH(out.write("", ones({1})), "OutputArchive::write: the key is empty");
  EXPECT_THROWS_WITH(out.write("u", Tensor()), "the tensor for 'u' is undefined");
  EXPECT_THROWS_WITH(out.write("self", out), "cannot be written into itself");
  EXPECT_THROWS_WITH(out.write("a.b", ones({1})), "key 'a.b' contains '.', which separates nested archives");
  EXPECT_THROWS_WITH(out.save_to([](const void*, size_t n) { return n / 2; }), "the writer function took");

  std::stringstream bytes;
  out.save_to(bytes);
  serialize::InputArchive in;
  EXPECT_THROWS_WITH(in.keys(), "nothing was loaded");
  in.load_from(bytes);
  Tensor t;
  EXPECT_FALSE(in.try_read("nope", t));
  EXPECT_FALSE(t.defined());
  EXPECT_THROWS_WITH(in.read("nope", t), "No such serialized tensor 'nope'");
  serialize::InputArchive nested;
  EXPECT_THROWS_WITH(in.read("sub", nested), "No such serialized submodule: 'sub'");

  // A module whose tensors are not all in the archive is left as it was.
  nn::Linear linear(2, 3);
  Tensor before = linear->weight.clone();
  EXPECT_THROWS_WITH(linear->load(in), "Module::load: the archive has no tensor for 'weight', 'bias'");
  EXPECT_TRUE(linear->weight.equal(before));
  // ...and so is one whose shapes differ.
  serialize::OutputArchive wrong;
  wrong.write("weight", zeros({3, 3}));
  wrong.write("bias", zeros({3}));
  std::stringstream wrong_bytes;
  wrong.save_to(wrong_bytes);
  serialize::InputArchive wrong_in;
  wrong_in.load_from(wrong_bytes);
  EXPECT_THROWS_WITH(linear->load(wrong_in), "weight");
  EXPECT_TRUE(linear->weight.equal(before));

  // Bytes that are not an archive.
  serialize::InputArchive garbage;
  const std::string junk = "not an archive";
  EXPECT_THROWS_WITH(garbage.load_from(junk.data(), junk.size()), "load_safetensors");
  EXPECT_THROWS_WITH(garbage.load_from([](uint64_t, void*, size_t) { return size_t{0}; }, [] { return size_t{8}; }),
                     "the read function returned 0 at position 0 of 8 bytes");
}

}  // namespace
}  // namespace ember
