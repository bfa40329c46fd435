// SPDX-License-Identifier: Apache-2.0
//! @file
//! report.md: the report as GitHub-flavoured Markdown, ready to paste into a pull request or a CI step
//! summary. The verdict comes first, then what ran (tool, executor, coverage, policy), every failing row
//! with its reasons and repro, and one table per architecture with a line per backend (worst tensor,
//! max ULP, bound ratio, baseline ratio, device time when measured, verdict), folded when long.
#pragma once

#include <string>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::reports {

//! A backend's rows summarised over cases and passes: what its line in a verdict table shows.
struct BackendSummary {
  std::string backend;
  Architecture architecture = Architecture::rglru;
  std::int64_t rows = 0, rows_failed = 0;
  std::string worst_tensor;  //!< largest bound ratio (largest scaled error where no tensor has bounds)
  double ulp_max = 0;
  std::optional<double> bound_ratio, baseline_ratio;  //!< maxima; absent when no row had one
  std::optional<double> forward_ms, backward_ms;      //!< largest median device time over its cases
  bool ok() const { return rows_failed == 0; }
};

//! One summary per backend, in the order of first appearance in the rows.
std::vector<BackendSummary> summarise_backends(const Report&);

std::string render_markdown(const Report&);

}  // namespace scancheck::reports
