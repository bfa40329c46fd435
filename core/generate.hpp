// SPDX-License-Identifier: Apache-2.0
//! @file
//! Deterministic case generation from (seed, regime, shape): every tensor element is drawn from
//! CounterRng(seed) on its own stream, so a case is regenerated from a few numbers.
//! Regimes (issue 2): default (RecurrentGemma initialisation), long_memory, resets, extreme, clip.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/case.hpp"

namespace scancheck {

enum class Regime { default_, long_memory, resets, extreme, clip };

std::string_view to_string(Regime);
Regime parse_regime(std::string_view name);

struct CaseRequest {
  Architecture architecture = Architecture::rglru;
  Shape shape;
  std::uint64_t seed = 0;
  Regime regime = Regime::default_;
  DType io_dtype = DType::float32;
  SqrtGradient sqrt_gradient = SqrtGradient::bounded;
  bool with_h0 = true;
  bool with_dh_last = true;
  //! Log form: the decays drawn are stored as log a, exactly (the regimes that draw a <= 0 are refused).
  DecaySpace decays = DecaySpace::linear;
  //! Architectures with segment positions: every batch entry starts with a reset (segment_pos[b, 0] = 0).
  bool resets_at_start = false;
};

//! Throws InputError for an invalid shape.
Case make_case(const CaseRequest&);

//! The request's one text form: the CLI fragment that regenerates it (core/case_request.hpp has its JSON).
std::string to_string(const CaseRequest&);

}  // namespace scancheck
