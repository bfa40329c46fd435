// SPDX-License-Identifier: Apache-2.0
#include "reports/model.hpp"

#include <algorithm>

#include <chrono>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace scancheck::reports {

const CaseEntry& Report::case_of(const Row& row) const {
  for (const CaseEntry& c : cases)
    if (c.id == row.case_id) return c;
  throw InputError(fmt::format("row of {} refers to unknown case '{}'", row.backend, row.case_id));
}

double scaled_error(const TensorMetrics& m) { return m.max_exact > 0 ? m.max_abs / m.max_exact : m.max_abs; }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

namespace {

//! ": 3 fail, 1 fault, 2 timeout": the failing rows by verdict, in the order of the verdicts.
std::string verdict_counts(const std::vector<Row>& rows) {
  std::string out;
  for (scancheck::Verdict v :
       {scancheck::Verdict::fail, scancheck::Verdict::error, scancheck::Verdict::fault, scancheck::Verdict::timeout}) {
    const auto n = std::count_if(rows.begin(), rows.end(), [v](const Row& row) { return row.verdict == v; });
    if (n > 0) out += fmt::format("{}{} {}", out.empty() ? ": " : ", ", n, to_string(v));
  }
  return out;
}

}  // namespace

void summarise(Report& r) {
  std::set<std::string> backends, shapes;
  std::map<std::string, bool> backend_ok;
  std::vector<std::string> order;
  for (const Row& row : r.rows) {
    if (backends.insert(row.backend).second) order.push_back(row.backend);
    backend_ok.try_emplace(row.backend, true).first->second &= row.ok();
  }
  r.coverage.backends_checked = static_cast<std::int64_t>(backends.size());
  r.coverage.cases = static_cast<std::int64_t>(r.cases.size());
  r.coverage.rows = static_cast<std::int64_t>(r.rows.size());
  r.coverage.elements_total = r.coverage.elements_verified = 0;
  r.coverage.tiers.reset();
  for (const CaseEntry& c : r.cases) {
    shapes.insert(to_string(c.request.shape));
    r.coverage.elements_total += c.elements_total;
    r.coverage.elements_verified += c.elements_verified;
    if (!c.tiers) continue;
    ReferenceTierCounts& all = r.coverage.tiers ? *r.coverage.tiers : r.coverage.tiers.emplace();
    all.certified_by_double += c.tiers->certified_by_double;
    all.needed_float128 += c.tiers->needed_float128;
    all.float128_blocks += c.tiers->float128_blocks;
    all.blocks += c.tiers->blocks;
  }
  r.coverage.shapes = static_cast<std::int64_t>(shapes.size());
  r.coverage.fraction_verified = r.coverage.elements_total > 0 ? static_cast<double>(r.coverage.elements_verified) /
                                                                     static_cast<double>(r.coverage.elements_total)
                                                               : 1;
  r.verdict = {};
  for (const Row& row : r.rows) r.verdict.rows_failed += row.ok() ? 0 : 1;
  for (const std::string& b : order)
    if (!backend_ok[b]) r.verdict.backends_failed.push_back(b);
  r.verdict.pass = r.verdict.rows_failed == 0 && !r.rows.empty() && !r.interrupted;
  if (r.interrupted)
    r.verdict.summary = fmt::format("INTERRUPTED: {} So far {} backends x {} cases, {} rows, {} failed{}",
                                    *r.interrupted, r.coverage.backends_checked, r.coverage.cases, r.coverage.rows,
                                    r.verdict.rows_failed, verdict_counts(r.rows));
  else if (r.rows.empty()) r.verdict.summary = "FAIL: nothing was checked";
  else if (r.verdict.pass)
    r.verdict.summary = fmt::format("PASS: {} backends x {} cases, {} rows, every row within the tolerance policy",
                                    r.coverage.backends_checked, r.coverage.cases, r.coverage.rows);
  else
    r.verdict.summary =
        fmt::format("FAIL: {} of {} backends failed ({} of {} rows{})", r.verdict.backends_failed.size(),
                    r.coverage.backends_checked, r.verdict.rows_failed, r.coverage.rows, verdict_counts(r.rows));
}

std::string describe_shards(const Coverage& c) {
  if (!c.shards) return "";
  std::string s = fmt::format("{} of {} shards merged", c.shards->merged.size(), c.shards->count);
  if (!c.shards->missing.empty()) s += fmt::format("; without a report: {}", fmt::join(c.shards->missing, ", "));
  if (!c.shards->interrupted.empty()) s += fmt::format("; cut short: {}", fmt::join(c.shards->interrupted, ", "));
  return s;
}

std::string describe_shard(const Method& m) {
  return m.shard ? fmt::format("shard {} of {} (indices from 0)", m.shard->index, m.shard->count) : "";
}

std::string describe_provenance(const ProviderEntry& p) {
  std::vector<std::string> said;
  for (const auto& [field, value] : {std::pair{"package", &p.package}, {"version", &p.version}, {"commit", &p.commit}})
    if (*value) said.push_back(fmt::format("{} {}", field, **value));
  return said.empty() ? "not said" : fmt::format("{}", fmt::join(said, ", "));
}

std::string describe_tiers(const ReferenceTierCounts& t) {
  const std::int64_t verified = t.certified_by_double + t.needed_float128;
  const double certified =
      verified > 0 ? 100.0 * static_cast<double>(t.certified_by_double) / static_cast<double>(verified) : 100.0;
  return fmt::format(
      "{:.6g}% of verified elements certified in double, {} needed float128 ({} of {} blocks recomputed)", certified,
      t.needed_float128, t.float128_blocks, t.blocks);
}

std::vector<std::string> default_scope(const Method& m) {
  const std::string reference =
      m.reference_precision == "tiered"
          ? "the tiered reference (double values whose own error bound is at most 1/1000 of their float32 bound, "
            "float128 for the blocks of the rest)"
          : fmt::format("a {} reference", m.reference_precision);
  return {
      fmt::format("Errors are measured against {}, exact to far below float32 rounding; bound ratios divide by {}.",
                  reference, m.bounds),
      "A pass means every compared element and tensor satisfied the tolerance policy on these cases only: "
      "other shapes, seeds and regimes are not covered, and a pass is no proof of correctness.",
      fmt::format("Sampling: {}. Elements a sampled reference did not compute are not compared.", m.sampling),
      "Elements whose error bound is infinite (float32 cannot be trusted there) are counted as unbounded and "
      "not judged.",
      "ULP errors are distances from the correctly rounded exact value in ulps of the stored dtype; "
      "histogram bucket 0 is exact, bucket k >= 1 holds (2^(k-2), 2^(k-1)] ulps, bucket 1 is (0, 1].",
      "Device timings, where present, are CUDA-event times of warmed runs on device-resident data; host runs "
      "carry no timings.",
  };
}

}  // namespace scancheck::reports
