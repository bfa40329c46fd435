// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck calibrate REPORT`: rtol / atol per backend x io dtype x tensor from a tolerance report
//! (model.hpp), for downstream tests written as `torch.testing.assert_close(got, ref, rtol=, atol=)`.
//!
//! Rule, over the report's PASSING rows only (a failing backend is not calibrated at all: its errors are
//! what the policy rejected, and tolerances from them would bless the bug):
//!   atol = margin * max over cases of max_abs            (max |got - exact| of the tensor)
//!   rtol = margin * max over cases of scaled_error       (max_abs / max |exact|)
//! so `|got - ref| <= atol + rtol * |ref|` held on every observed element with a factor `margin` to spare,
//! and rtol carries the bound to tensors of a larger scale than the report's. Both hold for the report's
//! shapes, lengths and regimes only: errors of a scan grow with the length. Non-finite metrics (none in a
//! passing row) and tensors with nothing compared give no evidence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/dtype.hpp"
#include "reports/model.hpp"

namespace scancheck::reports {

//! What a tolerance was derived from.
struct ToleranceEvidence {
  std::int64_t cases = 0;          //!< passing rows (one per case) that had the tensor
  double max_abs = 0;              //!< largest max_abs seen
  double max_scaled_error = 0;     //!< largest max_abs / max_exact seen
  double max_exact = 0;            //!< largest max |exact| seen: the scale the tolerances were observed at
  std::string max_abs_repro;       //!< the row where max_abs was seen (`scancheck check ...`)
  std::string scaled_error_repro;  //!< the row where max_scaled_error was seen
};

struct Tolerance {
  std::string backend;
  DType io_dtype = DType::float32;
  std::string tensor;
  double rtol = 0, atol = 0;
  ToleranceEvidence evidence;
};

struct UncalibratedBackend {
  std::string backend;
  std::string reason;
};

struct Calibration {
  std::string label, git_revision, generated_at;  //!< of the report
  double margin = 2;
  std::vector<Tolerance> tolerances;                //!< report row order of backends, then tensors
  std::vector<UncalibratedBackend> not_calibrated;  //!< backends with failing rows
};

//! Throws InputError for a margin below 1 (the tolerances would not hold on the report's own data) or not
//! finite.
Calibration calibrate(const Report&, double margin = 2);

//! {label, git_revision, report_generated_at, margin, note, tolerances[], not_calibrated[]}.
nlohmann::json to_json(const Calibration&);

//! A Python module: a provenance docstring, TOLERANCES = {(backend, tensor): {"rtol": ., "atol": .}} and
//! tolerance(backend, tensor) for `torch.testing.assert_close(got, ref, **tolerance(backend, tensor))`.
//! Numbers are printed with 4 significant digits, rounded up so they never fall below the rule's value.
std::string to_pytest(const Calibration&);

}  // namespace scancheck::reports
