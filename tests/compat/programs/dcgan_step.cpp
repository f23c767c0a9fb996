// Three training steps of a small DCGAN, written as libtorch's DCGAN example writes one: a generator of
// transposed convolutions with BatchNorm2d and Tanh, a discriminator of strided convolutions with
// LeakyReLU, BatchNorm2d and Sigmoid, BCELoss, and Adam with betas (0.5, 0.999) for each network.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(0);
  const int64_t batch = 4, noise = 8;

  // One layer per statement: each draws its initial weights in this order.
  torch::nn::Sequential generator;
  generator->push_back(torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(noise, 16, 4).bias(false)));
  generator->push_back(torch::nn::BatchNorm2d(16));
  generator->push_back(torch::nn::ReLU());
  generator->push_back(
      torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(16, 1, 4).stride(2).padding(1).bias(false)));
  generator->push_back(torch::nn::Tanh());

  torch::nn::Sequential discriminator;
  discriminator->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 4).stride(2).padding(1).bias(false)));
  discriminator->push_back(torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)));
  discriminator->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 4).stride(2).padding(1).bias(false)));
  discriminator->push_back(torch::nn::BatchNorm2d(32));
  discriminator->push_back(torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)));
  discriminator->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 1, 2).bias(false)));
  discriminator->push_back(torch::nn::Sigmoid());
  std::cout << generator << std::endl << discriminator << std::endl;

  torch::optim::Adam g_optimizer(generator->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
  torch::optim::Adam d_optimizer(discriminator->parameters(), torch::optim::AdamOptions(5e-4).betas({0.5, 0.999}));
  torch::nn::BCELoss criterion;

  std::cout << std::fixed << std::setprecision(6);
  for (int step = 1; step <= 3; ++step) {
    torch::Tensor real = torch::rand({batch, 1, 8, 8}) * 2 - 1;
    torch::Tensor z = torch::randn({batch, noise, 1, 1});

    // The discriminator: real images towards 1, generated ones towards 0.
    discriminator->zero_grad(true);
    torch::Tensor real_out = discriminator->forward(real).view(-1);
    torch::Tensor d_loss_real = criterion(real_out, torch::ones({batch}));
    d_loss_real.backward();
    torch::Tensor fake = generator->forward(z);
    torch::Tensor fake_out = discriminator->forward(fake.detach()).view(-1);
    torch::Tensor d_loss_fake = criterion(fake_out, torch::zeros({batch}));
    d_loss_fake.backward();
    d_optimizer.step();

    // The generator: its images should pass for real.
    generator->zero_grad(true);
    torch::Tensor g_loss = criterion(discriminator->forward(fake).view(-1), torch::ones({batch}));
    g_loss.backward();
    g_optimizer.step();

    std::cout << "step " << step << " d_loss " << (d_loss_real + d_loss_fake).item<float>() << " g_loss "
              << g_loss.item<float>() << " fake mean " << fake.mean().item<float>() << std::endl;
  }

  // What the steps left in the BatchNorm layers and the first generator layer.
  auto g_norm = generator[1]->as<torch::nn::BatchNorm2d>();
  auto d_norm = discriminator[3]->as<torch::nn::BatchNorm2d>();
  std::cout << "generator bn running_mean sum " << g_norm->running_mean.sum().item<float>() << " running_var sum "
            << g_norm->running_var.sum().item<float>() << " batches " << g_norm->num_batches_tracked.item<int64_t>()
            << std::endl;
  std::cout << "discriminator bn running_mean sum " << d_norm->running_mean.sum().item<float>()
            << " running_var sum " << d_norm->running_var.sum().item<float>() << " batches "
            << d_norm->num_batches_tracked.item<int64_t>() << std::endl;
  std::cout << "generator weight sum " << generator[0]->as<torch::nn::ConvTranspose2d>()->weight.sum().item<float>()
            << std::endl;

  generator->eval();
  torch::NoGradGuard no_grad;
  std::cout << generator->forward(torch::randn({1, noise, 1, 1})).view({8, 8}).slice(0, 0, 2) << std::endl;
}
