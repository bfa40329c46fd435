// SPDX-License-Identifier: Apache-2.0
// The history store: a thin RAII layer over SQLite's C API (a connection, statements, a write
// transaction), the schema's migrations, and the queries of history.hpp.
#include "reports/history.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <regex>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/generate.hpp"
#include "properties/differential.hpp"
#include "reports/sha256.hpp"

namespace scancheck::reports {
namespace fs = std::filesystem;
namespace {

//! 'SCHK' (PRAGMA application_id): the file is a scancheck history, not another program's database.
constexpr std::int32_t scancheck_application_id = 0x5343484b;

//! How long a connection waits for another's lock before giving up: shards adding at once wait for each
//! other (an add takes milliseconds to a second), a stuck process is reported.
constexpr int busy_timeout_ms = 60'000;

//! migrations[v] upgrades the schema from version v to v + 1 (history.hpp has the tables and why).
constexpr std::array<std::string_view, history_schema_version> migrations = {
    // 0 -> 1: the reports, their rows and their rows' tensors.
    R"sql(
CREATE TABLE reports (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  generated_at TEXT NOT NULL,
  git_revision TEXT NOT NULL,
  host TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  added_at TEXT NOT NULL,
  rows_total INTEGER NOT NULL,
  rows_failed INTEGER NOT NULL,
  interrupted INTEGER NOT NULL,
  bound_factor REAL NOT NULL,
  report_json TEXT NOT NULL,
  UNIQUE (label, generated_at, host, git_revision, content_hash)
);
CREATE INDEX reports_by_label_and_date ON reports (label, generated_at);
CREATE TABLE report_rows (
  report_id INTEGER NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  backend TEXT NOT NULL,
  architecture TEXT NOT NULL,
  io_dtype TEXT NOT NULL,
  direction TEXT NOT NULL,
  case_request TEXT NOT NULL,
  shape TEXT NOT NULL,
  repro TEXT NOT NULL,
  verdict TEXT NOT NULL,
  reason TEXT NOT NULL,
  median_ms REAL,
  PRIMARY KEY (report_id, row_index)
);
CREATE INDEX report_rows_by_backend ON report_rows (backend);
CREATE TABLE row_tensors (
  report_id INTEGER NOT NULL,
  row_index INTEGER NOT NULL,
  tensor TEXT NOT NULL,
  dtype TEXT NOT NULL,
  scaled_error REAL,
  bound_ratio REAL,
  pass INTEGER NOT NULL,
  reason TEXT NOT NULL,
  FOREIGN KEY (report_id, row_index) REFERENCES report_rows (report_id, row_index) ON DELETE CASCADE
);
CREATE INDEX row_tensors_by_row ON row_tensors (report_id, row_index);
)sql",
    // 1 -> 2: the ranking of best_earlier per report, backfilled from the tensors already stored.
    R"sql(
ALTER TABLE reports ADD COLUMN tensors_measured INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reports ADD COLUMN scaled_error_sum REAL NOT NULL DEFAULT 0;
UPDATE reports SET
  tensors_measured = (SELECT count(scaled_error) FROM row_tensors WHERE row_tensors.report_id = reports.id),
  scaled_error_sum = (SELECT total(scaled_error) FROM row_tensors WHERE row_tensors.report_id = reports.id);
)sql",
    // 2 -> 3: the speed a user's joined profile measured (`history add --timings`), beside scancheck's own.
    R"sql(
ALTER TABLE report_rows ADD COLUMN profile_ms REAL;
)sql",
    // 3 -> 4: the content hash is reports/sha256.hpp's (it was FNV-1a 64), recomputed from the text it was
    // computed from, so that adding a report already there still adds nothing.
    R"sql(
UPDATE reports SET content_hash = sha256_hex(report_json);
)sql"};

//! The first thing that made a row fail (report_rows.reason): the page's tooltips, history.md.
std::string failure_reason(const Row& row) {
  if (row.ok()) return "";
  if (!row.error.empty()) return "run failed: " + row.error;
  if (!row.missing.empty()) return fmt::format("missing {}", fmt::join(row.missing, ", "));
  if (!row.misshapen.empty()) return "wrong shape: " + row.misshapen.front();
  for (const TensorEntry& t : row.tensors)
    if (!t.pass) return fmt::format("{}: {}", t.metrics.name, t.reasons.empty() ? "fails" : t.reasons.front());
  return std::string(to_string(row.verdict));
}

