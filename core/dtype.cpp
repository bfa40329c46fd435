// SPDX-License-Identifier: Apache-2.0
#include "core/dtype.hpp"

#include "core/choices.hpp"
#include "core/enum_names.hpp"

namespace scancheck {
namespace {

// Only the canonical names: case.json files and backend ids must spell a dtype one way.
constexpr detail::NameTable<DType, 2> dtype_names{{
    {DType::float32, "float32"},
    {DType::bfloat16, "bfloat16"},
}};

}  // namespace

std::string_view to_string(DType d) { return detail::name_of(dtype_names, d); }
DType parse_dtype(std::string_view name) { return detail::parse_name(dtype_names, "dtype", name); }
std::string dtype_choices() { return detail::choices(dtype_names); }

}  // namespace scancheck
