// SPDX-License-Identifier: Apache-2.0
//! @file
//! The mutants (backends/mutants/) are what they claim to be. For every mutant, on a small hand-picked case
//! that triggers its bug (`triggers` below, each with its reason):
//!   1. the catalogue: at least 15 mutants, unique names, a one-sentence bug, a registered base whose
//!      architecture and io dtype fit the trigger case;
//!   2. ControlReproducesBase: the mutant machinery with no mutation (run_unmutated: the same case layout and
//!      production launch sequence through the mutant executor) equals run_backend(base) bit for bit, so a
//!      mutant's difference is its mutation alone;
//!   3. ChangesTheOutputs: the mutant's outputs differ from its base's (the bug is triggered, not dormant);
//!   4. Reproducible: two runs of a mutant are bitwise equal, except parameter_sums_run_dependent, whose two
//!      runs must differ (its bug is exactly that).
//! And a report, asserted nowhere (the policy is tuned elsewhere): DefaultPolicyKillTable judges each
//! mutant and its base on the trigger case with judge_outputs under TolerancePolicy{} (reference with
//! bounds, sequential baseline) and prints which mutants the default policy kills.
//! The existing backend suites (tests/backends) check that the bases themselves are unchanged.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/mutants/mutant_run.hpp"
#include "backends/mutants/mutants.hpp"
#include "core/generate.hpp"
#include "properties/differential.hpp"
#include "properties/policy.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace scancheck;

// ---- trigger cases -------------------------------------------------------------------------------------------

struct Trigger {
  CaseRequest request;
  const char* why;
  std::function<void(Case&)> adjust = {};  //!< an edit after generation, where no regime reaches the bug
};

CaseRequest request(Architecture a, DType io, Shape shape, Regime regime, std::uint64_t seed) {
  CaseRequest r;
  r.architecture = a;
  r.io_dtype = io;
  r.shape = shape;
  r.regime = regime;
  r.seed = seed;
  return r;
}