// ---- SQLite -------------------------------------------------------------------------------------------

//! A non-empty file must start with SQLite's header. SQLite itself takes a file shorter than one page for
//! an empty database and would write over it; a longer one it refuses only when first read.
void require_sqlite_header(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> header{};
  in.read(header.data(), header.size());
  const auto got = static_cast<std::size_t>(in.gcount());
  if (got == 0) return;  // new or empty: SQLite makes it a database
  constexpr std::string_view magic("SQLite format 3\0", 16);
  if (got < header.size() || std::string_view(header.data(), header.size()) != magic)
    throw InputError(
        fmt::format("history database '{}' is not an SQLite database (it does not start with SQLite's "
                    "header)",
                    path.string()));
}

//! `backend_glob(glob, name)` in SQL: matches_backend_glob.
void backend_glob_sql(sqlite3_context* context, int, sqlite3_value** argv) {
  const auto* glob = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const auto* name = reinterpret_cast<const char*>(sqlite3_value_text(argv[1]));
  sqlite3_result_int(context, glob && name && matches_backend_glob(glob, name) ? 1 : 0);
}

//! `sha256_hex(text)` in SQL: the content hash, for the migration that recomputes the stored ones.
void sha256_hex_sql(sqlite3_context* context, int, sqlite3_value** argv) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));  // before _bytes, as SQLite asks
  const auto bytes = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
  try {
    const std::string hash = sha256_hex(text ? std::string_view(text, bytes) : std::string_view());
    sqlite3_result_text(context, hash.data(), static_cast<int>(hash.size()), SQLITE_TRANSIENT);
  } catch (const std::exception& e) {  // nothing may leave a callback of SQLite's
    sqlite3_result_error(context, e.what(), -1);
  }
}

//! The functions of scancheck's own that the queries and migrations call.
struct SqlFunction {
  const char* name;
  int arguments;
  void (*call)(sqlite3_context*, int, sqlite3_value**);
};
constexpr std::array<SqlFunction, 2> sql_functions = {
    {{"backend_glob", 2, backend_glob_sql}, {"sha256_hex", 1, sha256_hex_sql}}};

}  // namespace

//! One open database: the handle and the name errors use.
struct detail::HistoryConnection {
  sqlite3* db = nullptr;
  fs::path path;

  HistoryConnection(fs::path file, bool create) : path(std::move(file)) {
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      const std::string reason = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close_v2(db);  // the handle exists even when opening failed
      throw InputError(fmt::format("cannot open history database '{}': {}", path.string(), reason));
    }
    sqlite3_busy_timeout(db, busy_timeout_ms);
    sqlite3_extended_result_codes(db, 1);
    for (const SqlFunction& f : sql_functions)
      if (sqlite3_create_function_v2(db, f.name, f.arguments, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                     nullptr, f.call, nullptr, nullptr, nullptr) != SQLITE_OK) {
        const std::string reason = sqlite3_errmsg(db);
        sqlite3_close_v2(db);
        throw InputError(fmt::format("history database '{}': cannot register {}: {}", path.string(), f.name, reason));
      }
  }
  ~HistoryConnection() { sqlite3_close_v2(db); }
  HistoryConnection(const HistoryConnection&) = delete;
  HistoryConnection& operator=(const HistoryConnection&) = delete;

  //! One line naming the file, what was being done and SQLite's reason.
  [[noreturn]] void fail(std::string_view what) const {
    const int code = sqlite3_errcode(db);
    const std::string reason = sqlite3_errmsg(db);
    if ((code & 0xff) == SQLITE_NOTADB)
      throw InputError(fmt::format("history database '{}' is not an SQLite database ({})", path.string(), reason));
    throw InputError(fmt::format("history database '{}': {}: {}", path.string(), what, reason));
  }

  void exec(const char* sql, std::string_view what) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(what);
  }
};

