// SPDX-License-Identifier: Apache-2.0
//! @file
//! What the history page shows (history_page.hpp), computed once from the history store
//! (reports/history.hpp) and formatted by history_html.hpp and history_markdown.hpp alone: one label's
//! reports in date order, per backend and tensor a series over them, per backend a trend.
//!
//! A series has a point per report holding the tensor: its scaled error (max |got - exact| / max |exact|),
//! bound ratio (error / the element's first-order bound) and, when measured, median device time and a joined
//! profile's time. A report in which the tensor failed, or the backend's row of that pass failed without a
//! tensor to blame (the run failed, an output was missing or misshapen), marks the point failed with the
//! verdict and the reason. Where a backend's pass never produced tensors, its failures get a series of their
//! own (tensor "").
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

  //! Whether a report measured the device time of the pass, itself or in the user's joined profile.
  bool timed() const;
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
  double factor = 1;                        //!< (latest, floored) / (best earlier, floored)
  std::int64_t latest_failing_rows = 0;     //!< the backend's failing rows in its latest report
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

// ---- names both formats give --------------------------------------------------------------------------

//! "abc1234 2024-05-01": how a report is named on the x axis and in the tables.
std::string report_name(const reports::HistoryEntry&);
//! "worse (3.2x)", "new": a backend's trend in the tables.
std::string trend_text(const BackendTrend&);

}  // namespace scancheck::render
