// SPDX-License-Identifier: Apache-2.0
//! @file
//! RapidCheck generators of case requests (core/generate.hpp): the random cases of the property tests,
//! `scancheck fuzz` and the mutation test. A request is a few numbers; make_case turns it into tensors
//! deterministically, so a case is reproducible from its request (its RNG seed is drawn here, by
//! RapidCheck, and travels in the request).
//!
//! Distributions at RapidCheck size s (0..100; sizes above 100 count as 100), limits from limits_for_size:
//!   L  3/4: uniform over boundary_lengths() up to max_length; 1/4: uniform in [1, max_length], where
//!      max_length = 2 + 2047 s^2 / 10^4 (2 at s = 0, 186 at 30, 513 at 50, 2049 at 100)
//!   B  uniform in [min_batch, max_batch], max_batch = 1 + min(2, s / 8)
//!   H  1 with probability 1/2, otherwise uniform in [2, H_max], H_max = min(max_heads, max_elements / (B L c));
//!      max_heads = min(1 + s / 10, max_width / c), c = 2 for the complex kinds (merged [Re | Im]) and 1 otherwise
//!   W  H * k * c with k (state channels per head) uniform in [1, K], K = max_width / (H c), lowered so that
//!      B L W stays within max_elements (at least k = 1, so only H = k = 1 cases can exceed it); max_width =
//!      4 + 60 s / 100 (64 at s = 100), so W is rarely a multiple of 32 and heads always divide the state
//!      channels (complex widths even)
//!   regime         weights default 3, long_memory 2, resets 2, extreme 2, clip 2 (over the allowed ones)
//!   h0, dh_last    each present with probability 3/4
//!   sqrt_gradient  gated kinds: exact with probability 1/4, never with the extreme regime (float32 cannot
//!                  evaluate D(q) there: docs/backends/gated.md, "Known limit"); plain scans: bounded
//!   seed           uniform 64-bit
//! A backend's constraints (GeneratorOptions::constraints) narrow all of this: L, B and W within its
//! maxima, H from its list, W a multiple of width_multiple (k in steps of lcm(H c, m) / (H c)), no h0 or
//! dh_last where it takes none, the sqrt convention it implements, no resets regime (nor extreme for the
//! gated kinds) without resets; shrinks that would leave them are never tried.
//! A backend that declares the bucketed shape plan (constraints.shapes, for kernels compiled per shape) draws
//! B, L, H and k together as one of bucketed_shapes() instead, uniformly among those within the size's
//! max_length and max_elements (the one with the fewest elements when none is), and shrinks to the
//! smaller shapes of the same set, fewest elements first; everything else is drawn and shrunk as above.
//! max_elements = 512 + 40000 s / 100 bounds B L W, so one float128 reference costs about a millisecond
//! at small sizes and a few hundred ms at s = 100 (rglru ~8 us per element on one core).
//!
//! Shrinking (RapidCheck tries shrinks in this order and restarts from the first after each accepted one):
//! B towards min_batch, L towards 1 (integer shrinking: a predicate monotone in L shrinks to its exact
//! threshold), H towards 1, the regime towards the first allowed one (default), h0 and dh_last towards
//! present, k towards 1, sqrt towards bounded. Every shrink only lowers a size, so shrunk requests stay
//! within the limits. The seed does not shrink (other seeds are not simpler, and each try costs a case).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "backends/backend.hpp"
#include "core/generate.hpp"

namespace scancheck {

//! The lengths a built-in schedule (builtin_schedules()) treats specially, ascending: 1, 2, C-1, C, C+1,
//! 2C+1 for each chunk size C, and G C - 1, G C, G C + 1 for each hierarchical schedule's group span G C.
const std::vector<std::int64_t>& boundary_lengths();

//! The lengths of the bucketed shape plan, ascending: boundary_lengths() and 2^n - 1, 2^n, 2^n + 1 for
//! n = 2..11, so that every power-of-two block of a foreign kernel is crossed as well as the built-ins'.
const std::vector<std::int64_t>& bucketed_lengths();

//! The bucketed shapes of an architecture under a backend's constraints, by ascending length: one per
//! length of bucketed_lengths() the constraints allow (fitted to min_length and length_multiple), with B,
//! H and k rotated through 1-3, the head counts allowed (1-4 when any) and 1, 2, 3, 5, 8 (periods 3, 4 and
//! 5 meet every combination within 60 lengths), each narrowed to the constraints and to the generators'
//! largest case (max_width and max_elements at size 100). `min_batch` as GeneratorOptions'.
std::vector<Shape> bucketed_shapes(Architecture, const BackendConstraints&, std::int64_t min_batch = 1);

//! The largest request the generators draw at a RapidCheck size (see the file comment).
struct CaseLimits {
  std::int64_t max_length, max_batch, max_heads, max_width, max_elements;
};
CaseLimits limits_for_size(int size, Architecture);

//! What a property may restrict.
struct GeneratorOptions {
  //! The regimes drawn; the first is what shrinking moves towards. Must not be empty.
  std::vector<Regime> regimes{Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip};
  //! Smallest batch drawn (and shrunk to), e.g. 2 for a batch permutation property.
  std::int64_t min_batch = 1;
  //! A backend's constraints (foreign-backends.md): every request drawn and every shrink stays inside.
  BackendConstraints constraints;
};

//! Requests of one architecture in one io dtype.
rc::Gen<CaseRequest> gen_case_request(Architecture, DType io, const GeneratorOptions& = {});
//! The architecture drawn too (uniformly; shrinks towards scan).
rc::Gen<CaseRequest> gen_case_request(DType io, const GeneratorOptions& = {});
//! Architecture and io dtype drawn (dtype shrinks towards float32).
rc::Gen<CaseRequest> gen_case_request(const GeneratorOptions& = {});

//! `r` moved inside a backend's constraints, changing as little as it can: L, B, W clamped to the maxima,
//! W to a multiple of width_multiple and of H c, H to an allowed count, h0, dh_last, the sqrt convention
//! and the regime to ones it takes (for a fixed plan of cases, such as a report's ladder, which cannot be
//! drawn inside the constraints as the generators do).
CaseRequest fit_into(CaseRequest r, const BackendConstraints& k);

//! Uniform in [0, n) at every size (gen::inRange's range shrinks with the size), shrinking towards 0: for
//! positions and choices that properties draw beside the case. Precondition: n >= 1.
rc::Gen<std::int64_t> gen_index(std::int64_t n);

}  // namespace scancheck