namespace {

using Connection = detail::HistoryConnection;

//! A prepared statement; bind() takes 1-based positions as SQL does.
class Statement {
 public:
  Statement(Connection& c, std::string_view sql) : c_(c) {
    if (sqlite3_prepare_v2(c.db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
      c.fail("cannot prepare a query");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::string_view text) {
    if (text.data() == nullptr) text = "";  // a null pointer would bind NULL
    return check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  Statement& bind(int i, std::int64_t value) { return check(sqlite3_bind_int64(stmt_, i, value)); }
  //! NaN becomes NULL (SQLite would too, silently).
  Statement& bind(int i, double value) {
    return check(std::isnan(value) ? sqlite3_bind_null(stmt_, i) : sqlite3_bind_double(stmt_, i, value));
  }
  Statement& bind(int i, const std::optional<double>& value) {
    return value ? bind(i, *value) : check(sqlite3_bind_null(stmt_, i));
  }

  //! true while there is a row to read.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) c_.fail("query failed");
    return false;
  }
  //! step(), but SQLITE_BUSY gives nullopt instead of failing (for the one statement that does not wait).
  std::optional<bool> step_unless_busy() {
    const int rc = sqlite3_step(stmt_);
    if ((rc & 0xff) == SQLITE_BUSY) return std::nullopt;
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) c_.fail("query failed");
    return false;
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::string text(int column) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  std::optional<double> optional_real(int column) const {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
    return real(column);
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) c_.fail("cannot bind a value");
    return *this;
  }

  Connection& c_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::int64_t pragma_integer(Connection& c, const char* pragma) {
  Statement s(c, pragma);
  return s.step() ? s.integer(0) : 0;
}

//! BEGIN IMMEDIATE: the write lock up front, so that what the transaction reads stays true until it
//! commits (a deferred one could read, then find another writer got there first). Rolls back unless
//! committed.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& c) : c_(c) { c_.exec("BEGIN IMMEDIATE", "cannot take the write lock"); }
  ~WriteTransaction() {
    if (!done_) sqlite3_exec(c_.db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit() {
    c_.exec("COMMIT", "cannot commit");
    done_ = true;
  }

 private:
  Connection& c_;
  bool done_ = false;
};

//! What a file says it is. Read in one statement, which is one read transaction: a process giving the file
//! its schema meanwhile is seen either not at all or whole (three separate reads could see the marks from
//! before its commit and the tables from after, and refuse a good history).
struct FileMarks {
  std::int64_t application_id = 0;
  std::int64_t user_version = 0;
  std::int64_t tables = 0;
};

FileMarks marks_of(Connection& c) {
  Statement s(c,
              "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_schema) "
              "FROM pragma_application_id AS a, pragma_user_version AS v");
  FileMarks m;
  if (s.step()) m = {s.integer(0), s.integer(1), s.integer(2)};
  return m;
}

//! Refuses a database that is not a scancheck history or is newer than this scancheck, before anything is
//! written to it.
void check_ours(const Connection& c, const FileMarks& m) {
  const bool foreign_id = m.application_id != 0 && m.application_id != scancheck_application_id;
  const bool unmarked_tables = m.user_version == 0 && m.application_id == 0 && m.tables > 0;
  if (foreign_id || unmarked_tables || (m.user_version > 0 && m.application_id != scancheck_application_id))
    throw InputError(
        fmt::format("'{}' is an SQLite database but not a scancheck history (application_id {:#x}, "
                    "user_version {})",
                    c.path.string(), m.application_id, m.user_version));
  if (m.user_version > history_schema_version)
    throw InputError(fmt::format("history database {} has schema version {}; this scancheck reads up to {}",
                                 c.path.string(), m.user_version, history_schema_version));
}

//! Upgrades the schema step by step to history_schema_version, in one transaction (all steps or none).
void migrate(Connection& c) {
  if (marks_of(c).user_version == history_schema_version) return;
  WriteTransaction transaction(c);
  const FileMarks marks = marks_of(c);  // another process may have migrated meanwhile
  check_ours(c, marks);
  for (auto v = static_cast<std::size_t>(marks.user_version); v < migrations.size(); ++v)
    c.exec(migrations[v].data(), fmt::format("cannot upgrade the schema from version {}", v));
  c.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", scancheck_application_id,
                     history_schema_version)
             .c_str(),
         "cannot set the schema version");
  transaction.commit();
}

//! WAL: readers never block the writer, so shards add while a page is drawn. The mode is kept in the
//! file; setting it again is a no-op. Switching needs the file to itself, and SQLite then takes the
//! exclusive lock without calling the busy handler: SQLITE_BUSY comes back at once while another process
//! reads. So the switch is retried here, with growing pauses, until the busy timeout has passed.
void use_wal(Connection& c) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  Statement s(c, "PRAGMA journal_mode = WAL");
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(2 * pause, std::chrono::milliseconds(100))) {
    const std::optional<bool> row = s.step_unless_busy();
    if (row) {
      const std::string mode = *row ? s.text(0) : "";
      if (mode != "wal")
        throw InputError(fmt::format("history database '{}': cannot use the WAL journal (the file system keeps '{}')",
                                     c.path.string(), mode));
      return;
    }
    if (clock::now() >= deadline) c.fail("cannot switch to the WAL journal");
    s.reset();
    std::this_thread::sleep_for(pause);
  }
}

