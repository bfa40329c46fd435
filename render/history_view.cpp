// SPDX-License-Identifier: Apache-2.0
// The history page's view: the series and trends computed from the history's normalised tables, once, and
// the names both formats give reports and trends.
#include "render/history_view.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace scancheck::render {

using namespace reports;  // the model rendered here

namespace {

//! The larger, an absent one losing.
void keep_max(std::optional<double>& acc, const std::optional<double>& v) {
  if (v && (!acc || *v > *acc)) acc = v;
}

//! Builds the series from the measurements, one point per (series, report).
class SeriesBuilder {
 public:
  TrendPoint& point(const std::string& backend, Direction direction, const std::string& tensor, std::size_t report) {
    const auto [it, fresh] = series_index_.try_emplace({backend, tensor, direction}, series_.size());
    if (fresh) series_.push_back({backend, tensor, direction, {}});
    TrendSeries& s = series_[it->second];
    // Measurements arrive in report order, so the point of `report` is the last one or a new one.
    if (s.points.empty() || s.points.back().report != report) s.points.push_back(point_at(report));
    return s.points.back();
  }

  //! A failing row with no failing tensor: every plot of its backend's pass in that report says so.
  void mark_row_failure(const HistoryMeasurement& row, std::size_t report) {
    bool marked = false;
    for (TrendSeries& s : series_) {
      if (s.backend != row.backend || s.direction != row.direction) continue;
      // The points are in report order: the first at or after `report` is its point or where it goes.
      auto it = std::lower_bound(s.points.begin(), s.points.end(), report,
                                 [](const TrendPoint& p, std::size_t r) { return p.report < r; });
      if (it == s.points.end() || it->report != report) it = s.points.insert(it, point_at(report));
      mark(*it, row, row.reason);
      marked = true;
    }
    if (!marked) mark(point(row.backend, row.direction, "", report), row, row.reason);
  }

  static TrendPoint point_at(std::size_t report) {
    TrendPoint p;
    p.report = report;
    return p;
  }

  static void mark(TrendPoint& p, const HistoryMeasurement& m, const std::string& reason) {
    if (p.failed) return;  // the first reason stays
    p.failed = true;
    p.verdict = std::string(to_string(m.verdict));
    p.reason = reason.empty() ? m.reason : reason;
  }

  std::vector<TrendSeries> take() {
    // Group each backend's plots together, in the order backends first appear.
    std::map<std::string, std::size_t> backend_order;
    for (const TrendSeries& s : series_) backend_order.try_emplace(s.backend, backend_order.size());
    std::stable_sort(series_.begin(), series_.end(), [&](const TrendSeries& a, const TrendSeries& b) {
      return backend_order.at(a.backend) < backend_order.at(b.backend);
    });
    return std::move(series_);
  }

