// SPDX-License-Identifier: Apache-2.0
//! @file
//! report.md: the report as GitHub-flavoured Markdown, ready to paste into a pull request or a CI step
//! summary. The verdict comes first, then what ran (tool, executor, coverage, policy), every failing row
//! with its reasons and repro, and one table per architecture with a line per backend (worst tensor,
//! max ULP, bound ratio, baseline ratio, device time when measured, verdict), folded when long.
#pragma once

#include <string>

#include "reports/model.hpp"

namespace scancheck::reports {

std::string render_markdown(const Report&);

}  // namespace scancheck::reports