constexpr const char* entry_columns =
    "id, label, generated_at, git_revision, host, rows_total, rows_failed, interrupted, bound_factor, "
    "tensors_measured, scaled_error_sum";

HistoryEntry entry_of(const Statement& s) {
  HistoryEntry e;
  e.id = s.integer(0);
  e.label = s.text(1);
  e.generated_at = s.text(2);
  e.git_revision = s.text(3);
  e.host = s.text(4);
  e.rows = s.integer(5);
  e.rows_failed = s.integer(6);
  e.interrupted = s.integer(7) != 0;
  e.bound_factor = s.real(8);
  e.tensors_measured = s.integer(9);
  e.scaled_error_sum = s.real(10);
  return e;
}

//! "YYYY-MM-DD" then anything: what sorts by date as text.
bool starts_with_date(std::string_view text) {
  static const std::regex date(R"(\d{4}-\d{2}-\d{2}.*)");
  return std::regex_match(text.begin(), text.end(), date);
}

//! The entry of `r` as add stores it, before it has an id.
HistoryEntry entry_of(const Report& r) {
  HistoryEntry e;
  e.label = r.label;
  e.generated_at = r.generated_at;
  e.git_revision = r.tool.git_revision;
  e.host = r.environment.host;
  e.rows = static_cast<std::int64_t>(r.rows.size());
  e.rows_failed = std::count_if(r.rows.begin(), r.rows.end(), [](const Row& row) { return !row.ok(); });
  e.interrupted = r.interrupted.has_value();
  e.bound_factor = r.policy.bound_factor;
  for (const Row& row : r.rows)
    for (const TensorEntry& t : row.tensors) {
      const double e_t = scaled_error(t.metrics);
      if (std::isnan(e_t)) continue;  // NULL in row_tensors: count(scaled_error) and total() skip it
      ++e.tensors_measured;
      e.scaled_error_sum += e_t;
    }
  return e;
}

void insert_rows(Connection& c, std::int64_t report_id, const Report& r) {
  Statement row_insert(c,
                       "INSERT INTO report_rows (report_id, row_index, backend, architecture, io_dtype, direction, "
                       "case_request, shape, repro, verdict, reason, median_ms, profile_ms) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  Statement tensor_insert(c,
                          "INSERT INTO row_tensors (report_id, row_index, tensor, dtype, scaled_error, bound_ratio, "
                          "pass, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const Row& row = r.rows[i];
    const auto index = static_cast<std::int64_t>(i);
    row_insert.bind(1, report_id).bind(2, index).bind(3, row.backend).bind(4, to_string(row.architecture));
    row_insert.bind(5, to_string(row.io_dtype)).bind(6, to_string(row.direction));
    row_insert.bind(7, to_string(r.case_of(row).request)).bind(8, to_string(row.shape)).bind(9, row.repro);
    row_insert.bind(10, to_string(row.verdict)).bind(11, failure_reason(row));
    row_insert.bind(12, row.timing ? std::optional<double>(row.timing->median_ms) : std::nullopt);
    row_insert.bind(13,
                    row.profile ? std::optional<double>(row.profile->summed_cuda_duration_us / 1000) : std::nullopt);
    row_insert.run();
    row_insert.reset();
    for (const TensorEntry& t : row.tensors) {
      tensor_insert.bind(1, report_id).bind(2, index).bind(3, t.metrics.name).bind(4, to_string(t.metrics.dtype));
      tensor_insert.bind(5, scaled_error(t.metrics)).bind(6, t.metrics.bound_ratio);
      tensor_insert.bind(7, std::int64_t{t.pass ? 1 : 0});
      tensor_insert.bind(8, t.pass || t.reasons.empty() ? std::string() : t.reasons.front());
      tensor_insert.run();
      tensor_insert.reset();
    }
  }
}

}  // namespace

