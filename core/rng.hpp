// SPDX-License-Identifier: Apache-2.0
//! @file
//! The counter-based random number generator of scancheck: Philox-4x32-10 (Salmon et al., SC'11) keyed by
//! the seed, counted by (stream, index). Any element of any generated tensor is a pure function of
//! (seed, stream, index), so it can be produced independently, in any order, on any thread or machine.
//! Derived variates (uniform, normal) use only IEEE basic operations, compiled without contraction, so they
//! are bit-identical on every IEEE-754 machine.
#pragma once

#include <array>
#include <cstdint>

namespace scancheck {

//! One Philox-4x32-10 block: 4 words from a 128-bit counter and a 64-bit key.
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key);

class CounterRng {
 public:
  explicit CounterRng(std::uint64_t seed) : seed_(seed) {}
  std::uint64_t seed() const { return seed_; }

  //! The raw 128 bits at (stream, index).
  std::array<std::uint32_t, 4> bits(std::uint64_t stream, std::uint64_t index) const;
  //! Uniform in [0, 1) with 53 random bits.
  double uniform(std::uint64_t stream, std::uint64_t index) const;
  //! Uniform in [lo, hi).
  double uniform(std::uint64_t stream, std::uint64_t index, double lo, double hi) const;
  //! Standard normal.
  double normal(std::uint64_t stream, std::uint64_t index) const;

 private:
  std::uint64_t seed_;
};

}  // namespace scancheck
