// SPDX-License-Identifier: Apache-2.0
//! @file
//! The names an option accepts, for help texts, "scan | complex_scan | rglru | complex_rglru": read from the
//! same tables that to_string and parse use (core/enum_names.hpp, the architecture descriptors), so a help
//! text cannot fall behind a new architecture, regime, dtype or convention.
#pragma once

#include <string>

namespace scancheck {

std::string architecture_choices();   //!< from core/architectures.hpp's descriptors
std::string regime_choices();         //!< core/generate.hpp's regimes
std::string dtype_choices();          //!< core/dtype.hpp's io dtypes
std::string sqrt_gradient_choices();  //!< core/architecture.hpp's sqrt-gradient conventions
std::string decay_space_choices();    //!< core/architecture.hpp's decay forms

}  // namespace scancheck
