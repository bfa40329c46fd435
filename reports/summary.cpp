// SPDX-License-Identifier: Apache-2.0
#include "reports/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace scancheck::reports {
namespace {

//! What made the worst tensor the worst: bound ratios outrank scaled errors (a bounded tensor is the
//! better witness); `!(x <= y)` lets a NaN win.
struct WorstSoFar {
  std::optional<double> bound, scaled;

  bool replaced_by(const TensorMetrics& m) {
    if (m.bound_ratio && (!bound || !(*m.bound_ratio <= *bound))) {
      bound = m.bound_ratio;
      return true;
    }
    if (!bound && !m.bound_ratio && (!scaled || !(scaled_error(m) <= *scaled))) {
      scaled = scaled_error(m);
      return true;
    }
    return false;
  }
};

//! Every detection threshold of a backend's tensors, for their medians.
struct Detections {
  std::vector<DetectionLevel> certainty, distribution;

  void add(BackendSummary& s, const Row& row, const TensorMetrics& m, const TolerancePolicy& policy) {
    const std::optional<DetectionThreshold> d = detection_threshold(m, policy);
    if (!d) return;
    certainty.push_back(d->certainty);
    if (d->distribution) distribution.push_back(*d->distribution);
    if (!s.loosest || d->certainty.ulps > s.loosest->threshold.certainty.ulps)
      s.loosest = LoosestDetection{row.backend, row.case_id, m.name, row.direction, *d};
  }

  static DetectionLevel median(std::vector<DetectionLevel>& levels) {
    const auto middle = [&](auto member) {
      std::vector<double> v;
      for (const DetectionLevel& l : levels) v.push_back(l.*member);
      std::nth_element(v.begin(), v.begin() + std::ssize(v) / 2, v.end());
      return v[v.size() / 2];
    };
    return {middle(&DetectionLevel::bounds), middle(&DetectionLevel::ulps), middle(&DetectionLevel::relative)};
  }

  std::optional<DetectionThreshold> typical() {
    if (certainty.empty()) return std::nullopt;
    DetectionThreshold t{median(certainty), std::nullopt};
    if (!distribution.empty()) t.distribution = median(distribution);
    return t;
  }
};

void add_row(BackendSummary& s, WorstSoFar& worst, Detections& detections, const Row& row,
             const TolerancePolicy& policy) {
  ++s.rows;
  s.rows_failed += row.ok() ? 0 : 1;
  for (const TensorEntry& t : row.tensors) {
    const TensorMetrics& m = t.metrics;
    if (worst.replaced_by(m)) s.worst_tensor = fmt::format("{} ({})", m.name, to_string(row.direction));
    fold_max(s.ulp_max, m.ulp_max);
    fold_max(s.ulp_p99, m.ulp_p99);
    fold_max(s.bound_ratio, m.bound_ratio);
    fold_max(s.baseline_ratio, m.baseline_ratio);
    fold_max(s.scaled_error, scaled_error(m));
    detections.add(s, row, m, policy);
  }
  if (row.timing) fold_max(row.direction == Direction::forward ? s.forward_ms : s.backward_ms, row.timing->median_ms);
}

}  // namespace

void fold_max(std::optional<double>& acc, const std::optional<double>& v) {
  if (!v) return;
  acc = !acc ? *v : std::isnan(*acc) || std::isnan(*v) ? std::nan("") : std::max(*acc, *v);
}

std::optional<ReportDetection> summarise_detection(const Report& r) {
  BackendSummary all;
  Detections detections;
  for (const Row& row : r.rows)
    for (const TensorEntry& t : row.tensors) detections.add(all, row, t.metrics, r.policy);
  const std::optional<DetectionThreshold> typical = detections.typical();
  if (!typical) return std::nullopt;
  return ReportDetection{*typical, *all.loosest};
}

std::string describe_detection(const ReportDetection& d) {
  const auto ulps = [](const std::optional<DetectionLevel>& l) {
    return l ? fmt::format("{:.2g} ulp", l->ulps) : std::string("-");
  };
  std::string s =
      fmt::format("a pass rules out errors above {} on any one element (the bound rule)", ulps(d.typical.certainty));
  if (d.typical.distribution)
    s += fmt::format(" and above {} on half of the elements (the ensemble rule)", ulps(d.typical.distribution));
  const LoosestDetection& l = d.loosest;
  return s + fmt::format(", at the typical element of the median tensor; least on {} {} {} of {}: {} / {}", l.backend,
                         l.tensor, to_string(l.direction), l.case_id, ulps(l.threshold.certainty),
                         ulps(l.threshold.distribution));
}

std::vector<BackendSummary> summarise_backends(const Report& r) {
  std::vector<BackendSummary> out;
  std::vector<WorstSoFar> worst;
  std::vector<Detections> detections;
  std::map<std::string, std::size_t> index;
  for (const Row& row : r.rows) {
    const auto [it, fresh] = index.try_emplace(row.backend, out.size());
    if (fresh) {
      out.emplace_back();
      out.back().backend = row.backend;
      out.back().architecture = row.architecture;
      worst.emplace_back();
      detections.emplace_back();
    }
    add_row(out[it->second], worst[it->second], detections[it->second], row, r.policy);
  }
  for (std::size_t k = 0; k < out.size(); ++k) out[k].detection = detections[k].typical();
  return out;
}

}  // namespace scancheck::reports
