// SPDX-License-Identifier: Apache-2.0
//! @file
//! The tolerance report (docs/architecture.md, "Reports"): what every backend's outputs were measured to be against
//! the exact reference, on which cases, and the verdict of the tolerance policy. This model is the single
//! source: report.json is its serialisation (schema_version below; reports/schema/report.schema.json), and the
//! Markdown and HTML pages, `diff`, `merge` and `calibrate` are computed from it, never from the runs.
//!
//! A report holds cases (each reproducible from its request) and rows: one per case x backend x pass, the
//! pass being the forward (h, h_last / y, h_last) or the backward (every gradient). A row's tensors carry
//! the metrics of properties/compare.hpp and their verdicts; a row passes when all its tensors do, nothing
//! is missing and the run did not fail.
//!
//! Reading is strict: a file that is not a scancheck report, has another schema_version, lacks or mistypes
//! a field, or names a row's backend outside the grammar of backends/variant.hpp is an InputError naming
//! the file and the field.
//!
//! The model is model.cpp; report.json's writer is report_json.cpp, its reader report_reader.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/architecture.hpp"
#include "core/dtype.hpp"
#include "core/generate.hpp"
#include "core/shape.hpp"
#include "properties/compare.hpp"
#include "properties/diagnosis.hpp"
#include "properties/policy.hpp"
#include "properties/verdict.hpp"

namespace scancheck::reports {

//! Version 2 (this scancheck writes it): rows carry the verdict of foreign-backends.md (pass, fail, error, fault,
//! timeout), their pass direction under "direction", the tensors of the wrong shape and a worker's stderr
//! tail. Version 1 (rows with "pass" for the direction and verdict pass | fail) is still read. Added within
//! version 2, optional and written only when there is one: "profile" and "providers"; optional, written by
//! every report since: the policy's "ensemble_factor" and "ensemble_floor" (properties/policy.hpp, rule 4);
//! optional, written for tensors with bounds since 2026-12-07: "profile", "ensemble_profile", "bound_scale" and the
//! derived "detection" (policy.hpp, detection_threshold).
inline constexpr int schema_version = 2;

struct Tool {
  std::string name = "scancheck", version, git_revision;
};

struct Environment {
  std::string executor;               //!< host | cuda
  std::optional<std::string> device;  //!< the CUDA device's name when the cuda executor ran
  std::string compiler;               //!< e.g. "GCC 12.2.0"
  std::optional<std::string> cuda;    //!< CUDA version the build used, absent without the cuda executor
  std::string host;                   //!< machine name
  int threads = 0;                    //!< reference threads
};

//! One part of a run split across machines (`--shard i/n`, a Slurm array task, a Kubernetes indexed job):
//! the report holds the cases whose plan index is i modulo n.
struct ShardOf {
  std::int64_t index = 0, count = 1;
  bool operator==(const ShardOf&) const = default;
};

struct Method {
  std::string preset;               //!< quick | ci | seed-shapes | custom
  std::string reference_precision;  //!< float128, float64, ...
  std::string bounds;               //!< what the per-element bound is
  std::string baseline;             //!< what the baseline ratio compares with
  std::string sampling;             //!< how much of each case the reference computed
  std::uint64_t seed = 0;
  std::string backends;               //!< the backend glob
  std::vector<std::int64_t> lengths;  //!< the case lengths of the ladder presets (empty for seed-shapes)
  std::optional<ShardOf> shard;       //!< the part of the plan this report ran; absent: all of it
};

//! What a merge of shard reports (merge.hpp) got of the shards it expected: shards that wrote no report
//! (failed, preempted, never started) and shards cut short (interrupted) are named, never silently dropped.
struct ShardCoverage {
  std::int64_t count = 0;                 //!< shards the run was split into
  std::vector<std::int64_t> merged;       //!< shard indices whose reports were merged
  std::vector<std::int64_t> missing;      //!< shard indices without a report
  std::vector<std::int64_t> interrupted;  //!< merged shards that were cut short
};

//! How a tiered reference (reference.hpp, Precision::tiered) got the verified elements of a case, or of all.
struct ReferenceTierCounts {
  std::int64_t certified_by_double = 0;  //!< double values within 1/1000 of their float32 bound, certified
  std::int64_t needed_float128 = 0;      //!< elements that were not: their blocks were recomputed in float128
  std::int64_t float128_blocks = 0;      //!< (batch, head) blocks recomputed in float128
  std::int64_t blocks = 0;               //!< (batch, head) blocks the reference computed
  friend bool operator==(const ReferenceTierCounts&, const ReferenceTierCounts&) = default;
};

struct Coverage {
  std::int64_t backends_total = 0;    //!< registered backends
  std::int64_t backends_checked = 0;  //!< distinct backends with at least one row
  std::int64_t cases = 0, shapes = 0, rows = 0;
  std::int64_t elements_total = 0;     //!< output elements of every case (once per case, not per backend)
  std::int64_t elements_verified = 0;  //!< of which the reference computed (sampled blocks)
  double fraction_verified = 1;
  std::optional<ShardCoverage> shards;       //!< a merge of shard reports: which shards it holds
  std::optional<ReferenceTierCounts> tiers;  //!< summed over the cases with a tiered reference
};

struct CaseEntry {
  std::string id;  //!< "c0", "c1", ... unique within the report; rows refer to it
  CaseRequest request;
  std::int64_t elements_total = 0, elements_verified = 0;
  double fraction_verified = 1;
  std::string repro;                         //!< the CLI fragment that regenerates the case (describe_request)
  std::optional<ReferenceTierCounts> tiers;  //!< a tiered reference: what double certified, what needed float128
};

//! Device time of one pass (CUDA events around its launches, warmed runs).
struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
};

