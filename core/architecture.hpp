// SPDX-License-Identifier: Apache-2.0
//! @file
//! The four recurrences of spec/recurrences.md and the names they go by on the command line and on disk.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace scancheck {

enum class Architecture { scan, complex_scan, rglru, complex_rglru };

inline constexpr std::array<Architecture, 4> all_architectures{
    Architecture::scan, Architecture::complex_scan, Architecture::rglru, Architecture::complex_rglru};

std::string_view to_string(Architecture);
//! Throws InputError naming the accepted values when `name` is not one of them.
Architecture parse_architecture(std::string_view name);

constexpr bool is_complex(Architecture a) {
  return a == Architecture::complex_scan || a == Architecture::complex_rglru;
}
//! The gated layers (RG-LRU kinds) against the plain affine scans.
constexpr bool is_gated(Architecture a) {
  return a == Architecture::rglru || a == Architecture::complex_rglru;
}

//! How dq is formed from dm (recurrences.md §2): "exact" 1/(2 sqrt q), or RecurrentGemma's "bounded"
//! SqrtBoundDerivative 1/max(2 sqrt q, 1/1000).
enum class SqrtGradient { bounded, exact };
std::string_view to_string(SqrtGradient);
SqrtGradient parse_sqrt_gradient(std::string_view name);

}  // namespace scancheck
