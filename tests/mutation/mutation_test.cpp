// SPDX-License-Identifier: Apache-2.0
//! @file
//! Mutation testing: the harness must catch every mutant (backends/mutants/) on random cases within the
//! default budget, and shrink each catch to a small case. For every mutant, RapidCheck draws cases of its
//! base's architecture and io dtype (properties/generators.hpp); a case catches the mutant when the mutant
//! fails the default tolerance policy against the exact reference (with the sequential baseline), or when
//! two runs of it differ (a run-dependent reduction is invisible to any tolerance). Prints the kill table:
//! cases until detection, the shrunk shape, and the rule that caught it; then, as Markdown, docs/tolerance.md's
//! table of what the order-free bound gives up at each mutant's worst element, beside what rule 4 catches there.
//!
//! Shrinking must reach B = 1 and L <= 2C + 2 (C the base's chunk; C = 1 for sequential) where the bug
//! allows; the exceptions and why are in `needs_long_cases`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backends/mutants/mutants.hpp"
#include "properties/diagnosis.hpp"
#include "properties/differential.hpp"
#include "properties/search.hpp"
#include "tests/mutation/ensemble_profiles.hpp"

namespace {

using namespace scancheck;

bool bitwise_equal(const Outputs& x, const Outputs& y) {
  for (const auto& [name, t] : x)
    if (std::memcmp(t.data(), y.at(name).data(), sizeof(float) * static_cast<std::size_t>(t.size())) != 0) return false;
  return true;
}

//! Mutants whose bug cannot show on a short case, and the length it needs.
//! Where the shrunk case of a caught mutant goes wrong (properties/diagnosis.hpp), re-runs included.
std::vector<std::string> diagnosis_of(const Mutant& m, const BackendInfo& base, const Case& c,
                                      const TolerancePolicy& policy) {
  const Outputs got = m.run(c);
  const ReferenceResult reference = reference_with_bounds(c, 1);
  std::vector<std::string> out = diagnose(c, got, reference, policy, base.builtin->schedule);
  const auto passes = [&](const Case& d) {
    const CorrectOrders orders = correct_orders(d);
    return judge_outputs(m.name, d, m.run(d), reference_with_bounds(d, 1), &orders, policy).pass;
  };
  if (worst_bound_ratio(c, got, reference, policy) > gross_error_factor)  // as check and fuzz diagnose
    for (std::string& line : counterfactual_diagnosis(c, passes)) out.push_back(std::move(line));
  return out;
}

//! The smallest relative error the policy catches at the element where the mutant's error is largest (in
//! bounds): bound_factor times the element's bound over |exact|, with the bound of the sequential order alone
//! (before 2026-12) and with the order-free bound. Their ratio is what the order-free bound gives up. And what
//! rule 4 catches there when the error is spread over at least half the tensor's elements: ensemble_factor times
//! the worst correct order's typical error (p50, in bounds, over every order of the ensemble) plus ensemble_floor,
//! times the element's bound over |exact|; absent where rule 4 does not judge the tensor (fewer than
//! distribution_min_elements judged elements).
struct Detection {
  double before = 0, after = 0;
  std::optional<double> spread;
  std::string tensor;
  std::int64_t elements = 0, judged = 0;  //!< the tensor's compared elements, and those in rule 4's profile
};
std::optional<Detection> mutant_detection(const Mutant& m, const Case& c, const TolerancePolicy& policy) {
  const Outputs got = m.run(c);
  const ReferenceResult after = reference_with_bounds(c, 1, /*strict=*/true);  // the profile's element set
  ReferenceOptions sequential = reference_options_with_bounds(1, false, Precision::float64);
  sequential.bounds_every_order = false;
  const ReferenceResult before = compute_reference(c, sequential);
  const BackendResult r = judge_outputs(m.name, c, got, after, nullptr, policy);
  const TensorMetrics* worst = nullptr;
  for (const TensorResult& t : r.tensors)
    if (t.metrics.bound_ratio && t.metrics.worst.index >= 0 && t.metrics.worst.exact != 0 &&
        (!worst || *t.metrics.bound_ratio > *worst->bound_ratio))
      worst = &t.metrics;
  if (!worst) return std::nullopt;
  const std::int64_t i = worst->worst.index;
  const double exact = std::fabs(worst->worst.exact), bound = after.bounds.at(worst->name)[i];
  Detection d{policy.bound_factor * before.bounds.at(worst->name)[i] / exact,
              policy.bound_factor * bound / exact,
              std::nullopt,
              worst->name,
              worst->compared,
              0};
  const CorrectOrders orders = correct_orders(c);
  const ErrorProfile typical = test::profiles_of(c, worst->name, got, after, orders).orders;
  d.judged = typical.elements;
  if (typical.elements >= distribution_min_elements)
    d.spread = (policy.ensemble_factor * typical.p50 + policy.ensemble_floor) * bound / exact;
  return d;
}

//! The position a mutant's bug has, as its diagnosis must name it (issue: "tail chunk, group correction,
//! reset in the backward, dh_last, dh0, shift, bf16 carry"); empty for bugs without one.
std::string position_of(const std::string& mutant) {
  static const std::map<std::string, std::string> positions{
      {"tail_chunk_dropped", "last, partial chunk"},
      {"hierarchical_correction_skips_last_group", "last, partial group"},
      {"reset_ignored_in_backward", "reset"},
      {"dh_last_ignored", "dh_last"},
      {"dh0_missing_a0", "dh0"},
      {"backward_decay_one_step_early", "shift"},
      {"chunk_states_in_bf16", "bfloat16"},
  };
  const auto it = positions.find(mutant);
  return it == positions.end() ? std::string() : it->second;
}

std::string needs_long_cases(const std::string& mutant) {
  static const std::map<std::string, std::string> why{
      // A reordering of two block partials is one commutative addition: the bits change only from three.
      {"parameter_sums_run_dependent", "needs three 256-row blocks of the column sums: B L > 512"},
  };
  const auto it = why.find(mutant);
  return it == why.end() ? std::string() : it->second;
}

TEST(Mutation, EveryMutantIsCaughtAndShrunk) {
  const TolerancePolicy policy;
  std::string table = fmt::format("{:<42} {:<62} {:>6} {:>7} {:>5} {:>5}  {}\n", "mutant", "base", "cases", "shrinks",
                                  "B", "L", "caught by");
  // docs/tolerance.md, "What the order-free bound gives up": printed here so that it is this test's output.
  std::string thresholds =
      "| mutant | base | before (sequential bound) | after (order-free bound) | rule 4 (spread error) | after / before "
      "|\n|---|---|---|---|---|---|\n";
  int killed = 0;
  std::vector<double> loosening, spread_over_after;
  for (const Mutant& m : mutants()) {
    SCOPED_TRACE(m.name);
    const BackendInfo& base = find_backend(m.base);
    const FailureOf failure_of = [&](const Case& c) -> std::optional<PropertyFailure> {
      const Outputs once = m.run(c), again = m.run(c);
      if (!bitwise_equal(once, again)) return PropertyFailure("two runs differ (run-dependent result)", m.base);
      const ReferenceResult reference = reference_with_bounds(c, 1);
      const CorrectOrders orders = correct_orders(c);
      const BackendResult r = judge_outputs(m.name, c, once, reference, &orders, policy);
      if (r.pass) return std::nullopt;
      return PropertyFailure(r.reasons().front(), m.base);
    };
    SearchOptions options;
    options.id = "mutant_" + m.name;
    options.max_success = 200;
    options.seed = 20261202;
    const SearchOutcome outcome = search(failure_of, base.architecture, base.io_dtype, options);
    if (!outcome.finding) {
      ADD_FAILURE() << m.name << " (" << m.bug << ") survived " << outcome.cases << " cases";
      table += fmt::format("{:<42} {:<62} {:>6} {:>7} {:>5} {:>5}  SURVIVED\n", m.name, m.base, outcome.cases, "-", "-",
                           "-");
      continue;
    }
    ++killed;
    const Finding& f = *outcome.finding;
    const Shape& s = f.request.shape;
    const std::int64_t chunk =
        base.builtin->schedule.kind == kernels::Schedule::Kind::sequential ? 1 : base.builtin->schedule.chunk;
    const std::string reason =
        f.message.substr(0, f.message.find(':') == std::string::npos ? 40 : f.message.find(':') + 60);
    table += fmt::format("{:<42} {:<62} {:>6} {:>7} {:>5} {:>5}  {}\n", m.name, m.base, f.cases_until_failure,
                         f.shrink_steps, s.batch, s.length, reason);
    // A run-dependent result fails no tolerance: its diagnosis would describe passing runs.
    const bool run_dependent = f.message.starts_with("two runs differ");
    const std::vector<std::string> where =
        run_dependent ? std::vector<std::string>{} : diagnosis_of(m, base, make_case(f.request), policy);
    for (const std::string& line : where) table += fmt::format("{:>42}   where: {}\n", "", line);
    if (run_dependent)
      thresholds +=
          fmt::format("| {} | `{}` | - | - | - | caught by two runs differing, by no tolerance |\n", m.name, m.base);
    if (const auto d = run_dependent ? std::nullopt : mutant_detection(m, make_case(f.request), policy)) {
      table += fmt::format("{:>42}   catches above {:.2g} relative there ({:.2g} with the sequential bound: {:.3g}x)\n",
                           "", d->after, d->before, d->after / d->before);
      loosening.push_back(d->after / d->before);
      std::string spread = fmt::format("- ({}: {} of {} elements judged, rule 4 needs {})", d->tensor, d->judged,
                                       d->elements, distribution_min_elements);
      if (d->spread) {
        spread = fmt::format("{:.2g} ({})", *d->spread, d->tensor);
        spread_over_after.push_back(*d->spread / d->after);
      } else if (f.original) {
        // A shrunk case has too few elements for a distribution: rule 4's threshold on the case as first found,
        // beside the order-free bound's there.
        if (const auto first = mutant_detection(m, make_case(*f.original), policy); first && first->spread) {
          spread = fmt::format("{:.2g} ({}, on the case as first found, {}; the order-free bound's there {:.2g})",
                               *first->spread, first->tensor, to_string(f.original->shape), first->after);
          spread_over_after.push_back(*first->spread / first->after);
        }
      }
      thresholds += fmt::format("| {} | `{}` | {:.2g} | {:.2g} | {} | {:.3g}x |\n", m.name, m.base, d->before, d->after,
                                spread, d->after / d->before);
    }
    if (const auto expected = position_of(m.name); !expected.empty()) {
      const bool named = std::any_of(where.begin(), where.end(),
                                     [&](const std::string& line) { return line.find(expected) != std::string::npos; });
      EXPECT_TRUE(named) << m.name << ": the diagnosis does not name '" << expected << "'";
    }
    if (needs_long_cases(m.name).empty()) {
      EXPECT_EQ(s.batch, 1) << "shrunk to " << to_string(s) << ": " << f.message;
      EXPECT_LE(s.length, 2 * chunk + 2) << "shrunk to " << to_string(s) << ": " << f.message;
    }
  }
  std::sort(loosening.begin(), loosening.end());
  std::sort(spread_over_after.begin(), spread_over_after.end());
  const auto median = [](const std::vector<double>& v) {  // of sorted values
    return v.empty() ? 0.0 : (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
  };
  std::printf(
      "%s%d of %zu mutants caught (policy %s, budget 200 cases each); the order-free bound raises the "
      "smallest error caught at their worst elements by %.3gx at the median, %.3gx at most\n\n%s\n"
      "rule 4 catches an error spread over half the worst tensor at %.3g of the order-free bound's threshold at "
      "the median (%.3g to %.3g; %zu of the mutants' worst tensors judged by rule 4)\n",
      table.c_str(), killed, mutants().size(), policy.to_json().dump().c_str(), median(loosening),
      loosening.empty() ? 0.0 : loosening.back(), thresholds.c_str(), median(spread_over_after),
      spread_over_after.empty() ? 0.0 : spread_over_after.front(),
      spread_over_after.empty() ? 0.0 : spread_over_after.back(), spread_over_after.size());
}

}  // namespace
