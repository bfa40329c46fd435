// SPDX-License-Identifier: Apache-2.0
//! @file
//! The report history (reports/history.hpp) and its page (reports/history_page.hpp) on synthetic nightly
//! reports (history_fixtures.hpp): the schema (a v1 database written by hand in raw SQL migrates to the
//! latest; a newer one, a file that is not SQLite and another program's SQLite database are refused), adding
//! (idempotent; from several processes and threads at once: history_concurrency_test.cpp), the queries and their filters, best_earlier, and the
//! page, whose plot of a backend made 100x worse after revision 20 must rise there.
//! History.WritesTheHistoryForTheBrowserTest writes ${SCANCHECK_TEST_REPORTS}/history_test/ (fixture
//! history_page): 30 nightly reports as report.json files, the history of them and its page, which
//! history_render_test loads in headless Chromium and history_cli_test feeds to `scancheck history`.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/files.hpp"
#include "reports/history.hpp"
#include "reports/history_page.hpp"
#include "reports/model.hpp"
#include "reports/sha256.hpp"
#include "tests/reports/history_fixtures.hpp"
#include "tests/test_support.hpp"

namespace scancheck::reports {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::input_error;
using test::TempDir;

using namespace history_fixtures;

// ---- schema -------------------------------------------------------------------------------------------

TEST(HistorySchema, ANewHistoryIsTheLatestVersionInWalMode) {
  TempDir dir;
  {
    const History h(dir / "h.db", History::Open::create_or_upgrade);
    EXPECT_EQ(h.schema_version(), history_schema_version);
  }
  RawDb raw(dir / "h.db");
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.integer("PRAGMA user_version"), history_schema_version);
  EXPECT_EQ(raw.integer("PRAGMA application_id"), 0x5343484b);
}

TEST(HistorySchema, AVersionOneDatabaseIsMigratedAndItsRankingBackfilled) {
  TempDir dir;
  const Report old_report = nightly(1);
  write_v1_database(dir / "h.db", old_report);
  History h(dir / "h.db", History::Open::create_or_upgrade);
  EXPECT_EQ(h.schema_version(), history_schema_version);  // through every step: 1 -> 2 -> 3 -> 4
  // v2's columns, computed from the v1 tensors: two of them, 1e-7 + 3e-7.
  const std::optional<HistoryEntry> best = h.best_earlier("nightly", "2024-12-31");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->id, 1);
  EXPECT_EQ(best->tensors_measured, 2);
  EXPECT_DOUBLE_EQ(best->scaled_error_sum, 4e-7);
  EXPECT_DOUBLE_EQ(best->mean_scaled_error(), 2e-7);
  // The old report reloads whole, and the migrated file takes new reports.
  EXPECT_EQ(to_json_text(h.load(1)), to_json_text(old_report));
  EXPECT_FALSE(h.add(old_report).added);  // its identity recomputed by the upgrade (version 4)
  EXPECT_TRUE(h.add(nightly(2)).added);
  EXPECT_EQ(h.reports({"nightly"}).size(), 2u);
}

//! FNV-1a 64 as 16 hex digits: the content hash of schema versions 1 to 3, which version 4 replaced.
std::string fnv1a_64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

