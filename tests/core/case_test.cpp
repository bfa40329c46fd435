// SPDX-License-Identifier: Apache-2.0
// Shapes (names, block sizes, validation), the tensor layout of each architecture, and case validation.
#include "core/case.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/generate.hpp"
#include "tests/test_support.hpp"

namespace scancheck {
namespace {

using test::contains;
using test::input_error;

TEST(Shape, Names) {
  EXPECT_EQ(to_string(Shape{2, 33, 16, 2}), "B=2 L=33 W=16 H=2");
  EXPECT_EQ(to_string(Dims{2, 33, 16}), "[2, 33, 16]");
  EXPECT_EQ(to_string(Dims{}), "[]");
  EXPECT_EQ(index_string(Dims{2, 3, 4}, 23), "[1, 2, 3]");
  EXPECT_EQ(index_string(Dims{}, 0), "[]");
}

TEST(Shape, BlockSizes) {
  const Shape s{2, 5, 24, 3};
  EXPECT_EQ(state_channels(Architecture::scan, s), 24);
  EXPECT_EQ(state_channels(Architecture::complex_scan, s), 12);
  EXPECT_EQ(head_channels(Architecture::rglru, s), 8);
  EXPECT_EQ(head_inputs(Architecture::rglru, s), 8);
  EXPECT_EQ(head_inputs(Architecture::complex_rglru, s), 8);  // the gates read all W merged inputs
  EXPECT_EQ(head_channels(Architecture::complex_rglru, s), 4);
  EXPECT_EQ(head_inputs(Architecture::complex_scan, s), 4);  // no gates: its own channels
  EXPECT_EQ(head_channels(Architecture::complex_scan, s), 4);
}

TEST(Shape, ValidationNamesTheProblem) {
  EXPECT_NO_THROW(validate(Architecture::rglru, Shape{1, 1, 1, 1}));
  EXPECT_NO_THROW(validate(Architecture::complex_rglru, Shape{1, 1, 2, 1}));
  for (Architecture arch : all_architectures) {
    for (std::int64_t bad : {0, -1}) {
      EXPECT_TRUE(contains(input_error([&] { validate(arch, Shape{bad, 4, 8, 1}); }), "B must be positive"));
      EXPECT_TRUE(contains(input_error([&] { validate(arch, Shape{1, bad, 8, 1}); }), "L must be positive"));
      EXPECT_TRUE(contains(input_error([&] { validate(arch, Shape{1, 4, bad, 1}); }), "W must be positive"));
      EXPECT_TRUE(contains(input_error([&] { validate(arch, Shape{1, 4, 8, bad}); }), "H must be positive"));
    }
  }
  EXPECT_EQ(input_error([] {
              validate(Architecture::rglru, Shape{2, 33, 16, 3});
            }),
            "invalid shape B=2 L=33 W=16 H=3 for rglru: W = 16 is not divisible by H = 3");
  EXPECT_TRUE(contains(input_error([] { validate(Architecture::scan, Shape{1, 1, 7, 2}); }), "not divisible"));
  for (Architecture arch : {Architecture::complex_scan, Architecture::complex_rglru}) {
    EXPECT_TRUE(contains(input_error([&] { validate(arch, Shape{1, 4, 15, 1}); }), "W = 15 is odd"));
    EXPECT_TRUE(contains(input_error([&] {
                           validate(arch, Shape{1, 4, 12, 4});
                         }),
                         "W/2 = 6 complex channels are not divisible by H = 4"));
  }
}

TEST(Shape, TooLargeForMemory) {
  const std::string message = input_error([] { validate(Architecture::rglru, Shape{1000000, 1000000, 1000000, 1}); });
  EXPECT_TRUE(contains(message, "B=1000000 L=1000000 W=1000000 H=1"));
  EXPECT_TRUE(contains(message, "too large for memory"));
  EXPECT_TRUE(contains(message, "bytes"));
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  for (Architecture arch : all_architectures)
    EXPECT_TRUE(contains(input_error([&] { validate(arch, Shape{max, max, max - 1, 1}); }), "more than 2^64"));
  // Gate weights grow with K^2: one head over a million channels is 2e12 weights.
  EXPECT_TRUE(contains(input_error([] { validate(Architecture::rglru, Shape{1, 1, 1 << 24, 1}); }), "too large"));
  EXPECT_NO_THROW(validate(Architecture::rglru, Shape{1, 1, 1 << 20, 1 << 18}));  // K = 4: a few hundred MB
}

std::vector<std::string> names(const std::vector<TensorSpec>& layout) {
  std::vector<std::string> out;
  for (const TensorSpec& s : layout) out.push_back(s.name);
  return out;
}

TEST(Layout, ScanKinds) {
  for (Architecture arch : {Architecture::scan, Architecture::complex_scan}) {
    const auto layout = tensor_layout(arch, Shape{2, 5, 8, 2});
    EXPECT_EQ(names(layout),
              (std::vector<std::string>{"a", "b", "h0", "dh", "dh_last", "h", "h_last", "da", "db", "dh0"}));
    EXPECT_EQ(layout[0].dims, (Dims{2, 5, 8}));
    EXPECT_EQ(layout[2].dims, (Dims{2, 8}));
    EXPECT_TRUE(layout[2].optional);
    EXPECT_EQ(layout[2].precision, TensorPrecision::float32);
    EXPECT_EQ(layout[3].precision, TensorPrecision::io);
    EXPECT_EQ(names(tensor_layout(arch, Shape{2, 5, 8, 2}, TensorRole::cotangent)),
              (std::vector<std::string>{"dh", "dh_last"}));
  }
}

TEST(Layout, GatedKinds) {
  const Shape s{2, 5, 24, 3};
  const auto real = tensor_layout(Architecture::rglru, s);
  EXPECT_EQ(names(real),
            (std::vector<std::string>{"x", "segment_pos", "h0", "a_param", "input_gate_w", "input_gate_b", "a_gate_w",
                                      "a_gate_b", "dy", "dh_last", "y", "h_last", "dx", "dh0", "d_a_param",
                                      "d_input_gate_w", "d_input_gate_b", "d_a_gate_w", "d_a_gate_b"}));
  EXPECT_EQ(real[1].dims, (Dims{2, 5}));
  EXPECT_TRUE(real[1].integer);
  EXPECT_EQ(real[4].dims, (Dims{3, 8, 8}));
  EXPECT_EQ(real[4].precision, TensorPrecision::float32);

  const auto complex = tensor_layout(Architecture::complex_rglru, s);
  EXPECT_EQ(names(tensor_layout(Architecture::complex_rglru, s, TensorRole::input)),
            (std::vector<std::string>{"x", "segment_pos", "h0", "a_param", "input_gate_w", "input_gate_b", "a_gate_w",
                                      "a_gate_b", "a_imag_param"}));
  EXPECT_EQ(complex.back().name, "d_a_imag_param");
  EXPECT_EQ(complex[3].dims, Dims{12});         // a_param [Wc]
  EXPECT_EQ(complex[4].dims, (Dims{3, 8, 4}));  // [H, K_in, K_out]
  EXPECT_EQ(complex[5].dims, (Dims{3, 4}));
  EXPECT_EQ(complex[2].dims, (Dims{2, 24}));  // merged state
}

Case small_case(Architecture arch, DType dtype = DType::float32) {
  CaseRequest req;
  req.architecture = arch;
  req.shape = {2, 33, 16, 2};
  req.io_dtype = dtype;
  return make_case(req);
}

TEST(CaseValidation, AcceptsGeneratedCasesWithOrWithoutOptionals) {
  for (Architecture arch : all_architectures) {
    Case c = small_case(arch);
    EXPECT_NO_THROW(validate(c));
    c.tensors.erase("h0");
    c.tensors.erase("dh_last");
    EXPECT_NO_THROW(validate(c));
  }
}

TEST(CaseValidation, MissingAndMisshapenTensors) {
  Case c = small_case(Architecture::rglru);
  c.tensors.at("x") = Tensor<float>({2, 33, 15});
  EXPECT_EQ(input_error([&] { validate(c); }),
            "x.npy: shape [2, 33, 15] does not match [2, 33, 16] expected for rglru B=2 L=33 W=16 H=2");
  c.tensors.erase("x");
  EXPECT_EQ(input_error([&] { validate(c); }), "x.npy: missing, required for rglru B=2 L=33 W=16 H=2");

  c = small_case(Architecture::rglru);
  c.at("a_param").values().push_back(1.0f);  // dims [16] but 17 values
  EXPECT_TRUE(contains(input_error([&] { validate(c); }), "a_param.npy: holds 17 values"));

  c = small_case(Architecture::complex_rglru);
  c.tensors.erase("a_imag_param");
  EXPECT_TRUE(contains(input_error([&] { validate(c); }), "a_imag_param.npy: missing"));
}

TEST(CaseValidation, UnknownTensorsAndSegmentPositions) {
  Case c = small_case(Architecture::scan);
  c.tensors.emplace("h", Tensor<float>({2, 33, 16}));
  EXPECT_EQ(input_error([&] { validate(c); }), "h.npy: an output of scan, not part of a case");
  c.tensors.erase("h");
  c.tensors.emplace("foo", Tensor<float>({1}));
  EXPECT_EQ(input_error([&] { validate(c); }), "foo.npy: not a tensor of scan");
  c.tensors.erase("foo");
  c.segment_pos = Tensor<std::int32_t>({2, 33});
  EXPECT_TRUE(contains(input_error([&] { validate(c); }), "segment_pos.npy: given, but scan has no segment positions"));

  c = small_case(Architecture::rglru);
  c.segment_pos = {};
  EXPECT_TRUE(contains(input_error([&] { validate(c); }), "segment_pos.npy: missing"));
  c.segment_pos = Tensor<std::int32_t>({2, 32});
  EXPECT_TRUE(contains(input_error([&] { validate(c); }), "segment_pos.npy: shape [2, 32] does not match [2, 33]"));
  c.segment_pos = Tensor<std::int32_t>(Dims{});  // rank 0: one value, still the wrong shape
  EXPECT_TRUE(contains(input_error([&] { validate(c); }), "segment_pos.npy: shape []"));
}

TEST(CaseValidation, Bf16CasesHoldBf16Values) {
  Case c = small_case(Architecture::rglru, DType::bfloat16);
  EXPECT_NO_THROW(validate(c));
  // NaN and Inf are valid input; parameters are float32 even in a bf16 case.
  c.at("x")[0] = std::nanf("");
  c.at("x")[1] = -std::numeric_limits<float>::infinity();
  c.at("a_param")[0] = 0.1f;
  EXPECT_NO_THROW(validate(c));
  c.at("x")[16 + 5] = 0.1f;
  EXPECT_EQ(input_error([&] { validate(c); }),
            "x.npy: value 0.100000001 at [0, 1, 5] is not representable in bfloat16, the case's io_dtype");
  c.io_dtype = DType::float32;
  EXPECT_NO_THROW(validate(c));

  Case s = small_case(Architecture::complex_scan, DType::bfloat16);
  s.at("dh")[3] = 1.0f + 0x1p-10f;
  EXPECT_TRUE(contains(input_error([&] { validate(s); }), "dh.npy: value"));
}

}  // namespace
}  // namespace scancheck