const std::map<std::string, Trigger>& triggers() {
  using A = Architecture;
  constexpr DType fp32 = DType::float32, bf16 = DType::bfloat16;
  static const std::map<std::string, Trigger> all = [] {
    std::map<std::string, Trigger> t;
    t["tail_chunk_dropped"] = {request(A::scan, bf16, {2, 45, 5, 1}, Regime::default_, 101),
                               "L = 45 = 32 + 13: a partial tail chunk of 13 steps"};
    t["hierarchical_correction_skips_last_group"] = {
        request(A::complex_scan, fp32, {1, 1300, 4, 1}, Regime::long_memory, 102),
        "82 chunks of 16 in 3 groups of 32: the last group has 18 chunks; long memory carries the group's entry "
        "state far into it"};
    t["summary_drops_first_decay"] = {request(A::scan, fp32, {2, 200, 5, 1}, Regime::default_, 103),
                                      "4 chunks of 64 (the last partial), decays in [0.9, 0.999]"};
    t["chunk_states_in_bf16"] = {request(A::rglru, fp32, {2, 100, 6, 2}, Regime::default_, 104),
                                 "4 chunks of 32: three carries rounded to bf16 per direction, fp32 io"};
    t["h0_ignored"] = {request(A::complex_scan, bf16, {2, 20, 6, 1}, Regime::default_, 105), "h0 present"};
    t["dh_last_ignored"] = {request(A::complex_rglru, bf16, {2, 20, 12, 2}, Regime::default_, 106),
                            "dh_last present, L = 20 so it reaches dh0 too"};
    t["dh0_missing_a0"] = {request(A::scan, bf16, {2, 70, 5, 1}, Regime::default_, 107),
                           "h0 present, a_0 in [0.9, 0.999]: dh0 off by 0.1% to 10%"};
    t["backward_decay_one_step_early"] = {request(A::rglru, bf16, {2, 40, 6, 2}, Regime::default_, 108),
                                          "decays vary with x from step to step"};
    t["backward_decay_not_conjugated"] = {request(A::complex_rglru, fp32, {2, 70, 12, 2}, Regime::default_, 109),
                                          "phases a_imag_param ga in (0, pi): every decay has an imaginary part"};
    t["da_not_conjugated"] = {request(A::complex_scan, bf16, {2, 40, 6, 1}, Regime::default_, 110),
                              "complex states with random phase"};
    t["reset_ignored_in_backward"] = {request(A::rglru, fp32, {2, 40, 6, 2}, Regime::resets, 111),
                                      "resets at 10% of the steps plus a pair of consecutive resets per entry"};
    CaseRequest clip_q = request(A::complex_rglru, fp32, {2, 50, 16, 2}, Regime::clip, 112);
    clip_q.with_h0 = false;
    t["q_literal_float32"] = {clip_q,
                              "clip regime: softplus(a_param) ~ 1e-9 on every 4th channel, decays within 3e-8 of 1, "
                              "q = 0 literally; no h0, so y there is the input's alone"};
    t["q_in_bf16"] = {request(A::rglru, bf16, {2, 40, 6, 2}, Regime::default_, 113),
                      "decays in [0.9, 0.999]: |a|^2 within 0.5 to 50 bf16 ulps of 1"};
    t["softplus_naive"] = {request(A::complex_rglru, fp32, {2, 40, 12, 2}, Regime::extreme, 114),
                           "extreme regime: a_param in [-40, 40] (log(1 + e^z) = 0 below -16.6), and a_param[0] = 100 "
                           "(e^100 overflows)",
                           [](Case& c) { c.at("a_param")[0] = 100.0f; }};
    CaseRequest clip = request(A::rglru, fp32, {2, 80, 8, 2}, Regime::clip, 115);
    clip.sqrt_gradient = SqrtGradient::bounded;
    t["sqrt_clip_at_one_hundredth"] = {clip, "clip regime, bounded convention: 2 sqrt(q) ~ 2e-4 on every 4th channel"};
    t["parameter_sums_run_dependent"] = {request(A::rglru, fp32, {8, 256, 6, 2}, Regime::default_, 116),
                                         "B L = 2048 rows: 8 blocks of 256 to sum"};
    t["parameter_sums_drop_tail_block"] = {request(A::complex_rglru, bf16, {2, 150, 12, 2}, Regime::default_, 117),
                                           "B L = 300 rows: one block of 256 and a tail of 44"};
    t["dx_misses_a_gate_path"] = {request(A::rglru, fp32, {2, 30, 6, 2}, Regime::default_, 118),
                                  "default gates: dza reaches every dx of its head through Wa"};
    t["carry_times_previous_product"] = {request(A::scan, fp32, {2, 150, 5, 1}, Regime::default_, 119),
                                         "3 chunks of 64 (the last partial), h0 present: every carried state"};
    t["tree_offset_off_by_one"] = {request(A::complex_scan, fp32, {2, 70, 6, 1}, Regime::default_, 120),
                                   "3 chunks of 32: steps 1, 2, 4, 8, 16 of each chunk"};
    t["carry_drops_chunks_last_step"] = {request(A::rglru, fp32, {2, 100, 6, 2}, Regime::default_, 121),
                                         "4 chunks of 32: three carries per direction"};
    return t;
  }();
  return all;
}

//! The trigger case of a mutant and its base's outputs on it, computed once per process.
struct Fixture {
  Case c;
  Outputs base;
};

const Fixture& fixture(const Mutant& m) {
  static std::map<std::string, std::unique_ptr<Fixture>> cache;
  auto& slot = cache[m.name];
  if (!slot) {
    const Trigger& t = triggers().at(m.name);
    Case c = make_case(t.request);
    if (t.adjust) t.adjust(c);
    Outputs base = run_backend(find_backend(m.base), c, Executor::host);
    slot = std::make_unique<Fixture>(Fixture{std::move(c), std::move(base)});
  }
  return *slot;
}

bool same_bits(const Outputs& a, const Outputs& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, t] : a)
    if (!b.count(name) || !test::bitwise_equal(t, b.at(name))) return false;
  return true;
}