// A history of version 3 identified its reports by FNV-1a 64: the upgrade recomputes each stored hash as
// SHA-256 of the stored text, so adding a report that is already there still adds nothing.
TEST(HistorySchema, AVersionThreeDatabaseGetsSha256IdentitiesAndAddsNoReportTwice) {
  TempDir dir;
  const Report r = nightly(4);
  const std::string text = to_json_text(r);
  {
    History h(dir / "h.db", History::Open::create_or_upgrade);
    ASSERT_TRUE(h.add(r).added);
  }
  {  // version 4 changed the hash alone, not the tables: this is the file a version-3 scancheck wrote
    RawDb raw(dir / "h.db");
    raw.exec_with("UPDATE reports SET content_hash = ?1", fnv1a_64(text));
    raw.exec("PRAGMA user_version = 3");
    EXPECT_EQ(raw.text("SELECT content_hash FROM reports"), fnv1a_64(text));
  }
  History h(dir / "h.db", History::Open::create_or_upgrade);
  EXPECT_EQ(h.schema_version(), 4);
  {
    RawDb raw(dir / "h.db");
    EXPECT_EQ(raw.text("SELECT content_hash FROM reports"), sha256_hex(text));
  }
  // `sha256sum` of the same bytes: the hash is the library's, not one of our own.
  EXPECT_EQ(sha256_hex("scancheck\n"), "73ad4e296020711ab74fce147ea9c4d119254feda1eb2b6dd47b3713d37eae76");
  const AddResult again = h.add(r);
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.entry.id, 1);
  EXPECT_EQ(h.reports({"nightly"}).size(), 1u);
}

TEST(HistorySchema, ANewerVersionIsRefusedUntouched) {
  TempDir dir;
  {
    RawDb raw(dir / "h.db");
    raw.exec(fmt::format("CREATE TABLE reports (id INTEGER PRIMARY KEY, future TEXT); PRAGMA application_id = "
                         "1396918347; PRAGMA user_version = {}",
                         history_schema_version + 1));
  }
  for (const History::Open mode : {History::Open::create_or_upgrade, History::Open::existing}) {
    const std::string message = input_error([&] { History h(dir / "h.db", mode); });
    EXPECT_TRUE(contains(message, fmt::format("history database {} has schema version {}; this scancheck reads up to {}",
                                              (dir / "h.db").string(), history_schema_version + 1,
                                              history_schema_version)));
  }
  RawDb raw(dir / "h.db");
  EXPECT_EQ(raw.integer("PRAGMA user_version"), history_schema_version + 1);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "delete");  // not even switched to WAL
}

TEST(HistorySchema, RefusesWhatIsNotAHistory) {
  TempDir dir;
  EXPECT_TRUE(contains(input_error([&] { History h(dir / "missing.db", History::Open::existing); }),
                       "history database '" + (dir / "missing.db").string() + "' does not exist"));
  EXPECT_FALSE(fs::exists(dir / "missing.db"));
  test::write_file(dir / "text.db", "this is a report, honest\n");
  EXPECT_TRUE(contains(input_error([&] { History h(dir / "text.db", History::Open::create_or_upgrade); }),
                       "history database '" + (dir / "text.db").string() + "' is not an SQLite database"));
  EXPECT_EQ(test::read_file(dir / "text.db"), "this is a report, honest\n");
  {
    RawDb raw(dir / "other.db");
    raw.exec("CREATE TABLE contacts (name TEXT)");
  }
  EXPECT_TRUE(contains(input_error([&] { History h(dir / "other.db", History::Open::create_or_upgrade); }),
                       "is an SQLite database but not a scancheck history"));
  fs::create_directories(dir / "adir.db");
  EXPECT_TRUE(contains(input_error([&] { History h(dir / "adir.db", History::Open::existing); }), "is not a file"));
}

// ---- add ----------------------------------------------------------------------------------------------

TEST(HistoryAdd, AddingTheSameReportTwiceIsIdempotent) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  const Report r = nightly(3);
  const AddResult first = h.add(r);
  EXPECT_TRUE(first.added);
  EXPECT_EQ(first.entry.rows, 12);  // 3 backends x 2 cases x 2 passes
  EXPECT_EQ(first.entry.rows_failed, 0);
  const AddResult again = h.add(r);
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.entry.id, first.entry.id);
  // The same keys with other content (a re-run at the same second with another seed) is another report.
  Report other = r;
  other.method.seed = 99;
  EXPECT_TRUE(h.add(other).added);
  RawDb raw(dir / "h.db");
  EXPECT_EQ(raw.integer("SELECT count(*) FROM reports"), 2);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM report_rows"), 24);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM row_tensors"), 2 * 3 * 2 * 5);
}

