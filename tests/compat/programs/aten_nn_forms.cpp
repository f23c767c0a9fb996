// ATen's own forms of nn calls (include/compat/ember_compat/aten_nn.h) and class weights in the losses,
// as a libtorch program calls them: 3-d pools, max_unpool, fractional max pooling with fixed samples,
// upsample_* by size, by scale and by list, embedding_bag's four results, ctc_loss with int lists,
// bilinear, convolution / conv_tbc / slow_conv*, lstm / gru / rnn_tanh over a flat parameter list
// (values and gradients), pad_sequence, channel_shuffle, weighted nll_loss / cross_entropy and the
// loss modules' weight buffers, and out= forms.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

// Deterministic values: sin of a ramp, so that both builds see the same inputs.
torch::Tensor wave(std::vector<int64_t> shape, double phase = 0.0, double scale = 1.0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (torch::arange(n, torch::kDouble).mul(0.37).add(phase).sin().mul(scale)).to(torch::kFloat).reshape(shape);
}

int main() {
  std::cout << std::fixed << std::setprecision(4);
  // ---- pooling ----
  torch::Tensor v = wave({1, 2, 4, 4, 4});
  std::cout << "max_pool3d " << torch::max_pool3d(v, {2}, {2}).sum().item<float>() << '\n';
  auto [mp, mi] = torch::max_pool3d_with_indices(v, {2, 2, 2}, {}, {0}, {1}, true);
  std::cout << "max_pool3d_with_indices " << mp.sizes() << ' ' << mi.sum().item<int64_t>() << '\n';
  std::cout << "avg_pool3d " << torch::avg_pool3d(v, {3}, {1}, {1}, false, false).sum().item<float>() << ' '
            << torch::avg_pool3d(v, {2}, {2}, {0}, false, true, 3).sum().item<float>() << '\n';
  std::cout << "adaptive_avg_pool3d " << torch::adaptive_avg_pool3d(v, {3, 2, 1}).reshape({-1}) << '\n';
  auto [amv, ami] = torch::adaptive_max_pool3d(v, {1, 2, 3});
  std::cout << "adaptive_max_pool3d " << amv.sum().item<float>() << ' ' << ami.reshape({-1}) << '\n';
  torch::Tensor img = wave({1, 2, 4, 6}, 0.3);
  torch::Tensor pooled, where;  // (not a structured binding: the error checks below capture them)
  std::tie(pooled, where) = torch::max_pool2d_with_indices(img, {2, 2});
  std::cout << "max_unpool2d " << torch::max_unpool2d(pooled, where, {4, 6})[0][1] << '\n';
  auto [p3, w3] = torch::max_pool3d_with_indices(v, {2});
  std::cout << "max_unpool3d " << torch::max_unpool3d(p3, w3, {4, 4, 4}, {2, 2, 2}, {0, 0, 0}).sum().item<float>()
            << ' ' << torch::max_unpool3d(p3, w3, {4, 4, 4}, {2, 2, 2}, {0, 0, 0}).ne(0).sum().item<int64_t>() << '\n';
  torch::Tensor samples = torch::tensor({{{0.2, 0.7}, {0.9, 0.1}}}, torch::kFloat);
  auto [fv, fi] = torch::fractional_max_pool2d(wave({1, 2, 7, 7}), {2, 2}, {3, 3}, samples);
  std::cout << "fractional_max_pool2d " << fv.reshape({-1}) << ' ' << fi.reshape({-1}) << '\n';
  torch::Tensor samples3 = torch::tensor({{{0.2, 0.7, 0.4}}}, torch::kFloat);
  auto [fv3, fi3] = torch::fractional_max_pool3d(wave({1, 1, 5, 5, 5}), {2, 2, 2}, {2, 3, 2}, samples3);
  std::cout << "fractional_max_pool3d " << fv3.reshape({-1}) << ' ' << fi3.reshape({-1}) << '\n';

  // ---- upsample ----
  torch::Tensor small = wave({1, 1, 2, 3});
  std::cout << "upsample_nearest2d " << torch::upsample_nearest2d(small, {4, 6}).reshape({-1}) << '\n';
  std::cout << "upsample_nearest2d scales " << torch::upsample_nearest2d(small, {5, 7}, 2.5, 2.5).reshape({-1}) << '\n';
  std::cout << "upsample_bilinear2d " << torch::upsample_bilinear2d(small, {3, 5}, true).reshape({-1}) << '\n';
  std::cout << "upsample_bilinear2d list "
            << torch::upsample_bilinear2d(small, c10::nullopt, false, std::vector<double>{2.0, 1.5}).reshape({-1})
            << '\n';
  std::cout << "upsample_bicubic2d " << torch::upsample_bicubic2d(small, {4, 4}, false).reshape({-1}) << '\n';
  torch::Tensor line = wave({1, 2, 4});
  std::cout << "upsample_linear1d " << torch::upsample_linear1d(line, {7}, false).reshape({-1}) << '\n';
  std::cout << "upsample_nearest1d " << torch::upsample_nearest1d(line, {6}).reshape({-1}) << '\n';
  torch::Tensor cube = wave({1, 1, 2, 2, 2});
  std::cout << "upsample_trilinear3d " << torch::upsample_trilinear3d(cube, {3, 3, 3}, true).sum().item<float>()
            << '\n';
  std::cout << "upsample_nearest3d " << torch::upsample_nearest3d(cube, {4, 3, 2}).reshape({-1}) << '\n';
  torch::Tensor grown = torch::empty({0});
  torch::upsample_nearest2d_out(grown, small, {2, 6});
  std::cout << "upsample_nearest2d_out " << grown.reshape({-1}) << '\n';

  // ---- embeddings, bilinear, CTC ----
  torch::Tensor table = wave({6, 3}, 0.5);
  torch::Tensor idx = torch::tensor({0, 2, 4, 5, 1, 2}, torch::kLong);
  torch::Tensor offsets = torch::tensor({0, 2, 2}, torch::kLong);
  for (int64_t mode = 0; mode < 3; ++mode) {
    auto [out, bag_of, sizes, max_idx] = torch::embedding_bag(table, idx, offsets, false, mode);
    // (max_indices of mode 2 is the CPU kernel's bookkeeping, not printed: 1.13's are not the rows)
    std::cout << "embedding_bag mode " << mode << ' ' << out.reshape({-1}) << ' ' << bag_of << ' ' << sizes << ' '
              << (mode < 2 ? max_idx.reshape({-1}) : torch::tensor(max_idx.sizes().vec())) << '\n';
  }
  torch::Tensor x1 = wave({3, 2}), x2 = wave({3, 4}, 1.0), bw = wave({5, 2, 4}, 2.0), bb = wave({5}, 3.0);
  std::cout << "bilinear " << torch::bilinear(x1, x2, bw, bb).reshape({-1}) << '\n';
  torch::Tensor logits = wave({6, 2, 4}, 0.2, 2.0).requires_grad_();
  torch::Tensor ctc = torch::ctc_loss(logits.log_softmax(2), torch::tensor({{1, 2, 2}, {3, 1, 0}}, torch::kLong),
                                      std::vector<int64_t>{6, 5}, std::vector<int64_t>{3, 2});
  ctc.backward();
  std::cout << "ctc_loss " << ctc.item<float>() << ' ' << logits.grad().abs().sum().item<float>() << '\n';
  torch::Tensor emb = wave({4, 3}, 0.1, 3.0);
  std::cout << "embedding_renorm " << torch::embedding_renorm(emb, torch::tensor({1, 3}, torch::kLong), 1.0, 2.0)
            << '\n';

  // ---- convolution ----
  torch::Tensor in2 = wave({1, 2, 5, 5}), k2 = wave({3, 2, 3, 3}, 0.4), b3 = wave({3}, 0.9);
  std::cout << "convolution " << torch::convolution(in2, k2, b3, {1}, {1}, {1}, false, {0}, 1).sum().item<float>()
            << ' ' << torch::convolution(in2, wave({2, 3, 3, 3}, 0.6), b3, {2}, {1}, {1}, true, {1}, 1).sizes() << '\n';
  std::cout << "slow_conv_dilated2d "
            << torch::slow_conv_dilated2d(in2, k2, {3, 3}, b3, {1, 1}, {1, 1}, {2, 2}).reshape({-1}) << '\n';
  std::cout << "slow_conv_transpose2d "
            << torch::slow_conv_transpose2d(in2, wave({2, 3, 2, 2}, 0.6), {2, 2}, {}, {2, 2}, {0, 0}, {0, 0}, {1, 1})
                   .sum()
                   .item<float>()
            << '\n';
  std::cout
      << "slow_conv3d "
      << torch::slow_conv3d(v, wave({2, 2, 2, 2, 2}, 0.7), {2, 2, 2}, {}, {1, 1, 1}, {0, 0, 0}).sum().item<float>()
      << '\n';
  // (conv_depthwise3d is CUDA-only in libtorch 1.13; Ember computes it on the CPU too)
  std::cout << "conv_tbc " << torch::conv_tbc(wave({5, 2, 3}), wave({2, 3, 4}, 0.3), wave({4}, 1.1), 1).reshape({-1})
            << '\n';

  // ---- recurrences over a flat parameter list (nn::LSTM's own weights) ----
  torch::manual_seed(0);
  torch::nn::LSTM lstm_module(torch::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  torch::Tensor seq = wave({5, 2, 3}, 0.25).requires_grad_();
  torch::Tensor h0 = wave({4, 2, 4}, 0.5), c0 = wave({4, 2, 4}, 0.75);
  auto [lo, lh, lc] = torch::lstm(seq, {h0, c0}, lstm_module->all_weights(), true, 2, 0.0, false, true, false);
  auto [mo, mstate] = lstm_module(seq, std::make_tuple(h0, c0));
  std::cout << "lstm " << lo.sum().item<float>() << ' ' << lh.sum().item<float>() << ' ' << lc.sum().item<float>()
            << " same as module " << torch::allclose(lo, mo, 1e-5, 1e-6) << '\n';
  (lo.sum() + lc.sum()).backward();
  std::cout << "lstm grads " << seq.grad().abs().sum().item<float>() << ' '
            << lstm_module->all_weights()[0].grad().abs().sum().item<float>() << '\n';
  torch::nn::GRU gru_module(torch::nn::GRUOptions(3, 4).batch_first(true));
  auto [go, gh] =
      torch::gru(wave({2, 5, 3}), wave({1, 2, 4}, 0.5), gru_module->all_weights(), true, 1, 0.0, false, false, true);
  std::cout << "gru " << go.sum().item<float>() << ' ' << gh.reshape({-1}) << '\n';
  torch::nn::RNN rnn_module(torch::nn::RNNOptions(3, 4).bias(false));
  auto [ro, rh] = torch::rnn_tanh(wave({5, 2, 3}), wave({1, 2, 4}, 0.5), rnn_module->all_weights(), false, 1, 0.0,
                                  false, false, false);
  std::cout << "rnn_tanh " << ro.sum().item<float>() << ' ' << rh.reshape({-1}) << '\n';
  std::cout << "pad_sequence " << torch::pad_sequence({wave({2, 2}), wave({3, 2}, 1.0)}, true, -1.0) << '\n';
  std::cout << "channel_shuffle " << torch::channel_shuffle(torch::arange(12).reshape({1, 6, 2}), 3).reshape({-1})
            << '\n';

  // ---- class weights ----
  torch::Tensor scores = wave({4, 5}, 0.0, 2.0).requires_grad_();
  torch::Tensor target = torch::tensor({1, -100, 4, 2}, torch::kLong);
  torch::Tensor cw = torch::tensor({0.5, 2.0, 1.0, 0.25, 1.5}, torch::kFloat);
  torch::Tensor nll = torch::nll_loss(scores.log_softmax(1), target, cw);
  torch::Tensor ce = torch::nn::functional::cross_entropy(
      scores, target, torch::nn::functional::CrossEntropyFuncOptions().weight(cw).label_smoothing(0.2));
  (nll + ce).backward();
  std::cout << "weighted nll " << nll.item<float>() << " ce " << ce.item<float>() << " grad "
            << scores.grad().reshape({-1}) << '\n';
  std::cout << "nll_loss2d "
            << torch::nll_loss2d(wave({2, 3, 2, 2}).log_softmax(1),
                                 torch::tensor({{{0, 1}, {2, 0}}, {{1, 1}, {2, -100}}}, torch::kLong),
                                 torch::tensor({1.0, 3.0, 0.5}, torch::kFloat), torch::Reduction::Sum)
                   .item<float>()
            << '\n';
  torch::nn::CrossEntropyLoss ce_module(torch::nn::CrossEntropyLossOptions().weight(cw).ignore_index(4));
  std::cout << ce_module << ' ' << ce_module->named_buffers().size() << ' ' << ce_module->weight.sum().item<float>()
            << ' ' << ce_module(scores.detach(), torch::tensor({1, 0, 4, 2}, torch::kLong)).item<float>() << '\n';
  torch::nn::NLLLoss nll_module;
  std::cout << nll_module << ' ' << nll_module->named_buffers().size() << '\n';
  // bad input: each throws in both libraries
  const auto throws = [](const char* what, auto&& f) {
    try {
      f();
      std::cout << what << " did not throw\n";
    } catch (const c10::Error&) {
      std::cout << what << " threw\n";
    }
  };
  throws("max_unpool2d index past the plane", [&] { torch::max_unpool2d(pooled, where.add(100), {4, 6}); });
  throws("max_unpool2d indices of another shape", [&] { torch::max_unpool2d(pooled, where[0], {4, 6}); });
  throws("channel_shuffle 6 channels into 4 groups", [] { torch::channel_shuffle(torch::ones({1, 6, 2}), 4); });
  throws("convolution of a 2-d weight", [&] {
    torch::convolution(in2, torch::ones({3, 2}), {}, {1}, {0}, {1}, false, {0}, 1);
  });
  throws("lstm with one hidden state",
         [&] { torch::lstm(seq, {h0}, lstm_module->all_weights(), true, 2, 0.0, false, true, false); });
  throws("conv_tbc bias of the wrong size", [] {
    torch::conv_tbc(torch::ones({5, 2, 3}), torch::ones({2, 3, 4}), torch::ones({3}), 0);
  });
  try {
    torch::nll_loss(scores, target, torch::ones({3}));
  } catch (const c10::Error& e) {
    const std::string text = e.what();
    std::cout << "error names the classes and the shape: "
              << (text.find("weight tensor should be defined either for all 5 classes or no classes but got weight "
                            "tensor of shape: [3]") != std::string::npos)
              << '\n';
  }
}
