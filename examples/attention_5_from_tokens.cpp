// Attention walkthrough, part 5: from token ids to context vectors, every step in one program.
//
// A sentence is split on spaces into a small vocabulary, embedded, and then attended over in five
// ways, each one adding a piece: plain dot-product attention (checked against an explicit weighted
// sum), causal masking, trainable projections (SelfAttentionV2), several heads with an output matrix
// (MultiHeadAttention), and finally one transformer decoder layer whose cross-attention reads an
// "encoder" sequence of another length. scripts/gen_attention_fixtures.py (example_5) runs the same
// steps in PyTorch; tests/examples/test_examples_attention.cpp compares the printed tensors.
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

using ember::Tensor;
namespace nn = ember::nn;

// Whitespace tokenizer: the sorted distinct words are the vocabulary; returns the ids of `text`.
Tensor tokenize(const std::string& text, std::map<std::string, int64_t>& vocab) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  std::set<std::string> distinct(words.begin(), words.end());
  for (const auto& w : distinct) vocab.emplace(w, static_cast<int64_t>(vocab.size()));
  std::vector<int64_t> ids;
  for (const auto& w : words) ids.push_back(vocab.at(w));
  return ember::from_vector(ids, {static_cast<int64_t>(ids.size())}, ember::dtype(ember::kInt64));
}

int main() {
  const double kNegInf = -std::numeric_limits<double>::infinity();
  const int64_t d = 4;  // embedding size

  // ---- 1. tokens -> ids -> embeddings ----
  std::map<std::string, int64_t> vocab;
  Tensor ids = tokenize("the cat sat on the mat because the cat was tired", vocab);
  std::cout << "vocabulary size: " << vocab.size() << "\n";
  std::cout << "token ids: " << ids << "\n";
  int64_t T = ids.size(0);

  ember::manual_seed(123);
  nn::Embedding embedding(static_cast<int64_t>(vocab.size()), d);
  Tensor x = embedding(ids).detach();  // (T, d): one row per token
  std::cout << "embeddings:\n" << x << "\n";

  // ---- 2. plain dot-product attention ----
  Tensor scores = x.matmul(x.t());  // (T, T): how similar each pair is
  Tensor weights = ember::softmax(scores / std::sqrt(static_cast<double>(d)), -1);
  std::cout << "weights of token 2 (\"sat\"): " << weights[2] << "\n";
  Tensor context = weights.matmul(x);  // (T, d)
  std::cout << "context of token 2: " << context[2] << "\n";

  // The same context vector as an explicit weighted sum of the embeddings.
  Tensor explicit_sum = ember::zeros({d});
  for (int64_t j = 0; j < T; ++j) explicit_sum = explicit_sum + weights[2][j] * x[j];
  std::cout << "explicit weighted sum:  " << explicit_sum << "\n";
  std::cout << "largest difference: " << (explicit_sum - context[2]).abs().max().item<double>() << "\n";

  // ---- 3. causal: a token may only look at itself and earlier tokens ----
  Tensor future = ember::triu(ember::ones({T, T}, ember::dtype(ember::kBool)), 1);
  Tensor causal_weights = ember::softmax((scores / std::sqrt(static_cast<double>(d))).masked_fill(future, kNegInf), -1);
  std::cout << "causal weights, first 4 tokens:\n" << causal_weights.slice(0, 0, 4).slice(1, 0, 4) << "\n";

  // ---- 4. trainable projections: queries, keys and values are learned views of x ----
  ember::manual_seed(123);
  nn::SelfAttentionV2 sa(d, d);
  std::cout << "SelfAttentionV2, first 3 tokens:\n" << sa(x).slice(0, 0, 3) << "\n";

  // ---- 5. two heads, causal, with an output matrix (out_proj) mixing them ----
  ember::manual_seed(123);
  nn::MultiHeadAttention mha(d, d, T, 0.0, /*num_heads=*/2);
  std::cout << "MultiHeadAttention, first 3 tokens:\n" << mha(x.unsqueeze(0))[0].slice(0, 0, 3) << "\n";

  // ---- 6. a transformer decoder layer: causal self-attention, then cross-attention over an encoder ----
  std::map<std::string, int64_t> enc_vocab;
  Tensor enc_ids = tokenize("le chat est fatigue", enc_vocab);
  ember::manual_seed(456);
  nn::Embedding enc_embedding(static_cast<int64_t>(enc_vocab.size()), d);
  Tensor memory = enc_embedding(enc_ids).detach().unsqueeze(0);  // (1, 4, d): the "encoder output"

  ember::manual_seed(123);
  nn::TransformerDecoderLayer layer(
      nn::TransformerDecoderLayerOptions(d, /*nhead=*/2).dim_feedforward(8).dropout(0.0).batch_first(true));
  layer->eval();
  ember::NoGradGuard no_grad;
  Tensor y = layer(x.unsqueeze(0), memory, nn::generate_square_subsequent_mask(T));  // (1, T, d)
  std::cout << "decoder layer output " << y.sizes() << ", first 3 tokens:\n" << y[0].slice(0, 0, 3) << "\n";
  return 0;
}
