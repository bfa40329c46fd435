// SPDX-License-Identifier: Apache-2.0
//! @file
//! report.md: the report as GitHub-flavoured Markdown, ready to paste into a pull request or a CI step
//! summary. The verdict comes first, then what ran (tool, executor, coverage, policy), every failing row
//! with its reasons and repro, and one table per architecture with a line per backend (worst tensor,
//! max ULP, bound ratio, baseline ratio, device time when measured, verdict), folded when long. With a joined
//! speed profile (profile.hpp), "Measured speed (your profile)": per backend and shape the backward rows'
//! accuracy beside the profile's summed CUDA time and largest categories, its method and provenance quoted,
//! and the profile rows that did not join with their reasons.
//! Every text taken from the report (labels, backend names foreign workers declare, worker errors and stderr,
//! diagnoses, scope and repro lines) goes through one escaping function (markdown.cpp) and renders as text:
//! no tag, link, emphasis or extra table column comes out of it, on GitHub or any CommonMark renderer.
#pragma once

#include <string>

#include "reports/model.hpp"

namespace scancheck::render {

std::string render_markdown(const reports::Report&);

}  // namespace scancheck::render
