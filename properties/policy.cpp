// SPDX-License-Identifier: Apache-2.0
#include "properties/policy.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/json_reader.hpp"

namespace scancheck {

nlohmann::json TolerancePolicy::to_json() const {
  return {{"bound_factor", bound_factor},
          {"baseline_factor", baseline_factor},
          {"baseline_slack_ulps", baseline_slack_ulps},
          {"baseline_slack_bound", baseline_slack_bound},
          {"strict", strict}};
}

TolerancePolicy TolerancePolicy::from_json(const nlohmann::json& j, const std::string& source) {
  const JsonReader in(source);
  in.object(j, "$");
  TolerancePolicy p;
  for (const auto& [key, value] : j.items()) {
    if (key == "strict") {
      if (!value.is_boolean()) in.fail(key, "must be true or false");
      p.strict = value.get<bool>();
      continue;
    }
    double* field = key == "bound_factor"           ? &p.bound_factor
                    : key == "baseline_factor"      ? &p.baseline_factor
                    : key == "baseline_slack_ulps"  ? &p.baseline_slack_ulps
                    : key == "baseline_slack_bound" ? &p.baseline_slack_bound
                                                    : nullptr;
    if (!field)
      in.fail("$", fmt::format("unknown policy field '{}' (expected bound_factor, baseline_factor, "
                               "baseline_slack_ulps, baseline_slack_bound, strict)",
                               key));
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      in.fail(key, "must be a finite number >= 0");
    *field = value.get<double>();
  }
  return p;
}

TolerancePolicy TolerancePolicy::load(const std::filesystem::path& path) {
  return from_json(read_json_file(path, "the policy file"), path.string());
}

TensorVerdict judge(const TensorMetrics& m, const TolerancePolicy& p) {
  TensorVerdict v;
  const auto fail = [&](std::string why) {
    v.pass = false;
    v.reasons.push_back(fmt::format("{}: {}", m.name, why));
  };
  if (m.nonfinite_mismatches > 0)
    fail(fmt::format("{} elements disagree with the reference on NaN/Inf", m.nonfinite_mismatches));
  if (m.bound_ratio && *m.bound_ratio > p.bound_factor) {
    // A zero bound is an element no rounding reaches (dh0 after a reset, da at t = 0 without h0): any
    // difference is wrong, and "inf bounds" would say nothing about how little it may be.
    if (m.worst.bound == 0)
      fail(
          fmt::format("the element at {} must be exactly {:.9g} (no rounding reaches it: its bound is zero), got "
                      "{:.9g}",
                      m.worst.at, m.worst.exact, m.worst.got));
    else
      fail(fmt::format("error {:.3g} bounds at {} (got {:.9g}, exact {:.9g}, bound {:.3g}); allowed {:g}",
                       *m.bound_ratio, m.worst.at, m.worst.got, m.worst.exact, m.worst.bound, p.bound_factor));
  }
  if (m.baseline_abs) {
    const double slack = std::max(p.baseline_slack_ulps * unit_roundoff(m.dtype) * 2 * m.max_exact,
                                  p.baseline_slack_bound * m.max_bound);
    const double allowed = p.baseline_factor * *m.baseline_abs + slack;
    if (m.max_abs > allowed)
      fail(
          fmt::format("max error {:.3g} is {:.3g}x the sequential baseline's {:.3g}; allowed {:g}x + slack "
                      "({:.3g} in all)",
                      m.max_abs, m.baseline_ratio.value_or(0), *m.baseline_abs, p.baseline_factor, allowed));
  }
  return v;
}

}  // namespace scancheck
