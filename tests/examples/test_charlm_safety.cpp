// ember-charlm against what users and machines do to it (issue 16): absurd sizes, odd files, bad
// UTF-8, a second run in the same out_dir, SIGTERM, kill -9 at any moment, a full disk, a hostile
// out_dir name. Each test runs the real program (posix_spawn, no shell) with tiny models.
//
// Not here: the model's numbers (test_charlm.cpp checks them against PyTorch).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/cpu/gemm_bf16.h"
#include "core/sanitizers.h"
#include "tests/spawn_process.h"
#include "test_util.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

const std::string kProgram = std::string(EMBER_EXAMPLES_DIR) + "/charlm/ember-charlm";
const std::vector<std::string> kSmall = {"--n_layer",    "1", "--n_head",     "2", "--n_embd",     "16",
                                         "--block_size", "8", "--batch_size", "4", "--eval_iters", "3",
                                         "--threads",    "1"};
using test::kTimedOut;
using test::signal_child;

// A running ember-charlm whose stdout and stderr go to `log`.
struct Child {
  pid_t pid = -1;
  fs::path log;
};

Child start(const std::vector<std::string>& args, const fs::path& log, const std::vector<std::string>& env = {},
            const fs::path& cwd = {}) {
  return {test::spawn_logged(kProgram, args, log, env, cwd), log};
}

int wait_for(const Child& c, double timeout_s = 60) { return test::wait_exit(c.pid, timeout_s); }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Result {
  int status;
  std::string output;
};

Result run(const std::vector<std::string>& args, const std::vector<std::string>& env = {}, const fs::path& cwd = {},
           double timeout_s = 60) {
  static int n = 0;
  const fs::path log = fs::temp_directory_path() / fmt::format("ember_charlm_safety_{}_{}.log", getpid(), n++);
  Child c = start(args, log, env, cwd);
  Result r{wait_for(c, timeout_s), read_file(log)};
  fs::remove(log);
  return r;
}

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A fresh directory with a few kilobytes of verse in corpus.txt.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember_charlm_safety_{}_{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream out(dir / "corpus.txt");
  for (int i = 0; i < 60; ++i)
    out << "First Citizen:\nBefore we proceed any further, hear me speak.\nAll:\nSpeak, speak.\n";
  return dir;
}

// train on dir/corpus.txt into out_dir with the small model, `more` flags overriding kSmall's.
std::vector<std::string> train_args(const fs::path& dir, const fs::path& out_dir, std::vector<std::string> more) {
  std::vector<std::string> args = {"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out_dir.string()};
  for (size_t i = 0; i < kSmall.size(); i += 2)
    if (std::find(more.begin(), more.end(), kSmall[i]) == more.end())
      args.insert(args.end(), {kSmall[i], kSmall[i + 1]});
  return cat(args, more);
}

// train --resume on dir/corpus.txt in out_dir (the model comes from the checkpoint).
std::vector<std::string> resume_args(const fs::path& dir, const fs::path& out_dir, std::vector<std::string> more) {
  return cat({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out_dir.string(), "--resume"}, more);
}

#define EXPECT_FAILS_WITH(result, needle)                                                                     \
  do {                                                                                                        \
    const Result& r_ = (result);                                                                              \
    EXPECT_NE(r_.status, 0) << r_.output;                                                                     \
    EXPECT_NE(r_.status, kTimedOut) << "timed out:\n" << r_.output;                                           \
    EXPECT_NE(r_.output.find(needle), std::string::npos) << "wanted '" << (needle) << "' in:\n" << r_.output; \
  } while (0)

std::vector<fs::path> temporaries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path());
  return out;
}

// The columns step, train_loss, val_loss of log.csv, one string per row.
std::vector<std::string> loss_rows(const fs::path& csv) {
  std::vector<std::string> rows;
  std::istringstream in(read_file(csv));
  std::string line;
  while (std::getline(in, line)) {
    size_t i = 0;
    for (int commas = 0; i < line.size() && commas < 3; ++i) commas += line[i] == ',';
    rows.push_back(line.substr(0, i));
  }
  return rows;
}

bool wait_until(const std::function<bool()>& ready, double timeout_s = 20) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace

