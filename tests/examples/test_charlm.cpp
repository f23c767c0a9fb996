// The main job end to end: a tiny GPT's logits, loss, gradients and first 10 AdamW steps against
// PyTorch (scripts/gen_charlm_fixtures.py), and the ember-charlm program itself: exact resume
// after an interruption, sampling, and every kind of bad input ending in a clear message.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "example_program.h"
#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

nn::GPT tiny_gpt_from_fixture(const json& f) {
  nn::GPTConfig cfg;
  cfg.vocab_size = f["config"]["vocab_size"];
  cfg.block_size = f["config"]["block_size"];
  cfg.n_layer = f["config"]["n_layer"];
  cfg.n_head = f["config"]["n_head"];
  cfg.n_embd = f["config"]["n_embd"];
  nn::GPT model(cfg);
  NoGradGuard no_grad;
  // nanoGPT keeps the embeddings, blocks and final LayerNorm in a ModuleDict named "transformer".
  for (auto& [name, p] : model->named_parameters()) {
    std::string key = name.rfind("transformer.", 0) == 0 ? name.substr(12) : name;
    if (key == "lm_head.weight") key = "wte.weight";  // tied
    p.copy_(test::tensor_from_json(f["params"][key]));
  }
  return model;
}

Tensor grad_of(nn::GPT& model, const std::string& key) {
  for (auto& [name, p] : model->named_parameters())
    if (name == "transformer." + key || name == key) return p.grad();
  return {};
}

using test::read_file;
using test::RunResult;

RunResult run(const std::string& args) { return test::run_example("charlm/ember-charlm", args); }
fs::path corpus(const fs::path& dir) { return test::write_corpus(dir); }

const char* kSmall = "--n_layer 1 --n_head 2 --n_embd 16 --block_size 8 --batch_size 4 --eval_iters 3 --threads 1";

}  // namespace

TEST(CharLM, TinyGptMatchesPyTorch) {
  json f = test::load_fixture("charlm/tiny_gpt.json");
  nn::GPT model = tiny_gpt_from_fixture(f);
  Tensor x = test::tensor_from_json(f["x"]), y = test::tensor_from_json(f["y"]);
  auto [logits, loss] = model->forward(x, y);
  EXPECT_TENSOR_CLOSE(logits, test::tensor_from_json(f["logits"]), 1e-5, 1e-6);
  EXPECT_NEAR(loss.item<double>(), f["loss"].get<double>(), 1e-6);
  loss.backward();
  for (const auto& [key, g] : f["grads"].items()) {
    Tensor mine = grad_of(model, key);
    ASSERT_TRUE(mine.defined()) << key;
    EXPECT_TENSOR_CLOSE(mine, test::tensor_from_json(g), 1e-4, 1e-6) << key;
  }
}

TEST(CharLM, FirstTenAdamWStepsMatchPyTorch) {
  json f = test::load_fixture("charlm/tiny_gpt.json");
  nn::GPT model = tiny_gpt_from_fixture(f);
  nn::WeightDecayGroups split = model->weight_decay_groups();
  auto options = optim::AdamWOptions(1e-2).betas({0.9, 0.99});
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(split.decay, std::make_unique<optim::AdamWOptions>(options.weight_decay(0.1)));
  auto no_decay = options;
  groups.emplace_back(split.no_decay, std::make_unique<optim::AdamWOptions>(no_decay.weight_decay(0.0)));
  optim::AdamW opt(std::move(groups), options);
  const auto& want = f["adamw_losses"];
  for (size_t i = 0; i < want.size(); ++i) {
    Tensor bx = test::tensor_from_json(f["batches"][i][0]), by = test::tensor_from_json(f["batches"][i][1]);
    Tensor loss = std::get<1>(model->forward(bx, by));
    opt.zero_grad(true);
    loss.backward();
    nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    opt.step();
    const double w = want[i];
    EXPECT_NEAR(loss.item<double>(), w, 1e-4 * std::abs(w)) << "step " << i;
  }
}

TEST(CharLM, ResumeAfterInterruptionIsExact) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember_charlm_resume_{}", getpid());
  fs::remove_all(dir);
  const fs::path data = corpus(dir);
  const std::string common = fmt::format("train --data {} {} --max_iters 30 --eval_interval 10", data.string(), kSmall);
  RunResult full = run(common + " --out_dir " + (dir / "full").string());
  ASSERT_EQ(full.status, 0) << full.output;
  RunResult first = run(common + " --out_dir " + (dir / "cut").string() + " --stop_at 17");
  ASSERT_EQ(first.status, 130) << first.output;
  EXPECT_NE(first.output.find("interrupted at step 17"), std::string::npos) << first.output;
  RunResult rest = run(fmt::format("train --data {} --resume --out_dir {}", data.string(), (dir / "cut").string()));
  ASSERT_EQ(rest.status, 0) << rest.output;
  // Same losses at every eval, to the printed digit.
  EXPECT_EQ(test::eval_losses(read_file(dir / "full" / "log.csv")),
            test::eval_losses(read_file(dir / "cut" / "log.csv")));
  EXPECT_NE(full.output.find("summary: steps 30"), std::string::npos) << full.output;
  // Sampling from the run: the prompt comes first, then the requested characters.
  RunResult s = run(fmt::format("sample --out_dir {} --prompt All: --num_chars 40 --seed 3", (dir / "full").string()));
  ASSERT_EQ(s.status, 0) << s.output;
  EXPECT_EQ(s.output.rfind("All:", 0), 0u) << s.output;
  EXPECT_GE(s.output.size(), 44u);
  RunResult again =
      run(fmt::format("sample --out_dir {} --prompt All: --num_chars 40 --seed 3", (dir / "full").string()));
  EXPECT_EQ(s.output, again.output);  // same seed, same text
  fs::remove_all(dir);
}

