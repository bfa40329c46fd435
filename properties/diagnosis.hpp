// SPDX-License-Identifier: Apache-2.0
//! @file
//! Where a failing run goes wrong: statements read off the pattern of its failing elements over
//! (b, t, w) and the case's structure, for the failing row, the finding and the mutation kill table. A
//! failing element is one the policy fails on its own (rule 1 or 2: a NaN/Inf disagreement or more than
//! bound_factor bounds); the statements hold for every failing element:
//!   "backward only" / "forward only"               the passes whose tensors fail
//!   "only in dh0" / "only in h_last and dh0" ...   the failing tensors, when they are states only
//!   "only at t = 0", "only at t = L-1"             the time steps
//!   "in the last, partial chunk (...)"             t >= the last chunk's start, L not a multiple of C
//!   "in the last, partial group (...)"             likewise for the hierarchical schedules' groups of G C
//!   "from t = 32, a chunk (group) boundary"        the first failing step is a boundary of the schedule
//!   "at reset positions" / "next to resets"        every failing (b, t) is, or is beside, a reset
//!   "one batch entry (b = 1 of 3)", "one head", "channels 2, 5 of 8"
//!   "the size of a bfloat16 rounding"              a float32 run off by 2^-10..2^-7 relative: a bf16 carry
//!   "NaN born at y[0, 7, 3]"                        the earliest element that should not be NaN and is
//!   "the error grows with the summed log decay"     a plain scan's h off by about u |sum log a|: the
//!                                                   signature of log-space products (a rejected formulation)
//!   "within 16 times what float32 allows"            too small to be a bug class: nothing else is inferred
//! and, from re-runs where the backend can be run again (counterfactual_diagnosis), only for errors beyond
//! gross_error_factor bounds, which no rounding of a correct kernel comes near:
//!   "only where dh_last matters", "only where h0 matters": the run passes once that input is removed;
//!   "a shift in t": it passes once every step has the decay of t = 0 (a's, or x's that the gates read).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "properties/policy.hpp"
#include "reference/reference.hpp"

namespace scancheck {

//! Failing elements all within this many bounds are diagnosed as rounding, never as a bug class.
inline constexpr double plausible_rounding_factor = 16;
//! Counterfactual re-runs are made only when some failing element is beyond this many bounds (or NaN/Inf).
inline constexpr double gross_error_factor = 100;

//! The statements that hold for the failing elements of `got` on `c`; empty when no element fails on its
//! own (a run that fails only the baseline rule, or does not run). `schedule`: a built-in's, for its
//! chunk and group boundaries.
std::vector<std::string> diagnose(const Case& c, const Outputs& got, const ReferenceResult& reference,
                                  const TolerancePolicy& policy, const std::optional<Schedule>& schedule);

//! The worst failing activation tensor's error over (t, w) for one batch entry (the worst element's),
//! binned to at most 64 x 32 cells of the largest |error| / bound, with the schedule's chunk and group
//! sizes and the reset steps: what report.html draws as a heat strip, so the pattern is seen at a glance.
struct ErrorStrip {
  std::string tensor;
  std::int64_t batch = 0, length = 0, width = 0;
  std::int64_t t_bins = 0, w_bins = 0;
  std::vector<double> ratios;              //!< [t_bins, w_bins], row-major; 0 where nothing was compared
  std::int64_t chunk = 0, group_span = 0;  //!< 0: no chunks (sequential or foreign)
  std::vector<std::int64_t> resets;        //!< the steps of the batch entry that reset
};

//! The strip of a failing run, or nothing when no activation tensor fails on its own.
std::optional<ErrorStrip> error_strip(const Case& c, const Outputs& got, const ReferenceResult& reference,
                                      const TolerancePolicy& policy, const std::optional<Schedule>& schedule);

//! The largest error of `got` in bounds over the elements the policy fails (+inf for a NaN/Inf disagreement);
//! 0 when none fails.
double worst_bound_ratio(const Case& c, const Outputs& got, const ReferenceResult& reference,
                         const TolerancePolicy& policy);

//! Re-runs the failing backend on changed cases (every step with the decay of t = 0; without dh_last; without
//! h0), each against its own reference: a statement for each change that makes it pass. `passes(case)`
//! judges a case.
std::vector<std::string> counterfactual_diagnosis(const Case& c, const std::function<bool(const Case&)>& passes);

}  // namespace scancheck
