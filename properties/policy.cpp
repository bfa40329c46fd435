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
          {"ensemble_factor", ensemble_factor},
          {"ensemble_floor", ensemble_floor},
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
                    : key == "ensemble_factor"      ? &p.ensemble_factor
                    : key == "ensemble_floor"       ? &p.ensemble_floor
                                                    : nullptr;
    if (!field)
      in.fail("$", fmt::format("unknown policy field '{}' (expected bound_factor, baseline_factor, "
                               "baseline_slack_ulps, baseline_slack_bound, ensemble_factor, ensemble_floor, strict)",
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

namespace {

//! "20.7x that of any correct float32 order (0.0041)", or, where every order of the ensemble is exact there,
//! that statement itself.
std::string against_the_orders(const DistributionExcess& e) {
  if (e.orders == 0) return "where every correct float32 order is exact";
  return fmt::format("{:.3g}x that of any correct float32 order ({:.3g})", e.got / e.orders, e.orders);
}

}  // namespace

TensorVerdict judge(const TensorMetrics& m, const TolerancePolicy& p) {
  TensorVerdict v;
  v.detection = detection_threshold(m, p);
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
  if (const std::optional<DistributionExcess> excess = distribution_excess(m, p)) {
    fail(fmt::format("{}: {} {:.3g} bounds, {}; allowed {:g}x + {:g}",
                     excess->typical ? "accuracy lost on every element" : "accuracy lost on many elements",
                     excess->typical ? "the typical element's error is" : "a tenth of the elements err by more than",
                     excess->got, against_the_orders(*excess), p.ensemble_factor, p.ensemble_floor));
  }
  return v;
}

std::optional<DistributionExcess> distribution_excess(const TensorMetrics& m, const TolerancePolicy& p) {
  if (!m.profile || !m.ensemble_profile || m.profile->elements < distribution_min_elements) return std::nullopt;
  const ErrorProfile &got = *m.profile, &orders = *m.ensemble_profile;
  const auto allowed = [&](double worst_order) { return p.ensemble_factor * worst_order + p.ensemble_floor; };
  if (got.p50 > allowed(orders.p50)) return DistributionExcess{true, got.p50, orders.p50};
  if (got.p90 > allowed(orders.p90)) return DistributionExcess{false, got.p90, orders.p90};
  return std::nullopt;
}

std::optional<DetectionThreshold> detection_threshold(const TensorMetrics& m, const TolerancePolicy& p) {
  if (!m.bound_scale) return std::nullopt;
  const auto level = [&](double bounds) {
    return DetectionLevel{bounds, bounds * m.bound_scale->ulps, bounds * m.bound_scale->relative};
  };
  DetectionThreshold t{level(p.bound_factor), std::nullopt};
  if (m.profile && m.ensemble_profile && m.ensemble_orders > 1 && m.profile->elements >= distribution_min_elements)
    t.distribution = level(p.ensemble_factor * m.ensemble_profile->p50 + p.ensemble_floor);
  return t;
}

}  // namespace scancheck