double HistoryEntry::mean_scaled_error() const {
  return tensors_measured > 0 ? scaled_error_sum / static_cast<double>(tensors_measured) : 0;
}

std::string short_revision(std::string_view revision) {
  const std::size_t plus = revision.find('+');
  const std::string_view commit = revision.substr(0, plus);
  return std::string(commit.substr(0, 7)) + (plus == std::string_view::npos ? "" : "+");
}

bool matches_backend_glob(std::string_view glob, std::string_view backend) {
  return backend_name_matches(glob, std::string(backend));
}

void check_since(std::string_view since) {
  static const std::regex form(R"(\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?)?)");
  if (!std::regex_match(since.begin(), since.end(), form))
    throw InputError(fmt::format("--since '{}' is not a date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)", since));
}

History::History(const fs::path& path, Open mode) {
  if (mode == Open::existing && !fs::exists(path))
    throw InputError(
        fmt::format("history database '{}' does not exist (`scancheck history add` creates it)", path.string()));
  // A new history is built whole under a temporary name, in WAL mode and with its schema, then linked into
  // place: processes racing to create it never see it half made (core/files.hpp).
  if (mode == Open::create_or_upgrade)
    create_file_exclusively(path, [](const fs::path& building) {
      Connection c(building, true);
      use_wal(c);
      migrate(c);
    });
  if (!fs::is_regular_file(path)) throw InputError(fmt::format("history database '{}' is not a file", path.string()));
  require_sqlite_header(path);
  db_ = std::make_unique<Connection>(path, false);
  // Read the marks before changing anything: a foreign file is refused untouched. An existing file of an
  // older schema (or an empty one) is upgraded in place, under the write lock.
  check_ours(*db_, marks_of(*db_));
  use_wal(*db_);
  db_->exec("PRAGMA foreign_keys = ON", "cannot enable foreign keys");
  migrate(*db_);
}

History::~History() = default;
History::History(History&&) noexcept = default;
History& History::operator=(History&&) noexcept = default;

const fs::path& History::path() const { return db_->path; }

int History::schema_version() const { return static_cast<int>(pragma_integer(*db_, "PRAGMA user_version")); }

