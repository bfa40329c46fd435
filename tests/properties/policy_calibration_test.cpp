// SPDX-License-Identifier: Apache-2.0
//! @file
//! Every correct backend, the registered ones and the order zoo's (tests/zoo), passes the default tolerance
//! policy, and how close it comes: for each
//! (architecture, io dtype), cases spread over shapes around chunk and group boundaries, every regime,
//! h0 / dh_last present and absent and both sqrt conventions, each judged against one shared reference (with
//! its error bounds) and the correct orders (the sequential baseline and the ensemble). Prints, per tensor, the
//! largest bound ratio, baseline ratio and ensemble ratios (the typical element's error, p50, and the tail's,
//! p90, over the worst correct order's) any backend reached: the evidence behind the policy's constants
//! (docs/tolerance.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "core/architectures.hpp"
#include "core/generate.hpp"
#include "properties/compare.hpp"
#include "properties/differential.hpp"
#include "properties/policy.hpp"
#include "reference/reference.hpp"

#include "tests/properties/architecture_params.hpp"
#include "tests/zoo/order_zoo.hpp"

namespace {

using namespace scancheck;

using Param = test::ArchitectureParam;
using test::name_of;

//! The i-th case of an architecture: lengths at chunk (16, 32, 64) and group (32 x 16) boundaries, odd
//! widths, several heads.
CaseRequest case_request(Architecture a, DType io, int i) {
  static constexpr std::int64_t lengths[] = {1, 15, 17, 33, 64, 65, 129, 513, 2, 47, 31, 100};
  static constexpr Regime regimes[] = {Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme,
                                       Regime::clip};
  const bool complex = describe(a).complex, gated = (describe(a).family == Family::gated_layer);
  const std::int64_t heads = gated ? 1 + i % 3 : 1;
  const std::int64_t per_head = 3 + (i * 5) % 7;  // channels per head
  CaseRequest r;
  r.architecture = a;
  r.shape = {1 + i % 2, lengths[i % std::size(lengths)], heads * per_head * (complex ? 2 : 1), heads};
  r.seed = 90000 + static_cast<std::uint64_t>(i);
  r.regime = regimes[i % std::size(regimes)];
  r.io_dtype = io;
  r.sqrt_gradient = (i / 5) % 2 && r.regime != Regime::extreme ? SqrtGradient::exact : SqrtGradient::bounded;
  r.with_h0 = i % 4 != 1;
  r.with_dh_last = i % 4 != 2;
  return r;
}

class PolicyCalibration : public testing::TestWithParam<Param> {};

TEST_P(PolicyCalibration, EveryBackendPassesTheDefaultPolicy) {
  const Param p = GetParam();
  const TolerancePolicy policy;
  static const bool with_zoo = [] {  // the order zoo joins the registry of this test process once
    for (BackendInfo& b : zoo::order_zoo()) registry().add(std::move(b));
    return true;
  }();
  (void)with_zoo;
  std::vector<const BackendInfo*> backends;
  for (const BackendInfo& b : registry())
    if (b.architecture == p.architecture && b.io_dtype == p.io_dtype) backends.push_back(&b);
  struct Worst {
    double bound = 0, baseline = 0, p50 = 0, p90 = 0, floor = 0;
    std::string bound_at, baseline_at, p50_at, p90_at, floor_at;
  };
  std::map<std::string, Worst> worst;
  const int cases = 12;
  for (int i = 0; i < cases; ++i) {
    const CaseRequest request = case_request(p.architecture, p.io_dtype, i);
    const Case c = make_case(request);
    ReferenceOptions options;
    options.threads = 1;
    const ReferenceResult ref = compute_reference(c, options);
    const CorrectOrders orders = correct_orders(c);
    for (const BackendInfo* b : backends) {
      const Outputs out = run_backend(*b, c, Executor::host);
      for (const auto& [name, got] : out) {
        TensorComparison in;
        in.name = name;
        in.dtype = stored_dtype(c, name);
        in.got = &got;
        in.exact = &ref.values.at(name);
        in.bound = &ref.bounds.at(name);
        in.baseline = &orders.sequential.at(name);
        in.ensemble_profile = orders.profile(c, in, /*every_order=*/true);
        const TensorMetrics m = compare_tensor(in);
        const TensorVerdict v = judge(m, policy);
        EXPECT_TRUE(v.pass) << b->name << " on seed " << request.seed << " " << to_string(c.shape) << " regime "
                            << to_string(request.regime) << ": " << fmt::format("{}", fmt::join(v.reasons, "; "));
        Worst& w = worst[name];
        const std::string where = fmt::format("{} seed {}", b->name, request.seed);
        if (m.bound_ratio && *m.bound_ratio > w.bound) w.bound = *m.bound_ratio, w.bound_at = where;
        if (m.baseline_ratio && *m.baseline_ratio > w.baseline && std::isfinite(*m.baseline_ratio))
          w.baseline = *m.baseline_ratio, w.baseline_at = where;
        // The ensemble rule's ratios where they mean something (above its floor, on enough elements), and the
        // floor this backend needs under the factor.
        const ErrorProfile &got_p = *m.profile, &ens = *m.ensemble_profile;
        if (got_p.elements >= distribution_min_elements) {
          if (got_p.p50 > policy.ensemble_floor && ens.p50 > 0 && got_p.p50 / ens.p50 > w.p50)
            w.p50 = got_p.p50 / ens.p50, w.p50_at = where;
          if (got_p.p90 > policy.ensemble_floor && ens.p90 > 0 && got_p.p90 / ens.p90 > w.p90)
            w.p90 = got_p.p90 / ens.p90, w.p90_at = where;
          const double floor =
              std::max(got_p.p50 - policy.ensemble_factor * ens.p50, got_p.p90 - policy.ensemble_factor * ens.p90);
          if (floor > w.floor) w.floor = floor, w.floor_at = where;
        }
      }
    }
  }
  std::printf(
      "%s: %zu backends x %d cases; largest ratios per tensor (policy: bound %g, baseline %gx + %g ulps, ensemble "
      "%gx + %g bounds; ensemble ratios counted above the floor)\n",
      name_of({p, 0}).c_str(), backends.size(), cases, policy.bound_factor, policy.baseline_factor,
      policy.baseline_slack_ulps, policy.ensemble_factor, policy.ensemble_floor);
  for (const auto& [name, w] : worst)
    std::printf(
        "  %-16s bound ratio %8.3g (%s)   baseline ratio %8.3g (%s)   ensemble p50 %6.3g (%s)   p90 %6.3g (%s)   "
        "floor needed %6.3g (%s)\n",
        name.c_str(), w.bound, w.bound_at.c_str(), w.baseline, w.baseline_at.c_str(), w.p50, w.p50_at.c_str(), w.p90,
        w.p90_at.c_str(), w.floor, w.floor_at.c_str());
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, PolicyCalibration, test::all_architecture_params(), name_of);

}  // namespace
