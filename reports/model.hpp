// SPDX-License-Identifier: Apache-2.0
//! @file
//! The tolerance report (harness.md, "Reports"): what every backend's outputs were measured to be against
//! the exact reference, on which cases, and the verdict of the tolerance policy. This model is the single
//! source: report.json is its serialisation (schema v1, reports/schema/report.schema.json), and the
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
//! tail. Version 1 (rows with "pass" for the direction and verdict pass | fail) is still read.
inline constexpr int schema_version = 2;


struct Tool {
  std::string name = "scancheck", version, git_revision;
};

struct Environment {
  std::string executor;             //!< host | cuda
  std::optional<std::string> device;  //!< the CUDA device's name when the cuda executor ran
  std::string compiler;             //!< e.g. "GCC 12.2.0"
  std::optional<std::string> cuda;  //!< CUDA version the build used, absent without the cuda executor
  std::string host;                 //!< machine name
  int threads = 0;                  //!< reference threads
};

struct Method {
  std::string preset;               //!< quick | ci | seed-shapes | custom
  std::string reference_precision;  //!< float128, float64, ...
  std::string bounds;               //!< what the per-element bound is
  std::string baseline;             //!< what the baseline ratio compares with
  std::string sampling;             //!< how much of each case the reference computed
  std::uint64_t seed = 0;
  std::string backends;             //!< the backend glob
  std::vector<std::int64_t> lengths;  //!< the case lengths of the ladder presets (empty for seed-shapes)
};

struct Coverage {
  std::int64_t backends_total = 0;    //!< registered backends
  std::int64_t backends_checked = 0;  //!< distinct backends with at least one row
  std::int64_t cases = 0, shapes = 0, rows = 0;
  std::int64_t elements_total = 0;     //!< output elements of every case (once per case, not per backend)
  std::int64_t elements_verified = 0;  //!< of which the reference computed (sampled blocks)
  double fraction_verified = 1;
};

struct CaseEntry {
  std::string id;  //!< "c0", "c1", ... unique within the report; rows refer to it
  CaseRequest request;
  std::int64_t elements_total = 0, elements_verified = 0;
  double fraction_verified = 1;
  std::string repro;  //!< the CLI fragment that regenerates the case (describe_request)
};

//! Device time of one pass (CUDA events around its launches, warmed runs).
struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
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
  std::string error;                 //!< the run failed (BackendError): its message, no tensors
  std::string log;                   //!< a worker's last stderr lines, when its run failed
  std::vector<std::string> missing;  //!< outputs of this pass the run did not produce
  std::vector<std::string> misshapen;  //!< outputs of this pass of the wrong shape, "dx: [..] instead of [..]"
  std::vector<std::string> diagnosis;  //!< where a failing run goes wrong (properties/diagnosis.hpp)
  std::vector<std::string> notes;      //!< accuracy a passing run loses that a better formulation keeps
  std::optional<ErrorStrip> strip;     //!< a failing row's worst tensor over (t, w) (properties/diagnosis.hpp)
  std::vector<TensorEntry> tensors;
  std::uint64_t seed = 0;
  std::string repro;                 //!< `scancheck check ... --backend NAME`
  std::optional<Timing> timing;

  bool ok() const { return verdict == scancheck::Verdict::pass; }
};

//! The report's outcome: the verdict over all rows.
struct Outcome {
  bool pass = true;
  std::int64_t rows_failed = 0;
  std::vector<std::string> backends_failed;  //!< registry order
  std::string summary;                        //!< one line
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

  const CaseEntry& case_of(const Row&) const;  //!< throws InputError for an unknown id
};

//! Recomputes coverage.{backends_checked, cases, shapes, rows, elements_*, fraction_verified} and the
//! verdict from the cases and rows (backends_total is kept).
void summarise(Report&);

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