 private:
  std::map<std::tuple<std::string, std::string, Direction>, std::size_t> series_index_;
  std::vector<TrendSeries> series_;
};

//! One row's measurements (its tensors), as they come from the history.
using RowKey = std::pair<std::int64_t, std::int64_t>;  // report id, row index

std::vector<TrendSeries> build_series(const std::vector<HistoryMeasurement>& measurements,
                                      const std::map<std::int64_t, std::size_t>& x_of,
                                      std::vector<std::int64_t>& failing_rows) {
  SeriesBuilder builder;
  std::map<RowKey, bool> row_blamed_a_tensor;  // failing rows: did a tensor of theirs fail?
  for (const HistoryMeasurement& m : measurements) {
    const std::size_t x = x_of.at(m.report_id);
    const RowKey row{m.report_id, m.row_index};
    if (m.verdict != scancheck::Verdict::pass && row_blamed_a_tensor.try_emplace(row, false).second) ++failing_rows[x];
    if (m.tensor.empty()) continue;
    TrendPoint& p = builder.point(m.backend, m.direction, m.tensor, x);
    // A NaN error is stored as NULL: it shows as a missing value and (it fails) a marker.
    keep_max(p.scaled_error, m.scaled_error);
    keep_max(p.bound_ratio, m.bound_ratio);
    keep_max(p.median_ms, m.median_ms);
    keep_max(p.profile_ms, m.profile_ms);
    if (!m.tensor_pass) {
      SeriesBuilder::mark(p, m, m.tensor_reason.empty() ? std::string() : m.tensor + ": " + m.tensor_reason);
      row_blamed_a_tensor[row] = true;
    }
  }
  for (const HistoryMeasurement& m : measurements) {
    const auto it = row_blamed_a_tensor.find({m.report_id, m.row_index});
    if (it == row_blamed_a_tensor.end() || it->second) continue;
    builder.mark_row_failure(m, x_of.at(m.report_id));
    it->second = true;  // once per row
  }
  return builder.take();
}

double floored(double e) { return std::isnan(e) ? e : std::max(e, trend_floor); }

//! A backend in one report: its largest scaled error and the plots that measured one.
struct BackendInReport {
  std::optional<double> error;
  std::set<std::size_t> measured;  //!< indices into the series
};

BackendTrend backend_trend(const std::string& backend, const std::vector<TrendSeries>& series) {
  std::map<std::size_t, BackendInReport> in_report;
  std::set<std::size_t> failed;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i].backend != backend) continue;
    for (const TrendPoint& p : series[i].points) {
      BackendInReport& r = in_report[p.report];
      keep_max(r.error, p.scaled_error);
      if (p.scaled_error) r.measured.insert(i);
      if (p.failed) failed.insert(p.report);
    }
  }
  BackendTrend t;
  t.backend = backend;
  const auto& [latest, now] = *in_report.rbegin();
  t.latest = latest;
  t.latest_error = now.error;
  // Only reports that measured every tensor the latest did compete: a pass that crashed, or a shard that
  // ran part of the cases' tensors, must not look like the backend's best.
  for (const auto& [report, then] : in_report)
    if (report < t.latest && then.error &&
        std::includes(then.measured.begin(), then.measured.end(), now.measured.begin(), now.measured.end()) &&
        (!t.best_earlier_error || *then.error < *t.best_earlier_error)) {
      t.best_earlier = report;
      t.best_earlier_error = then.error;
    }
  t.failed_reports.assign(failed.begin(), failed.end());
  if (t.latest_error && t.best_earlier_error) {
    t.factor = floored(*t.latest_error) / floored(*t.best_earlier_error);
    t.trend = t.factor > trend_factor ? Trend::worse : t.factor < 1 / trend_factor ? Trend::better : Trend::same;
  }
  return t;
}

void count_latest_failures(std::vector<BackendTrend>& trends, const std::vector<HistoryMeasurement>& measurements,
                           const std::map<std::int64_t, std::size_t>& x_of) {
  std::set<std::tuple<std::string, std::int64_t, std::int64_t>> counted;
  for (const HistoryMeasurement& m : measurements) {
    if (m.verdict == scancheck::Verdict::pass) continue;
    if (!counted.insert({m.backend, m.report_id, m.row_index}).second) continue;  // once per row
    for (BackendTrend& t : trends)
      if (t.backend == m.backend && t.latest == x_of.at(m.report_id)) ++t.latest_failing_rows;
  }
}

std::string date_of(const HistoryEntry& e) { return e.generated_at.substr(0, 10); }

}  // namespace

std::string_view to_string(Trend t) {
  switch (t) {
    case Trend::worse: return "worse";
    case Trend::better: return "better";
    case Trend::same: return "same";
    case Trend::new_: return "new";
  }
  return "new";
}

bool TrendSeries::timed() const {
  return std::any_of(points.begin(), points.end(),
                     [](const TrendPoint& p) { return p.median_ms.has_value() || p.profile_ms.has_value(); });
}

HistoryView history_view(const History& history, const HistoryQuery& query) {
  HistoryView v;
  v.database = history.path().string();
  v.query = query;
  v.reports = history.reports(query);
  if (v.reports.empty()) {
    const std::string glob = query.backends == "*" ? "" : fmt::format(" with a backend matching '{}'", query.backends);
    throw InputError(fmt::format("history database '{}' has no report of label '{}'{}{}", v.database, query.label, glob,
                                 query.since.empty() ? "" : fmt::format(" since {}", query.since)));
  }
  std::map<std::int64_t, std::size_t> x_of;
  for (std::size_t i = 0; i < v.reports.size(); ++i) x_of[v.reports[i].id] = i;
  const std::vector<HistoryMeasurement> measurements = history.measurements(query);
  v.failing_rows.assign(v.reports.size(), 0);
  v.series = build_series(measurements, x_of, v.failing_rows);
  for (const TrendSeries& s : v.series)
    if (v.backends.empty() || v.backends.back().backend != s.backend)
      v.backends.push_back(backend_trend(s.backend, v.series));  // the series are grouped by backend
  count_latest_failures(v.backends, measurements, x_of);
  return v;
}

std::string report_name(const HistoryEntry& e) { return short_revision(e.git_revision) + " " + date_of(e); }

std::string trend_text(const BackendTrend& t) {
  if (t.trend == Trend::new_) return "new";
  return fmt::format("{} ({:.3g}x)", to_string(t.trend), t.factor);
}

}  // namespace scancheck::render
