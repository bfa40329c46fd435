// SPDX-License-Identifier: Apache-2.0
#include "core/architecture.hpp"

#include "core/architectures.hpp"
#include "core/choices.hpp"
#include "core/enum_names.hpp"

namespace scancheck {
namespace {

constexpr detail::NameTable<SqrtGradient, 2> sqrt_gradient_names{{
    {SqrtGradient::bounded, "bounded"},
    {SqrtGradient::exact, "exact"},
}};

constexpr detail::NameTable<DecaySpace, 2> decay_space_names{{
    {DecaySpace::linear, "linear"},
    {DecaySpace::log, "log"},
}};

constexpr detail::NameTable<Direction, 2> direction_names{{
    {Direction::forward, "forward"},
    {Direction::backward, "backward"},
}};

}  // namespace

// The names are the descriptors' (core/architectures.hpp): one place.
std::string_view to_string(Architecture a) {
  return static_cast<std::size_t>(a) < architecture_descriptors.size() ? describe(a).name : "invalid";
}

namespace {
detail::NameTable<Architecture, architecture_descriptors.size()> architecture_names() {
  detail::NameTable<Architecture, architecture_descriptors.size()> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = {architecture_descriptors[i].id, architecture_descriptors[i].name};
  return names;
}
}  // namespace

Architecture parse_architecture(std::string_view name) {
  return detail::parse_name(architecture_names(), "architecture", name);
}
std::string architecture_choices() { return detail::choices(architecture_names()); }
std::string sqrt_gradient_choices() { return detail::choices(sqrt_gradient_names); }

std::string_view to_string(SqrtGradient g) { return detail::name_of(sqrt_gradient_names, g); }
SqrtGradient parse_sqrt_gradient(std::string_view name) {
  return detail::parse_name(sqrt_gradient_names, "sqrt gradient", name);
}

std::string decay_space_choices() { return detail::choices(decay_space_names); }
std::string_view to_string(DecaySpace f) { return detail::name_of(decay_space_names, f); }
DecaySpace parse_decay_space(std::string_view name) {
  return detail::parse_name(decay_space_names, "decay space", name);
}

std::string_view to_string(Direction d) { return detail::name_of(direction_names, d); }
Direction parse_direction(std::string_view name) { return detail::parse_name(direction_names, "pass", name); }

}  // namespace scancheck