TEST(CharLM, BadInputGivesClearMessages) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember_charlm_bad_{}", getpid());
  fs::remove_all(dir);
  const fs::path data = corpus(dir);
  using test::expect_error;
  expect_error(run("train --data /nonexistent/text.txt --out_dir " + dir.string()), "/nonexistent/text.txt");
  std::ofstream(dir / "empty.txt").close();
  expect_error(run("train --data " + (dir / "empty.txt").string() + " --out_dir " + dir.string()), "empty");
  std::ofstream(dir / "short.txt") << "too short";
  expect_error(
      run(fmt::format("train --data {} --block_size 64 --out_dir {}", (dir / "short.txt").string(), dir.string())),
      "block_size");
  expect_error(run(fmt::format("train --data {} --n_embd 30 --n_head 4 --out_dir {}", data.string(), dir.string())),
               "n_embd (30) must be divisible by n_head (4)");
  expect_error(run("train --preset huge --data " + data.string()), "unknown preset 'huge'");
  expect_error(run("sample --checkpoint " + (dir / "none.safetensors").string()), "no checkpoint");

  // A real checkpoint, then: a prompt outside its vocabulary, a corrupt copy, another text's vocabulary.
  const fs::path run_dir = dir / "run";
  RunResult ok = run(fmt::format("train --data {} {} --max_iters 2 --eval_interval 1 --out_dir {}", data.string(),
                                 kSmall, run_dir.string()));
  ASSERT_EQ(ok.status, 0) << ok.output;
  expect_error(run("sample --out_dir " + run_dir.string() + " --prompt Zebra"), "is not in the vocabulary");
  const std::string before = read_file(run_dir / "ckpt.safetensors");
  {
    std::string bytes = before;
    bytes.resize(bytes.size() / 2);
    std::ofstream(dir / "corrupt.safetensors", std::ios::binary) << bytes;
  }
  expect_error(run("sample --checkpoint " + (dir / "corrupt.safetensors").string()), "corrupt.safetensors");
  std::ofstream(dir / "other.txt") << std::string(5000, 'x') + std::string(5000, 'y');
  expect_error(
      run(fmt::format("train --data {} --resume --out_dir {}", (dir / "other.txt").string(), run_dir.string())),
      "different character set");
  // None of that touched the saved checkpoint.
  EXPECT_EQ(read_file(run_dir / "ckpt.safetensors"), before);
  fs::remove_all(dir);
}

// Every setting comes from one table: each is a flag, is printed, and is saved in the checkpoint's
// settings; --log_interval sets how often a run that is not on a terminal prints a step line.
TEST(CharLM, SettingsTableDrivesFlagsCheckpointAndPrintout) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember_charlm_settings_{}", getpid());
  fs::remove_all(dir);
  const fs::path data = corpus(dir);
  RunResult r =
      run(fmt::format("train --data {} {} --max_iters 12 --eval_interval 6 --log_interval 4 --bias false "
                      "--out_dir {}",
                      data.string(), kSmall, (dir / "run").string()));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("settings: n_layer 1, n_head 2, n_embd 16, block_size 8, dropout 0.0, bias false"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("log_interval 4, device \"cpu\", threads 1"), std::string::npos) << r.output;
  int step_lines = 0;
  for (size_t at = r.output.find("\nstep "); at != std::string::npos; at = r.output.find("\nstep ", at + 1))
    step_lines += r.output.compare(at + 1, 10, "step 4/12 ") == 0 || r.output.compare(at + 1, 10, "step 8/12 ") == 0 ||
                  r.output.compare(at + 1, 11, "step 12/12 ") == 0;
  EXPECT_EQ(step_lines, 3) << r.output;  // steps 4, 8 and 12
  EXPECT_EQ(r.output.find("step 5/12 "), std::string::npos) << r.output;
  // The checkpoint's settings: every flag's name, with the values given.
  const std::string header = read_file(dir / "run" / "ckpt.safetensors").substr(0, 4096);
  for (const char* key : {"n_layer", "bias", "log_interval", "eval_interval", "threads", "grad_clip"})
    EXPECT_NE(header.find(fmt::format("\\\"{}\\\"", key)), std::string::npos) << key << " in " << header;
  EXPECT_NE(header.find("\\\"log_interval\\\":4"), std::string::npos) << header;
  // --resume may change how often it logs, not the model.
  RunResult more = run(fmt::format("train --data {} --resume --max_iters 14 --log_interval 7 --out_dir {}",
                                   data.string(), (dir / "run").string()));
  ASSERT_EQ(more.status, 0) << more.output;
  EXPECT_NE(more.output.find("step 14/14 "), std::string::npos) << more.output;
  RunResult refused =
      run(fmt::format("train --data {} --resume --bias true --out_dir {}", data.string(), (dir / "run").string()));
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("--bias cannot change in a resumed run (the checkpoint holds them); only --max_iters, "
                                "--eval_interval, --eval_iters, --log_interval, --device, --threads and --dtype can"),
            std::string::npos)
      << refused.output;
  // Sampling with and without the KV cache: the same characters for the same seed, past block_size (8).
  const std::string sample =
      fmt::format("sample --out_dir {} --prompt All: --num_chars 60 --seed 5", (dir / "run").string());
  RunResult cached = run(sample), plain = run(sample + " --use_cache false");
  ASSERT_EQ(cached.status, 0) << cached.output;
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_EQ(cached.output, plain.output);
  EXPECT_GE(cached.output.size(), 64u);
  fs::remove_all(dir);
}
