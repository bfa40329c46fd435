// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated backends (architectures `rglru` and `complex_rglru`: every schedule, every flag combination,
//! fp32 and bf16 io) under the host executor. Contract: docs/recurrences.md §2, §3, §5, forward and backward.
//!
//! Tests are grouped by (architecture, schedule, dtype): a group's cases, their references and the
//! sequential baseline's outputs are shared by all its flag variants in one process. Per group:
//!   MatchesReference     every variant, every output, judged under the tolerance policy (docs/tolerance.md)
//!                        against the float128 reference with its error bounds and the `sequential` baseline
//!                        of the same architecture and dtype, on the schedule's boundary lengths, every
//!                        regime, h0 / dh_last present and absent, both sqrt conventions, a multi-head shape
//!                        wider than one host program; y[L-1] = h_last
//!   FlagsThatMoveDataOnly  `fused` and `fused_output` change where values live, not what is computed:
//!                        variants differing only in them are bitwise equal; so is `fused_write` with fp32 io
//!                        (the replayed float32 state is the stored y); shared_sfu and bf16 fused_write differ
//!   Deterministic        two runs of every variant are bitwise equal
//! and once: the registry (the three production names, every flag combination), and that every float32
//! rglru backend passes the policy on RecurrentGemma's PyTorch fixture cases (fixtures/recurrentgemma_torch)
//! and reproduces PyTorch's outputs and gradients there.
//!
//! Cost: the references (with bounds, one thread) dominate; each ctest test is its own process and computes
//! those of its own cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "core/architectures.hpp"
#include "core/case_dir.hpp"
#include "core/generate.hpp"
#include "core/npy.hpp"
#include "properties/differential.hpp"
#include "properties/policy.hpp"
#include "reference/reference.hpp"
#include "tests/backends/backend_test_support.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace scancheck;
using namespace scancheck::backend_test;
using kernels::Schedule;
using test::input_error;

// ---- cases ---------------------------------------------------------------------------------------------

constexpr std::array<Regime, 5> regimes{Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme,
                                        Regime::clip};

struct Point {
  std::int64_t length;
  Regime regime;
  bool with_h0, with_dh_last;
  SqrtGradient sqrt_gradient;
  bool wide;  //!< many heads and channels (host tiles narrower than a row: host_lanes_test.cpp)
  friend auto operator<=>(const Point&, const Point&) = default;
};

struct CaseKey {
  Architecture architecture;
  DType io_dtype;
  Point point;
  friend auto operator<=>(const CaseKey&, const CaseKey&) = default;
};

//! Narrow: B = 2, two heads of 3 channels (complex: W = 12, K_in = 6, K_out = 3).
//! Wide: B = 1, five heads, 70 channels (one host program of 1024 lanes, partly used).
Shape shape_of(Architecture a, const Point& p) {
  const std::int64_t k = describe(a).complex ? 2 : 1;
  return p.wide ? Shape{1, p.length, 70 * k, 5} : Shape{2, p.length, 6 * k, 2};
}

CaseRequest request_of(const CaseKey& k) {
  const Point& p = k.point;
  CaseRequest r;
  r.architecture = k.architecture;
  r.shape = shape_of(k.architecture, p);
  r.seed = 7000 + 16 * static_cast<std::uint64_t>(p.length) + 4 * static_cast<std::uint64_t>(p.regime) + 2 * p.with_h0 +
           p.with_dh_last + (p.wide ? 100000 : 0);
  r.regime = p.regime;
  r.io_dtype = k.io_dtype;
  r.sqrt_gradient = p.sqrt_gradient;
  r.with_h0 = p.with_h0;
  r.with_dh_last = p.with_dh_last;
  return r;
}

std::string trace_of(const BackendInfo& b, const CaseKey& k) {
  const CaseRequest r = request_of(k);
  return fmt::format("{} on {} heads={} seed={} regime={} h0={} dh_last={} sqrt_gradient={}", b.name,
                     to_string(r.shape), r.shape.heads, r.seed, to_string(r.regime), r.with_h0 ? "yes" : "no",
                     r.with_dh_last ? "yes" : "no", to_string(r.sqrt_gradient));
}

CaseCache<CaseKey>& cache() {
  static CaseCache<CaseKey> cases(request_of);
  return cases;
}
const Case& case_of(const CaseKey& k) { return cache().case_of(k); }

