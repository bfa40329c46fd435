// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the bound-ratio-heat-map section of the HTML page. Per architecture, backend x
//! tensor: the largest bound ratio over the backend's rows (both passes), on the colour scale of
//! palette.hpp; cells without a bound grey, unmeasured ones blank, cells a row failed outlined.
#pragma once

#include <string>

#include "render/palette.hpp"
#include "reports/model.hpp"

namespace scancheck::render::detail {

//! The section: a note, then a heat map per architecture.
std::string bound_ratio_heat_map_section(const reports::Report&, const Palette&);

}  // namespace scancheck::render::detail
