// SPDX-License-Identifier: Apache-2.0
//! @file
//! history.md: the history view (history_view.hpp) as a summary in GitHub-flavoured Markdown: the reports'
//! span, the latest report's failing rows, the trends table, and the failures of the latest report with their
//! verdict and reason. Outside text is escaped as report.md's is (markdown.hpp).
#pragma once

#include <string>

#include "render/history_view.hpp"

namespace scancheck::render {

std::string render_history_markdown(const HistoryView&);

}  // namespace scancheck::render