//! Lengths at the schedule's edges: 1; around one chunk boundary (C-1, C+1); two full chunks and a partial
//! one (2C+3); for the hierarchical schedules one group and a one-step chunk past it (G C + 1). Every
//! length with every regime; h0 / dh_last presence cycles with (length, regime), and the sqrt convention
//! alternates, so each length and regime meets several combinations. Plus one wide case at C+1 (L = 5 for
//! sequential).
std::vector<Point> sweep_points(const Schedule& plan) {
  std::vector<std::int64_t> lengths{1};
  if (plan.kind == Schedule::Kind::sequential) lengths.insert(lengths.end(), {2, 17});
  else lengths.insert(lengths.end(), {plan.chunk - 1, plan.chunk + 1, 2 * plan.chunk + 3});
  if (plan.kind == Schedule::Kind::hierarchical) lengths.push_back(plan.group * plan.chunk + 1);
  std::vector<Point> out;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    for (std::size_t r = 0; r < regimes.size(); ++r) {
      const std::size_t flags = (i + r) % 4;
      // why not exact with extreme: there ga s underflows in float32, so q = 0, D(q) = 1/(2 sqrt q) = inf and
      // dq = 0 * inf is NaN in any float32 evaluation of the formula, while the exact value is finite (the
      // product s D(q) is). The reference's bound is infinite on those elements (and on what their NaN
      // reaches: the gate gradients, dx through the GEMMs, the parameter sums), and the policy does not
      // compare them, so such a case would judge little; it is a documented limit of float32
      // (docs/tolerance.md, Metrics), and the case generators never combine the two either.
      const bool exact = (i + r) % 2 && regimes[r] != Regime::extreme;
      const SqrtGradient sqrt_gradient = exact ? SqrtGradient::exact : SqrtGradient::bounded;
      out.push_back({lengths[i], regimes[r], flags == 0 || flags == 2, flags == 0 || flags == 3, sqrt_gradient, false});
    }
  const std::int64_t wide_length = plan.kind == Schedule::Kind::sequential ? 5 : plan.chunk + 1;
  out.push_back({wide_length, Regime::default_, true, true, SqrtGradient::bounded, true});
  return out;
}

// ---- groups of variants --------------------------------------------------------------------------------

//! The group of a built-in: its architecture, schedule and dtype, named like its unfused member.
std::string group_of(const BackendInfo& b) {
  return to_string(BackendName{"", b.architecture, to_string(b.builtin->schedule), b.io_dtype});
}

//! Group -> its backends, in registry order.
std::map<std::string, std::vector<const BackendInfo*>> groups() {
  std::map<std::string, std::vector<const BackendInfo*>> out;
  for (const BackendInfo& b : registry())
    if (b.builtin && describe(b.architecture).family == Family::gated_layer) out[group_of(b)].push_back(&b);
  return out;
}

std::vector<std::string> group_names() {
  std::vector<std::string> names;
  for (const auto& [name, members] : groups()) names.push_back(name);
  return names;
}

class GatedGroup : public testing::TestWithParam<std::string> {
 protected:
  std::vector<const BackendInfo*> members() const { return groups().at(GetParam()); }
  CaseKey key(const Point& p) const {
    const BackendInfo& b = *members().front();
    return {b.architecture, b.io_dtype, p};
  }
};

//! Invariant: y[:, L-1, :] is h_last rounded to the io dtype.
void expect_y_last_is_h_last(const Outputs& out, DType io) {
  const Tensor<float>& y = out.at("y");
  const Tensor<float>& h_last = out.at("h_last");
  for (std::int64_t n = 0; n < y.dim(0); ++n)
    for (std::int64_t w = 0; w < y.dim(2); ++w)
      ASSERT_EQ(y(n, y.dim(1) - 1, w), round_to(io, h_last(n, w))) << "y[" << n << ", L-1, " << w << "]";
}

TEST_P(GatedGroup, MatchesReference) {
  const std::vector<const BackendInfo*> variants = members();
  for (const Point& p : sweep_points(variants.front()->builtin->schedule)) {
    const CaseKey k = key(p);
    for (const BackendInfo* b : variants) {
      SCOPED_TRACE(trace_of(*b, k));
      const Outputs out = run_backend(*b, case_of(k), Executor::host);
      expect_y_last_is_h_last(out, b->io_dtype);
      cache().expect_passes(k, *b, out);
      if (testing::Test::HasFailure()) return;  // one failing case says enough
    }
  }
}