// Sizes that overflow or exceed the machine are refused from the config, before any allocation.
TEST(CharLMSafety, RefusesModelsThatCannotFitInMemory) {
  const fs::path dir = fresh_dir("memory");
  EXPECT_FAILS_WITH(run(train_args(dir, dir / "a", {"--batch_size", "2305843009213693952"})), "this machine has");
  EXPECT_FAILS_WITH(run(train_args(dir, dir / "b", {"--n_layer", "99999999999"})), "n_layer 99999999999");
  // The largest preset fits (about 4.4 GiB by the estimate): built, then stopped before its first step.
  Result video = run({"train", "--preset", "video", "--data", (dir / "corpus.txt").string(), "--out_dir",
                      (dir / "video").string(), "--threads", "1", "--stop_at", "0"});
  EXPECT_EQ(video.status, 130) << video.output;
  EXPECT_NE(video.output.find("nothing saved"), std::string::npos) << video.output;
  // A checkpoint whose config holds such a number: sample and resume refuse it the same way.
  const fs::path ok = dir / "ok";
  ASSERT_EQ(run(train_args(dir, ok, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  SafetensorsFile f = load_safetensors((ok / "ckpt.safetensors").string());
  nlohmann::json cfg = nlohmann::json::parse(f.metadata["config"]);
  cfg["n_layer"] = 99999999999LL;
  f.metadata["config"] = cfg.dump();
  save_safetensors((ok / "ckpt.safetensors").string(), f.tensors, f.metadata);
  EXPECT_FAILS_WITH(run({"sample", "--checkpoint", (ok / "ckpt.safetensors").string()}), "this machine has");
  EXPECT_FAILS_WITH(run(resume_args(dir, ok, {})), "this machine has");
  fs::remove_all(dir);
}

TEST(CharLMSafety, ThreadsMustBeBetweenOneAndFourTimesTheCores) {
  const fs::path dir = fresh_dir("threads");
  EXPECT_FAILS_WITH(run(train_args(dir, dir / "a", {"--threads", "100000"})), "--threads must be between");
  EXPECT_FAILS_WITH(run(train_args(dir, dir / "a", {"--threads", "-3"})), "got -3");
  fs::remove_all(dir);
}

// EMBER_BF16_GEMM is read at the first bfloat16 product, whose threads used to throw the error out of
// an OpenMP region: std::terminate ("terminate called recursively"), SIGABRT. Now it is a message.
TEST(CharLMSafety, BadBf16GemmVariableIsAnErrorNotAnAbort) {
  const fs::path dir = fresh_dir("bf16gemm");
  auto with_kernel = [&](const std::string& value) {
    return run(train_args(dir, dir / value, {"--dtype", "bfloat16", "--max_iters", "2", "--threads", "2"}),
               {"EMBER_BF16_GEMM=" + value});
  };
  const Result bogus = with_kernel("bogus");
  EXPECT_FAILS_WITH(bogus, "EMBER_BF16_GEMM: expected amx, avx512bf16, openblas or float32, got 'bogus'");
  EXPECT_LT(bogus.status, 128) << "ended by a signal:\n" << bogus.output;
  if (!cpu::openblas_has_sbgemm()) {
    const Result openblas = with_kernel("openblas");
    EXPECT_FAILS_WITH(openblas, "EMBER_BF16_GEMM=openblas: this OpenBLAS has no cblas_sbgemm");
    EXPECT_LT(openblas.status, 128) << "ended by a signal:\n" << openblas.output;
  }
  const Result float32 = with_kernel("float32");
  EXPECT_EQ(float32.status, 0) << float32.output;
  fs::remove_all(dir);
}

// /dev/zero and a FIFO used to be read forever, a directory was "empty".
TEST(CharLMSafety, DataMustBeARegularFile) {
  const fs::path dir = fresh_dir("data");
  auto with_data = [&](const std::string& data) {
    return cat({"train", "--data", data, "--out_dir", (dir / "out").string()}, kSmall);
  };
  EXPECT_FAILS_WITH(run(with_data("/dev/zero"), {}, {}, 10), "not a regular file");
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_FAILS_WITH(run(with_data((dir / "fifo").string()), {}, {}, 10), "not a regular file");
  EXPECT_FAILS_WITH(run(with_data(dir.string())), "is a directory");
  // Over 2 GiB (a sparse file: no disk used).
  std::ofstream(dir / "huge.txt").close();
  fs::resize_file(dir / "huge.txt", (uint64_t{2} << 30) + 1);
  EXPECT_FAILS_WITH(run(with_data((dir / "huge.txt").string())), "more than the 2147483648 (2 GiB)");
  fs::remove_all(dir);
}

// Surrogates, code points above U+10FFFF and overlong forms are refused at load with the byte offset.
TEST(CharLMSafety, RejectsInvalidUtf8WithTheByteOffset) {
  const fs::path dir = fresh_dir("utf8");
  const std::string text = read_file(dir / "corpus.txt");
  const std::vector<std::pair<std::string, std::string>> cases = {{"\xED\xA0\x80", "surrogate"},
                                                                  {"\xF4\x90\x80\x80", "above U+10FFFF"},
                                                                  {"\xC0\xAF", "overlong"},
                                                                  {"\xE0\x80\xAF", "overlong"}};
  for (const auto& [bad, why] : cases) {
    std::ofstream(dir / "bad.txt", std::ios::binary) << "abc" << bad << text;
    Result r = run(cat({"train", "--data", (dir / "bad.txt").string(), "--out_dir", (dir / "out").string()}, kSmall));
    EXPECT_FAILS_WITH(r, "invalid UTF-8 at byte 3 (");
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  }
  ASSERT_EQ(run(train_args(dir, dir / "run", {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  EXPECT_FAILS_WITH(run({"sample", "--out_dir", (dir / "run").string(), "--prompt", "Al\xED\xA0\x80"}),
                    "--prompt: invalid UTF-8 at byte 2");
  fs::remove_all(dir);
}

// train without --resume used to replace ckpt and best with the untrained model and delete log.csv.
TEST(CharLMSafety, NeverReplacesARunWithoutResume) {
  const fs::path dir = fresh_dir("replace");
  const fs::path out = dir / "run";
  // Step 0 is logged but never saved: a run of 0 steps leaves no checkpoint.
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "0"})).status, 0);
  EXPECT_FALSE(fs::exists(out / "ckpt.safetensors"));
  EXPECT_FALSE(fs::exists(out / "best.safetensors"));
  fs::remove_all(out);
  // Stopped before the first step: nothing saved, and it says so.
  Result stopped = run(train_args(dir, out, {"--max_iters", "4", "--stop_at", "0"}));
  EXPECT_EQ(stopped.status, 130) << stopped.output;
  EXPECT_NE(stopped.output.find("nothing saved"), std::string::npos) << stopped.output;
  EXPECT_FALSE(fs::exists(out / "ckpt.safetensors"));

  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "4", "--eval_interval", "2"})).status, 0);
  const std::string ckpt = read_file(out / "ckpt.safetensors"), best = read_file(out / "best.safetensors");
  const std::string log = read_file(out / "log.csv");
  EXPECT_FAILS_WITH(run(train_args(dir, out, {"--max_iters", "4", "--eval_interval", "2"})), "--resume");
  EXPECT_EQ(read_file(out / "ckpt.safetensors"), ckpt);
  EXPECT_EQ(read_file(out / "best.safetensors"), best);
  EXPECT_EQ(read_file(out / "log.csv"), log);
  // --overwrite really starts over.
  Result again = run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2", "--overwrite"}));
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(loss_rows(out / "log.csv").size(), 3u);  // header, steps 0 and 2
  EXPECT_FAILS_WITH(run(resume_args(dir, out, {"--overwrite"})), "give one of them");
  fs::remove_all(dir);
}

