// SPDX-License-Identifier: Apache-2.0
//! @file
//! The history page (render/history_page.hpp: its view, history.html and history.md) of the synthetic nightly
//! reports (tests/reports/history_fixtures.hpp) in a real history: the plot of a backend made 100x worse
//! after revision 20 rises there, the trends say which backend got worse, failures carry their verdict and
//! reason, the backend glob filters, a joined profile's times are plotted, outside text is escaped, and the
//! page is written atomically.
//! History.WritesTheHistoryForTheBrowserTest writes ${SCANCHECK_TEST_REPORTS}/history_page_test/ (fixture
//! history_page): 30 nightly reports as report.json files, the history of them and its page, which
//! history_render_test loads in headless Chromium and history_cli_test feeds to `scancheck history`.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "core/files.hpp"
#include "render/history_html.hpp"
#include "render/history_markdown.hpp"
#include "render/history_page.hpp"
#include "render/history_view.hpp"
#include "reports/history.hpp"
#include "reports/model.hpp"
#include "tests/reports/history_fixtures.hpp"
#include "tests/test_support.hpp"

namespace scancheck::render {
namespace {

namespace fs = std::filesystem;
using namespace reports;
using namespace reports::history_fixtures;
using test::contains;
using test::input_error;
using test::TempDir;

//! The 30 nights in a history at `db`.
History thirty_nights(const fs::path& db) {
  History h(db, History::Open::create_or_upgrade);
  for (int k = 1; k <= 30; ++k) EXPECT_TRUE(h.add(nightly(k)).added);
  return h;
}

const TrendSeries& series_of(const HistoryView& v, const std::string& backend, const std::string& tensor) {
  for (const TrendSeries& s : v.series)
    if (s.backend == backend && s.tensor == tensor) return s;
  throw std::logic_error("no series " + backend + " " + tensor);
}

const BackendTrend& trend_of(const HistoryView& v, const std::string& backend) {
  for (const BackendTrend& t : v.backends)
    if (t.backend == backend) return t;
  throw std::logic_error("no trend " + backend);
}

//! The y coordinates of the scaled-error dots of one plot in the page, by report.
std::map<int, double> error_dots(const std::string& html, const std::string& backend, const std::string& tensor) {
  const std::string open = fmt::format("<svg class=\"trend\" data-backend=\"{}\" data-tensor=\"{}\"", backend, tensor);
  const std::size_t begin = html.find(open);
  if (begin == std::string::npos) return {};
  const std::string svg = html.substr(begin, html.find("</svg>", begin) - begin);
  const std::size_t series = svg.find("<g class=\"series error\">");
  const std::string dots = svg.substr(series, svg.find("</g>", series) - series);
  static const std::regex dot(R"re(<circle class="point" data-report="(\d+)" cx="[-\d.]+" cy="([-\d.]+)")re");
  std::map<int, double> out;
  for (auto it = std::sregex_iterator(dots.begin(), dots.end(), dot); it != std::sregex_iterator(); ++it)
    out[std::stoi((*it)[1])] = std::stod((*it)[2]);
  return out;
}

TEST(HistoryPage, TheWorseRevisionRisesInItsBackendsPlots) {
  TempDir dir;
  const History h = thirty_nights(dir / "h.db");
  const HistoryView v = history_view(h, {"nightly"});
  ASSERT_EQ(v.reports.size(), 30u);
  EXPECT_EQ(v.series.size(), 3u * 5);  // 3 backends x 5 tensors
  for (const std::string tensor : {"h", "h_last", "da", "db", "dh0"}) {
    SCOPED_TRACE(tensor);
    const TrendSeries& worse = series_of(v, chunk16, tensor);
    ASSERT_EQ(worse.points.size(), 30u);
    double largest_before = 0, smallest_after = 1e300;
    for (const TrendPoint& p : worse.points) {
      ASSERT_TRUE(p.scaled_error);
      if (p.report < 20) largest_before = std::max(largest_before, *p.scaled_error);
      else smallest_after = std::min(smallest_after, *p.scaled_error);
      EXPECT_EQ(p.failed, p.report >= 20) << p.report;
    }
    EXPECT_GT(smallest_after, 50 * largest_before);  // 100x, jitter 0.75..1.25 each way
    // The same rise in the SVG: every dot after revision 20 above (smaller y than) every dot before.
    const std::map<int, double> y = error_dots(render_history_html(v), chunk16, tensor);
    ASSERT_EQ(y.size(), 30u);
    double lowest_after = 0, highest_before = 1e9;
    for (const auto& [report, cy] : y) {
      if (report < 20) highest_before = std::min(highest_before, cy);
      else lowest_after = std::max(lowest_after, cy);
    }
    EXPECT_LT(lowest_after + 30, highest_before);  // two decades apart on a 150 px panel
  }
  // The stable backend stays flat: its dots after revision 20 sit, on average, where those before do.
  const std::map<int, double> flat = error_dots(render_history_html(v), sequential, "h");
  ASSERT_EQ(flat.size(), 30u);
  double mean_before = 0, mean_after = 0;
  for (const auto& [report, cy] : flat) (report < 20 ? mean_before : mean_after) += cy / (report < 20 ? 20 : 10);
  EXPECT_NEAR(mean_before, mean_after, 15);
}

TEST(HistoryPage, TrendsSayWhichBackendGotWorse) {
  TempDir dir;
  const History h = thirty_nights(dir / "h.db");
  const HistoryView v = history_view(h, {"nightly"});
  const BackendTrend& worse = trend_of(v, chunk16);
  EXPECT_EQ(worse.trend, Trend::worse);
  EXPECT_EQ(worse.latest, 29u);
  ASSERT_TRUE(worse.best_earlier);
  EXPECT_LT(*worse.best_earlier, 20u);
  EXPECT_GT(worse.factor, 50);
  EXPECT_EQ(worse.latest_failing_rows, 4);
  EXPECT_EQ(worse.failed_reports.size(), 10u);
  EXPECT_EQ(trend_of(v, sequential).trend, Trend::same);  // jitter 0.75..1.25: within 2x of its best
  EXPECT_TRUE(trend_of(v, sequential).failed_reports.empty());
  const BackendTrend& crashed = trend_of(v, chunk32);
  EXPECT_EQ(crashed.failed_reports, (std::vector<std::size_t>{24}));
  EXPECT_EQ(crashed.latest_failing_rows, 0);
  ASSERT_TRUE(crashed.best_earlier);
  EXPECT_NE(*crashed.best_earlier, 24u);  // its forward tensors alone are smaller than its usual worst: no contest
  EXPECT_EQ(v.failing_rows[24], 2 * 2 + 2);
  EXPECT_EQ(v.failing_rows[29], 4);

  const std::string md = render_history_markdown(v);
  EXPECT_TRUE(contains(md, "| scan/chunk16@fp32 | "));
  EXPECT_TRUE(contains(md, "**worse ("));
  EXPECT_TRUE(contains(md, "10 of 30 (first "));
  EXPECT_TRUE(contains(md, "## Failures in the latest report"));
  EXPECT_TRUE(contains(md, "above 2x"));
}

TEST(HistoryPage, MarksFailuresWithTheirVerdictAndReason) {
  TempDir dir;
  const History h = thirty_nights(dir / "h.db");
  const HistoryView v = history_view(h, {"nightly"});
  // chunk32's crash has no tensor to blame: each of its backward plots marks night 25 without a value.
  for (const std::string tensor : {"da", "db", "dh0"}) {
    const TrendSeries& s = series_of(v, chunk32, tensor);
    ASSERT_EQ(s.points.size(), 30u);
    const TrendPoint& p = s.points[24];
    EXPECT_TRUE(p.failed);
    EXPECT_FALSE(p.scaled_error);
    EXPECT_EQ(p.verdict, "error");
    EXPECT_EQ(p.reason, "run failed: worker crashed: signal 11");
  }
  EXPECT_FALSE(series_of(v, chunk32, "h").points[24].failed);  // its forward rows passed
  const std::string html = render_history_html(v);
  EXPECT_TRUE(contains(html, "<title>error: run failed: worker crashed: signal 11 ("));
  EXPECT_TRUE(contains(html, "<title>fail: h: bound ratio "));
  std::size_t markers = 0;
  for (std::size_t at = 0; (at = html.find("class=\"failure-marker\"", at)) != std::string::npos; ++at) ++markers;
  EXPECT_EQ(markers, 5u * 10 + 3);  // chunk16's 5 tensors on 10 nights, chunk32's 3 backward tensors once
}

TEST(HistoryPage, FiltersAndRefusesAnEmptySelection) {
  TempDir dir;
  const History h = thirty_nights(dir / "h.db");
  const HistoryView v = history_view(h, {"nightly", "scan/chunk{16,32}@fp32", "2024-06-11"});
  EXPECT_EQ(v.reports.size(), 20u);
  EXPECT_EQ(v.backends.size(), 2u);
  for (const TrendSeries& s : v.series) EXPECT_NE(s.backend, sequential);
  EXPECT_FALSE(contains(render_history_html(v), "class=\"series device-time\""));  // only sequential was timed
  EXPECT_TRUE(contains(render_history_html(history_view(h, {"nightly", sequential})), "class=\"series device-time\""));
  EXPECT_TRUE(contains(input_error([&] {
                         history_view(h, {"nightly", "rglru/*"});
                       }),
                       "has no report of label 'nightly' with a backend matching 'rglru/*'"));
  EXPECT_TRUE(contains(input_error([&] { history_view(h, {"nightly", "*", "2025-01-01"}); }), "since 2025-01-01"));
}

// `history add --timings`: the speed a user's profile measured is kept per row and plotted beside the
// error, on the backward plots it was joined to only.
TEST(HistoryPage, PlotsTheTimesOfAJoinedProfile) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  for (int k = 1; k <= 3; ++k) {
    Report r = nightly(k);
    for (Row& row : r.rows)
      if (row.backend == chunk16 && row.direction == Direction::backward)
        row.profile = ProfileTiming{0, 1500.0 * k, 35, {}};
    ASSERT_TRUE(h.add(r).added);
  }
  const HistoryView v = history_view(h, {"nightly", chunk16});
  const TrendSeries& backward = series_of(v, chunk16, "da");
  ASSERT_EQ(backward.points.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(backward.points[k].profile_ms) << k;
    EXPECT_DOUBLE_EQ(*backward.points[k].profile_ms, 1.5 * static_cast<double>(k + 1));
    EXPECT_FALSE(backward.points[k].median_ms);
  }
  for (const TrendPoint& p : series_of(v, chunk16, "h").points) EXPECT_FALSE(p.profile_ms);
  const std::string html = render_history_html(v);
  const std::size_t group = html.find("<g class=\"series profile-time\">");
  ASSERT_NE(group, std::string::npos);
  EXPECT_NE(html.find("<circle class=\"point\"", group), std::string::npos);
}

TEST(HistoryPage, IsSelfContainedAndEscapesOutsideText) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  const std::string label = "<script>document.title='PWNED'</script> | *x*";
  const std::string backend = "pwn-ed_:rglru/_PWNED_.x+y-@fp32";
  for (int k = 1; k <= 3; ++k) {
    Report r = empty_report(label, k, k, "<img src=x onerror=alert(1)>");
    add_backend(r, k, backend, k == 3 ? 100 : 1);
    for (Row& row : r.rows)
      for (TensorEntry& t : row.tensors)
        if (!t.pass) t.reasons = {"<img src=x onerror=\"document.title='PWNED'\"> | `x`"};
    summarise(r);
    h.add(r);
  }
  const HistoryView v = history_view(h, {label});
  const std::string html = render_history_html(v), md = render_history_markdown(v);
  EXPECT_FALSE(contains(html, "<script"));
  EXPECT_FALSE(contains(html, "<img"));
  EXPECT_TRUE(contains(html, "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;"));
  EXPECT_TRUE(contains(html, "&lt;img src=x onerror=&quot;document.title=&#39;PWNED&#39;&quot;&gt;"));
  for (const char* scheme : {"http://", "https://", "src=\"", "href=\"http", "@import", "url("})
    EXPECT_FALSE(contains(html, scheme)) << scheme;
  EXPECT_FALSE(contains(md, "<script"));
  EXPECT_FALSE(contains(md, "<img"));
  EXPECT_TRUE(contains(md, "\\| \\*x\\*"));
  EXPECT_TRUE(contains(md, "pwn-ed\\_:rglru/\\_PWNED\\_.x+y-@fp32"));
  EXPECT_TRUE(contains(md, "\\`x\\`"));
}