//! What a variant computes, as opposed to where it keeps it.
std::tuple<bool, bool> numerics_of(const BackendInfo& b) {
  const VariantFlags& f = b.builtin->flags;
  return {f.shared_sfu, b.io_dtype == DType::bfloat16 && f.fused_write};
}

TEST_P(GatedGroup, FlagsThatMoveDataOnly) {
  const std::vector<const BackendInfo*> variants = members();
  std::set<std::tuple<bool, bool>> classes;
  for (const BackendInfo* b : variants) classes.insert(numerics_of(*b));
  // The registry has both numerics of shared_sfu everywhere, of bf16 fused_write on chunked complex groups.
  const BackendInfo& first = *variants.front();
  const bool complex = describe(first.architecture).complex;
  const bool bf16_chunked =
      first.io_dtype == DType::bfloat16 && first.builtin->schedule.kind != Schedule::Kind::sequential;
  EXPECT_EQ(classes.size(), complex ? (bf16_chunked ? 4u : 2u) : 1u);
  for (const Point& p : sweep_points(first.builtin->schedule)) {
    if (p.length < 3 && !p.wide) continue;
    const Case& c = case_of(key(p));
    std::map<std::tuple<bool, bool>, std::pair<const BackendInfo*, Outputs>> first_of;
    for (const BackendInfo* b : variants) {
      SCOPED_TRACE(trace_of(*b, key(p)));
      Outputs out = run_backend(*b, c, Executor::host);
      const auto [it, inserted] = first_of.try_emplace(numerics_of(*b), b, Outputs{});
      if (inserted) {
        it->second.second = std::move(out);
        continue;
      }
      SCOPED_TRACE("against " + it->second.first->name);
      expect_bitwise_equal(out, it->second.second);
    }
    if (testing::Test::HasFailure()) return;
  }
}

TEST_P(GatedGroup, Deterministic) {
  const std::vector<const BackendInfo*> variants = members();
  const std::vector<Point> points = sweep_points(variants.front()->builtin->schedule);
  const Point longest = *std::max_element(points.begin(), points.end(),
                                          [](const Point& x, const Point& y) { return x.length < y.length; });
  for (const BackendInfo* b : variants) {
    SCOPED_TRACE(trace_of(*b, key(longest)));
    const Case& c = case_of(key(longest));
    expect_bitwise_equal(run_backend(*b, c, Executor::host), run_backend(*b, c, Executor::host));
  }
}

std::string group_test_name(const testing::TestParamInfo<std::string>& info) { return test_name(info); }

INSTANTIATE_TEST_SUITE_P(Registry, GatedGroup, testing::ValuesIn(group_names()), group_test_name);

// ---- registry ------------------------------------------------------------------------------------------

TEST(GatedRegistry, ProductionNamesExist) {
  for (const char* dtype : {"fp32", "bf16"}) {
    SCOPED_TRACE(dtype);
    const Variant& r =
        *find_backend(fmt::format("rglru/fused_grouped_prefix32_hierarchical_chunk16@{}", dtype)).builtin;
    EXPECT_EQ(r.flags, VariantFlags{.fused = true});
    EXPECT_EQ(r.schedule.kind, Schedule::Kind::hierarchical);
    EXPECT_EQ(r.schedule.group, 32);
    EXPECT_EQ(r.schedule.chunk, 16);
    const Variant& c1 =
        *find_backend(fmt::format("complex_rglru/fused_output_fused_write_shared_sfu_chunk32@{}", dtype)).builtin;
    EXPECT_EQ(c1.flags, (VariantFlags{.fused_output = true, .fused_write = true, .shared_sfu = true}));
    EXPECT_EQ(c1.schedule.kind, Schedule::Kind::chunked);
    EXPECT_EQ(c1.schedule.chunk, 32);
    const Variant& c2 =
        *find_backend(
             fmt::format("complex_rglru/fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32@{}",
                         dtype))
             .builtin;
    EXPECT_EQ(c2.schedule.group, 64);
    EXPECT_EQ(c2.schedule.chunk, 32);
  }
}

