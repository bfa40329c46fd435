// SPDX-License-Identifier: Apache-2.0
//! @file
//! history.html: the history view (history_view.hpp) as one self-contained page (no script, no external
//! resource, every outside text escaped). Sections: the summary (the latest report's banner, the database, the
//! reports' span, the query), the trends table (a backend per line, linked to its section), and a section per
//! backend with the plot of each of its tensors (plots/history_trend.hpp).
#pragma once

#include <string>

#include "render/history_view.hpp"

namespace scancheck::render {

std::string render_history_html(const HistoryView&);

}  // namespace scancheck::render
