// SPDX-License-Identifier: Apache-2.0
//! @file
//! A report's directory as `scancheck report` and `scancheck render` write it: report.json (the model,
//! reports/model.hpp) beside its two renderings, report.md (markdown.hpp) and report.html (html.hpp).
#pragma once

#include <filesystem>

#include "reports/model.hpp"

namespace scancheck::render {

//! Writes report.json, report.md and report.html into `dir`, atomically (all three or none).
void write_report(const reports::Report&, const std::filesystem::path& dir);

}  // namespace scancheck::render
