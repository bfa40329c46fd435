// SPDX-License-Identifier: Apache-2.0
//! @file
//! The report history (`scancheck history`, docs/campaigns.md "History"): every report a campaign adds, kept
//! whole in one SQLite database with its rows and tensors normalised beside it, so that one label's reports
//! can be followed over revisions (render/history_page.hpp draws them) and a new report compared with the
//! best earlier one (`history check`).
//!
//! Schema, versioned by PRAGMA user_version (the current one is history_schema_version below; history.cpp's
//! `migrations` are the steps between versions) and marked by PRAGMA application_id 'SCHK':
//!   v1  reports(id, label, generated_at, git_revision, host, content_hash, added_at, rows_total, rows_failed,
//!               interrupted, bound_factor, report_json)        one per report; report_json is to_json_text
//!       report_rows(report_id, row_index, backend, architecture, io_dtype, direction, case_request, shape,
//!                   repro, verdict, reason, median_ms)         one per report row
//!       row_tensors(report_id, row_index, tensor, dtype, scaled_error, bound_ratio, pass, reason)
//!                                                             one per tensor of a row (scaled_error() of its
//!                                                             metrics; NULL where it is NaN)
//!   v2  reports.tensors_measured, reports.scaled_error_sum: the count and sum of the report's non-NULL
//!       scaled errors, so that best_earlier ranks reports without scanning row_tensors (backfilled from
//!       row_tensors when a v1 database is opened).
//!   v3  report_rows.profile_ms: the row's time in a joined profile of the user's kernels (NULL without one).
//!   v4  reports.content_hash is SHA-256 (sha256.hpp; FNV-1a 64 before), recomputed from report_json on upgrade.
//! Opening upgrades an older database step by step (v1 -> v2 -> ...) in one transaction; a newer one is
//! refused, and so is a file that is not SQLite or an SQLite database of another program.
//!
//! Concurrency: the journal is WAL and every connection waits up to a minute for a lock, so shards of one
//! campaign may `add` to the same file at once; an add takes the write lock before it reads (BEGIN
//! IMMEDIATE), so the duplicate check and the insert are one step.
//!
//! Identity: a report is (label, generated_at, host, git_revision, content hash = the SHA-256 of its
//! to_json_text, sha256.hpp). Adding it again changes nothing (AddResult::added is false), in a file of an
//! older schema too: the upgrade recomputes the hashes that schema stored.
//!
//! "Best earlier" (best_earlier, `history check`): among the reports of the same label generated strictly
//! before the given time, neither interrupted nor empty, the one with the fewest failing rows; ties go to
//! the smallest mean scaled error over its tensors (a mean, so that a report with fewer rows does not win by
//! summing fewer terms), then to the newest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::reports {

namespace detail {
struct HistoryConnection;  //!< history.cpp: the SQLite handle
}

//! The schema this scancheck writes, and the newest it reads.
inline constexpr int history_schema_version = 4;

//! One stored report, without its rows.
struct HistoryEntry {
  std::int64_t id = 0;
  std::string label, generated_at, git_revision, host;
  std::int64_t rows = 0, rows_failed = 0;
  bool interrupted = false;
  double bound_factor = 0;            //!< its tolerance policy's bound factor
  std::int64_t tensors_measured = 0;  //!< tensors with a (non-NaN) scaled error
  double scaled_error_sum = 0;        //!< over those tensors

  //! scaled_error_sum / tensors_measured, 0 without tensors.
  double mean_scaled_error() const;
};

//! A git revision as the page labels it: its first 7 characters, "+" when it was built dirty.
std::string short_revision(std::string_view revision);

//! What `history show` selects: one label's reports, optionally from a date on, and the backends matching
//! a glob.
struct HistoryQuery {
  std::string label;
  std::string backends = "*";  //!< matches_backend_glob; reports without a matching row are left out
  std::string since{};         //!< "YYYY-MM-DD" or a UTC time as generated_at writes it; empty: from the start
};

//! One tensor of one row as the normalised tables hold it; a row without tensors (its run failed) is one
//! measurement with an empty tensor name.
struct HistoryMeasurement {
  std::int64_t report_id = 0;
  std::int64_t row_index = 0;  //!< the row's position in its report
  std::string backend;
  Direction direction = Direction::forward;
  scancheck::Verdict verdict = scancheck::Verdict::pass;  //!< the row's
  std::string reason;                //!< why the row failed (its first reason), empty when it passed
  std::optional<double> median_ms;   //!< the row's device time, when measured
  std::optional<double> profile_ms;  //!< the row's time in a joined profile of the user's (ProfileTiming), ms
  std::string tensor;
  std::optional<double> scaled_error;  //!< absent: no tensor, or NaN
  std::optional<double> bound_ratio;
  bool tensor_pass = true;
  std::string tensor_reason;  //!< the tensor's first reason when it failed
};

//! The outcome of History::add.
struct AddResult {
  HistoryEntry entry;
  bool added = false;  //!< false: the same report was already in the history
};

//! Shell-glob matching of backend names with the grammar of properties/differential.hpp's match_backends:
//! * ? [...] and one {a,b,...} alternation. Unlike match_backends it matches any name (the history keeps
//! backends this build may not register).
bool matches_backend_glob(std::string_view glob, std::string_view backend);

//! Throws InputError unless `since` is "YYYY-MM-DD", optionally followed by "THH:MM[:SS...]".
void check_since(std::string_view since);

class History {
 public:
  enum class Open {
    create_or_upgrade,  //!< `add`: a missing file becomes an empty history
    existing,           //!< `show`, `check`: a missing file is an InputError
  };

  //! Opens (and migrates) the history at `path`. Throws InputError naming the file when it is missing
  //! (Open::existing), not SQLite, another program's database, or of a newer schema than this scancheck's.
  History(const std::filesystem::path& path, Open mode);
  ~History();
  History(History&&) noexcept;
  History& operator=(History&&) noexcept;

  //! The schema version of the open file (history_schema_version once opened).
  int schema_version() const;

  //! Stores `report` whole and its rows normalised, unless it is already there. Throws InputError for a
  //! generated_at that is not an ISO 8601 date (the history orders by it).
  AddResult add(const Report& report);

  //! Every label, sorted.
  std::vector<std::string> labels() const;
  //! The label when the history holds one; InputError naming them (or saying it is empty) otherwise.
  std::string sole_label() const;
  //! The query's reports in date order (generated_at, then the order they were added). Throws InputError
  //! for a malformed `since`.
  std::vector<HistoryEntry> reports(const HistoryQuery&) const;
  //! Every row x tensor of the query's reports whose backend matches, in report, row and tensor order.
  std::vector<HistoryMeasurement> measurements(const HistoryQuery&) const;
  //! The stored report, whole. Throws InputError for an unknown id.
  Report load(std::int64_t id) const;
  //! The best earlier report of `label` before `generated_at` (see the file comment), if any.
  std::optional<HistoryEntry> best_earlier(const std::string& label, const std::string& generated_at) const;

  const std::filesystem::path& path() const;

 private:
  std::unique_ptr<detail::HistoryConnection> db_;
};

}  // namespace scancheck::reports
