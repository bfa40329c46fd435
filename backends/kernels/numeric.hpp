// SPDX-License-Identifier: Apache-2.0
//! @file
//! The arithmetic kernels share between host and device: bfloat16 storage with round-to-nearest-even (bit
//! identical to core/dtype.hpp and to the device's __float2bfloat16_rn, NaN kept quiet), io loads and
//! stores, and a complex float whose product is evaluated as (ac - bd) + i(ad + bc), like the reference.
//! C++17.
#pragma once

#include <cstdint>
#include <cstring>

#include "backends/kernels/program.hpp"

namespace scancheck::kernels {

SC_HD std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

SC_HD float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

//! bfloat16 storage: the high half of a float32.
struct bf16 {
  std::uint16_t bits;
};

SC_HD bf16 to_bf16(float x) {
  const std::uint32_t u = float_bits(x);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
    return {static_cast<std::uint16_t>((u >> 16) | 0x0040u)};  // NaN: keep sign, force quiet
  return {static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
}
SC_HD float to_float(bf16 x) { return bits_float(static_cast<std::uint32_t>(x.bits) << 16); }
SC_HD float to_float(float x) { return x; }

//! Storage of an io tensor element: float, or bf16 rounded to nearest even on the way in.
template <class IO>
SC_HD void store(IO* p, std::int64_t i, float v);
template <>
SC_HD void store<float>(float* p, std::int64_t i, float v) {
  p[i] = v;
}
template <>
SC_HD void store<bf16>(bf16* p, std::int64_t i, float v) {
  p[i] = to_bf16(v);
}

struct cfloat {
  float re, im;
};

SC_HD cfloat operator+(cfloat x, cfloat y) { return {x.re + y.re, x.im + y.im}; }
SC_HD cfloat operator*(cfloat x, cfloat y) { return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re}; }
SC_HD cfloat conj(cfloat x) { return {x.re, -x.im}; }
SC_HD float conj(float x) { return x; }

//! 1 and 0 of the field.
template <class F>
SC_HD F one();
template <>
SC_HD float one<float>() {
  return 1.0f;
}
template <>
SC_HD cfloat one<cfloat>() {
  return {1.0f, 0.0f};
}
template <class F>
SC_HD F zero() {
  return F{};
}

}  // namespace scancheck::kernels
