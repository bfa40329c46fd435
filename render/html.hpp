// SPDX-License-Identifier: Apache-2.0
//! @file
//! The HTML tolerance report (docs/architecture.md, "Reports"): one self-contained HTML5 page rendered from the report
//! model, for reading in a browser or attaching to a CI run. Inline CSS and inline SVG only: no scripts, no
//! fonts, no images, no URL of any kind (the SVG namespace aside), so the file opens anywhere, offline.
//!
//! Sections, in order (each with a stable id):
//!   summary               the verdict banner (PASS green / FAIL red), label, generation time, tool, environment,
//!                         method, coverage and the policy's numbers
//!   error-vs-length       per (architecture, io dtype) and pass, log-log: per row the largest scaled error
//!                         (max |got - exact| / max |exact|) of its tensors against the case length, one line
//!                         per backend coloured by schedule family, failing backends red, the same-precision
//!                         sequential baseline dashed
//!   ulp-histograms        per (architecture, io dtype): the ulp histograms of every tensor summed, per pass
//!   bound-ratio-heat-map  per architecture: backend x tensor, the largest bound ratio over the backend's rows
//!   verdict-table         per architecture and backend: worst tensor, max ulp, bound and baseline ratios,
//!                         rows, verdict; then every failing row with its reasons and repro line
//!   measured-speed        with a joined speed profile (profile.hpp): per backend and shape the backward rows'
//!                         accuracy beside the profile's summed CUDA time and largest categories, the profile's
//!                         method quoted, its provenance, and the profile rows that did not join with why
//!   scope                 what the numbers do and do not mean (Report::scope)
//! Every text taken from the report is escaped; non-finite numbers never reach an SVG coordinate.
#pragma once

#include <string>

#include "reports/model.hpp"

namespace scancheck::render {

//! The page. A report without rows renders a page that says nothing was checked.
std::string render_html(const reports::Report&);

}  // namespace scancheck::render
