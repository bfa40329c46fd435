// SPDX-License-Identifier: Apache-2.0
#include "reports/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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

void add_row(BackendSummary& s, WorstSoFar& worst, const Row& row) {
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
  }
  if (row.timing) fold_max(row.direction == Direction::forward ? s.forward_ms : s.backward_ms, row.timing->median_ms);
}

}  // namespace

void fold_max(std::optional<double>& acc, const std::optional<double>& v) {
  if (!v) return;
  acc = !acc ? *v : std::isnan(*acc) || std::isnan(*v) ? std::nan("") : std::max(*acc, *v);
}

std::vector<BackendSummary> summarise_backends(const Report& r) {
  std::vector<BackendSummary> out;
  std::vector<WorstSoFar> worst;
  std::map<std::string, std::size_t> index;
  for (const Row& row : r.rows) {
    const auto [it, fresh] = index.try_emplace(row.backend, out.size());
    if (fresh) {
      out.emplace_back();
      out.back().backend = row.backend;
      out.back().architecture = row.architecture;
      worst.emplace_back();
    }
    add_row(out[it->second], worst[it->second], row);
  }
  return out;
}

}  // namespace scancheck::reports
