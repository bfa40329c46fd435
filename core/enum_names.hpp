// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to core/: the name tables behind to_string/parse of the small enums (architecture, sqrt
//! gradient, dtype, regime), so every parse error reads the same: `unknown <what> 'x' (expected one of: ...)`.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace scancheck::detail {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
constexpr std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "invalid";  // only reachable through a cast of an out-of-range integer
}

template <class E, std::size_t N>
E parse_name(const NameTable<E, N>& table, std::string_view what, std::string_view name) {
  std::string expected;
  for (const auto& [v, n] : table) {
    if (n == name) return v;
    if (!expected.empty()) expected += ", ";
    expected += n;
  }
  throw InputError("unknown " + std::string(what) + " '" + std::string(name) + "' (expected one of: " + expected + ")");
}

//! The table's names joined by " | ", for help texts (core/choices.hpp).
template <class E, std::size_t N>
std::string choices(const NameTable<E, N>& table) {
  std::string out;
  for (const auto& [v, name] : table) out += (out.empty() ? "" : " | ") + std::string(name);
  return out;
}

}  // namespace scancheck::detail
