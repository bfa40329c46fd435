// SPDX-License-Identifier: Apache-2.0
#include "core/architecture.hpp"

#include "core/enum_names.hpp"

namespace scancheck {
namespace {

constexpr detail::NameTable<Architecture, 4> architecture_names{{
    {Architecture::scan, "scan"},
    {Architecture::complex_scan, "complex_scan"},
    {Architecture::rglru, "rglru"},
    {Architecture::complex_rglru, "complex_rglru"},
}};

constexpr detail::NameTable<SqrtGradient, 2> sqrt_gradient_names{{
    {SqrtGradient::bounded, "bounded"},
    {SqrtGradient::exact, "exact"},
}};

constexpr detail::NameTable<Direction, 2> direction_names{{
    {Direction::forward, "forward"},
    {Direction::backward, "backward"},
}};

}  // namespace

std::string_view to_string(Architecture a) { return detail::name_of(architecture_names, a); }
Architecture parse_architecture(std::string_view name) {
  return detail::parse_name(architecture_names, "architecture", name);
}

std::string_view to_string(SqrtGradient g) { return detail::name_of(sqrt_gradient_names, g); }
SqrtGradient parse_sqrt_gradient(std::string_view name) {
  return detail::parse_name(sqrt_gradient_names, "sqrt gradient", name);
}

std::string_view to_string(Direction d) { return detail::name_of(direction_names, d); }
Direction parse_direction(std::string_view name) { return detail::parse_name(direction_names, "pass", name); }

}  // namespace scancheck
