// SPDX-License-Identifier: Apache-2.0
#include "render/report_files.hpp"

#include <string>

#include "core/files.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"

namespace scancheck::render {

void write_report(const reports::Report& report, const std::filesystem::path& dir) {
  const std::string json = to_json_text(report);
  const std::string markdown = render_markdown(report), html = render_html(report);
  write_directory_atomically(dir, [&](const std::filesystem::path& tmp) {
    write_file(tmp / "report.json", {json});
    write_file(tmp / "report.md", {markdown});
    write_file(tmp / "report.html", {html});
  });
}

}  // namespace scancheck::render