TEST(HistoryPage, IsWrittenAtomicallyBesideNothingElse) {
  TempDir dir;
  const History h = thirty_nights(dir / "h.db");
  write_history_page(history_view(h, {"nightly"}), dir / "page");
  EXPECT_TRUE(fs::is_regular_file(dir / "page" / "history.html"));
  EXPECT_TRUE(fs::is_regular_file(dir / "page" / "history.md"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "page"), fs::directory_iterator()), 2);
  // A file where the directory should go is refused, untouched.
  test::write_file(dir / "taken", "x");
  EXPECT_TRUE(contains(input_error([&] { write_history_page(history_view(h, {"nightly"}), dir / "taken"); }),
                       "exists and is not a directory"));
}

//! The fixture of history_render_test and history_cli_test (history_page): the 30 nights as report.json
//! files, their history and its page.
TEST(History, WritesTheHistoryForTheBrowserTest) {
  const fs::path dir = fs::path(SCANCHECK_TEST_REPORTS) / "history_page_test";
  fs::create_directories(dir / "reports");
  fs::create_directories(dir / "page");
  // Every file replaced atomically, one by one: the discovered copy of this test may run while the browser
  // and CLI tests read the last one's files.
  for (int k = 1; k <= 30; ++k) save_report_json(nightly(k), dir / "reports" / fmt::format("night{:02d}.json", k));
  const fs::path db = temporary_sibling(dir / "history.db");
  {
    const History h = thirty_nights(db);
    const HistoryView v = history_view(h, {"nightly"});
    write_file_atomically(dir / "page" / "history.html", render_history_html(v));
    write_file_atomically(dir / "page" / "history.md", render_history_markdown(v));
  }
  fs::rename(db, dir / "history.db");
  EXPECT_GT(fs::file_size(dir / "page" / "history.html"), 50000u);
}

}  // namespace
}  // namespace scancheck::render
