// SPDX-License-Identifier: Apache-2.0
//! @file
//! The shape of a case: batch B, length L, width W (stored real channels: the merged [Re | Im] width for the
//! complex kinds) and heads H (diagonal blocks of the gate projections; for the plain scans it only cuts
//! channels into independently verifiable blocks).
#pragma once

#include <cstdint>
#include <string>

#include "core/architecture.hpp"

namespace scancheck {

struct Shape {
  std::int64_t batch = 1;
  std::int64_t length = 1;
  std::int64_t width = 1;
  std::int64_t heads = 1;

  friend bool operator==(const Shape&, const Shape&) = default;
};

std::string to_string(const Shape&);  // "B=2 L=33 W=16 H=2"

//! Channels that carry a state: W for the real kinds, W/2 complex channels for the complex kinds.
std::int64_t state_channels(Architecture, const Shape&);
//! Per-head block sizes. Gate inputs per head (K_in = W/H) and state channels per head (K_out).
std::int64_t head_inputs(Architecture, const Shape&);
std::int64_t head_channels(Architecture, const Shape&);

//! Throws InputError naming the problem: non-positive sizes, W not divisible by H, odd W for the complex
//! kinds, W/2 not divisible by H for the complex kinds (heads never cut a complex channel), or a case whose
//! float32 tensors plus a float64 reference of its outputs would exceed the machine's physical memory.
void validate(Architecture, const Shape&);

}  // namespace scancheck
