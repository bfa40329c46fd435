// SPDX-License-Identifier: Apache-2.0
//! @file
//! How long a reference will take, before it is computed: a case whose reference would outlast the user's
//! budget (--max-reference-seconds) is refused up front, like a case too large for memory, instead of
//! running for hours or being killed by a cluster with nothing to show.
#pragma once

#include "core/case.hpp"
#include "reference/reference.hpp"

namespace scancheck {

//! Seconds compute_reference(c, options) should take on this machine: the case's element-steps (the
//! sampled blocks only, spread over the threads) times the cost of one, timed on a small case of the
//! same architecture and options (once per process and kind of case; a few tens of milliseconds).
double estimated_reference_seconds(const Case& c, const ReferenceOptions& options);

//! Throws InputError naming the case, the estimate and the budget when the estimate exceeds `budget`.
void require_reference_within(const Case& c, const ReferenceOptions& options, double budget_seconds);

}  // namespace scancheck
