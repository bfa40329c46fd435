// SPDX-License-Identifier: Apache-2.0
#include "reports/diff.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "properties/fuzz.hpp"

namespace scancheck::reports {
namespace {

using RowIndex = std::map<RowIdentity, const Row*>;

RowIndex index_rows(const Report& r) {
  RowIndex index;
  for (const Row& row : r.rows) {
    const RowIdentity id = row_identity(r, row);
    if (!index.emplace(id, &row).second)
      throw InputError(fmt::format("report '{}' has two {} rows of {} on case {}", r.label, to_string(id.direction),
                                   id.backend, id.request));
  }
  return index;
}

//! The first thing that made a row fail, for one line of the diff.
std::string failure_reason(const Row& row) {
  if (!row.error.empty()) return "run failed: " + row.error;
  if (!row.missing.empty()) return fmt::format("missing {}", fmt::join(row.missing, ", "));
  for (const TensorEntry& t : row.tensors)
    if (!t.pass) return fmt::format("{}: {}", t.metrics.name, t.reasons.empty() ? "fails" : t.reasons.front());
  return row.ok() ? "" : "fails";
}

RowChange change_of(const RowIdentity& id, const Row& row) {
  return {id.backend, id.direction, id.request, row.repro, row.ok() ? "" : failure_reason(row)};
}

double finite_or_zero(double x) { return std::isfinite(x) ? x : 0; }

//! diff.hpp's growth rule. Non-finite errors cannot be divided: finite -> non-finite is infinite growth,
//! non-finite -> finite a full recovery (0), non-finite in both no change (1).
double error_growth(const TensorMetrics& before, const TensorMetrics& after) {
  const bool finite_before = std::isfinite(before.max_abs), finite_after = std::isfinite(after.max_abs);
  if (!finite_after) return finite_before ? std::numeric_limits<double>::infinity() : 1;
  if (!finite_before) return 0;
  const double scale = std::max(finite_or_zero(before.max_exact), finite_or_zero(after.max_exact));
  const double floor = std::max(unit_roundoff(after.dtype) * scale, std::numeric_limits<double>::min());
  return (after.max_abs + floor) / (before.max_abs + floor);
}

const TensorEntry* find_tensor(const Row& row, const std::string& name) {
  for (const TensorEntry& t : row.tensors)
    if (t.metrics.name == name) return &t;
  return nullptr;
}

using GrowthTable = std::map<std::pair<std::string, std::string>, TensorGrowth>;

void record_growth(const Row& before, const Row& after, GrowthTable& table) {
  for (const TensorEntry& t : after.tensors) {
    const TensorEntry* old_t = find_tensor(before, t.metrics.name);
    if (!old_t) continue;
    TensorGrowth& g = table[{after.backend, t.metrics.name}];
    const double growth = error_growth(old_t->metrics, t.metrics);
    if (g.rows++ == 0 || growth > g.growth) {
      g.backend = after.backend;
      g.tensor = t.metrics.name;
      g.growth = growth;
      g.old_max_abs = old_t->metrics.max_abs;
      g.new_max_abs = t.metrics.max_abs;
      g.repro = after.repro;
    }
  }
}

std::vector<std::string> notes_of(const Report& before, const Report& after) {
  std::vector<std::string> notes;
  if (before.label != after.label)
    notes.push_back(fmt::format("the labels differ: '{}' -> '{}'", before.label, after.label));
  const nlohmann::json old_policy = before.policy.to_json(), new_policy = after.policy.to_json();
  if (old_policy != new_policy)
    notes.push_back(fmt::format("the tolerance policies differ: {} -> {}; verdict changes may be the policy's",
                                old_policy.dump(), new_policy.dump()));
  return notes;
}

}  // namespace

RowIdentity row_identity(const Report& r, const Row& row) {
  return {to_string(r.case_of(row).request), row.backend, row.direction};
}

std::int64_t ReportDiff::growth_regressions() const {
  return std::count_if(growth.begin(), growth.end(), [](const TensorGrowth& g) { return g.regressed; });
}

bool ReportDiff::regressed() const {
  return !new_failures.empty() || !new_rows_failing.empty() || growth_regressions() > 0;
}

ReportDiff diff_reports(const Report& old_report, const Report& new_report, double max_growth) {
  if (!std::isfinite(max_growth) || max_growth < 1)
    throw InputError(fmt::format("max growth {} must be at least 1 (identical reports grow by exactly 1)", max_growth));
  ReportDiff d;
  d.old_label = old_report.label;
  d.new_label = new_report.label;
  d.max_growth = max_growth;
  d.notes = notes_of(old_report, new_report);
  const RowIndex old_rows = index_rows(old_report), new_rows = index_rows(new_report);
  GrowthTable table;
  for (const Row& after : new_report.rows) {
    const RowIdentity id = row_identity(new_report, after);
    const auto match = old_rows.find(id);
    if (match == old_rows.end()) {
      d.added.push_back(change_of(id, after));
      if (!after.ok()) d.new_rows_failing.push_back(d.added.back());
      continue;
    }
    const Row& before = *match->second;
    ++d.matched;
    if (before.ok() && !after.ok()) d.new_failures.push_back(change_of(id, after));
    if (!before.ok() && after.ok()) d.fixed.push_back(change_of(id, after));
    record_growth(before, after, table);
  }
  for (const Row& before : old_report.rows) {
    const RowIdentity id = row_identity(old_report, before);
    if (!new_rows.count(id)) d.dropped.push_back(change_of(id, before));
  }
  for (auto& [key, g] : table) {
    g.regressed = g.growth > max_growth;
    d.growth.push_back(std::move(g));
  }
  return d;
}

namespace {

std::string describe(const RowChange& c) {
  return fmt::format("{} {} on {}", c.backend, to_string(c.direction), c.request);
}

std::string plural(std::size_t n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); }

const TensorGrowth* largest_growth(const ReportDiff& d) {
  const auto it = std::max_element(d.growth.begin(), d.growth.end(),
                                   [](const TensorGrowth& a, const TensorGrowth& b) { return a.growth < b.growth; });
  return it == d.growth.end() ? nullptr : &*it;
}

}  // namespace

