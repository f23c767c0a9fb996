// torch::save / torch::load through std::ostream / std::istream (a std::stringstream) as well as
// files: a tensor, a vector of tensors and a module, then training continues from the copy.
#include <iostream>
#include <sstream>
#include <vector>

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(3, 5));
    fc2 = register_module("fc2", torch::nn::Linear(5, 1));
    register_buffer("calls", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

int main() {
  torch::manual_seed(7);
  torch::Tensor t = torch::randn({2, 3});
  std::stringstream tensor_stream;
  torch::save(t, tensor_stream);
  torch::Tensor t2;
  torch::load(t2, tensor_stream);
  std::cout << t2 << std::endl << torch::equal(t, t2) << std::endl;

  std::vector<torch::Tensor> list = {torch::arange(4), torch::ones({2, 2}, torch::kDouble)};
  std::stringstream list_stream;
  torch::save(list, list_stream);
  std::vector<torch::Tensor> list2;
  torch::load(list2, list_stream);
  std::cout << list2.size() << std::endl << list2[0] << std::endl << list2[1] << std::endl;

  Net net;
  net->named_buffers()["calls"].fill_(3);
  std::ostringstream out;
  torch::save(net, out);
  Net copy;
  std::istringstream in(out.str());
  torch::load(copy, in);
  torch::Tensor x = torch::randn({4, 3});
  std::cout << torch::allclose(net(x), copy(x)) << " " << copy->named_buffers()["calls"] << std::endl;
  std::cout << copy->fc2->weight << std::endl;

  // The same module through a file.
  torch::save(net, "stream_net.pt");
  Net from_file;
  torch::load(from_file, "stream_net.pt");
  std::cout << torch::equal(from_file->fc1->bias, net->fc1->bias) << std::endl;

  // Training goes on from the copy loaded from the stream.
  torch::optim::SGD optimizer(copy->parameters(), torch::optim::SGDOptions(0.1));
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = copy(x).pow(2).mean();
    loss.backward();
    optimizer.step();
    std::cout << "step " << step << " " << loss.item<float>() << std::endl;
  }
}
