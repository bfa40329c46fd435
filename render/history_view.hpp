// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck history show`: one label's reports from the history (history.hpp) as trend plots in a
//! self-contained page (history.html: no script, no external resource, every outside text escaped) and a
//! summary (history.md), written together into one directory, atomically.
//!
//! The page draws, per backend and tensor, the reports in date order along x (labelled by short git
//! revision and date) and three panels sharing it: the scaled error (max |got - exact| / max |exact|, log
//! scale), the bound ratio (error / the element's first-order bound, log scale, with the latest report's
//! bound factor as a dashed line) and, when measured, the median device time. A report in which the tensor
//! failed, or the backend's row of that pass failed without a tensor to blame (the run failed, an output was
//! missing or misshapen), carries a red diamond whose tooltip gives the verdict and the reason. Where a
//! backend's pass never produced tensors, its failures get a plot of their own (tensor "").
//!
//! Trend (history.md and the page's table), per backend: its error in a report is the largest scaled
//! error of its tensors there; the latest report holding the backend is compared with the best (smallest)
//! error of the earlier reports that measured every tensor the latest did (a pass that crashed must not look
//! like the backend's best):
//!   worse   latest > trend_factor x best earlier
//!   better  latest < best earlier / trend_factor
//!   same    in between
//!   new     no earlier report holds the backend (or none measured an error)
//! with both errors first raised to trend_floor, so that noise below one float32 rounding at the tensor's
//! scale is never a trend. trend_factor is 2, `scancheck diff`'s default --max-growth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/history.hpp"

namespace scancheck::render {

inline constexpr double trend_factor = 2;
inline constexpr double trend_floor = 0x1p-24;

//! One report on one backend x tensor plot.
struct TrendPoint {
  std::size_t report = 0;              //!< index into HistoryView::reports: the x position
  std::optional<double> scaled_error;  //!< the largest of the backend's rows holding the tensor; absent: none (NaN)
  std::optional<double> bound_ratio;   //!< the largest
  std::optional<double> median_ms;     //!< the largest median device time of those rows
  std::optional<double> profile_ms;    //!< the largest time a joined profile of the user's measured for them
  bool failed = false;                 //!< drawn as a failure marker
  std::string verdict = "pass";        //!< the failing row's verdict when failed
  std::string reason;                  //!< why it failed (the tensor's first reason, else the row's)
};

//! One plot: a backend's tensor over the reports that hold it.
struct TrendSeries {
  std::string backend, tensor;  //!< tensor "": the pass's failures that have no tensor (see above)
  Direction direction = Direction::forward;
  std::vector<TrendPoint> points;  //!< in report order, one per report holding the tensor or failing
};

enum class Trend { worse, better, same, new_ };
std::string_view to_string(Trend);

//! One backend's line of the summary.
struct BackendTrend {
  std::string backend;
  std::size_t latest = 0;  //!< the latest report holding the backend
  std::optional<double> latest_error;
  std::optional<std::size_t> best_earlier;  //!< the earlier report with the smallest error
  std::optional<double> best_earlier_error;
  Trend trend = Trend::new_;
  double factor = 1;                      //!< (latest, floored) / (best earlier, floored)
  std::int64_t latest_failing_rows = 0;   //!< the backend's failing rows in its latest report
  std::vector<std::size_t> failed_reports;  //!< the reports in which a row of the backend failed
};

struct HistoryView {
  std::string database;  //!< the file, as the user named it
  reports::HistoryQuery query;
  std::vector<reports::HistoryEntry> reports;  //!< date order
  //! Per report, the failing rows of the backends shown (the query's glob).
  std::vector<std::int64_t> failing_rows;
  std::vector<TrendSeries> series;     //!< backends in order of first appearance, then their tensors'
  std::vector<BackendTrend> backends;  //!< the same backend order
};

//! The query's reports and plots. Throws InputError when it selects no report (naming the label, the
//! glob and the date).
HistoryView history_view(const reports::History&, const reports::HistoryQuery&);

std::string render_history_html(const HistoryView&);
std::string render_history_markdown(const HistoryView&);

//! history.html and history.md into `out`, atomically (core/files.hpp): a reader sees the old pair or the
//! new one.
void write_history_page(const HistoryView&, const std::filesystem::path& out);

}  // namespace scancheck::render
