// SPDX-License-Identifier: Apache-2.0
//! @file
//! Synthetic nightly reports and raw SQL for the history tests (history_test.cpp, and
//! history_concurrency_test.cpp, which the stress script runs many times) and its page's
//! (tests/render/history_page_test.cpp): nightly(k) is the k-th of a series whose backend chunk16 grows 100x
//! worse from revision 21 on.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "core/case_request.hpp"
#include "reports/model.hpp"

namespace scancheck::reports::history_fixtures {

namespace fs = std::filesystem;

inline const std::string sequential = "scan/sequential@fp32";
inline const std::string chunk16 = "scan/chunk16@fp32";  // 100x worse from revision 21 on, failing
inline const std::string chunk32 = "scan/chunk32@fp32";  // its backward run crashes in report 25

// ---- synthetic reports --------------------------------------------------------------------------------

//! A deterministic jitter in [0.75, 1.25) per (report, backend, tensor, case).
inline double jitter(int report, const std::string& backend, const std::string& tensor, std::uint64_t seed) {
  std::uint64_t h = static_cast<std::uint64_t>(report) * 0x9e3779b97f4a7c15ull ^
                    std::hash<std::string>{}(backend + tensor) ^ seed * 0x94d049bb133111ebull;
  h ^= h >> 31;
  h *= 0xd6e9f8cc5ca3d8b5ull;
  h ^= h >> 29;
  return 0.75 + static_cast<double>(h % 1000) / 2000.0;
}

//! A tensor with max |got - exact| = max_abs at scale max_exact and the given bound ratio, its other
//! metrics consistent; failing (with a reason) when the ratio is above the default bound factor 4.
inline TensorEntry measured(const std::string& name, double max_abs, double max_exact, double bound_ratio) {
  TensorEntry t;
  TensorMetrics& m = t.metrics;
  m.name = name;
  m.compared = 264;
  m.max_abs = max_abs;
  m.max_exact = max_exact;
  m.max_rel = 4 * max_abs / max_exact;
  m.ulp_max = max_abs / (max_exact * 0x1p-23);
  m.ulp_p90 = m.ulp_p99 = std::min(1.0, m.ulp_max);
  m.max_bound = max_abs / bound_ratio;
  m.bound_ratio = bound_ratio;
  m.baseline_abs = max_abs;
  m.baseline_ratio = 1;
  m.worst = {17, "[0, 2, 1]", max_exact - max_abs, max_exact, m.max_bound, m.ulp_max};
  m.ulp_histogram[0] = 200;
  m.ulp_histogram[1] = 64;
  t.pass = bound_ratio <= 4;
  if (!t.pass) t.reasons = {fmt::format("bound ratio {:.3g} > 4 at [0, 2, 1]", bound_ratio)};
  return t;
}

inline CaseRequest scan_request(std::uint64_t seed) {
  CaseRequest r;
  r.architecture = Architecture::scan;
  r.shape = {1, 33, 8, 1};
  r.seed = seed;
  return r;
}

inline std::string case_id(Report& r, const CaseRequest& request) {
  for (const CaseEntry& c : r.cases)
    if (to_string(c.request) == to_string(request)) return c.id;
  r.cases.push_back({fmt::format("c{}", r.cases.size()), request, 264, 264, 1, to_string(request), std::nullopt});
  return r.cases.back().id;
}

Row& add_row(Report& r, const CaseRequest& request, const std::string& backend, Direction direction,
             std::vector<TensorEntry> tensors) {
  Row row;
  row.case_id = case_id(r, request);
  row.shape = request.shape;
  row.architecture = request.architecture;
  row.backend = backend;
  row.direction = direction;
  row.verdict = std::all_of(tensors.begin(), tensors.end(), [](const TensorEntry& t) { return t.pass; })
                    ? Verdict::pass
                    : Verdict::fail;
  row.tensors = std::move(tensors);
  row.seed = request.seed;
  row.repro = fmt::format("scancheck check {} --backend '{}'", to_string(request), backend);
  r.rows.push_back(std::move(row));
  return r.rows.back();
}

//! An empty report of `label`, generated on day `day` of June 2024 at revision number `revision`.
inline Report empty_report(const std::string& label, int day, int revision, const std::string& host = "nightly-1") {
  Report r;
  r.label = label;
  r.generated_at = fmt::format("2024-06-{:02d}T02:00:00Z", day);
  const std::uint64_t commit = (static_cast<std::uint64_t>(revision) * 0x9e3779b97f4a7c15ull) >> 16;
  r.tool = {"scancheck", "0.1.0", fmt::format("{:012x}", commit)};
  // Field by field: the model grows optional fields.
  r.environment.executor = "host";
  r.environment.compiler = "GCC 12.2.0";
  r.environment.host = host;
  r.environment.threads = 2;
  r.method.preset = "quick";
  r.method.reference_precision = "float128";
  r.method.bounds = "first-order float32 bounds";
  r.method.baseline = "scan/sequential@fp32";
  r.method.sampling = "none: every element";
  r.method.seed = 1;
  r.method.backends = "scan/*@fp32";
  r.method.lengths = {33};
  r.coverage.backends_total = 3;
  r.scope = default_scope(r.method);
  return r;
}

//! Forward (h, h_last) and backward (da, db, dh0) rows of `backend` on two cases; errors of a few ulps,
//! times `growth`; the bound ratio 0.06 times `growth` (so growth 100 fails the bound factor 4: 4.5 to 7.5).
inline void add_backend(Report& r, int report, const std::string& backend, double growth = 1) {
  for (const std::uint64_t seed : {1, 2}) {
    const auto t = [&](const std::string& name, double scale) {
      const double j = jitter(report, backend, name, seed);
      return measured(name, 4e-7 * scale * j * growth, scale, 0.06 * j * growth);
    };
    add_row(r, scan_request(seed), backend, Direction::forward, {t("h", 4), t("h_last", 3)});
    add_row(r, scan_request(seed), backend, Direction::backward, {t("da", 6), t("db", 5), t("dh0", 2)});
  }
}

//! Night `k` (1..30) of label "nightly": sequential stable and timed, chunk16 100x worse (and failing)
//! after revision 20, chunk32's backward run crashing on night 25.
inline Report nightly(int k) {
  Report r = empty_report("nightly", k, k);
  add_backend(r, k, sequential);
  add_backend(r, k, chunk16, k > 20 ? 100 : 1);
  add_backend(r, k, chunk32);
  for (Row& row : r.rows)
    if (row.backend == sequential) row.timing = Timing{0.1 + 0.001 * k, 0.09, 0.2, 20};
  if (k == 25)
    for (Row& row : r.rows)
      if (row.backend == chunk32 && row.direction == Direction::backward) {
        row.tensors.clear();
        row.verdict = Verdict::error;
        row.error = "worker crashed: signal 11";
      }
  summarise(r);
  return r;
}

// ---- raw SQL ------------------------------------------------------------------------------------------

//! A raw SQLite connection, for what the tests write by hand and read behind History's back.
class RawDb {
 public:
  explicit RawDb(const fs::path& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) ADD_FAILURE() << sqlite3_errmsg(db_);
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << (error ? error : "?");
      sqlite3_free(error);
    }
  }
  //! The first column of the first row, as text ("" without a row).
  std::string text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) ADD_FAILURE() << sqlite3_errmsg(db_);
    if (s && sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  }
  std::int64_t integer(const std::string& sql) { return std::stoll(text(sql)); }
  //! Runs `sql` with one text parameter.
  void exec_with(const std::string& sql, const std::string& parameter) {
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
    sqlite3_bind_text(s, 1, parameter.data(), static_cast<int>(parameter.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(s), SQLITE_DONE) << sqlite3_errmsg(db_);
    sqlite3_finalize(s);
  }

 private:
  sqlite3* db_ = nullptr;
};