AddResult History::add(const Report& report) {
  if (!starts_with_date(report.generated_at))
    throw InputError(
        fmt::format("report '{}': generated_at '{}' is not an ISO 8601 UTC time; the history orders "
                    "reports by it",
                    report.label, report.generated_at));
  const std::string text = to_json_text(report);
  const std::string hash = sha256_hex(text);
  AddResult result{entry_of(report), false};
  HistoryEntry& e = result.entry;
  WriteTransaction transaction(*db_);
  Statement existing(*db_,
                     "SELECT id FROM reports WHERE label = ?1 AND generated_at = ?2 AND host = ?3 "
                     "AND git_revision = ?4 AND content_hash = ?5");
  existing.bind(1, e.label).bind(2, e.generated_at).bind(3, e.host).bind(4, e.git_revision).bind(5, hash);
  if (existing.step()) {
    e.id = existing.integer(0);
    return result;  // rolled back: nothing was written
  }
  Statement insert(*db_,
                   "INSERT INTO reports (label, generated_at, git_revision, host, content_hash, added_at, rows_total, "
                   "rows_failed, interrupted, bound_factor, report_json, tensors_measured, scaled_error_sum) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  insert.bind(1, e.label).bind(2, e.generated_at).bind(3, e.git_revision).bind(4, e.host).bind(5, hash);
  insert.bind(6, utc_now()).bind(7, e.rows).bind(8, e.rows_failed).bind(9, std::int64_t{e.interrupted ? 1 : 0});
  insert.bind(10, e.bound_factor).bind(11, text).bind(12, e.tensors_measured).bind(13, e.scaled_error_sum);
  insert.run();
  e.id = sqlite3_last_insert_rowid(db_->db);
  insert_rows(*db_, e.id, report);
  transaction.commit();
  result.added = true;
  return result;
}

std::vector<std::string> History::labels() const {
  Statement s(*db_, "SELECT DISTINCT label FROM reports ORDER BY label");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::string History::sole_label() const {
  const std::vector<std::string> all = labels();
  if (all.empty()) throw InputError(fmt::format("history database '{}' holds no report", db_->path.string()));
  if (all.size() > 1)
    throw InputError(fmt::format("history database '{}' holds the labels '{}': choose one with --label",
                                 db_->path.string(), fmt::join(all, "', '")));
  return all.front();
}

std::vector<HistoryEntry> History::reports(const HistoryQuery& q) const {
  if (!q.since.empty()) check_since(q.since);
  Statement s(*db_, fmt::format("SELECT {} FROM reports WHERE label = ?1 AND generated_at >= ?2 AND "
                                "(?3 = '*' OR EXISTS (SELECT 1 FROM report_rows r WHERE r.report_id = reports.id "
                                "AND backend_glob(?3, r.backend))) ORDER BY generated_at, id",
                                entry_columns));
  s.bind(1, q.label).bind(2, q.since).bind(3, q.backends);
  std::vector<HistoryEntry> out;
  while (s.step()) out.push_back(entry_of(s));
  return out;
}

std::vector<HistoryMeasurement> History::measurements(const HistoryQuery& q) const {
  if (!q.since.empty()) check_since(q.since);
  Statement s(*db_,
              "SELECT r.report_id, r.backend, r.direction, r.verdict, r.reason, r.median_ms, t.tensor, t.scaled_error, "
              "t.bound_ratio, t.pass, t.reason, r.row_index, r.profile_ms FROM reports p JOIN report_rows r ON "
              "r.report_id = p.id "
              "LEFT JOIN row_tensors t ON t.report_id = r.report_id AND t.row_index = r.row_index "
              "WHERE p.label = ?1 AND p.generated_at >= ?2 AND backend_glob(?3, r.backend) "
              "ORDER BY p.generated_at, p.id, r.row_index, t.rowid");
  s.bind(1, q.label).bind(2, q.since).bind(3, q.backends);
  std::vector<HistoryMeasurement> out;
  while (s.step()) {
    HistoryMeasurement m;
    m.report_id = s.integer(0);
    m.backend = s.text(1);
    m.direction = parse_direction(s.text(2));
    m.verdict = parse_verdict(s.text(3));
    m.reason = s.text(4);
    m.median_ms = s.optional_real(5);
    m.tensor = s.text(6);
    m.scaled_error = s.optional_real(7);
    m.bound_ratio = s.optional_real(8);
    m.tensor_pass = m.tensor.empty() || s.integer(9) != 0;
    m.tensor_reason = s.text(10);
    m.row_index = s.integer(11);
    m.profile_ms = s.optional_real(12);
    out.push_back(std::move(m));
  }
  return out;
}

Report History::load(std::int64_t id) const {
  Statement s(*db_, "SELECT report_json FROM reports WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) throw InputError(fmt::format("history database '{}' has no report {}", db_->path.string(), id));
  const std::string source = fmt::format("{} (report {})", db_->path.string(), id);
  try {
    return from_json(nlohmann::json::parse(s.text(0)), source);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: the stored report is not JSON: {}", source, e.what()));
  }
}

std::optional<HistoryEntry> History::best_earlier(const std::string& label, const std::string& generated_at) const {
  Statement s(*db_, fmt::format("SELECT {} FROM reports WHERE label = ?1 AND generated_at < ?2 AND interrupted = 0 "
                                "AND rows_total > 0 ORDER BY rows_failed, CASE WHEN tensors_measured > 0 THEN "
                                "scaled_error_sum / tensors_measured ELSE 0 END, generated_at DESC, id DESC LIMIT 1",
                                entry_columns));
  s.bind(1, label).bind(2, generated_at);
  if (!s.step()) return std::nullopt;
  return entry_of(s);
}

}  // namespace scancheck::reports
