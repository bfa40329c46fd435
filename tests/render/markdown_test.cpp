// SPDX-License-Identifier: Apache-2.0
//! @file
//! report.md (render/markdown.hpp) on a real report (tests/reports/small_report.hpp): the verdict first, then a
//! table per architecture; failures before the tables with their repro; the reference tiers; foreign providers;
//! device times beside the errors (and in report.html's verdict table) when the cuda executor measured them.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "render/html.hpp"
#include "render/markdown.hpp"
#include "reports/model.hpp"
#include "tests/reports/small_report.hpp"

namespace scancheck::render {
namespace {

using namespace reports;
using fixtures::small_report;

TEST(ReportMarkdown, VerdictFirstThenATablePerArchitecture) {
  const std::string md = render_markdown(small_report());
  EXPECT_EQ(md.find("# scancheck tolerance report: runner-test"), 0u);
  const auto verdict = md.find("**PASS: 6 backends x 18 cases");
  ASSERT_NE(verdict, std::string::npos);
  std::size_t previous = verdict;
  for (const char* heading : {"## scan", "## rglru", "## complex_rglru"}) {
    const auto at = md.find(std::string(heading) + "\n");
    ASSERT_NE(at, std::string::npos) << heading;
    EXPECT_GT(at, previous) << heading;
    previous = at;
  }
  EXPECT_NE(md.find("| backend | worst tensor | error / bound | baseline ratio | ULP p99 | max ULP |"),
            std::string::npos);
  EXPECT_NE(md.find("| rglru/sequential@bf16 |"), std::string::npos);
  EXPECT_EQ(md.find("## Failures"), std::string::npos);
}

TEST(ReportMarkdown, FailuresComeBeforeTheTablesWithTheirRepro) {
  Report r = small_report();
  Row& row = r.rows[5];
  row.verdict = Verdict::fail;
  row.tensors.front().pass = false;
  row.tensors.front().reasons = {"h: element [0, 1, 2] is 9x its bound"};
  summarise(r);
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("**FAIL: 1 of 6 backends failed (1 of 36 rows: 1 fail)"), std::string::npos);
  const auto failures = md.find("## Failures");
  ASSERT_NE(failures, std::string::npos);
  EXPECT_LT(failures, md.find("## scan\n"));
  EXPECT_NE(md.find("9x its bound", failures), std::string::npos);
  EXPECT_NE(md.find(row.repro, failures), std::string::npos);
  EXPECT_NE(md.find("**FAIL** (1)"), std::string::npos);
}

TEST(ReportTimings, DeviceTimesStandBesideTheErrors) {
  Report r = small_report();
  EXPECT_EQ(render_markdown(r).find("fwd ms"), std::string::npos) << "host reports have no timing columns";
  for (Row& row : r.rows) row.timing = Timing{row.direction == Direction::forward ? 0.25 : 0.75, 0.2, 0.9, 10};
  r.rows.front().timing->median_ms = 1.5;  // the largest median of its backend's forward rows is shown
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("| fwd ms | bwd ms |"), std::string::npos);
  EXPECT_NE(md.find(fmt::format("| {} |", r.rows.front().backend)), std::string::npos);
  EXPECT_NE(md.find(" 1.5 | 0.75 |"), std::string::npos);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<th>forward ms</th><th>backward ms</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>1.5</td><td>0.75</td>"), std::string::npos);
}

// A tiered reference's counts are a line of the summary.
TEST(ReportMarkdown, StatesTheReferenceTiers) {
  EXPECT_NE(render_markdown(small_report()).find("| reference tiers | "), std::string::npos);
}

// Foreign providers (a worker's hello "runtime" and "provenance") have a table of their own in report.md and
// facts in report.html; text from outside is escaped.
TEST(ReportMarkdown, ListsTheForeignProvidersWithTheirRuntimeAndProvenance) {
  Report r = small_report();
  r.providers = {{"numpy", "--worker 'python3 examples/numpy_worker.py'", "python 3.11.2, numpy 1.24.2", "mykernels",
                  "1.2.0", std::nullopt},
                 {"cppdemo", "--plugin build/cppdemo.so", std::nullopt, std::nullopt, std::nullopt, std::nullopt}};
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("## Foreign providers\n\n| provider | loaded by | runtime | provenance |\n"), std::string::npos);
  EXPECT_NE(md.find("| numpy | \\--worker 'python3 examples/numpy_worker.py' | python 3.11.2, numpy 1.24.2 | "
                    "package mykernels, version 1.2.0 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| cppdemo | \\--plugin build/cppdemo.so | not said | not said |"), std::string::npos);
  EXPECT_NE(render_html(r).find("<dt>numpy</dt><dd>--worker &#39;python3"), std::string::npos);
}

}  // namespace
}  // namespace scancheck::render
