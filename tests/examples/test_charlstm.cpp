// ember-charlstm, the character LSTM on the shared trainer, run as a user runs it: bad arguments and
// paths end in a clear message; a tiny run trains, resumes exactly after an interruption, and samples
// (with and without the carried LSTM state). Its validation loss against PyTorch's is
// examples/charlstm/torch_reference.txt, a run of minutes, not a test.
#include <unistd.h>

#include <filesystem>

#include "example_program.h"
#include "test_util.h"

namespace fs = std::filesystem;
using ember::test::expect_error;
using ember::test::RunResult;
namespace test = ember::test;

namespace {

RunResult run(const std::string& args) { return test::run_example("charlstm/ember-charlstm", args); }

const char* kTiny = "--n_layer 2 --n_embd 8 --hidden_size 16 --block_size 8 --batch_size 4 --eval_iters 2 --threads 1";

}  // namespace

TEST(CharLSTM, BadArgumentsAndPathsGiveClearMessages) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember_charlstm_bad_{}", getpid());
  fs::remove_all(dir);
  const fs::path data = test::write_corpus(dir);
  const std::string out = " --out_dir " + (dir / "run").string();
  expect_error(run("train --preset huge --data " + data.string() + out),
               "--preset: unknown preset 'huge' (choose tiny, small or large)");
  expect_error(run("train --hidden_size 0 --data " + data.string() + out),
               "n_layer, n_embd, hidden_size, block_size and batch_size must be positive (got 2, 32, 0, 64, 32)");
  expect_error(run("train --n_head 4 --data " + data.string() + out), "--n_head");  // a GPT setting, not an LSTM's
  expect_error(run("train --learning_rate -1 --data " + data.string() + out), "Invalid learning rate: -1");
  expect_error(run("train --data /nonexistent/text.txt" + out), "data: cannot open '/nonexistent/text.txt'");
  expect_error(run("train --data " + dir.string() + out), "is a directory");
  expect_error(run("train --resume --data " + data.string() + out), "no checkpoint at");
  expect_error(run("sample --out_dir " + (dir / "none").string()), "sample: no checkpoint at");
  expect_error(run("frobnicate"), "A subcommand is required");
  // A checkpoint of ember-charlm's GPT is not an LSTM's.
  const fs::path gpt = dir / "gpt.safetensors";
  ember::save_safetensors(gpt.string(), {}, {{"format", "ember-charlm/1"}});
  expect_error(run("sample --checkpoint " + gpt.string()), "format 'ember-charlm/1', expected 'ember-charlstm/1'");
  EXPECT_FALSE(fs::exists(dir / "run" / "ckpt.safetensors"));
  fs::remove_all(dir);
}

TEST(CharLSTM, TrainsResumesExactlyAndSamples) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember_charlstm_run_{}", getpid());
  fs::remove_all(dir);
  const fs::path data = test::write_corpus(dir);
  const std::string common = fmt::format("train --data {} {} --max_iters 16 --eval_interval 8", data.string(), kTiny);
  RunResult full = run(common + " --out_dir " + (dir / "full").string());
  ASSERT_EQ(full.status, 0) << full.output;
  EXPECT_NE(full.output.find("ember-charlstm: 4800 characters (vocabulary 30)"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find("settings: n_layer 2, n_embd 8, hidden_size 16, block_size 8, dropout 0.0, batch_size 4"),
            std::string::npos)
      << full.output;
  EXPECT_NE(full.output.find("summary: steps 16"), std::string::npos) << full.output;
  RunResult first = run(common + " --out_dir " + (dir / "cut").string() + " --stop_at 11");
  ASSERT_EQ(first.status, 130) << first.output;
  RunResult rest = run(fmt::format("train --data {} --resume --out_dir {}", data.string(), (dir / "cut").string()));
  ASSERT_EQ(rest.status, 0) << rest.output;
  // Steps 0, 8 and 16 evaluated, with the same losses to the printed digit.
  const std::string losses = test::eval_losses(test::read_file(dir / "full" / "log.csv"));
  EXPECT_EQ(losses, test::eval_losses(test::read_file(dir / "cut" / "log.csv")));
  EXPECT_NE(losses.find("\n16,"), std::string::npos) << losses;

  // Sampling: the prompt, then the characters; the same seed gives the same text, with the carried
  // state and without it (a different text once the context passes block_size).
  const std::string from_run = fmt::format("sample --out_dir {} --num_chars 30 --seed 3", (dir / "full").string());
  const std::string sample = from_run + " --prompt All:";
  RunResult carried = run(sample), again = run(sample), rerun = run(sample + " --use_cache false");
  ASSERT_EQ(carried.status, 0) << carried.output;
  ASSERT_EQ(rerun.status, 0) << rerun.output;
  EXPECT_EQ(carried.output.rfind("All:", 0), 0u) << carried.output;
  EXPECT_EQ(carried.output.size(), 4u + 30u + 1u) << carried.output;  // ASCII text and a newline
  EXPECT_EQ(carried.output, again.output);
  EXPECT_EQ(rerun.output.size(), carried.output.size()) << rerun.output;
  expect_error(run(from_run + " --prompt Zebra"), "is not in the vocabulary");
  expect_error(run(sample + " --temperature 0"), "--temperature must be positive");
  fs::remove_all(dir);
}
