// SPDX-License-Identifier: Apache-2.0
//! @file
//! The io dtypes (float32, bfloat16) and the round-to-nearest-even conversion to bfloat16.
//! Contract: NaN stays NaN (quiet, sign kept), +-Inf stays +-Inf, finite values round to nearest even and
//! overflow to +-Inf exactly as IEEE rounding to an 8-bit-exponent, 8-bit-significand format does.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

namespace scancheck {

enum class DType { float32, bfloat16 };

std::string_view to_string(DType);
DType parse_dtype(std::string_view name);

//! Unit roundoff of the dtype: 2^-24 for float32 (24-bit significand), 2^-8 for bfloat16 (8-bit).
constexpr double unit_roundoff(DType d) { return d == DType::float32 ? 0x1p-24 : 0x1p-8; }

//! The bits of the bfloat16 nearest to `x` (ties to even).
constexpr std::uint16_t bf16_bits(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0)
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // NaN: keep sign, force quiet
  const std::uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<std::uint16_t>((bits + 0x7fffu + lsb) >> 16);
}
constexpr float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }
//! `x` rounded to the nearest bfloat16, returned as the float32 that represents it exactly.
constexpr float round_to_bf16(float x) { return bf16_to_float(bf16_bits(x)); }
//! `x` rounded to the io dtype.
constexpr float round_to(DType d, float x) { return d == DType::float32 ? x : round_to_bf16(x); }

}  // namespace scancheck