// ---- a user's speed profile joined to the rows (reports/profile.hpp; `--timings PROFILE.json`) ----------
// Durations scancheck did not measure: it reads them from the user's profile and matches them by name and
// shape. All optional: reports without a joined profile (and those written before) have none.

//! The (batch, length, width) a profile row was taken at; profiles name no heads.
struct ProfileShape {
  std::int64_t batch = 1, length = 1, width = 1;
  friend bool operator==(const ProfileShape&, const ProfileShape&) = default;
  friend auto operator<=>(const ProfileShape&, const ProfileShape&) = default;
};

//! One category of a profile row's CUDA events ("copy", "gemm", "reverse_replay", ...).
struct ProfileCategory {
  std::int64_t events = 0;
  double duration_us = 0;  //!< summed CUDA event durations, microseconds
};

//! A backward row's measured speed, from the profile row that matched it: one warmed backward pass of the
//! backend at the row's (batch, length, width), as the profile's method says (ProfileJoin::method).
struct ProfileTiming {
  std::int64_t profile_row = 0;  //!< index into the profile's rows
  double summed_cuda_duration_us = 0;
  std::int64_t cuda_events = 0;
  std::map<std::string, ProfileCategory> categories;
};

//! Where a joined profile came from.
struct ProfileSource {
  std::string file;         //!< as given to --timings
  std::uint64_t bytes = 0;  //!< the file's size
  std::string sha256;       //!< of the file's bytes, lowercase hex (`sha256sum FILE` prints it)
  std::int64_t rows = 0;    //!< the profile's rows
};

//! --timings-alias FROM=TO: the profile's architecture or provider name FROM read as TO (samu=complex_rglru).
struct ProfileAlias {
  std::string from, to;
  friend bool operator==(const ProfileAlias&, const ProfileAlias&) = default;
};

//! A profile row that matched no row of the report, and why, in words.
struct UnmatchedProfileRow {
  std::int64_t profile_row = 0;
  ProfileShape shape;
  std::string architecture, backend;  //!< as the profile wrote them
  std::string reason;                 //!< "no row of this report has batch 4, length 2048, width 2048 (any heads)", ...
};

//! The join of a profile to the report: provenance, the profile's method quoted verbatim, the aliases, what
//! matched and what did not.
struct ProfileJoin {
  ProfileSource source;
  std::string method;                  //!< the profile's "method", verbatim
  std::vector<ProfileAlias> aliases;   //!< the --timings-alias options of the join
  std::int64_t rows_matched = 0;       //!< profile rows joined to at least one report row
  std::int64_t report_rows_timed = 0;  //!< report rows given a ProfileTiming
  std::vector<UnmatchedProfileRow> unmatched;
  //! Backward report rows at a (batch, length, width) the profile has, without a profile entry, and their
  //! backends (report order).
  std::int64_t report_rows_unprofiled = 0;
  std::vector<std::string> unprofiled_backends;
  std::vector<std::string> notes;  //!< what the joined timings do and do not mean, one statement each
};

struct TensorEntry {
  TensorMetrics metrics;
  bool pass = true;
  std::vector<std::string> reasons;
};