// Two runs in one out_dir: the second fails at once naming the first's pid.
TEST(CharLMSafety, OneRunPerOutDir) {
  const fs::path dir = fresh_dir("lock");
  const fs::path out = dir / "run";
  Child first = start(train_args(dir, out, {"--max_iters", "1000000", "--eval_interval", "5"}), dir / "first.log");
  ASSERT_TRUE(wait_until([&] { return fs::exists(out / "ckpt.safetensors"); }));
  EXPECT_FAILS_WITH(run(resume_args(dir, out, {})), fmt::format("(pid {}) is training in", first.pid));
  EXPECT_FAILS_WITH(run(train_args(dir, out, {"--overwrite"})), fmt::format("(pid {})", first.pid));
  signal_child(first.pid, SIGTERM);
  EXPECT_EQ(wait_for(first), 128 + SIGTERM) << read_file(first.log);
  fs::remove_all(dir);
}

// SIGTERM (what batch schedulers send) saves like Ctrl-C.
TEST(CharLMSafety, SigtermSavesLikeCtrlC) {
  const fs::path dir = fresh_dir("sigterm");
  const fs::path out = dir / "run";
  Child c = start(train_args(dir, out, {"--max_iters", "1000000", "--eval_interval", "5"}), dir / "term.log");
  ASSERT_TRUE(wait_until([&] { return fs::exists(out / "ckpt.safetensors"); }));
  signal_child(c.pid, SIGTERM);
  EXPECT_EQ(wait_for(c, 20), 128 + SIGTERM);
  const std::string said = read_file(dir / "term.log");
  EXPECT_NE(said.find("interrupted by SIGTERM at step"), std::string::npos) << said;
  Result resumed = run(resume_args(dir, out, {"--max_iters", "60"}));
  EXPECT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming at step"), std::string::npos) << resumed.output;
  fs::remove_all(dir);
}

