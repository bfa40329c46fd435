// SPDX-License-Identifier: Apache-2.0
//! @file
//! Fills a tolerance report (model.hpp) by running backends against the reference (properties/differential):
//! the presets say which cases, the glob which backends, the executor where they run.
//!
//!   quick        every (architecture, io dtype) group of the matched backends: 5 cases, lengths 2, 33, 300,
//!                2100 (the hierarchical schedules' largest group spans 2048) and 8200, everything else
//!                drawn from the fuzz stream (properties/fuzz.hpp: batch, heads, regime, h0, dh_last, sqrt
//!                convention; the width widened to at least 64); host executor. About two minutes for every
//!                backend on two cores.
//!   ci           the same with 8 cases per group, lengths 1 to 4100 (about 3x quick's time).
//!   seed-shapes  the four production shapes (4,2048,2048), (1,8192,2560), (1,32768,1024), (1,32768,2048)
//!                with 16 heads, for rglru and complex_rglru, every element verified (`sample`: one
//!                (batch, head) block per case, drawn from the seed, at full length). Default backends: the
//!                three production variants in both dtypes. The cuda executor when a device exists.
//!   scale        shapes past 32-bit indexing, (1, 2^20 + 64, 2048) and (1025, 1024, 2048) with 16 heads
//!                (B x L x W just above 2^31; the last batch entries start beyond 2^31), every element
//!                verified, for the backends where such bugs live: the cuda executor's, or foreign ones. Its
//!                shapes need about 60 GiB of memory; smaller machines refuse it up front.
//! Every preset's reference is the tiered one (reference.hpp): double certified element by element against
//! its own error bound, float128 for the blocks it does not certify; the report says how many.
//! With the cuda executor every row also carries device timings (median, min, max of warmed runs).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/generate.hpp"
#include "reference/reference.hpp"
#include "reports/model.hpp"

namespace scancheck::reports {

struct ReportOptions {
  std::string preset = "quick";
  std::optional<std::string> backends;  //!< glob; nullopt: the preset's default
  std::optional<Executor> executor;     //!< nullopt: auto (cuda for seed-shapes when a device exists)
  std::uint64_t seed = 1;
  std::string label;                  //!< default: the preset's name
  std::vector<std::int64_t> lengths;  //!< quick and ci: the case lengths instead of the preset's ladder
  std::vector<Regime> regimes;        //!< quick and ci: the cases' regimes in turn instead of drawn ones
  TolerancePolicy policy;
  int threads = 0;  //!< reference threads (0: all cores)
  int timing_warmup = 3, timing_repeats = 10;
  const std::atomic<bool>* stop = nullptr;  //!< set to stop after the current case; the report says so
  double max_reference_seconds = 0;         //!< > 0: refuse the plan if one case's reference would take longer
  ShardOf shard;                            //!< run only the cases whose plan index is shard.index mod shard.count
  Precision reference_precision = Precision::tiered;  //!< tiered or float128
  bool sample = false;                                //!< seed-shapes: one (batch, head) block per case instead of all
};

//! One case the report runs: its request and what the reference computes of it.
struct PlannedCase {
  CaseRequest request;
  Precision precision = Precision::float128;
  std::optional<std::vector<Block>> sample;  //!< nullopt: every block
  bool notes = true;                         //!< also the strict bounds behind the notes (always with --strict)
  //! The backends that run it: those of its architecture and io dtype whose constraints it was planned for.
  std::vector<const BackendInfo*> backends;
};

struct ReportPlan {
  std::vector<PlannedCase> cases;
  std::vector<const BackendInfo*> backends;
  Executor executor = Executor::host;
  std::int64_t backend_runs = 0;     //!< sum over cases of the backends of their architecture and dtype
  std::int64_t cases_unsharded = 0;  //!< the whole plan's cases, of which a shard runs every count-th
};

//! The presets' names, for help texts and errors.
const std::vector<std::string>& preset_names();

//! The cases and backends of a preset (of its shard, when split). Throws InputError for an unknown preset, a
//! glob that matches nothing, an executor this build or machine cannot run, or a shard without a case.
ReportPlan plan_report(const ReportOptions&);

struct ReportProgress {
  std::int64_t runs_done = 0, runs_total = 0;
  std::int64_t case_index = 0, cases = 0;
  std::string activity;  //!< "reference of c3 (rglru B=1 L=2100 W=24 H=2)", "rglru/chunk16@fp32", ...
  double elapsed = 0;
  //! Work in element-steps weighted by what costs them (a reference counts as `reference_weight` backend
  //! runs): what an ETA extrapolates, since cases range over four orders of magnitude in size.
  double work_done = 0, work_total = 0;
};

//! Runs the plan and returns the summarised report.
Report run_report(const ReportOptions&, const std::function<void(const ReportProgress&)>& progress = {});

}  // namespace scancheck::reports
