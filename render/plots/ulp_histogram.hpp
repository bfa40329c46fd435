// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the ulp-histograms section of the HTML page. Per (architecture, io dtype): the ulp
//! histograms of every tensor of every row summed, forward and backward side by side on a log count axis,
//! with how many elements were correctly rounded and within 1 ulp.
#pragma once

#include <string>

#include "reports/model.hpp"

namespace scancheck::render::detail {

//! The section: a note, then a figure per group.
std::string ulp_histogram_section(const reports::Report&);

}  // namespace scancheck::render::detail