// A second signal quits at once, without saving, even inside a long stretch with no check of the
// stop signal: here one micro-batch of 32,768 tokens through a wide model.
TEST(CharLMSafety, SecondSignalQuitsAtOnceWithoutSaving) {
  const fs::path dir = fresh_dir("second_signal");
  const fs::path out = dir / "run";
  Child slow = start(train_args(dir, out,
                                {"--max_iters", "1000000", "--eval_iters", "1", "--n_embd", "256", "--block_size", "64",
                                 "--batch_size", "512"}),
                     dir / "slow.log");
  ASSERT_TRUE(wait_until([&] { return read_file(out / ".lock") == std::to_string(slow.pid) + "\n"; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  signal_child(slow.pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  signal_child(slow.pid, SIGINT);
  EXPECT_EQ(wait_for(slow, 10), 128 + SIGINT) << read_file(dir / "slow.log");
  EXPECT_NE(read_file(dir / "slow.log").find("quitting without saving"), std::string::npos)
      << read_file(dir / "slow.log");
  EXPECT_FALSE(fs::exists(out / "ckpt.safetensors"));
  fs::remove_all(dir);
}

// --resume used to ignore every flag but --max_iters silently.
TEST(CharLMSafety, ResumeHonoursOrRefusesFlags) {
  const fs::path dir = fresh_dir("flags");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "4", "--eval_interval", "2"})).status, 0);
  const std::string ckpt = read_file(out / "ckpt.safetensors");
  EXPECT_FAILS_WITH(run({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume",
                         "--n_layer", "2", "--learning_rate", "0.1"}),
                    "--n_layer, --learning_rate cannot change in a resumed run");
  EXPECT_FAILS_WITH(run({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume",
                         "--preset", "tiny"}),
                    "--preset cannot change");
  EXPECT_EQ(read_file(out / "ckpt.safetensors"), ckpt);
  Result r = run({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume",
                  "--max_iters", "9", "--eval_interval", "3", "--eval_iters", "2", "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::string> rows = loss_rows(out / "log.csv");
  ASSERT_EQ(rows.size(), 6u) << read_file(out / "log.csv");  // header, 0, 2, 4, then 6 and 9
  EXPECT_EQ(rows[4].substr(0, 2), "6,");
  EXPECT_EQ(rows[5].substr(0, 2), "9,");
  nlohmann::json cfg = nlohmann::json::parse(load_safetensors((out / "ckpt.safetensors").string()).metadata["config"]);
  EXPECT_EQ(cfg["max_iters"], 9);
  EXPECT_EQ(cfg["eval_interval"], 3);
  EXPECT_EQ(cfg["eval_iters"], 2);
  EXPECT_EQ(cfg["threads"], 1);
  fs::remove_all(dir);
}

// A finished run of 25 steps extended to 30 equals a straight run of 30 at every eval they share
// (the extended log also holds the end-of-run eval at 25, drawn from its own generator).
TEST(CharLMSafety, ExtendingAFinishedRunEqualsAStraightRun) {
  const fs::path dir = fresh_dir("extend");
  ASSERT_EQ(run(train_args(dir, dir / "straight", {"--max_iters", "30", "--eval_interval", "10"})).status, 0);
  ASSERT_EQ(run(train_args(dir, dir / "extended", {"--max_iters", "25", "--eval_interval", "10"})).status, 0);
  Result more = run({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", (dir / "extended").string(),
                     "--resume", "--max_iters", "30"});
  ASSERT_EQ(more.status, 0) << more.output;
  std::vector<std::string> extended = loss_rows(dir / "extended" / "log.csv");
  std::erase_if(extended, [](const std::string& row) { return row.rfind("25,", 0) == 0; });
  EXPECT_EQ(loss_rows(dir / "straight" / "log.csv"), extended);
  fs::remove_all(dir);
}

// out_dir reached gnuplot as code: this name ran `touch PWNED`.
TEST(CharLMSafety, PlotTreatsOutDirAsData) {
  const fs::path dir = fresh_dir("plot");
  const fs::path out = dir / "x'; system('touch PWNED'); print '";
  Result r = run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "1", "--plot"}), {}, dir);
  EXPECT_FALSE(fs::exists(dir / "PWNED"));
  EXPECT_FALSE(fs::exists(out / "PWNED"));
  if (std::system("command -v gnuplot > /dev/null 2>&1") == 0) {
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(fs::exists(out / "loss.png")) << r.output;
  }
  fs::remove_all(dir);
}

// Without --data: data/tinyshakespeare.txt under the current directory, else a clear error.
TEST(CharLMSafety, DefaultDataIsTheShippedText) {
  const fs::path dir = fresh_dir("default_data");
  Result r = run(cat({"train", "--out_dir", (dir / "run").string(), "--max_iters", "0"}, kSmall), {}, EMBER_SOURCE_DIR);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(vocabulary 65)"), std::string::npos) << r.output;
  EXPECT_FAILS_WITH(run(cat({"train", "--out_dir", (dir / "run2").string()}, kSmall), {}, dir), "pass --data");
  fs::remove_all(dir);
}