TEST(HistoryAdd, StoresTheReportWholeAndItsRowsNormalised) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  const Report r = nightly(25);  // chunk16 fails, chunk32's backward rows crashed
  const AddResult a = h.add(r);
  EXPECT_EQ(a.entry.rows_failed, 2 * 2 + 2);
  EXPECT_EQ(to_json_text(h.load(a.entry.id)), to_json_text(r));
  RawDb raw(dir / "h.db");
  EXPECT_EQ(raw.text("SELECT reason FROM report_rows WHERE backend = 'scan/chunk32@fp32' AND verdict = 'error'"),
            "run failed: worker crashed: signal 11");
  EXPECT_EQ(raw.integer("SELECT count(*) FROM report_rows WHERE median_ms IS NOT NULL"), 4);  // sequential's rows
  const double h_error = std::stod(raw.text(
      "SELECT t.scaled_error FROM row_tensors t JOIN report_rows r USING (report_id, row_index) WHERE r.backend = "
      "'scan/chunk16@fp32' AND t.tensor = 'h' ORDER BY r.row_index LIMIT 1"));
  EXPECT_NEAR(h_error, 4e-5 * jitter(25, chunk16, "h", 1), 1e-12);
  EXPECT_TRUE(contains(raw.text("SELECT reason FROM row_tensors WHERE pass = 0 LIMIT 1"), "bound ratio"));
}

TEST(HistoryAdd, RefusesAGeneratedAtItCannotOrder) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  Report r = nightly(1);
  r.generated_at = "yesterday";
  EXPECT_TRUE(contains(input_error([&] { h.add(r); }), "generated_at 'yesterday' is not an ISO 8601"));
}

// ---- queries ------------------------------------------------------------------------------------------

TEST(HistoryQuery, ReportsOfALabelInDateOrderWithFilters) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  for (const int k : {5, 1, 3}) h.add(nightly(k));  // added out of date order
  Report weekly = empty_report("weekly", 2, 2);
  add_backend(weekly, 2, "rglru/chunk16@bf16");
  summarise(weekly);
  h.add(weekly);
  Report only_sequential = empty_report("nightly", 4, 4);
  add_backend(only_sequential, 4, sequential);
  summarise(only_sequential);
  h.add(only_sequential);

  EXPECT_EQ(h.labels(), (std::vector<std::string>{"nightly", "weekly"}));
  const auto days = [](const std::vector<HistoryEntry>& entries) {
    std::vector<std::string> out;
    for (const HistoryEntry& e : entries) out.push_back(e.generated_at.substr(8, 2));
    return out;
  };
  EXPECT_EQ(days(h.reports({"nightly"})), (std::vector<std::string>{"01", "03", "04", "05"}));
  EXPECT_EQ(days(h.reports({"nightly", "scan/chunk*"})), (std::vector<std::string>{"01", "03", "05"}));
  EXPECT_EQ(days(h.reports({"nightly", "scan/{sequential,chunk16}@fp32"})),
            (std::vector<std::string>{"01", "03", "04", "05"}));
  EXPECT_EQ(days(h.reports({"nightly", "*", "2024-06-03"})), (std::vector<std::string>{"03", "04", "05"}));
  EXPECT_EQ(days(h.reports({"nightly", "*", "2024-06-03T02:00:01Z"})), (std::vector<std::string>{"04", "05"}));
  EXPECT_TRUE(h.reports({"nightly", "rglru/*"}).empty());
  EXPECT_EQ(days(h.reports({"weekly"})), (std::vector<std::string>{"02"}));

  // The measurements follow the same filters: chunk32 only, from the 3rd: 2 reports x 2 cases x 5 tensors.
  const std::vector<HistoryMeasurement> m = h.measurements({"nightly", chunk32, "2024-06-03"});
  EXPECT_EQ(m.size(), 20u);
  EXPECT_TRUE(std::all_of(m.begin(), m.end(), [](const HistoryMeasurement& x) { return x.backend == chunk32; }));

  EXPECT_TRUE(contains(input_error([&] { h.reports({"nightly", "*", "June 3"}); }), "--since 'June 3' is not a date"));
  EXPECT_TRUE(contains(input_error([&] { History(dir / "h.db", History::Open::existing).sole_label(); }),
                       "holds the labels 'nightly', 'weekly': choose one with --label"));
}