//! The outputs of `got` that differ from `want` in any bit, with how many elements.
std::string differing(const Outputs& got, const Outputs& want) {
  std::string s;
  for (const auto& [name, g] : got) {
    const Tensor<float>& w = want.at(name);
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < g.size(); ++i) n += std::memcmp(&g[i], &w[i], sizeof(float)) != 0;
    if (n) s += fmt::format("{}{} ({}/{})", s.empty() ? "" : ", ", name, n, g.size());
  }
  return s;
}

std::string trace(const Mutant& m) {
  const Trigger& t = triggers().at(m.name);
  return fmt::format("mutant {} of {}: case {} {} seed {} regime {} ({})", m.name, m.base,
                     to_string(t.request.architecture), to_string(t.request.shape), t.request.seed,
                     to_string(t.request.regime), t.why);
}

// ---- the catalogue ---------------------------------------------------------------------------------------------

TEST(MutantCatalogue, EveryMutantHasARegisteredBaseAndATrigger) {
  ASSERT_GE(mutants().size(), 15u);
  std::set<std::string> names, architectures, dtypes;
  for (const Mutant& m : mutants()) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate name";
    EXPECT_FALSE(m.bug.empty());
    ASSERT_NO_THROW(find_backend(m.base));
    const BackendInfo& base = find_backend(m.base);
    ASSERT_TRUE(triggers().count(m.name)) << "no trigger case for " << m.name;
    const CaseRequest& r = triggers().at(m.name).request;
    EXPECT_EQ(r.architecture, base.architecture);
    EXPECT_EQ(r.io_dtype, base.io_dtype);
    EXPECT_EQ(&find_mutant(m.name), &m);
    architectures.insert(std::string(to_string(base.architecture)));
    dtypes.insert(std::string(dtype_token(base.io_dtype)));
  }
  EXPECT_EQ(names.size(), triggers().size()) << "a trigger case names no mutant";
  EXPECT_EQ(architectures.size(), 4u) << "bases should cover every architecture";
  EXPECT_EQ(dtypes.size(), 2u) << "bases should cover both io dtypes";
  EXPECT_TRUE(test::contains(test::input_error([] { find_mutant("no_such_mutant"); }), "no_such_mutant"));
}

TEST(MutantCatalogue, RefusesCasesItsBaseCannotRun) {
  const Mutant& m = find_mutant("dh_last_ignored");  // complex_rglru @bf16
  CaseRequest r = request(Architecture::complex_rglru, DType::float32, {1, 4, 4, 1}, Regime::default_, 1);
  EXPECT_THROW(m.run(make_case(r)), InputError);
  r = request(Architecture::scan, DType::bfloat16, {1, 4, 4, 1}, Regime::default_, 1);
  EXPECT_THROW(m.run(make_case(r)), InputError);
}

// ---- per mutant ---------------------------------------------------------------------------------------------------

class MutantSanity : public testing::TestWithParam<std::string> {
 protected:
  const Mutant& mutant() const { return find_mutant(GetParam()); }
};

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const Mutant& m : mutants()) names.push_back(m.name);
  return names;
}

TEST_P(MutantSanity, ControlReproducesBase) {
  const Mutant& m = mutant();
  SCOPED_TRACE(trace(m));
  const Fixture& f = fixture(m);
  const Outputs control = mutation::run_unmutated(find_backend(m.base), f.c);
  EXPECT_TRUE(same_bits(control, f.base)) << "differs in " << differing(control, f.base);
}

TEST_P(MutantSanity, ChangesTheOutputs) {
  const Mutant& m = mutant();
  SCOPED_TRACE(trace(m));
  const Fixture& f = fixture(m);
  const Outputs got = m.run(f.c);
  ASSERT_EQ(got.size(), f.base.size());
  const std::string diff = differing(got, f.base);
  EXPECT_FALSE(diff.empty()) << "the mutant's outputs equal its base's bit for bit: the bug is not triggered";
  std::printf("[ mutant   ] %-42s differs in %s\n", m.name.c_str(), diff.c_str());
}

