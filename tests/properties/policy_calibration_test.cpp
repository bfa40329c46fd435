// SPDX-License-Identifier: Apache-2.0
//! @file
//! Every correct backend, the registered ones and the order zoo's (tests/zoo), passes the default tolerance
//! policy, and how close it comes: for each
//! (architecture, io dtype), cases spread over shapes around chunk and group boundaries, every regime,
//! h0 / dh_last present and absent and both sqrt conventions, each judged against one shared reference (with
//! its error bounds) and the sequential baseline. Prints, per tensor, the largest bound ratio and baseline
//! ratio any backend reached: the evidence behind the policy's constants (docs/tolerance.md).
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
  const BackendInfo& baseline = baseline_backend(p.architecture, p.io_dtype);
  static const bool with_zoo = [] {  // the order zoo joins the registry of this test process once
    for (BackendInfo& b : zoo::order_zoo()) registry().add(std::move(b));
    return true;
  }();
  (void)with_zoo;
  std::vector<const BackendInfo*> backends;
  for (const BackendInfo& b : registry())
    if (b.architecture == p.architecture && b.io_dtype == p.io_dtype) backends.push_back(&b);
  struct Worst {
    double bound = 0, baseline = 0;
    std::string bound_at, baseline_at;
  };
  std::map<std::string, Worst> worst;
  const int cases = 12;
  for (int i = 0; i < cases; ++i) {
    const CaseRequest request = case_request(p.architecture, p.io_dtype, i);
    const Case c = make_case(request);
    ReferenceOptions options;
    options.threads = 1;
    const ReferenceResult ref = compute_reference(c, options);
    const Outputs base = run_backend(baseline, c, Executor::host);
    for (const BackendInfo* b : backends) {
      const Outputs out = run_backend(*b, c, Executor::host);
      for (const auto& [name, got] : out) {
        TensorComparison in{name,    stored_dtype(c, name), &got, &ref.values.at(name), &ref.bounds.at(name),
                            nullptr, &base.at(name)};
        const TensorMetrics m = compare_tensor(in);
        const TensorVerdict v = judge(m, policy);
        EXPECT_TRUE(v.pass) << b->name << " on seed " << request.seed << " " << to_string(c.shape) << " regime "
                            << to_string(request.regime) << ": " << fmt::format("{}", fmt::join(v.reasons, "; "));
        Worst& w = worst[name];
        const std::string where = fmt::format("{} seed {}", b->name, request.seed);
        if (m.bound_ratio && *m.bound_ratio > w.bound) w.bound = *m.bound_ratio, w.bound_at = where;
        if (m.baseline_ratio && *m.baseline_ratio > w.baseline && std::isfinite(*m.baseline_ratio))
          w.baseline = *m.baseline_ratio, w.baseline_at = where;
      }
    }
  }
  std::printf("%s: %zu backends x %d cases; largest ratios per tensor (policy: bound %g, baseline %gx + %g ulps)\n",
              name_of({p, 0}).c_str(), backends.size(), cases, policy.bound_factor, policy.baseline_factor,
              policy.baseline_slack_ulps);
  for (const auto& [name, w] : worst)
    std::printf("  %-16s bound ratio %8.3g (%s)   baseline ratio %8.3g (%s)\n", name.c_str(), w.bound,
                w.bound_at.c_str(), w.baseline, w.baseline_at.c_str());
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, PolicyCalibration, test::all_architecture_params(), name_of);

}  // namespace
