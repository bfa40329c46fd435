// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck diff OLD NEW`: what changed between two tolerance reports (model.hpp), and whether it is a
//! regression.
//!
//! Rows are matched across the reports by their identity (case request text, backend, pass): case ids
//! ("c0", ...) are only unique within one report, to_string(request) names the case everywhere.
//! A diff is a regression when
//!   1. a matched row passed in OLD and fails in NEW (a new failure), or
//!   2. a row only NEW has fails (a new failing row: nothing vouched for it before), or
//!   3. for some backend x tensor, the largest error growth over the matched rows exceeds max_growth, with
//!        growth = (new.max_abs + floor) / (old.max_abs + floor),
//!        floor  = unit_roundoff(tensor dtype) * max(old.max_exact, new.max_exact)
//!      (at least the smallest normal double): one rounding at the tensor's scale, so identical reports
//!      give exactly 1, an exactly-zero error divides by no zero, and noise far below a rounding does not
//!      count as growth. A non-finite error that was finite before is infinite growth.
//! Fixed rows (failed in OLD, pass in NEW) and rows only in one report are listed, never regressions.
//! Different labels or tolerance policies are allowed and reported as notes.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::reports {

//! A row's identity across reports (diff and merge match rows by it).
struct RowIdentity {
  std::string request;  //!< describe_request of the row's case
  std::string backend;
  Direction direction = Direction::forward;
  auto operator<=>(const RowIdentity&) const = default;
};
//! Throws InputError when the row's case is not in the report.
RowIdentity row_identity(const Report&, const Row&);

//! One row as the diff names it.
struct RowChange {
  std::string backend;
  Direction direction = Direction::forward;
  std::string request;  //!< describe_request of the row's case
  std::string repro;    //!< the row's `scancheck check ...` line (NEW's when the row is in NEW)
  std::string why;      //!< NEW's first failure reason, for failing rows
};

//! The largest error growth of one backend x tensor over the matched rows.
struct TensorGrowth {
  std::string backend, tensor;
  double growth = 1;
  double old_max_abs = 0, new_max_abs = 0;  //!< of the row where the largest growth was seen
  std::string repro;                        //!< that row's repro (NEW's)
  std::int64_t rows = 0;                    //!< matched rows that had this tensor in both reports
  bool regressed = false;                   //!< growth > max_growth
};

struct ReportDiff {
  std::string old_label, new_label;
  double max_growth = 2;
  std::int64_t matched = 0;                 //!< rows present in both reports
  std::vector<std::string> notes;           //!< label or policy differences
  std::vector<RowChange> new_failures;      //!< passed in OLD, fail in NEW
  std::vector<RowChange> new_rows_failing;  //!< only in NEW, failing
  std::vector<RowChange> fixed;             //!< failed in OLD, pass in NEW
  std::vector<RowChange> added, dropped;    //!< only in NEW / only in OLD
  std::vector<TensorGrowth> growth;         //!< per backend x tensor, backend then tensor order

  std::int64_t growth_regressions() const;
  bool regressed() const;
};

//! Throws InputError for a max_growth below 1 (identical reports grow by exactly 1) or not finite.
ReportDiff diff_reports(const Report& old_report, const Report& new_report, double max_growth);

//! Counts first, then one line per regression, then the fixed rows, then the added / dropped counts.
std::string format_diff(const ReportDiff&);

}  // namespace scancheck::reports