TEST_P(MutantSanity, Reproducible) {
  const Mutant& m = mutant();
  SCOPED_TRACE(trace(m));
  const Fixture& f = fixture(m);
  const Outputs first = m.run(f.c), second = m.run(f.c);
  if (m.name == "parameter_sums_run_dependent")
    EXPECT_FALSE(same_bits(first, second)) << "two runs summed in the same order";
  else EXPECT_TRUE(same_bits(first, second)) << "differs in " << differing(second, first);
}

INSTANTIATE_TEST_SUITE_P(Mutants, MutantSanity, testing::ValuesIn(mutant_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// ---- report: what the default policy kills ---------------------------------------------------------------------

//! One row of the kill table: which rules of the policy fired (N: NaN/Inf disagreement, B: an element beyond
//! bound_factor bounds, S: beyond the sequential baseline rule), the largest bound and baseline ratios over
//! the tensors, and the failing tensors.
std::string row(const BackendResult& r, const TolerancePolicy& policy) {
  if (!r.error.empty()) return "run failed: " + r.error;
  std::string failing;
  bool nonfinite = false, bound_rule = false, baseline_rule = false;
  double bound = 0, baseline = 0;
  for (const TensorResult& t : r.tensors) {
    if (!t.verdict.pass) failing += (failing.empty() ? "" : ",") + t.metrics.name;
    nonfinite = nonfinite || t.metrics.nonfinite_mismatches > 0;
    bound_rule = bound_rule || (t.metrics.bound_ratio && *t.metrics.bound_ratio > policy.bound_factor);
    for (const std::string& why : t.verdict.reasons)
      baseline_rule = baseline_rule || why.find("sequential baseline") != std::string::npos;
    if (t.metrics.bound_ratio) bound = std::max(bound, *t.metrics.bound_ratio);
    if (t.metrics.baseline_ratio) baseline = std::max(baseline, *t.metrics.baseline_ratio);
  }
  const std::string rules = std::string(nonfinite ? "N" : "") + (bound_rule ? "B" : "") + (baseline_rule ? "S" : "");
  return fmt::format("{:<5} {:>9.3g} {:>9.3g}  {}", rules.empty() ? "-" : rules, bound, baseline,
                     failing.empty() ? "-" : failing);
}

TEST(MutantReport, DefaultPolicyKillTable) {
  const TolerancePolicy policy{};
  std::string table = fmt::format("{:<41} {:<57} {:<4} {:<4} {:<7} {:<5} {:>9} {:>9}  {}\n", "mutant", "base", "base",
                                  "kill", "rerun", "rules", "bound x", "seq x", "failing tensors");
  int killed = 0, caught = 0;
  for (const Mutant& m : mutants()) {
    SCOPED_TRACE(trace(m));
    const Fixture& f = fixture(m);
    const ReferenceResult reference = reference_with_bounds(f.c);
    const CorrectOrders orders = correct_orders(f.c);
    const BackendResult base = judge_outputs(m.base, f.c, f.base, reference, &orders, policy);
    BackendResult got;
    bool rerun_differs = false;
    try {
      const Outputs out = m.run(f.c);
      rerun_differs = !same_bits(out, m.run(f.c));
      got = judge_outputs(m.name, f.c, out, reference, &orders, policy);
    } catch (const BackendError& e) {
      got.backend = m.name;
      got.pass = false;
      got.error = e.what();
    }
    killed += !got.pass;
    caught += !got.pass || rerun_differs;
    table += fmt::format("{:<41} {:<57} {:<4} {:<4} {:<7} {}\n", m.name, m.base, base.pass ? "pass" : "FAIL",
                         got.pass ? "no" : "yes", rerun_differs ? "DIFFERS" : "same", row(got, policy));
    if (!base.pass) table += "    the base fails: " + format_result(base);
  }
  table += fmt::format(
      "base: the base's verdict; kill: the mutant fails the policy; rerun: a second run's bits; rules that fired: "
      "N NaN/Inf, B per-element bound, S sequential baseline; bound x, seq x: largest bound and baseline ratios\n"
      "default policy {}: {} of {} mutants killed on their trigger case; {} caught with the rerun check\n",
      policy.to_json().dump(), killed, mutants().size(), caught);
  std::printf("%s", table.c_str());
  RecordProperty("killed", killed);
}

}  // namespace
