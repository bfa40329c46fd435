// SPDX-License-Identifier: Apache-2.0
//! @file
//! The high-precision reference of a case: every output of docs/recurrences.md (forward and backward),
//! evaluated in Boost.Multiprecision and rounded once to float64, with a per-element first-order bound on
//! the rounding error a float32 sequential evaluation of the same formulas makes (running error analysis,
//! docs/architecture.md "Comparison and tolerance"; reference/bounded.hpp). The bounds are propagated beside a
//! float64 evaluation of the same code: they are magnitudes and need only a few correct digits.
//!
//! Precision::tiered evaluates in double with a bound on the double evaluation's own error
//! (reference/bounded.hpp, `Certifies`); an element whose bound is at most 1/1000 of its float32 bound is
//! certified, and every (batch, head) block holding an element that is not is recomputed in float128.
//!
//! Work is split into (batch, head) blocks, independent except for the parameter gradients, which are
//! summed over the batch in ascending order after all blocks finish, so results do not depend on the thread
//! count. A sampled run computes only the chosen blocks at full length; `covered` then says which elements
//! hold values (parameter gradients of a head are covered only when all of its batch entries are sampled).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.hpp"
#include "core/tensor.hpp"

namespace scancheck {

//! The scalar the reference evaluates in. float128 is the default; mpfr50 validates it; tiered is double
//! certified element by element, float128 where it is not (what judging a float32 backend needs, at
//! double speed); float64 and float32 are the same templated code at working precision (baselines and
//! bound checks, not references).
enum class Precision { float128, mpfr50, tiered, float64, float32 };
std::string_view to_string(Precision);
//! "float128" | "mpfr50" | "tiered" (and "float64", "float32")
Precision parse_precision(std::string_view name);

struct Block {
  std::int64_t batch;
  std::int64_t head;
  friend bool operator==(const Block&, const Block&) = default;
};

struct ReferenceOptions {
  Precision precision = Precision::float128;
  int threads = 0;     //!< 0: all hardware threads
  bool bounds = true;  //!< also compute the float32 rounding-error bounds
  //! With bounds: also the strict bounds, of scancheck's own formulation alone in every evaluation order (for
  //! notes on passing runs that lose accuracy a better formulation keeps; docs/tolerance.md).
  bool strict_bounds = false;
  //! The bounds hold for every evaluation order of the scans (reference/order_free_bound.hpp). false: for
  //! the sequential order alone, the bounds before 2026-12, kept to measure what the order-free ones cost
  //! (tests/bench/bound_cost.cpp); not with Precision::tiered, whose certification is order-free.
  bool bounds_every_order = true;
  std::optional<std::vector<Block>> sample;  //!< nullopt: every block
  //! Set (SIGINT, SIGTERM) to abandon the computation between blocks: compute_reference throws Interrupted.
  const std::atomic<bool>* stop = nullptr;
};

//! How a tiered reference got its values.
struct ReferenceTiers {
  //! Elements whose double value was not certified (their block's float128 values replace it).
  std::int64_t uncertified_elements = 0;
  //! The blocks recomputed in float128, batch-major.
  std::vector<Block> float128_blocks;
};

struct ReferenceResult {
  //! Output name -> values, for every output of tensor_layout(arch, shape, TensorRole::output).
  std::map<std::string, Tensor<double>> values;
  //! Output name -> bound on |float32 sequential evaluation - exact| per element (empty if !bounds), covering
  //! every accepted formulation.
  std::map<std::string, Tensor<double>> bounds;
  //! The same for scancheck's own formulation alone (empty unless ReferenceOptions::strict_bounds).
  std::map<std::string, Tensor<double>> strict_bounds;
  //! Sampled runs only: output name -> 1 where the element was computed.
  std::map<std::string, Tensor<std::uint8_t>> covered;
  std::int64_t blocks_computed = 0;
  std::int64_t blocks_total = 0;
  std::optional<ReferenceTiers> tiers;  //!< Precision::tiered only
};

//! Throws InputError if the case is inconsistent or a sampled block is out of range.
ReferenceResult compute_reference(const Case&, const ReferenceOptions& = {});

//! Every (batch, head) block of the case's shape, batch-major.
std::vector<Block> all_blocks(const Shape&);

}  // namespace scancheck
