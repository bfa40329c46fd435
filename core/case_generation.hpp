// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to core/: what make_case (generate.hpp) prepares before an architecture's generator fills the
//! tensors, and the generator of each family, which the descriptors (architectures.hpp) point at.
//! Every draw has its own counter-based stream, so no value depends on the order or thread that draws it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/case.hpp"
#include "core/generate.hpp"
#include "core/rng.hpp"

namespace scancheck {

//! What a draw is for; several draws of one tensor get distinct streams by purpose.
enum class Purpose : std::uint64_t { value, scale, sign, special, phase, pair };

//! One stream of the case's CounterRng, indexed by flat element position.
struct Draw {
  const CounterRng& rng;
  std::uint64_t stream;
  double normal(std::int64_t i) const { return rng.normal(stream, static_cast<std::uint64_t>(i)); }
  double uniform(std::int64_t i, double lo = 0, double hi = 1) const {
    return rng.uniform(stream, static_cast<std::uint64_t>(i), lo, hi);
  }
  bool chance(std::int64_t i, double p) const { return uniform(i) < p; }
  double sign(std::int64_t i) const { return chance(i, 0.5) ? -1.0 : 1.0; }
  //! Uniform in {0, ..., n-1}.
  std::int64_t below(std::int64_t i, std::int64_t n) const {
    return std::min(n - 1, static_cast<std::int64_t>(uniform(i) * static_cast<double>(n)));
  }
};

struct GenerationContext {
  const CaseRequest& req;
  CounterRng rng;
  std::vector<TensorSpec> layout;
  std::vector<bool> resets;      //!< [B * L], set for the regimes that reset
  std::int64_t clip_start = -1;  //!< clip regime: channels start, start + 4, ... have tiny s (or |a| ~ 1)

  //! The stream of tensor (or shared draw) `name` for `purpose`; fixed forever (generate.cpp).
  Draw draw(std::string_view name, Purpose purpose = Purpose::value) const;
  const Dims& dims(std::string_view name) const;
  Regime regime() const { return req.regime; }
  std::int64_t channels() const;
};

//! The generators of the two families (recurrences.md §1 and §2-§3).
void generate_affine_scan_tensors(Case&, const GenerationContext&);
void generate_gated_layer_tensors(Case&, const GenerationContext&);

}  // namespace scancheck
