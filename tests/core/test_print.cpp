// operator<< against PyTorch's str(tensor), character for character.
//
// Expected strings come from scripts/gen_print_fixtures.py (tests/fixtures/print.json). Each case
// stores its inputs and print options; the table below says which op turns the inputs into the
// printed tensor (identity where a case is not listed). Printing of CUDA tensors is covered only
// by the device suffix rule, since the suite must pass without a GPU.
#include <functional>
#include <map>

#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
using ember::test::load_fixture;
using ember::test::tensors_from_json;

namespace {

using PrintCase = std::function<Tensor(const tensor_list&)>;

// Mirrors the `fn` of each case in gen_print_fixtures.py.
const std::map<std::string, PrintCase>& print_ops() {
  static const std::map<std::string, PrintCase> ops = {
      {"grad_fn_mm", [](const tensor_list& in) { return in[0].mm(in[1]); }},                        // a.mm(b)
      {"grad_fn_mul", [](const tensor_list& in) { return in[0] * in[1]; }},                         // a * b
      {"grad_fn_tanh", [](const tensor_list& in) { return in[0].tanh(); }},                         // a.tanh()
      {"grad_fn_scalar_sum", [](const tensor_list& in) { return in[0].sum(0); }},                   // a.sum(0)
      {"grad_fn_suffix_wraps", [](const tensor_list& in) { return in[0] * 3; }},                    // a * 3
      {"grad_fn_suffix_wraps_f64", [](const tensor_list& in) { return in[0] + 1; }},                // a + 1
      {"transposed", [](const tensor_list& in) { return in[0].t(); }},                              // a.t()
      {"sliced_step", [](const tensor_list& in) { return in[0].slice(0, 1).slice(1, 0, {}, 2); }},  // a[1:, ::2]
      {"summarize_transposed", [](const tensor_list& in) { return in[0].t(); }},                    // a.t()
      {"summarize_sliced_step",
       [](const tensor_list& in) { return in[0].slice(0, 1).slice(1, 0, {}, 2); }},  // a[1:, ::2]
  };
  return ops;
}

// Applies a case's options for the lifetime of the guard, then restores the defaults.
class PrintOptionsGuard {
 public:
  explicit PrintOptionsGuard(const nlohmann::json& o) {
    PrintOptions p;
    if (o.contains("precision")) p.precision = o["precision"].get<int>();
    if (o.contains("threshold")) p.threshold = o["threshold"].get<double>();
    if (o.contains("edgeitems")) p.edgeitems = o["edgeitems"].get<int>();
    if (o.contains("linewidth")) p.linewidth = o["linewidth"].get<int>();
    if (o.contains("sci_mode")) p.sci_mode = o["sci_mode"].get<bool>();
    set_printoptions(p);
  }
  ~PrintOptionsGuard() { set_printoptions(PrintOptions{}); }
  PrintOptionsGuard(const PrintOptionsGuard&) = delete;
  PrintOptionsGuard& operator=(const PrintOptionsGuard&) = delete;
};

}  // namespace

TEST(Print, MatchesPyTorchFixtures) {
  nlohmann::json cases = load_fixture("print.json");
  ASSERT_GE(cases.size(), 25u);
  for (const auto& [name, c] : cases.items()) {
    SCOPED_TRACE(name);
    tensor_list inputs = tensors_from_json(c["inputs"]);
    auto op = print_ops().find(name);
    Tensor t = op == print_ops().end() ? inputs[0] : op->second(inputs);
    PrintOptionsGuard guard(c["options"]);
    EXPECT_EQ(to_string(t), c["str"].get<std::string>()) << "case " << name;
  }
}

TEST(Print, EveryTableEntryHasAFixture) {
  nlohmann::json cases = load_fixture("print.json");
  for (const auto& [name, op] : print_ops()) EXPECT_TRUE(cases.contains(name)) << name;
}

TEST(Print, OperatorAndToStringAgree) {
  Tensor t = tensor({{1.0, 2.5}});
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), to_string(t));
  EXPECT_EQ(os.str(), "tensor([[1.0000, 2.5000]])");
  EXPECT_EQ(to_string(Tensor()), "[ Tensor (undefined) ]");
}

TEST(Print, SetPrintOptionsKeepsUnsetValuesAndResetsSciMode) {
  set_printoptions(2, std::nullopt, std::nullopt, std::nullopt, true);
  EXPECT_EQ(get_printoptions().precision, 2);
  EXPECT_EQ(to_string(tensor({1.5})), "tensor([1.50e+00])");
  set_printoptions(std::nullopt, 3.0);  // as torch: sci_mode goes back to automatic
  EXPECT_EQ(get_printoptions().precision, 2);
  EXPECT_FALSE(get_printoptions().sci_mode.has_value());
  EXPECT_EQ(to_string(arange(5)), "tensor([0, 1, 2, 3, 4])");  // 5 > 2 * edgeitems: not summarised
  EXPECT_EQ(to_string(arange(7)), "tensor([0, 1, 2,  ..., 4, 5, 6])");
  set_printoptions(PrintOptions{});
  EXPECT_EQ(to_string(tensor({1.5})), "tensor([1.5000])");
  EXPECT_THROWS_WITH(set_printoptions(-1), "set_printoptions: precision must be >= 0, got -1");
}
