// SPDX-License-Identifier: Apache-2.0
//! @file
//! The four recurrences of docs/recurrences.md, their names on the command line and on disk, and the
//! conventions they share. What each architecture *is* (its tensors, how its cases are generated, which
//! features it has) is its descriptor: core/architectures.hpp.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace scancheck {

enum class Architecture { scan, complex_scan, rglru, complex_rglru };

inline constexpr std::array<Architecture, 4> all_architectures{Architecture::scan, Architecture::complex_scan,
                                                               Architecture::rglru, Architecture::complex_rglru};

std::string_view to_string(Architecture);
//! Throws InputError naming the accepted values when `name` is not one of them.
Architecture parse_architecture(std::string_view name);

//! How dq is formed from dm (recurrences.md §2): "exact" 1/(2 sqrt q), or RecurrentGemma's "bounded"
//! SqrtBoundDerivative 1/max(2 sqrt q, 1/1000).
enum class SqrtGradient { bounded, exact };
std::string_view to_string(SqrtGradient);
SqrtGradient parse_sqrt_gradient(std::string_view name);

//! How a plain scan's decays reach a kernel (foreign-backends.md, "decays"): the decays a themselves, or
//! their logarithms, the parameterisation of Mamba- and FLA-style kernels. A log-form case carries log a
//! exactly as the input `log_a` (a = exp(log_a) is never rounded by scancheck), and its gradient is
//! dlog_a = a da in place of da.
enum class DecaySpace { linear, log };
std::string_view to_string(DecaySpace);
DecaySpace parse_decay_space(std::string_view name);

//! The two passes of a run: the forward (h, y, h_last) and the backward (every gradient). A verdict is
//! never called a pass: a row *passes*, its direction is forward or backward.
enum class Direction { forward, backward };
std::string_view to_string(Direction);
Direction parse_direction(std::string_view name);

}  // namespace scancheck
