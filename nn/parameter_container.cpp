#include "nn/parameter_container.h"

#include "autograd/grad_mode.h"

namespace ember::nn {

ParameterDictImpl::ParameterDictImpl(const NamedTensors& params) { update(params); }

namespace detail {

void print_parameter_entries(std::ostream& stream, const char* title, const Module::NamedTensors& entries) {
  stream << title << "(\n";
  for (const auto& item : entries) {
    stream << '(' << item.key() << "): Parameter containing: [" << scalar_type_name(item.value().scalar_type())
           << " of size " << item.value().sizes() << "]\n";
  }
  stream << ')';
}

Tensor copy_parameter(const Tensor& value, const std::optional<Device>& device) {
  NoGradGuard no_grad;
  Tensor copy = device && value.device() != *device ? value.to(*device) : value.clone();
  return copy.requires_grad_(value.requires_grad());
}

}  // namespace detail

std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& item : parameters_) copy->append(detail::copy_parameter(item.value(), device));
  copy->train(is_training());
  return copy;
}

std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& item : parameters_) copy->insert(item.key(), detail::copy_parameter(item.value(), device));
  copy->train(is_training());
  return copy;
}

namespace utils {
namespace {
void check_same_device(const Tensor& param, std::optional<Device>& device) {
  if (!device) {
    device = param.device();
    return;
  }
  EMBER_CHECK(param.device() == *device,
              "Found two parameters on different devices, this is currently not supported. ({} and {})", device->str(),
              param.device().str());
}
}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!parameters.empty(), "parameters_to_vector: expected at least one parameter");
  std::optional<Device> device;
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& param : parameters) {
    check_same_device(param, device);
    flat.push_back(param.reshape({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK(vec.dim() == 1, "vector_to_parameters: expected a 1-D vector, got a tensor of shape {}", vec.sizes());
  int64_t total = 0;
  for (const Tensor& param : parameters) total += param.numel();
  EMBER_CHECK(vec.numel() >= total, "vector_to_parameters: the vector has {} elements, the parameters hold {}",
              vec.numel(), total);
  std::optional<Device> device;
  int64_t offset = 0;
  for (const Tensor& param : parameters) {
    check_same_device(param, device);
    const int64_t count = param.numel();
    nn::detail::set_data(param, vec.slice(0, offset, offset + count).view(param.sizes()).detach());
    offset += count;
  }
}

}  // namespace utils

}  // namespace ember::nn
