// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck history show`: one label's reports from the history (reports/history.hpp) as a trend page,
//! history.html (history_html.hpp) and history.md (history_markdown.hpp), written together into one
//! directory, atomically. What the page shows is history_view.hpp's, computed once for both.
#pragma once

#include <filesystem>

#include "render/history_view.hpp"

namespace scancheck::render {

//! history.html and history.md into `out`, atomically (core/files.hpp): a reader sees the old pair or the
//! new one.
void write_history_page(const HistoryView&, const std::filesystem::path& out);

}  // namespace scancheck::render