TEST(GatedRegistry, EveryMeaningfulFlagCombination) {
  using FlagSet = std::tuple<bool, bool, bool, bool>;
  std::map<std::string, std::set<FlagSet>> by_group;
  for (const BackendInfo& b : registry()) {
    if (!b.builtin || describe(b.architecture).family != Family::gated_layer) continue;
    SCOPED_TRACE(b.name);
    const VariantFlags& f = b.builtin->flags;
    EXPECT_EQ(b.variant, to_string(*b.builtin));
    EXPECT_TRUE(by_group[group_of(b)].insert({f.fused, f.fused_output, f.fused_write, f.shared_sfu}).second);
    if (!describe(b.architecture).complex) {
      EXPECT_TRUE(f == VariantFlags{} || f == VariantFlags{.fused = true});
    }
  }
  EXPECT_EQ(by_group.size(), 2u * 10u * 2u);  // architectures x schedules x dtypes
  for (const auto& [group, sets] : by_group) {
    SCOPED_TRACE(group);
    const BackendName name = parse_backend_name(group);
    const bool complex = describe(name.architecture).complex, sequential = name.variant == "sequential";
    // complex: fused x fused_output x fused_write x shared_sfu, fused_write only where there are chunks.
    EXPECT_EQ(sets.size(), complex ? (sequential ? 8u : 16u) : 2u);
  }
}

TEST(GatedErrors, CaseThatDoesNotFitTheBackend) {
  const Point p{17, Regime::default_, true, true, SqrtGradient::bounded, false};
  const Case& bf16 = case_of({Architecture::rglru, DType::bfloat16, p});
  const Case& complex = case_of({Architecture::complex_rglru, DType::float32, p});
  const BackendInfo& fp32 = find_backend("rglru/fused_chunk16@fp32");
  EXPECT_NE(input_error([&] { run_backend(fp32, bf16, Executor::host); }).find("bfloat16"), std::string::npos);
  EXPECT_NE(input_error([&] { run_backend(fp32, complex, Executor::host); }).find("complex_rglru"), std::string::npos);
  EXPECT_FALSE(input_error([&] { find_backend("complex_rglru/fused_write_sequential@fp32"); }).empty());
  EXPECT_FALSE(input_error([&] { find_backend("rglru/shared_sfu_chunk16@fp32"); }).empty());
  Case missing = case_of({Architecture::rglru, DType::float32, p});
  missing.tensors.erase("a_gate_w");
  EXPECT_FALSE(input_error([&] { run_backend(fp32, missing, Executor::host); }).empty());
}

// ---- RecurrentGemma's PyTorch RG-LRU -------------------------------------------------------------------

namespace fs = std::filesystem;

