// SPDX-License-Identifier: Apache-2.0
//! @file
//! The six properties of every backend (host executor) on generated cases (generators.hpp), as predicates
//! for the failure search (search.hpp). Checked for each architecture x io dtype by
//! tests/properties/backend_properties_test.cpp and by `scancheck property NAME`.
//!
//!   agrees_with_reference   the sequential baseline and 4 other random backends of the case's kind pass the
//!                           default TolerancePolicy against the float128 reference (with its error bounds)
//!                           on every output, forward and backward; every regime, both sqrt conventions
//!   deterministic           baseline + 4 random backends: two runs of one case give bitwise equal outputs
//!   writes_every_output     baseline + 8 random backends (all of them for the scan kinds): run_backend throws
//!                           no BackendError on a valid case (the executors throw it for an unwritten output
//!                           element or a touched guard region) and returns exactly the layout's outputs
//!   causal_and_local        baseline + 3 random backends; one element v of b (scan kinds) or x (gated kinds)
//!                           at (b0, t0, p) becomes -2v (1 if v = 0). Only these may change (may_change):
//!                           scan kinds: h at t >= t0, h_last and da at t > t0, all in (b0, the channel of
//!                           p), both parts of a complex channel; db and dh0 never. Gated kinds, heads T =
//!                           {the head whose gate block reads p, the head of p's state channel}: in batch
//!                           entry b0, y at t >= t0 and h_last, dh0 of channels of heads in T, dx at every t
//!                           where a head of T reads the position or owns its channel; and the parameter
//!                           gradients of heads in T. So nothing changes at earlier t in the forward, in
//!                           another batch entry, or in another channel (scan) or head (gated); the
//!                           exceptions are the backward at earlier t (the reverse scan carries the change
//!                           back) and the parameter gradients of the touched heads (sums over all b, t).
//!   batch_permutation       B >= 2; a random non-identity permutation of the batch entries of every per-batch
//!                           input (segment_pos included): every per-batch output (h, h_last, da, db, dh0; y,
//!                           dx) is the permuted original, bitwise. Parameter gradients (gated kinds) sum over
//!                           b and t in a new order, so they are compared with a tolerance: within 2 x
//!                           bound_factor x the reference's per-element bound (both runs are within
//!                           bound_factor x bound of the exact value when the backend passes the policy)
//!   nan_reaches_dependents  default, long_memory and clip regimes (no resets, no zero decays); a quiet NaN
//!                           in b or a (scan kinds; a_0 only where h0 exists) or x (gated kinds) makes exactly
//!                           the outputs in nan_dependents() NaN and leaves every other output bit unchanged;
//!                           the clean run must be finite
//!
//! The backends, the perturbed position and the permutation are drawn inside the predicate (`*rc::gen`),
//! so they are part of the RapidCheck case: they shrink after the request and replay with it. A failure
//! names its backend and carries the changed case (changed_case, permuted_case, nan_case) as a related case.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/architecture.hpp"
#include "core/dtype.hpp"
#include "properties/generators.hpp"
#include "properties/search.hpp"

namespace scancheck {

struct BackendProperty {
  std::string name;            //!< snake_case, e.g. "batch_permutation"
  std::string statement;       //!< one line: what holds
  GeneratorOptions generator;  //!< the cases it is checked on (e.g. min_batch = 2 for batch_permutation)
  int default_cases = 60;      //!< cases per architecture x io dtype
  int default_max_size = 100;  //!< largest RapidCheck size
  //! The predicate for cases of this architecture and io dtype.
  std::function<FailureOf(Architecture, DType)> make;
};

//! The six properties in the order above.
const std::vector<BackendProperty>& backend_properties();

//! The property named `name`; throws InputError naming the known ones.
const BackendProperty& find_property(std::string_view name);

//! The search id of `property` on (architecture, io dtype), "backend_properties/NAME/ARCH@DTYPE": the name
//! in RapidCheck reproduce strings and finding directories, the same in the test and the CLI.
std::string property_id(const BackendProperty& property, Architecture, DType io);

}  // namespace scancheck
