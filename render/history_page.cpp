// SPDX-License-Identifier: Apache-2.0
#include "render/history_page.hpp"

#include <string>

#include "core/files.hpp"
#include "render/history_html.hpp"
#include "render/history_markdown.hpp"

namespace scancheck::render {

void write_history_page(const HistoryView& v, const std::filesystem::path& out) {
  const std::string html = render_history_html(v), markdown = render_history_markdown(v);
  write_directory_atomically(out, [&](const std::filesystem::path& tmp) {
    write_file(tmp / "history.html", {html});
    write_file(tmp / "history.md", {markdown});
  });
}

}  // namespace scancheck::render