// kill -9 at 20 moments (during training, evals and saves) always leaves a checkpoint that loads
// and resumes, and the next start removes the temporary files of interrupted saves.
TEST(CharLMSafety, SurvivesSigkillAtAnyMoment) {
  const fs::path dir = fresh_dir("sigkill");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2", "--eval_iters", "1"})).status, 0);
  std::mt19937 rng(16);
  int temporaries_seen = 0;
  for (int k = 0; k < 20; ++k) {
    Child c = start({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume",
                     "--max_iters", "1000000", "--eval_interval", "2"},
                    dir / "kill.log");
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 400000)(rng)));
    signal_child(c.pid, SIGKILL);
    wait_for(c);
    temporaries_seen += static_cast<int>(temporaries(out).size());
    EXPECT_EQ(read_file(dir / "kill.log").find("error:"), std::string::npos) << read_file(dir / "kill.log");
    Result s = run({"sample", "--checkpoint", (out / "ckpt.safetensors").string(), "--num_chars", "5"});
    ASSERT_EQ(s.status, 0) << "after kill " << k << ":\n" << s.output << read_file(dir / "kill.log");
  }
  Result last = run(
      {"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume", "--max_iters", "0"});
  EXPECT_EQ(last.status, 0) << last.output;
  EXPECT_TRUE(temporaries(out).empty());
  std::printf("(%d temporary files of killed saves were seen and cleaned)\n", temporaries_seen);
  fs::remove_all(dir);
}

// A disk full for the new checkpoint (or for best) leaves the previous files byte for byte.
TEST(CharLMSafety, FullDiskLeavesCheckpointsIntact) {
#ifdef EMBER_ASAN
  GTEST_SKIP() << "LD_PRELOAD of the shim conflicts with ASan's runtime, which must come first";
#endif
  const fs::path dir = fresh_dir("enospc");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "4", "--eval_interval", "2", "--learning_rate", "1e-2"})).status,
            0);
  const std::string ckpt = read_file(out / "ckpt.safetensors"), best = read_file(out / "best.safetensors");
  const std::string shim = std::string("LD_PRELOAD=") + EMBER_ENOSPC_SHIM;
  const std::vector<std::string> resume = {
      "train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume", "--max_iters", "8"};
  for (const char* full_for : {".tmp.", "best.safetensors"}) {
    Result r = run(resume, {shim, std::string("EMBER_ENOSPC_MATCH=") + full_for});
    EXPECT_FAILS_WITH(r, "No space left on device");
    EXPECT_EQ(read_file(out / "best.safetensors"), best) << full_for;
    if (std::string(full_for) == ".tmp.") EXPECT_EQ(read_file(out / "ckpt.safetensors"), ckpt);
    EXPECT_TRUE(temporaries(out).empty());
  }
  fs::remove_all(dir);
}