//! The v1 schema as the first release of `scancheck history` wrote it, by hand: not History's text, so
//! that a change to the migrations that no longer reads v1 databases fails here.
inline void write_v1_database(const fs::path& path, const Report& report) {
  RawDb db(path);
  db.exec(R"sql(
PRAGMA journal_mode = WAL;
CREATE TABLE reports (id INTEGER PRIMARY KEY, label TEXT NOT NULL, generated_at TEXT NOT NULL,
  git_revision TEXT NOT NULL, host TEXT NOT NULL, content_hash TEXT NOT NULL, added_at TEXT NOT NULL,
  rows_total INTEGER NOT NULL, rows_failed INTEGER NOT NULL, interrupted INTEGER NOT NULL,
  bound_factor REAL NOT NULL, report_json TEXT NOT NULL,
  UNIQUE (label, generated_at, host, git_revision, content_hash));
CREATE INDEX reports_by_label_and_date ON reports (label, generated_at);
CREATE TABLE report_rows (report_id INTEGER NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL, backend TEXT NOT NULL, architecture TEXT NOT NULL, io_dtype TEXT NOT NULL,
  direction TEXT NOT NULL, case_request TEXT NOT NULL, shape TEXT NOT NULL, repro TEXT NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, median_ms REAL, PRIMARY KEY (report_id, row_index));
CREATE INDEX report_rows_by_backend ON report_rows (backend);
CREATE TABLE row_tensors (report_id INTEGER NOT NULL, row_index INTEGER NOT NULL, tensor TEXT NOT NULL,
  dtype TEXT NOT NULL, scaled_error REAL, bound_ratio REAL, pass INTEGER NOT NULL, reason TEXT NOT NULL,
  FOREIGN KEY (report_id, row_index) REFERENCES report_rows (report_id, row_index) ON DELETE CASCADE);
CREATE INDEX row_tensors_by_row ON row_tensors (report_id, row_index);
PRAGMA application_id = 1396918347;
PRAGMA user_version = 1;
)sql");
  // One report, its first row and that row's two tensors (scaled errors 1e-7 and 3e-7).
  db.exec_with(fmt::format("INSERT INTO reports VALUES (1, 'nightly', '{}', '{}', 'nightly-1', '0123456789abcdef', "
                           "'2024-07-01T00:00:00Z', {}, 0, 0, 4, ?1)",
                           report.generated_at, report.tool.git_revision, report.rows.size()),
               to_json_text(report));
  db.exec(
      "INSERT INTO report_rows VALUES (1, 0, 'scan/sequential@fp32', 'scan', 'float32', 'forward', "
      "'--architecture scan', 'B=1 L=33 W=8 H=1', 'scancheck check', 'pass', '', NULL)");
  db.exec(
      "INSERT INTO row_tensors VALUES (1, 0, 'h', 'float32', 1e-7, 0.05, 1, ''), "
      "(1, 0, 'h_last', 'float32', 3e-7, 0.05, 1, '')");
}

}  // namespace scancheck::reports::history_fixtures
