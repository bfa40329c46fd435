// SPDX-License-Identifier: Apache-2.0
//! @file
//! The report history (reports/history.hpp) on synthetic nightly reports (history_fixtures.hpp): the schema
//! (a v1 database written by hand in raw SQL migrates to the latest, a v3 one's FNV-1a identities become
//! SHA-256; a newer one, a file that is not SQLite and another program's SQLite database are refused), adding
//! (idempotent; from several processes and threads at once: history_concurrency_test.cpp), the queries and
//! their filters, and best_earlier. Its page: tests/render/history_page_test.cpp.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/files.hpp"
#include "reports/history.hpp"
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
    raw.exec(
        fmt::format("CREATE TABLE reports (id INTEGER PRIMARY KEY, future TEXT); PRAGMA application_id = "
                    "1396918347; PRAGMA user_version = {}",
                    history_schema_version + 1));
  }
  for (const History::Open mode : {History::Open::create_or_upgrade, History::Open::existing}) {
    const std::string message = input_error([&] { History h(dir / "h.db", mode); });
    const std::string refusal =
        fmt::format("history database {} has schema version {}; this scancheck reads up to {}", (dir / "h.db").string(),
                    history_schema_version + 1, history_schema_version);
    EXPECT_TRUE(contains(message, refusal));
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
  h.add(report(1, 0.5, true));  // the smallest errors, but a failing row
  h.add(report(2, 3, false));
  h.add(report(3, 2, false));  // <- best before the 10th: no failure, smaller mean error than the 2nd
  h.add(report(4, 2, false));  // as good as the 3rd: ties go to the newest ... but see below
  Report interrupted = report(5, 0.1, false);
  interrupted.interrupted = "stopped after 1 of 2 cases";
  h.add(interrupted);            // never a baseline
  h.add(report(6, 0.1, false));  // the best of all, but not earlier than the 6th
  Report empty = empty_report("nightly", 5, 5);
  summarise(empty);
  h.add(empty);  // no rows: never a baseline

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

}  // namespace
}  // namespace scancheck::reports
