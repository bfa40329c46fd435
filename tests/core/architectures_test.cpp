// SPDX-License-Identifier: Apache-2.0
//! @file
//! The architecture descriptors (core/architectures.hpp): each answers what generic code asks, consistently
//! with the layouts and case generation it points at. Numbered invariants, degenerate shapes first.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/architectures.hpp"
#include "core/case_request.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "tests/test_support.hpp"

namespace scancheck {
namespace {

using test::contains;
using test::input_error;

//! The smallest valid shape of `d` with `heads` heads (two state channels per head).
Shape small_shape(const ArchitectureDescriptor& d, std::int64_t heads) {
  return {2, 3, 2 * heads * d.channel_factor(), heads};
}

TEST(Architectures, DescriptorsFollowTheEnumerationAndNameTheirArchitecture) {
  ASSERT_EQ(architecture_descriptors.size(), all_architectures.size());
  std::set<std::string_view> names;
  for (const ArchitectureDescriptor& d : architecture_descriptors) {
    SCOPED_TRACE(std::string(d.name));
    EXPECT_EQ(&describe(d.id), &d);
    EXPECT_EQ(to_string(d.id), d.name);           // (1) the name is the descriptor's
    EXPECT_EQ(parse_architecture(d.name), d.id);  // (2) and parses back
    EXPECT_TRUE(names.insert(d.name).second);
    EXPECT_FALSE(d.equation.empty());
  }
  EXPECT_TRUE(contains(input_error([] { parse_architecture("lstm"); }),
                       "unknown architecture 'lstm' (expected one of: scan, complex_scan, rglru, complex_rglru)"));
}

TEST(Architectures, LayoutsAgreeWithTheDescriptor) {
  for (const ArchitectureDescriptor& d : architecture_descriptors)
    for (std::int64_t heads : {1, 3}) {
      SCOPED_TRACE(std::string(d.name) + " H=" + std::to_string(heads));
      const Shape s = small_shape(d, heads);
      validate(d.id, s);
      bool main_input = false, segment_pos = false, any_parameter = false, any_gradient = false;
      for (const TensorSpec& t : d.layout(s)) {
        main_input |= t.name == d.main_input;
        segment_pos |= t.integer;
        any_parameter |= t.parameter;
        if (t.name == d.main_input) {
          EXPECT_EQ(t.dims, (Dims{s.batch, s.length, s.width}));  // (3) the main input defines B, L, W
        }
        if (t.role != TensorRole::output) continue;
        // (4) forward outputs are h / y and h_last; everything else is a gradient of the backward
        const bool forward = t.name == "h" || t.name == "y" || t.name == "h_last";
        EXPECT_EQ(t.direction, forward ? Direction::forward : Direction::backward) << t.name;
        EXPECT_EQ(direction_of(d.id, t.name), t.direction);
        any_gradient |= t.direction == Direction::backward;
        // (5) a parameter (gradient) is shared by the batch: [K], [H, K] or [H, K_in, K_out]
        if (t.parameter && t.dims.size() == 3) {
          EXPECT_EQ(t.dims[0], s.heads) << t.name << ": a weight is [H, K_in, K_out]";
        }
      }
      EXPECT_TRUE(main_input);
      EXPECT_TRUE(any_gradient);
      EXPECT_EQ(segment_pos, d.segment_positions);  // (6)
      EXPECT_EQ(any_parameter, d.gate_heads);       // (7) only gated layers have parameters (their gates)
      EXPECT_EQ(state_channels(d.id, s) * d.channel_factor(), s.width);  // (8) merged complex layout
    }
}

TEST(Architectures, GeneratedCasesHaveWhatTheDescriptorSays) {
  for (const ArchitectureDescriptor& d : architecture_descriptors) {
    SCOPED_TRACE(std::string(d.name));
    CaseRequest r;
    r.architecture = d.id;
    r.shape = small_shape(d, 2);
    r.seed = 3;
    r.regime = Regime::resets;
    const Case c = make_case(r);
    validate(c);
    EXPECT_EQ(c.segment_pos.size() > 0, d.segment_positions);
    EXPECT_TRUE(c.has(std::string(d.main_input)));
  }
  EXPECT_TRUE(contains(input_error([] { direction_of(Architecture::scan, "y"); }), "'y' is not an output of scan"));
}

TEST(CaseRequestForms, TextAndJsonRoundTrip) {
  CaseRequest r;
  r.architecture = Architecture::complex_rglru;
  r.shape = {2, 33, 16, 2};
  r.seed = 18446744073709551615ull;
  r.regime = Regime::extreme;
  r.io_dtype = DType::bfloat16;
  r.with_h0 = false;
  EXPECT_EQ(to_string(r),
            "--arch complex_rglru --shape 2,33,16,2 --seed 18446744073709551615 --regime extreme "
            "--io-dtype bfloat16 --sqrt-gradient bounded --no-h0");
  const JsonReader in("test");
  const CaseRequest back = request_from_json(in, to_json(r), "request");
  EXPECT_EQ(to_string(back), to_string(r));
  nlohmann::json bad = to_json(r);
  bad["shape"] = {2, 33, 16};
  EXPECT_TRUE(contains(input_error([&] { request_from_json(in, bad, "cases[0].request"); }),
                       "test: cases[0].request.shape: expected [batch, length, width, heads]"));
  bad = to_json(r);
  bad["regime"] = "stormy";
  EXPECT_TRUE(contains(input_error([&] { request_from_json(in, bad, "request"); }),
                       "test: request.regime: unknown regime 'stormy'"));
}

TEST(CaseRequestForms, ShapeStrings) {
  EXPECT_EQ(parse_shape("2,33,16"), (Shape{2, 33, 16, 1}));
  EXPECT_EQ(parse_shape("2,33,16,4"), (Shape{2, 33, 16, 4}));
  for (const char* bad : {"", "2,33", "2,33,16,4,5", "2,,16", "2,3x,16", " 2,3,4", "2,3,4,"}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(contains(input_error([&] { parse_shape(bad); }), "--shape '"));
  }
}

}  // namespace
}  // namespace scancheck
