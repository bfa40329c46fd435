// SPDX-License-Identifier: Apache-2.0
//! @file
//! Poison and guard regions around every output buffer, shared by the executors. Before a run, an output's
//! elements hold a poison NaN that no arithmetic produces (a signalling NaN for float32; a NaN without the
//! quiet bit for bf16, which rounding never yields) and `guard` elements on each side hold a sentinel.
//! After the run every element must have been written and every sentinel must be intact.
//! C++17.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/kernels/numeric.hpp"

namespace scancheck::backends {

inline constexpr std::int64_t guard_elements = 64;

//! The poison of a float32 or bf16 output: one bit pattern, its upper half for bf16.
template <class T>
T poison_value() {
  if constexpr (std::is_same_v<T, float>) return kernels::bits_float(0x7fa5a5a5u);
  else return kernels::bf16{0x7fa5u};
}

//! The guards' sentinel, a finite value no kernel writes by accident.
template <class T>
T sentinel_value() {
  if constexpr (std::is_same_v<T, float>) return kernels::bits_float(0x5a5a5a5au);
  else return kernels::bf16{0x5a5au};
}

template <class T>
bool same_bits(const T& x, const T& y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

//! The bits of a float32 or bf16 value as an unsigned integer of its size.
inline std::uint32_t value_bits(float x) { return kernels::float_bits(x); }
inline std::uint16_t value_bits(kernels::bf16 x) { return x.bits; }

//! Writes an output's image at `image` (guard, n elements, guard): sentinels and poison.
template <class T>
void poison_image(T* image, std::int64_t n) {
  std::fill(image, image + guard_elements, sentinel_value<T>());
  std::fill(image + guard_elements, image + guard_elements + n, poison_value<T>());
  std::fill(image + guard_elements + n, image + 2 * guard_elements + n, sentinel_value<T>());
}

//! An output's host image: guard, elements, guard.
template <class T>
std::vector<T> poisoned_image(std::int64_t n) {
  std::vector<T> image(static_cast<std::size_t>(n + 2 * guard_elements));
  poison_image(image.data(), n);
  return image;
}

//! Checks an output's image (guard, n elements, guard, starting at `image`) after a run and converts its
//! elements to float. Throws naming the output. One pass that converts every element and counts the
//! poisoned ones without a branch (it runs at copy speed); the first poisoned index is looked for only
//! when there is one.
template <class T>
void unpack_image(const T* image, std::int64_t n, float* out, const std::string& name) {
  for (std::int64_t k = 0; k < guard_elements; ++k)
    if (!same_bits(image[k], sentinel_value<T>()) || !same_bits(image[guard_elements + n + k], sentinel_value<T>()))
      throw std::runtime_error("output " + name + ": a guard region around it was overwritten");
  const T* values = image + guard_elements;
  const auto poison = value_bits(poison_value<T>());
  std::int64_t unwritten = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    unwritten += value_bits(values[i]) == poison;
    out[i] = kernels::to_float(values[i]);
  }
  if (unwritten == 0) return;
  std::int64_t first = 0;
  while (value_bits(values[first]) != poison) ++first;
  throw std::runtime_error("output " + name + ": " + std::to_string(unwritten) + " of " + std::to_string(n) +
                           " elements never written (first at flat index " + std::to_string(first) + ")");
}

template <class T>
void unpack_image(const std::vector<T>& image, std::int64_t n, float* out, const std::string& name) {
  unpack_image(image.data(), n, out, name);
}

}  // namespace scancheck::backends