std::string format_diff(const ReportDiff& d) {
  std::string out =
      fmt::format("diff '{}' -> '{}': {} matched, {}, {}, {} above {}x, {}, {} added, {} dropped\n", d.old_label,
                  d.new_label, plural(static_cast<std::size_t>(d.matched), "row"),
                  plural(d.new_failures.size(), "new failure"), plural(d.new_rows_failing.size(), "new failing row"),
                  plural(static_cast<std::size_t>(d.growth_regressions()), "error growth"), d.max_growth,
                  plural(d.fixed.size(), "fixed row"), d.added.size(), d.dropped.size());
  for (const std::string& note : d.notes) out += fmt::format("note: {}\n", note);
  for (const RowChange& c : d.new_failures)
    out += fmt::format("REGRESSION new failure: {}: {}\n  repro: {}\n", describe(c), c.why, c.repro);
  for (const RowChange& c : d.new_rows_failing)
    out += fmt::format("REGRESSION new failing row: {}: {}\n  repro: {}\n", describe(c), c.why, c.repro);
  for (const TensorGrowth& g : d.growth)
    if (g.regressed)
      out += fmt::format(
          "REGRESSION error growth {:.3g}x > {}x: {} {}, max_abs {:.3e} -> {:.3e} (worst of {} matched "
          "rows)\n  repro: {}\n",
          g.growth, d.max_growth, g.backend, g.tensor, g.old_max_abs, g.new_max_abs, g.rows, g.repro);
  for (const RowChange& c : d.fixed) out += fmt::format("fixed: {}\n", describe(c));
  out += fmt::format("added: {} (only in new), dropped: {} (only in old)\n", plural(d.added.size(), "row"),
                     plural(d.dropped.size(), "row"));
  if (const TensorGrowth* g = largest_growth(d))
    out += fmt::format("largest error growth: {:.3g}x ({} {})\n", g->growth, g->backend, g->tensor);
  out += d.regressed() ? "verdict: REGRESSION\n" : "verdict: no regression\n";
  return out;
}

}  // namespace scancheck::reports
