// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the error-vs-length section of the HTML page. Per (architecture, io dtype) and pass,
//! log-log: per row the largest scaled error of its tensors against the case length, one line per backend
//! coloured by schedule, failing backends red, the sequential baseline dashed, the io dtype's unit roundoff
//! marked.
#pragma once

#include <string>

#include "render/palette.hpp"
#include "reports/model.hpp"

namespace scancheck::render::detail {

//! The section: a note, then per group its two panels (forward, backward) and their legend.
std::string error_against_length_section(const reports::Report&, const Palette&);

}  // namespace scancheck::render::detail