struct Row {
  std::string case_id;
  Shape shape;
  Architecture architecture = Architecture::rglru;
  std::string backend;
  DType io_dtype = DType::float32;
  Direction direction = Direction::forward;
  scancheck::Verdict verdict = scancheck::Verdict::pass;
  std::string error;                   //!< the run failed (BackendError): its message, no tensors
  std::string log;                     //!< a worker's last stderr lines, when its run failed
  std::vector<std::string> missing;    //!< outputs of this pass the run did not produce
  std::vector<std::string> misshapen;  //!< outputs of this pass of the wrong shape, "dx: [..] instead of [..]"
  std::vector<std::string> diagnosis;  //!< where a failing run goes wrong (properties/diagnosis.hpp)
  std::vector<std::string> notes;      //!< accuracy a passing run loses that a better formulation keeps
  std::optional<ErrorStrip> strip;     //!< a failing row's worst tensor over (t, w) (properties/diagnosis.hpp)
  std::vector<TensorEntry> tensors;
  std::uint64_t seed = 0;
  std::string repro;  //!< `scancheck check ... --backend NAME`
  std::optional<Timing> timing;
  std::optional<ProfileTiming> profile;  //!< backward rows a joined profile matched (ProfileJoin)

  bool ok() const { return verdict == scancheck::Verdict::pass; }
};

//! A foreign provider of the report's backends (foreign-backends.md): how it was loaded, and what its worker
//! said of itself in its hello (both optional there: absent when it did not say).
struct ProviderEntry {
  std::string name;                                     //!< "numpy" of numpy:rglru/textbook@fp32
  std::string loaded_by;                                //!< "--worker 'COMMAND'", "--plugin PATH"
  std::optional<std::string> runtime;                   //!< "python 3.11.7, torch 2.11.0 cpu, triton 3.6.0 interpreter"
  std::optional<std::string> package, version, commit;  //!< its provenance
  friend bool operator==(const ProviderEntry&, const ProviderEntry&) = default;
};

//! "package mykernels, version 1.2.0, commit 0a1b2c3", or "not said".
std::string describe_provenance(const ProviderEntry&);

//! The report's outcome: the verdict over all rows.
struct Outcome {
  bool pass = true;
  std::int64_t rows_failed = 0;
  std::vector<std::string> backends_failed;  //!< registry order
  std::string summary;                       //!< one line
};

//! A shard report merged into this one (merge.hpp), for provenance.
struct Source {
  std::string generated_at, git_revision;
  std::uint64_t seed = 0;
};

struct Report {
  int schema_version = reports::schema_version;
  std::string label;
  std::string generated_at;  //!< UTC, ISO 8601
  Tool tool;
  Environment environment;
  Method method;
  TolerancePolicy policy;
  Coverage coverage;
  std::vector<CaseEntry> cases;
  std::vector<Row> rows;
  Outcome verdict;
  std::vector<std::string> scope;  //!< what the numbers do and do not mean, one statement each
  std::vector<Source> merged_from;
  //! Set when the run was stopped (SIGINT, SIGTERM) before its plan was done: how far it got. An
  //! interrupted report never passes, whatever its rows say; a merge of interrupted shards says so too.
  std::optional<std::string> interrupted;
  //! Set when a user's speed profile was joined (reports/profile.hpp): what it is and what matched.
  std::optional<ProfileJoin> profile;
  //! The foreign providers of the planned backends (a merge keeps each distinct entry once); none for built-ins.
  std::vector<ProviderEntry> providers;

  const CaseEntry& case_of(const Row&) const;  //!< throws InputError for an unknown id
};

//! Recomputes coverage.{backends_checked, cases, shapes, rows, elements_*, fraction_verified} and the
//! verdict from the cases and rows (backends_total is kept).
void summarise(Report&);

//! "99.99% of verified elements certified in double, 12 needed float128 (3 of 64 blocks recomputed)".
std::string describe_tiers(const ReferenceTierCounts&);

//! "3 of 4 shards merged; without a report: 2; cut short: 1" for a merge of shards, "" otherwise; and the
//! method's "shard 1 of 4 (indices from 0)" for a shard's own report. One wording for every page.
std::string describe_shards(const Coverage&);
std::string describe_shard(const Method&);

//! The lines that say what a report's numbers mean (Report::scope), given its method.
std::vector<std::string> default_scope(const Method&);

nlohmann::json to_json(const Report&);
//! Throws InputError naming `source` and the offending field.
Report from_json(const nlohmann::json&, const std::string& source);

//! report.json's text: the JSON on one line, then a newline.
std::string to_json_text(const Report&);

//! `path` is a report.json file or a report directory holding one (as `scancheck report --out` writes).
Report load_report(const std::filesystem::path& path);
//! Written to a temporary sibling and renamed.
void save_report_json(const Report&, const std::filesystem::path&);

//! A tensor's error relative to its scale: max |got - exact| / max |exact| (max_abs when the scale is 0).
double scaled_error(const TensorMetrics&);

//! The "now" of generated_at: UTC, ISO 8601, seconds.
std::string utc_now();

}  // namespace scancheck::reports