TEST(HistoryQuery, BackendGlobsReadAsMatchBackendsReadsThem) {
  EXPECT_TRUE(matches_backend_glob("*", "pwn:rglru/x@fp32"));
  EXPECT_TRUE(matches_backend_glob("scan/chunk?@fp32", "scan/chunk8@fp32"));
  EXPECT_FALSE(matches_backend_glob("scan/chunk?@fp32", "scan/chunk16@fp32"));
  EXPECT_TRUE(matches_backend_glob("{rglru/chunk16,scan/sequential}@*", "scan/sequential@bf16"));
  EXPECT_FALSE(matches_backend_glob("{rglru/chunk16,scan/sequential}@*", "scan/chunk16@bf16"));
  EXPECT_TRUE(matches_backend_glob("scan/[cs]*@fp32", "scan/sequential@fp32"));
}

TEST(HistoryQuery, BestEarlierHasTheFewestFailuresThenTheSmallestMeanError) {
  TempDir dir;
  History h(dir / "h.db", History::Open::create_or_upgrade);
  const auto report = [](int day, double growth, bool fail) {
    Report r = empty_report("nightly", day, day);
    add_backend(r, 0, sequential, growth);  // report 0: the same jitter every day
    if (fail) {
      r.rows.front().verdict = Verdict::error;
      r.rows.front().error = "timeout";
    }
    summarise(r);
    return r;
  };
  h.add(report(1, 0.5, true));   // the smallest errors, but a failing row
  h.add(report(2, 3, false));
  h.add(report(3, 2, false));    // <- best before the 10th: no failure, smaller mean error than the 2nd
  h.add(report(4, 2, false));    // as good as the 3rd: ties go to the newest ... but see below
  Report interrupted = report(5, 0.1, false);
  interrupted.interrupted = "stopped after 1 of 2 cases";
  h.add(interrupted);            // never a baseline
  h.add(report(6, 0.1, false) );  // the best of all, but not earlier than the 6th
  Report empty = empty_report("nightly", 5, 5);
  summarise(empty);
  h.add(empty);                  // no rows: never a baseline

  std::optional<HistoryEntry> best = h.best_earlier("nightly", "2024-06-06T02:00:00Z");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->generated_at, "2024-06-04T02:00:00Z");  // 3rd and 4th tie exactly: the newest
  best = h.best_earlier("nightly", "2024-06-04T02:00:00Z");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->generated_at, "2024-06-03T02:00:00Z");
  EXPECT_NEAR(best->mean_scaled_error() / h.best_earlier("nightly", "2024-06-03")->mean_scaled_error(), 2.0 / 3, 1e-12);
  best = h.best_earlier("nightly", "2024-06-02T02:00:00Z");  // only the failing one is earlier
  ASSERT_TRUE(best);
  EXPECT_EQ(best->rows_failed, 1);
  EXPECT_FALSE(h.best_earlier("nightly", "2024-06-01T02:00:00Z"));
  EXPECT_FALSE(h.best_earlier("weekly", "2025-01-01"));
}

// ---- the page -----------------------------------------------------------------------------------------

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
  EXPECT_TRUE(contains(input_error([&] { history_view(h, {"nightly", "rglru/*"}); }),
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
  const fs::path dir = fs::path(SCANCHECK_TEST_REPORTS) / "history_test";
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
}  // namespace scancheck::reports