// Temporary files of a save killed earlier are removed at the next start.
TEST(CharLMSafety, StaleTemporariesAreRemovedAtStart) {
  const fs::path dir = fresh_dir("stale");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  std::ofstream(out / "ckpt.safetensors.tmp.999999.0") << "half a checkpoint";
  std::ofstream(out / "notes.tmp.txt") << "not ours";
  Result r = run({"train", "--data", (dir / "corpus.txt").string(), "--out_dir", out.string(), "--resume"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(out / "ckpt.safetensors.tmp.999999.0"));
  EXPECT_TRUE(fs::exists(out / "notes.tmp.txt"));
  fs::remove_all(dir);
}

// A checkpoint's header is checked, not trusted: settings that are not a JSON object, and a
// vocabulary with a repeated or out-of-order character (ids would mean two characters), are errors.
TEST(CharLMSafety, CheckpointHeaderMustBeWellFormed) {
  const fs::path dir = fresh_dir("header");
  const fs::path ok = dir / "ok";
  ASSERT_EQ(run(train_args(dir, ok, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  const SafetensorsFile good = load_safetensors((ok / "ckpt.safetensors").string());
  auto edited = [&](const std::string& key, const std::string& value) {
    SafetensorsFile f = good;
    f.metadata[key] = value;
    const fs::path p = dir / (key + ".safetensors");
    save_safetensors(p.string(), f.tensors, f.metadata);
    return run({"sample", "--checkpoint", p.string(), "--num_chars", "5"});
  };
  EXPECT_FAILS_WITH(edited("config", "[1, 2, 3]"), "must be a JSON object, got JSON of type array");
  EXPECT_FAILS_WITH(edited("vocab", "\nAAaceFhiklmnoprstuvwy,.:"), "sorted and distinct");
  EXPECT_FAILS_WITH(edited("vocab", ""), "vocabulary: it is empty");
  fs::remove_all(dir);
}

namespace {

// Sets metadata `key` of the checkpoint at `path` to `value`, in place.
void edit_checkpoint(const fs::path& path, const std::string& key, const std::string& value) {
  SafetensorsFile f = load_safetensors(path.string());
  f.metadata[key] = value;
  save_safetensors(path.string(), f.tensors, f.metadata);
}

// Waits for `needle` in the log of a running child.
bool wait_for_output(const fs::path& log, const std::string& needle) {
  return wait_until([&] { return read_file(log).find(needle) != std::string::npos; }, 30);
}

}  // namespace

// SIGTERM used to be seen only between steps, so an eval of many batches, or a step of many
// micro-batches, kept a scheduler's SIGTERM waiting. Both loops are bounded, and check the signal
// at each batch; the state saved is the step's start, so the resumed run equals a straight one.
TEST(CharLMSafety, SigtermStopsInsideAnEvalAndInsideAStep) {
  const fs::path dir = fresh_dir("inner_stop");
  EXPECT_FAILS_WITH(run(train_args(dir, dir / "a", {"--gradient_accumulation_steps", "100000000"})),
                    "--gradient_accumulation_steps must be between 1 and 10000, got 100000000");
  EXPECT_FAILS_WITH(run(train_args(dir, dir / "a", {"--eval_iters", "100000000"})),
                    "--eval_iters must be between 1 and 10000, got 100000000");
  const std::vector<std::string> shape = {"--batch_size", "32", "--block_size", "32", "--eval_interval", "2"};

  // Inside a step: 10,000 micro-batches, stopped during the first step (nothing to save yet).
  Child step =
      start(train_args(dir, dir / "step",
                       cat(shape, {"--gradient_accumulation_steps", "10000", "--eval_iters", "1", "--max_iters", "4"})),
            dir / "step.log");
  ASSERT_TRUE(wait_for_output(dir / "step.log", "step 0: train loss")) << read_file(dir / "step.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  signal_child(step.pid, SIGTERM);
  EXPECT_EQ(wait_for(step, 5), 128 + SIGTERM) << read_file(dir / "step.log");
  EXPECT_NE(read_file(dir / "step.log").find("interrupted by SIGTERM at step 0: no step ran, nothing saved"),
            std::string::npos)
      << read_file(dir / "step.log");

  // Inside an eval of 10,000 batches at step 4 of a resumed run: saved as of step 4's start, then
  // resumed with a short eval it logs what a straight run logs.
  ASSERT_EQ(run(train_args(dir, dir / "straight", cat(shape, {"--max_iters", "4"}))).status, 0);
  const fs::path out = dir / "stopped";
  ASSERT_EQ(run(train_args(dir, out, cat(shape, {"--max_iters", "2"}))).status, 0);
  Child eval = start(resume_args(dir, out, {"--max_iters", "4", "--eval_iters", "10000"}), dir / "eval.log");
  ASSERT_TRUE(wait_for_output(dir / "eval.log", "step 4/4")) << read_file(dir / "eval.log");
  signal_child(eval.pid, SIGTERM);
  EXPECT_EQ(wait_for(eval, 5), 128 + SIGTERM) << read_file(dir / "eval.log");
  EXPECT_NE(read_file(dir / "eval.log").find("interrupted by SIGTERM at step 4: saved"), std::string::npos)
      << read_file(dir / "eval.log");
  Result resumed = run(resume_args(dir, out, {"--eval_iters", "3"}));
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming at step 4"), std::string::npos) << resumed.output;
  EXPECT_EQ(loss_rows(out / "log.csv"), loss_rows(dir / "straight" / "log.csv"));
  fs::remove_all(dir);
}

// --learning_rate inf (or NaN, or betas outside [0, 1), ...) trained to NaN, exited 0 and saved NaN
// checkpoints. The options are checked as PyTorch's AdamW checks them, and finite.
TEST(CharLMSafety, OptimizerSettingsMustBeFiniteAndInRange) {
  const fs::path dir = fresh_dir("options");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--learning_rate", "inf"}, "Invalid learning rate: inf (--learning_rate must be a finite number > 0)"},
      {{"--learning_rate", "nan"}, "Invalid learning rate: nan"},
      {{"--learning_rate", "-0.1"}, "Invalid learning rate: -0.1"},
      {{"--min_lr", "inf"}, "--min_lr must be a finite number >= 0"},
      {{"--beta1", "1"}, "Invalid beta parameter at index 0: 1"},
      {{"--beta2", "-0.5"}, "Invalid beta parameter at index 1: -0.5"},
      {{"--weight_decay", "inf"}, "Invalid weight_decay value: inf"},
      {{"--grad_clip", "nan"}, "--grad_clip must be a finite number >= 0"},
      {{"--warmup_iters", "10", "--lr_decay_iters", "5"}, "--lr_decay_iters at least as large (got 10 and 5)"},
      {{"--max_iters", "1000000000000000000"}, "must be at most 1000000000000"},
  };
  for (const auto& [flags, message] : cases) EXPECT_FAILS_WITH(run(train_args(dir, dir / "run", flags)), message);
  EXPECT_FALSE(fs::exists(dir / "run" / "ckpt.safetensors"));
  fs::remove_all(dir);
}

// A loss that is not a finite number stops the run with an error and a non-zero exit, and the last
// good checkpoint stays as it was (here the weights of a saved run are made NaN behind its back, and
// an lr of 1e30 makes a real run diverge).
TEST(CharLMSafety, NonFiniteLossStopsTheRunAndKeepsTheLastGoodCheckpoint) {
  const fs::path dir = fresh_dir("nan");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  const std::string good = read_file(out / "ckpt.safetensors");
  SafetensorsFile f = load_safetensors((out / "ckpt.safetensors").string());
  for (auto& [name, t] : f.tensors)
    if (name == "model.transformer.wpe.weight") t.fill_(std::nan(""));
  const fs::path poisoned = dir / "poisoned.safetensors";
  save_safetensors(poisoned.string(), f.tensors, f.metadata);
  fs::copy_file(poisoned, out / "ckpt.safetensors", fs::copy_options::overwrite_existing);
  const std::string bad = read_file(out / "ckpt.safetensors");
  Result r = run(resume_args(dir, out, {"--max_iters", "6"}));
  EXPECT_FAILS_WITH(r, "the training loss at step 2 is nan (not a finite number): training diverged");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(read_file(out / "ckpt.safetensors"), bad);

  // A real divergence: every file written before it is intact, and none holds NaN.
  const fs::path wild = dir / "wild";
  r = run(train_args(dir, wild,
                     {"--max_iters", "40", "--eval_interval", "1", "--learning_rate", "1e30", "--warmup_iters", "0"}));
  EXPECT_FAILS_WITH(r, "training diverged");
  EXPECT_EQ(r.status, 1) << r.output;
  if (fs::exists(wild / "ckpt.safetensors")) {
    for (const auto& [name, t] : load_safetensors((wild / "ckpt.safetensors").string()).tensors)
      if (t.is_floating_point()) {
        EXPECT_TRUE((t == t).all().item<bool>()) << name << " holds NaN";
      }
  }
  fs::remove_all(dir);
}

// A checkpoint's train_state and optimizer state are checked on resume: a step of -100 or 1e300, a
// world size of 0, a negative learning rate or a beta of 1.5 in the optimizer's groups, a negative
// Adam step count.
TEST(CharLMSafety, ResumeChecksTheTrainAndOptimizerState) {
  const fs::path dir = fresh_dir("state");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  const std::string good = read_file(out / "ckpt.safetensors");
  const SafetensorsFile f = load_safetensors((out / "ckpt.safetensors").string());
  const nlohmann::json state = nlohmann::json::parse(f.metadata.at("train_state"));
  const nlohmann::json groups = nlohmann::json::parse(f.metadata.at("optim.param_groups"));
  auto resume_with = [&](const std::string& key, const std::string& value) {
    std::ofstream(out / "ckpt.safetensors", std::ios::binary) << good;
    edit_checkpoint(out / "ckpt.safetensors", key, value);
    return run(resume_args(dir, out, {"--max_iters", "4"}));
  };
  auto with_state = [&](const char* field, const nlohmann::json& value) {
    nlohmann::json s = state;
    s[field] = value;
    return resume_with("train_state", s.dump());
  };
  EXPECT_FAILS_WITH(with_state("iter", -100), "train_state 'iter' must be an integer in [0, 1000000000000], got -100");
  EXPECT_FAILS_WITH(with_state("iter", 1e300),
                    "train_state 'iter' must be an integer in [0, 1000000000000], got 1e+300");
  EXPECT_FAILS_WITH(with_state("iter", "3"), "train_state 'iter' must be an integer");
  EXPECT_FAILS_WITH(with_state("world_size", 0), "train_state 'world_size' must be an integer in [1, 2147483647]");
  EXPECT_FAILS_WITH(with_state("best_val", std::numeric_limits<double>::infinity()),
                    "train_state 'best_val' must be a finite number");
  EXPECT_FAILS_WITH(with_state("evaluated", 1), "train_state 'evaluated' must be true or false");
  nlohmann::json cfg = nlohmann::json::parse(f.metadata.at("config"));
  cfg["n_layer"] = 1e300;
  EXPECT_FAILS_WITH(resume_with("config", cfg.dump()), "the saved setting 'n_layer' should be an integer");
  nlohmann::json g = groups;
  g[0]["lr"] = -1;
  EXPECT_FAILS_WITH(resume_with("optim.param_groups", g.dump()), "parameter group 0: invalid learning rate -1");
  g = groups;
  g[1]["betas"] = {0.9, 1.5};
  EXPECT_FAILS_WITH(resume_with("optim.param_groups", g.dump()),
                    "parameter group 1: invalid beta parameter at index 1");
  EXPECT_FAILS_WITH(resume_with("optim.state.0.step", "-5"),
                    "state entry 'optim.state.0.step' is a count and should be >= 0, got -5");
  std::ofstream(out / "ckpt.safetensors", std::ios::binary) << good;
  EXPECT_EQ(run(resume_args(dir, out, {"--max_iters", "4"})).status, 0);
  fs::remove_all(dir);
}

// A step of 23 digits in log.csv ended in "error: stoll"; now the file and line are named.
TEST(CharLMSafety, DamagedLogNamesTheFileAndLine) {
  const fs::path dir = fresh_dir("log");
  const fs::path out = dir / "run";
  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  std::ofstream(out / "log.csv", std::ios::app) << "12345678901234567890123,1.0,1.0,0.001,1.0,1.0,1.0\n";
  EXPECT_FAILS_WITH(run(resume_args(dir, out, {"--max_iters", "4"})),
                    (out / "log.csv").string() + " line 4: the step '12345678901234567890123' is not an integer");
  fs::remove_all(dir);
}

// out_dir/.lock, log.csv and loss.gp were opened through symbolic links, truncating or appending
// to whatever they pointed at. Each is refused with the path named, and the target is untouched.
TEST(CharLMSafety, RunFilesAreNeverWrittenThroughALink) {
  const fs::path dir = fresh_dir("links");
  const fs::path victim = dir / "victim.txt";
  std::ofstream(victim) << "precious\n";
  const fs::path out = dir / "run";
  fs::create_directories(out);
  fs::create_symlink(victim, out / ".lock");
  EXPECT_FAILS_WITH(run(train_args(dir, out, {"--max_iters", "2"})), (out / ".lock").string() + " is a symbolic link");
  EXPECT_EQ(read_file(victim), "precious\n");
  fs::remove(out / ".lock");

  ASSERT_EQ(run(train_args(dir, out, {"--max_iters", "2", "--eval_interval", "2"})).status, 0);
  const std::string log = read_file(out / "log.csv");
  fs::remove(out / "log.csv");
  fs::create_symlink(victim, out / "log.csv");
  EXPECT_FAILS_WITH(run(resume_args(dir, out, {"--max_iters", "4"})),
                    (out / "log.csv").string() + " is a symbolic link");
  EXPECT_EQ(read_file(victim), "precious\n");
  fs::remove(out / "log.csv");
  fs::create_symlink(dir / "missing.txt", out / "log.csv");  // dangling: the append would create it
  EXPECT_FAILS_WITH(run(resume_args(dir, out, {"--max_iters", "4"})), "is a symbolic link");
  EXPECT_FALSE(fs::exists(dir / "missing.txt"));
  fs::remove(out / "log.csv");
  std::ofstream(out / "log.csv") << log;

  fs::create_symlink(victim, out / "loss.gp");
  EXPECT_FAILS_WITH(run({"plot", "--out_dir", out.string()}), (out / "loss.gp").string() + " is a symbolic link");
  EXPECT_EQ(read_file(victim), "precious\n");
  fs::remove(out / "loss.gp");
  if (std::system("command -v gnuplot > /dev/null 2>&1") == 0) {  // loss.png: replaced, not written through
    fs::create_symlink(victim, out / "loss.png");
    Result plot = run({"plot", "--out_dir", out.string()});
    EXPECT_EQ(plot.status, 0) << plot.output;
    EXPECT_FALSE(fs::is_symlink(out / "loss.png"));
    EXPECT_EQ(read_file(victim), "precious\n");
  }
  fs::remove_all(dir);
}

// A text of more than 256 distinct characters is stored two bytes per character: it trains,
// resumes and samples like a small one.
TEST(CharLMSafety, WideVocabularyTrainsResumesAndSamples) {
  const fs::path dir = fresh_dir("wide");
  {
    std::ofstream text(dir / "wide.txt", std::ios::binary);
    for (int round = 0; round < 8; ++round)
      for (unsigned c = 0x400; c < 0x400 + 300; ++c)  // Cyrillic and beyond: two bytes each in UTF-8
        text << static_cast<char>(0xC0 | (c >> 6)) << static_cast<char>(0x80 | (c & 0x3F)) << (c % 7 ? "" : "\n");
  }
  const fs::path out = dir / "run";
  Result r = run(cat({"train", "--data", (dir / "wide.txt").string(), "--out_dir", out.string(), "--max_iters", "2",
                      "--eval_interval", "2"},
                     kSmall));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(vocabulary 301)"), std::string::npos) << r.output;
  r = run({"train", "--data", (dir / "wide.txt").string(), "--out_dir", out.string(), "--resume", "--max_iters", "3"});
  EXPECT_EQ(r.status, 0) << r.output;
  r = run({"sample", "--out_dir", out.string(), "--prompt", "\xd0\x80", "--num_chars", "20"});
  EXPECT_EQ(r.status, 0) << r.output;
  fs::remove_all(dir);
}
