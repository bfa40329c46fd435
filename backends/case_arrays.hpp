// SPDX-License-Identifier: Apache-2.0
//! @file
//! A case's tensors as the arrays the launch sequences take (scan_run.hpp, gated_run.hpp): the one place that
//! maps case names to launch arguments, for the built-in backends and for the benchmarks and timings that
//! drive the launch sequences directly.
#pragma once

#include "backends/backend.hpp"
#include "backends/gated_run.hpp"
#include "backends/scan_run.hpp"

namespace scancheck::backends {

//! Inputs point into `c`; outputs into `out`, which must hold every output of the case's layout (pass
//! nullptr to leave the output pointers null).
ScanArrays scan_arrays(const Case& c, Outputs* out);
GatedArrays gated_arrays(const Case& c, Outputs* out);

//! Every output of the case's layout, zero-filled.
Outputs output_tensors(const Case& c);

}  // namespace scancheck::backends
