// SPDX-License-Identifier: Apache-2.0
// Text a report takes from outside (its label, backend names foreign workers declare, a worker's error and
// stderr tail, the runtime and provenance its hello declares, diagnoses, notes, reasons, scope and repro
// lines) renders as text in report.md and
// report.html: none of its tags survives, report.md's tables keep their columns, and the escaped forms are
// there. WritesTheHostileReportForTheBrowserTest writes the report.json that html_hostile_render_test
// renders with `scancheck render` and loads in headless Chromium (render_hostile_html.sh): no script of it
// may run there.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "render/html.hpp"
#include "render/markdown.hpp"
#include "reports/model.hpp"

namespace scancheck::render {
namespace {

namespace fs = std::filesystem;
using namespace reports;

// The payloads: each would change the page's title if a browser ran it, or break a Markdown table or list.
const std::string script = "<script>document.title='PWNED'</script>";
const std::string image = "<img src=x onerror=\"document.title='PWNED'\">";
const std::string label = script + " | *bold* [x](javascript:alert(1))";

//! A backend name outside the grammar, as only a report built in memory has: every syntax at once.
const std::string lawless_backend = "rglru/x|y`*" + script + "@fp32";
//! The worst a foreign worker may declare (provider [a-z0-9_-]+, variant [A-Za-z0-9_.+-]+): emphasis in
//! Markdown when unescaped.
const std::string foreign_backend = "pwn-ed_:rglru/_PWNED_.x+y-@fp32";

TensorEntry tensor(const std::string& name, bool pass) {
  TensorEntry t;
  t.pass = pass;
  t.metrics.name = name;
  t.metrics.compared = 1056;
  t.metrics.max_exact = 3.5;
  t.metrics.max_abs = pass ? 1e-6 : 1e-2;
  t.metrics.max_rel = t.metrics.max_abs;
  t.metrics.ulp_max = pass ? 2 : 9000;
  t.metrics.max_bound = 1e-5;
  t.metrics.bound_ratio = t.metrics.max_abs / t.metrics.max_bound;
  t.metrics.ulp_histogram[0] = t.metrics.compared;
  if (!pass) t.reasons = {"y: " + image + " is *9x* its bound | `x`"};
  return t;
}

Row row(const std::string& backend, Direction direction, Verdict verdict) {
  Row r;
  r.case_id = "c0<i>|x";
  r.shape = {2, 33, 16, 2};
  r.architecture = Architecture::rglru;
  r.backend = backend;
  r.direction = direction;
  r.verdict = verdict;
  r.seed = 7;
  r.repro = "scancheck check --arch rglru --backend '" + backend + "' | " + script;
  return r;
}

//! A report of one case: the sequential baseline passes with a note; `backend` fails forward (a tensor
//! with a reason and a diagnosis) and faults backward (a worker error and a stderr tail). Every text a
//! worker, a user or a hand-edited report.json writes carries a payload; the rest is schema-valid.
Report hostile_report(const std::string& backend) {
  Report r;
  r.label = label;
  r.generated_at = "2026-12-03T12:00:00Z";
  r.tool = {"scancheck", "0.4.0 <b>", "9d58afa|x"};
  r.environment = {"host", std::nullopt, "GCC <12>", std::nullopt, "<svg onload=\"document.title='PWNED'\">", 2};
  r.method = {"custom", "float128",  "the bound", "rglru/sequential@fp32", "full", 7, "{pwn,evil}:*|" + script,
              {33},     std::nullopt};
  r.coverage.backends_total = 2;
  r.scope = {script + " | scope", "1. not a list | *x*", "# not a heading"};
  CaseEntry c;
  c.id = "c0<i>|x";
  c.request.architecture = Architecture::rglru;
  c.request.shape = {2, 33, 16, 2};
  c.request.seed = 7;
  c.elements_total = c.elements_verified = 1056;
  c.repro = "--arch rglru --shape 2,33,16,2 --seed 7";
  r.cases.push_back(c);

  Row baseline = row("rglru/sequential@fp32", Direction::forward, Verdict::pass);
  baseline.tensors = {tensor("y", true)};
  baseline.notes = {"<u>note</u> | *x*"};
  Row failing = row(backend, Direction::forward, Verdict::fail);
  failing.tensors = {tensor("y", false)};
  failing.diagnosis = {"<b>t = 17</b> | *w* = `3` ![img](x)"};
  Row fault = row(backend, Direction::backward, Verdict::fault);
  fault.error = image + " | not a column\n# not a heading";
  fault.log = "Traceback | first line\n```\n" + script + "\n- not a list\n\n===\r  </pre><b>bold</b>\n";
  fault.missing = {"dx<i>"};
  r.rows = {baseline, failing, fault};
  r.providers = {{"pwn-ed_", "--worker 'evil | " + script + "'", "python " + image + " | *3*", "pkg`x`", std::nullopt,
                  "# " + script}};
  summarise(r);
  return r;
}

//! The '|' of `line` that split a GFM table row: those without an odd run of backslashes before them.
std::size_t column_separators(std::string_view line) {
  std::size_t n = 0, backslashes = 0;
  for (const char ch : line) {
    if (ch == '|' && backslashes % 2 == 0) ++n;
    backslashes = ch == '\\' ? backslashes + 1 : 0;
  }
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

//! The HTML tags of `text` (its '<' followed by a letter, '/' or '!'), by name.
std::set<std::string> tags_in(const std::string& text) {
  static const std::regex tag(R"(<[/!]?([A-Za-z][A-Za-z0-9-]*))");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), tag); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

void expect_markdown_shows_it_as_text(const std::string& md) {
  // No tag but the folds of long tables: every '<' of outside text is an entity.
  for (const std::string& t : tags_in(md)) EXPECT_TRUE(t == "details" || t == "summary") << "<" << t;
  EXPECT_EQ(md.find("<script"), std::string::npos);
  EXPECT_NE(md.find("&lt;script&gt;document.title='PWNED'&lt;/script&gt; \\| \\*bold\\* \\[x\\](javascript:alert(1))"),
            std::string::npos);
  EXPECT_NE(md.find("run failed: &lt;img src=x onerror=\"document.title='PWNED'\"&gt; \\| not a column "
                    "# not a heading"),
            std::string::npos);
  EXPECT_NE(md.find("where: &lt;b&gt;t = 17&lt;/b&gt; \\| \\*w\\* = \\`3\\` !\\[img\\](x)"), std::string::npos);
  EXPECT_NE(md.find("- &lt;script&gt;"), std::string::npos) << "a scope line";
  EXPECT_NE(md.find("- 1\\. not a list"), std::string::npos);
  EXPECT_NE(md.find("- \\# not a heading"), std::string::npos);
  // The stderr tail: a line each, none opening a fence, a list, a heading or a setext underline.
  EXPECT_NE(md.find("its stderr ended with:\\\n    Traceback \\| first line\\\n    \\`\\`\\`\\\n    &lt;script&gt;"),
            std::string::npos);
  EXPECT_NE(md.find("\\\n    \\- not a list\\\n    \\===\\\n      &lt;/pre&gt;&lt;b&gt;bold&lt;/b&gt;\n"),
            std::string::npos);
  for (const std::string& line : lines_of(md)) EXPECT_EQ(line.find("```"), std::string::npos) << line;
  // A worker's hello: its runtime and provenance in the providers' table.
  EXPECT_NE(md.find("| pwn-ed\\_ | \\--worker 'evil \\| &lt;script&gt;"), std::string::npos);
  EXPECT_NE(md.find("| python &lt;img src=x onerror=\"document.title='PWNED'\"&gt; \\| \\*3\\* | package "
                    "pkg\\`x\\`, commit # &lt;script&gt;"),
            std::string::npos);
}

//! Every line of a table has the header's columns; the row of `backend` (escaped as `escaped`) is there.
void expect_tables_keep_their_columns(const std::string& md, const std::string& escaped) {
  std::size_t header = 0, rows_of_backend = 0, tables = 0;
  for (const std::string& line : lines_of(md)) {
    if (!line.starts_with("|")) {
      header = 0;
      continue;
    }
    if (header == 0) {
      header = column_separators(line);
      ++tables;
    }
    EXPECT_EQ(column_separators(line), header) << line;
    rows_of_backend += line.starts_with("| " + escaped + " |");
  }
  EXPECT_EQ(tables, 3u) << "the facts, the foreign providers and the rglru table";
  EXPECT_EQ(rows_of_backend, 1u) << escaped;
}

TEST(UntrustedText, MarkdownShowsItAsTextAndKeepsTheTableColumns) {
  const std::string md = render_markdown(hostile_report(lawless_backend));
  expect_markdown_shows_it_as_text(md);
  const std::string escaped = "rglru/x\\|y\\`\\*&lt;script&gt;document.title='PWNED'&lt;/script&gt;@fp32";
  expect_tables_keep_their_columns(md, escaped);
  EXPECT_NE(md.find("- **" + escaped + "** forward on c0&lt;i&gt;\\|x (B=2 L=33 W=16 H=2): **fail**"),
            std::string::npos);
  EXPECT_NE(md.find("repro: scancheck check --arch rglru --backend '" + escaped + "' \\| &lt;script&gt;"),
            std::string::npos);
}

TEST(UntrustedText, MarkdownEscapesAForeignNameOnlyWhereItWouldBeSyntax) {
  const std::string md = render_markdown(hostile_report(foreign_backend));
  expect_markdown_shows_it_as_text(md);
  expect_tables_keep_their_columns(md, "pwn-ed\\_:rglru/\\_PWNED\\_.x+y-@fp32");
  // Inside a word GFM reads no '_': a built-in name stays as it is.
  EXPECT_NE(md.find("| rglru/sequential@fp32 |"), std::string::npos);
}

TEST(UntrustedText, HtmlEscapesItInTextAttributesAndSvg) {
  const std::string html = render_html(hostile_report(lawless_backend));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  const std::set<std::string> tags = tags_in(html);
  for (const char* tag : {"script", "img", "b", "u"}) EXPECT_EQ(tags.count(tag), 0u) << "<" << tag;
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<[a-z][^>]*\son[a-z]+=)"))) << "an event handler attribute";
  const std::string escaped_script = "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;";
  EXPECT_NE(html.find("<title>scancheck tolerance report — " + escaped_script), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=&quot;document.title=&#39;PWNED&#39;&quot;&gt; | not a column"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;svg onload=&quot;document.title=&#39;PWNED&#39;&quot;&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;t = 17&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;/pre&gt;&lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("runtime: python &lt;img src=x onerror=&quot;"), std::string::npos) << "a worker's hello";
  // The backend in the verdict table, the failing rows, and the SVG tooltips of both plots.
  const std::string backend = "rglru/x|y`*" + escaped_script + "@fp32";
  EXPECT_NE(html.find("<td class=\"name\">" + backend + "</td>"), std::string::npos);
  EXPECT_NE(html.find("<code class=\"backend\">" + backend + "</code>"), std::string::npos);
  EXPECT_NE(html.find("<title>" + backend + " · y: bound ratio"), std::string::npos);
  EXPECT_NE(html.find("<title>" + backend + " (fails)</title>"), std::string::npos);
}

//! The page html_hostile_render_test loads in Chromium, from report.json as `scancheck render` reads it.
TEST(UntrustedText, WritesTheHostileReportForTheBrowserTest) {
  const Report r = hostile_report(foreign_backend);
  const fs::path dir = fs::path(SCANCHECK_TEST_REPORTS) / "untrusted_text_test";
  fs::create_directories(dir);
  save_report_json(r, dir / "report.json");
  EXPECT_EQ(to_json_text(load_report(dir / "report.json")), to_json_text(r)) << "every payload survives report.json";
}

}  // namespace
}  // namespace scancheck::render
