// Writes the fuzz targets' seed corpus (tests/fuzz/corpus/<target>/): small valid files from the
// library's own writers (save_safetensors, charlm::save_checkpoint) and hand-made malformed ones,
// each a step from a valid file, so the fuzzer starts next to every check the readers make.
//
//   build/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus
//
// The files are committed; rerun this only to change them.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <ember/ember.h>
#include <nlohmann/json.hpp>

#include "checkpoint.h"

namespace fs = std::filesystem;
using ember::Tensor;

namespace {

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file by hand: 8-byte little-endian header length, the header, the data.
std::string safetensors_bytes(const std::string& header, const std::string& data = "", int64_t claimed_len = -1) {
  const uint64_t n = claimed_len >= 0 ? static_cast<uint64_t>(claimed_len) : header.size();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string out(values.size() * sizeof(float), '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

void safetensors_corpus(const fs::path& dir) {
  fs::create_directories(dir);
  ember::manual_seed(0);
  // Valid files from the writer.
  ember::save_safetensors((dir / "valid_f32.safetensors").string(), {{"w", ember::randn({2, 3})}});
  ember::save_safetensors((dir / "valid_dtypes.safetensors").string(),
                          {{"f32", ember::randn({3})},
                           {"f64", ember::randn({2, 2}, ember::TensorOptions().dtype(ember::kFloat64))},
                           {"i64", ember::arange(4)},
                           {"bool", ember::randn({5}).gt(0)},
                           {"scalar", ember::tensor(2.5f).reshape({})},
                           {"empty", ember::zeros({0, 3})}},
                          {{"step", "10"}, {"note", "seed corpus"}});
  ember::save_safetensors((dir / "valid_metadata_only.safetensors").string(), {}, {{"format", "pt"}});

  // Malformed: one defect each.
  const std::string w = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string two = floats({1.0f, 2.0f});
  write_bytes(dir / "bad_short_length.safetensors", std::string("\x10\x00\x00", 3));
  write_bytes(dir / "bad_length_past_end.safetensors", safetensors_bytes(w, two, 1 << 20));
  write_bytes(dir / "bad_json.safetensors", safetensors_bytes(R"({"w":{"dtype":"F32",)", two));
  write_bytes(dir / "bad_not_object.safetensors", safetensors_bytes("[1,2,3]"));
  write_bytes(dir / "bad_truncated_data.safetensors", safetensors_bytes(w, floats({1.0f})));
  write_bytes(dir / "bad_trailing_data.safetensors", safetensors_bytes(w, two + "xyz"));
  write_bytes(dir / "bad_dtype.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", floats({0.0f})));
  write_bytes(dir / "bad_shape_vs_offsets.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", two));
  write_bytes(dir / "bad_negative_size.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", two));
  write_bytes(dir / "bad_huge_shape.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", two));
  write_bytes(dir / "bad_overlap.safetensors",
              safetensors_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                two));
  write_bytes(dir / "bad_duplicate_name.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                two));
  write_bytes(dir / "bad_metadata_value.safetensors", safetensors_bytes(R"({"__metadata__":{"step":10}})"));
  write_bytes(dir / "bad_offsets_reversed.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", two));
}

// The metadata of a checkpoint, to vary one entry at a time.
std::map<std::string, std::string> checkpoint_metadata() {
  return {{"format", "ember-charlm/1"},
          {"config", R"({"n_layer":1,"n_head":1,"n_embd":4,"block_size":4,"dropout":0.0,"bias":false})"},
          {"vocab", "\nab"},
          {"train_state", R"({"iter":3,"evaluated":false,"best_val":1e30,"last_train":1.5,"last_val":1.6})"}};
}

void checkpoint_corpus(const fs::path& dir) {
  fs::create_directories(dir);
  // A real checkpoint of a tiny model, as the trainer writes it.
  charlm::Config cfg;
  cfg.n_layer = 1;
  cfg.n_head = 1;
  cfg.n_embd = 4;
  cfg.block_size = 4;
  cfg.bias = false;
  const charlm::Vocab vocab(U"\nab");
  ember::nn::GPTConfig g;
  g.vocab_size = vocab.size();
  g.block_size = cfg.block_size;
  g.n_layer = cfg.n_layer;
  g.n_head = cfg.n_head;
  g.n_embd = cfg.n_embd;
  g.bias = cfg.bias;
  ember::manual_seed(0);
  ember::nn::GPT model(g);
  ember::optim::AdamW opt(model->parameters(), ember::optim::AdamWOptions(cfg.learning_rate));
  charlm::TrainState st;
  st.iter = 3;
  charlm::save_checkpoint((dir / "valid_checkpoint.safetensors").string(), charlm::gpt_family(), cfg, vocab, st, *model,
                          opt, ember::default_generator());

  // The header alone (read_checkpoint_header needs no tensors), then one defect each.
  ember::save_safetensors((dir / "valid_header_only.safetensors").string(), {}, checkpoint_metadata());
  auto variant = [&](const std::string& name, const std::string& key, const std::string& value) {
    auto m = checkpoint_metadata();
    if (value.empty())
      m.erase(key);
    else
      m[key] = value;
    ember::save_safetensors((dir / (name + ".safetensors")).string(), {}, m);
  };
  variant("bad_format", "format", "ember-charlm/0");
  variant("bad_missing_config", "config", "");
  variant("bad_config_json", "config", R"({"n_layer":1,)");
  variant("bad_config_type", "config", R"({"n_layer":"one"})");
  variant("bad_config_values", "config", R"({"n_layer":1,"n_head":3,"n_embd":4})");
  variant("bad_train_state_missing", "train_state", R"({"iter":3})");
  variant("bad_train_state_type", "train_state",
          R"({"iter":"3","evaluated":false,"best_val":1,"last_train":1,"last_val":1})");
  variant("bad_missing_vocab", "vocab", "");
  // Invalid UTF-8 in the vocabulary, by hand: the writer refuses to write it.
  auto m = checkpoint_metadata();
  m["vocab"] = "@vocab@";
  std::string header = nlohmann::json{{"__metadata__", m}}.dump();
  header.replace(header.find("@vocab@"), 7,
                 "a\xff\xfe"
                 "b");
  write_bytes(dir / "bad_vocab_utf8.safetensors", safetensors_bytes(header));
  // Accepted today, kept so the fuzzer starts there: a config that is a JSON array (every setting
  // takes its default) and a vocabulary that repeats a character.
  variant("edge_config_array", "config", "[1,2]");
  variant("edge_vocab_repeated", "vocab", "aab");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR  (writes CORPUS_DIR/safetensors and CORPUS_DIR/checkpoint_header)\n",
                 argv[0]);
    return 2;
  }
  safetensors_corpus(fs::path(argv[1]) / "safetensors");
  checkpoint_corpus(fs::path(argv[1]) / "checkpoint_header");
  return 0;
}
