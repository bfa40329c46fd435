// SPDX-License-Identifier: Apache-2.0
//! @file
//! A backend's rows summarised over cases and passes: what its line in a verdict table says, in report.md
//! and report.html alike (one definition of "worst tensor" and of every maximum).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::reports {

//! Where a backend's verdicts saw least: the row and tensor whose detection threshold is the largest in ulps.
struct LoosestDetection {
  std::string backend, case_id, tensor;
  Direction direction = Direction::forward;
  DetectionThreshold threshold;
};

struct BackendSummary {
  std::string backend;
  Architecture architecture = Architecture::rglru;
  std::int64_t rows = 0, rows_failed = 0;
  //! "dx (backward)": the tensor with the largest bound ratio, or the largest scaled error where no tensor
  //! has bounds; "-" without tensors (every run failed)
  std::string worst_tensor = "-";
  //! Maxima over every tensor of every row, NaN winning (a NaN metric is never hidden); absent when no
  //! tensor had one.
  //! bound_ratio (the error in units of the element's own bound) is the headline: max ULP reads 1e6-1e8 for
  //! correct backends wherever an exact value cancels to near zero; ulp_p99 says what most elements do.
  std::optional<double> ulp_max, ulp_p99, bound_ratio, baseline_ratio, scaled_error;
  //! Largest median device time of the backend's forward and backward rows (cuda executor only).
  std::optional<double> forward_ms, backward_ms;
  //! The detection threshold (policy.hpp) over the backend's tensors with bounds: each level's median over them,
  //! and the tensor where rule 2's is largest in ulps (rule 4's median over the tensors it judges).
  std::optional<DetectionThreshold> detection;
  std::optional<LoosestDetection> loosest;
  bool ok() const { return rows_failed == 0; }
};

//! The detection threshold over every tensor with bounds of the report, as BackendSummary's over a backend's.
struct ReportDetection {
  DetectionThreshold typical;
  LoosestDetection loosest;
};
std::optional<ReportDetection> summarise_detection(const Report&);
//! "a pass rules out errors above 3e+03 ulp on any one element (the bound rule) and above 16 ulp on half of the
//! elements (the ensemble rule), at the typical element of the median tensor; least on ...": one line.
std::string describe_detection(const ReportDetection&);

//! One summary per backend, in the order the backends first appear in the rows (the runner's registry order).
std::vector<BackendSummary> summarise_backends(const Report&);

//! The larger of two values, NaN winning; `acc` takes `v` when it is empty.
void fold_max(std::optional<double>& acc, const std::optional<double>& v);

}  // namespace scancheck::reports