std::vector<fs::path> fixture_cases() {
  const fs::path root = fs::path(SCANCHECK_FIXTURES_DIR) / "recurrentgemma_torch";
  std::vector<fs::path> dirs;
  if (fs::is_directory(root))
    for (const auto& entry : fs::directory_iterator(root))
      if (fs::exists(entry.path() / "case.json")) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<std::string> float32_rglru_backends() {
  std::vector<std::string> names;
  for (const BackendInfo& b : registry())
    if (b.architecture == Architecture::rglru && b.io_dtype == DType::float32) names.push_back(b.name);
  return names;
}

//! A fixture case with what every backend's judgement on it needs, computed once per process: the reference
//! with its error bounds, the correct orders' outputs, and PyTorch's float64 outputs (expected/).
struct Fixture {
  fs::path dir;
  Case c;
  ReferenceResult reference;
  CorrectOrders orders;
  std::map<std::string, Tensor<double>> pytorch;
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = [] {
    std::vector<Fixture> out;
    for (const fs::path& dir : fixture_cases()) {
      Fixture f{dir, load_case(dir), {}, {}, {}};
      f.reference = reference_with_bounds(f.c, 1);
      f.orders = correct_orders(f.c);
      for (const auto& entry : fs::directory_iterator(dir / "expected"))
        if (entry.path().extension() == ".npy")
          f.pytorch.emplace(entry.path().stem().string(), read_npy_double(entry.path()));
      out.push_back(std::move(f));
    }
    return out;
  }();
  return all;
}

//! How far the exact reference may be from PyTorch's fixture, relative to the tensor's largest PyTorch
//! value: the tolerance of tests/reference/reference_fixture_test.cpp, which checks exactly that. 1e-12
//! (observed ~1e-14); 1e-8 on the extreme case (observed 6.9e-10, docs/reference.md), whose PyTorch values
//! are themselves inexact: its softplus is the identity above 20 and it evaluates q = 1 - exp(2 log a)
//! literally, which cancels for decays within 1e-16 of 1, so y = 0 where the exact value is -1.2e-28
//! (docs/tolerance.md; tests/mutation/verify_test.cpp shows the policy rejecting those PyTorch outputs).
double pytorch_tolerance(const fs::path& dir) {
  return dir.filename().string().find("extreme") != std::string::npos ? 1e-8 : 1e-12;
}

//! Every element of every output of `got` within
//!     bound_factor x bound_i  +  pytorch_tolerance x max |pytorch|
//! of PyTorch's value. why this tolerance: the policy puts a passing backend's element within bound_factor
//! (4) of its error bound of the exact value (rule 2), and reference_fixture_test puts the exact value within
//! pytorch_tolerance x max |pytorch| of PyTorch's; by the triangle inequality the sum is the most a correct
//! float32 backend can differ from PyTorch. It is per element (a whole-tensor tolerance would hide an O(1)
//! error on small-magnitude channels) and uses the reference's bounds only as a scale, never its values, so
//! it checks the backend against PyTorch itself. Elements whose bound is infinite are not compared, as in
//! the policy (none on these cases, which use the bounded sqrt convention: asserted below). Observed (the
//! production rglru backend): at most 0.075 of the allowance. On the extreme fixture neither term alone
//! would do (y is up to 3e4 bounds from PyTorch on elements PyTorch's cancelled q zeroes; the largest
//! gradients differ by up to 80x the second term, within their bounds), the sum does: at most 0.039.
void expect_agrees_with_pytorch(const Outputs& got, const Fixture& f) {
  const double bound_factor = TolerancePolicy{}.bound_factor;
  const double tolerance = pytorch_tolerance(f.dir);
  ASSERT_EQ(got.size(), f.pytorch.size());
  for (const auto& [name, want] : f.pytorch) {
    ASSERT_TRUE(got.count(name)) << "missing output " << name;
    const Tensor<float>& g = got.at(name);
    const Tensor<double>& bound = f.reference.bounds.at(name);
    ASSERT_EQ(g.dims(), want.dims()) << name;
    double scale = 0;
    for (std::int64_t i = 0; i < want.size(); ++i) scale = std::max(scale, std::abs(want[i]));
    std::int64_t failed = 0, first = -1, unbounded = 0;
    for (std::int64_t i = 0; i < g.size(); ++i) {
      if (!std::isfinite(bound[i])) {
        ++unbounded;
        continue;
      }
      const double allowed = bound_factor * bound[i] + tolerance * scale;
      const bool within = std::abs(static_cast<double>(g[i]) - want[i]) <= allowed;  // false for NaN
      if (!within && failed++ == 0) first = i;
    }
    EXPECT_EQ(unbounded, 0) << name << ": elements with an infinite bound were not compared";
    if (failed == 0) continue;
    ADD_FAILURE() << name << ": " << failed << " of " << g.size() << " elements differ from PyTorch by more than "
                  << bound_factor << " x bound + " << tolerance << " x " << scale << "; first at "
                  << index_string(g.dims(), first) << ": got " << g[first] << ", PyTorch " << want[first] << ", exact "
                  << f.reference.values.at(name)[first] << ", bound " << bound[first];
  }
}

class RecurrentGemmaFixtures : public testing::TestWithParam<std::string> {};

//! Every float32 rglru backend, on each of RecurrentGemma's PyTorch fixture cases (their inputs are float32
//! values, so the case is exactly what PyTorch ran): judged under the tolerance policy against the exact
//! reference, and compared with PyTorch's float64 outputs and gradients (expect_agrees_with_pytorch).
TEST_P(RecurrentGemmaFixtures, BackendAgreesWithPyTorch) {
  const BackendInfo& b = find_backend(GetParam());
  ASSERT_EQ(fixtures().size(), 4u);
  for (const Fixture& f : fixtures()) {
    SCOPED_TRACE(b.name + " on " + f.dir.filename().string());
    const Outputs out = run_backend(b, f.c, Executor::host);
    expect_passes_policy(b.name, f.c, out, f.reference, f.orders,
                         fmt::format("{} (fixture {})\nrepro: scancheck check --case {} --backend '{}'",
                                     describe_case(f.c), f.dir.filename().string(), f.dir.string(), b.name));
    expect_agrees_with_pytorch(out, f);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, RecurrentGemmaFixtures, testing::ValuesIn(float32_rglru_backends()), test_name);

}  // namespace
