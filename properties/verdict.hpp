// SPDX-License-Identifier: Apache-2.0
//! @file
//! The verdict of one backend run (foreign-backends.md, "Verdicts beyond pass and fail"):
//!   pass     every output written, of the right shape, within the tolerance policy
//!   fail     outputs wrong under the policy, missing, or of the wrong shape
//!   error    the backend reported a failure (a worker's ok: false; a built-in's unwritten output)
//!   fault    the worker exited, crashed or answered outside the protocol
//!   timeout  no answer within the deadline
//! Everything but pass is a failure: it fails the run, becomes a finding and a failing report row.
#pragma once

#include <string_view>

#include "backends/backend.hpp"

namespace scancheck {

enum class Verdict { pass, fail, error, fault, timeout };

std::string_view to_string(Verdict);
//! Throws InputError naming the accepted verdicts.
Verdict parse_verdict(std::string_view);
Verdict verdict_of(RunFailure);

}  // namespace scancheck
