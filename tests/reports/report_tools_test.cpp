// SPDX-License-Identifier: Apache-2.0
//! @file
//! diff, merge and calibrate (reports/diff.hpp, merge.hpp, calibrate.hpp) on synthetic reports built in
//! code: two scan backends on a few cases, forward (h, h_last) and backward (da, db, dh0) rows with errors
//! of a few ulps at known scales, so every expected number follows from the rules in the headers.
//! Reports the tests save go to SCANCHECK_TEST_REPORTS/report_tools_test/ (the schema test validates them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "properties/fuzz.hpp"
#include "reports/calibrate.hpp"
#include "reports/diff.hpp"
#include "reports/merge.hpp"
#include "reports/model.hpp"
#include "tests/test_support.hpp"

namespace scancheck::reports {
namespace {

using test::input_error;

const std::string chunk16 = "scan/chunk16@fp32";
const std::string sequential = "scan/sequential@fp32";

std::filesystem::path saved_reports() {
  const std::filesystem::path dir = std::filesystem::path(SCANCHECK_TEST_REPORTS) / "report_tools_test";
  std::filesystem::create_directories(dir);
  return dir;
}

CaseRequest scan_request(std::uint64_t seed) {
  CaseRequest r;
  r.architecture = Architecture::scan;
  r.shape = {1, 33, 8, 1};
  r.seed = seed;
  return r;
}

//! A tensor's entry with max |got - exact| = max_abs at scale max_exact, the other metrics consistent.
TensorEntry measured(const std::string& name, double max_abs, double max_exact, bool pass = true) {
  TensorEntry t;
  TensorMetrics& m = t.metrics;
  m.name = name;
  m.compared = 264;
  m.max_abs = max_abs;
  m.max_exact = max_exact;
  m.max_rel = 4 * max_abs / max_exact;
  m.ulp_max = max_abs / (max_exact * 0x1p-23);
  m.ulp_p50 = 0;
  m.ulp_p90 = m.ulp_p99 = std::min(1.0, m.ulp_max);
  m.max_bound = 40 * max_abs;
  m.bound_ratio = pass ? 0.05 : 9.5;
  m.baseline_abs = max_abs;
  m.baseline_ratio = 1;
  m.worst = {17, "[0, 2, 1]", max_exact - max_abs, max_exact, m.max_bound, m.ulp_max};
  m.ulp_histogram[0] = 200;
  m.ulp_histogram[1] = 64;
  t.pass = pass;
  if (!pass) t.reasons = {"bound ratio 9.5 > 4 at [0, 2, 1]"};
  return t;
}

//! A report as `scancheck report` writes it, without cases and rows.
Report empty_report(const std::string& label = "unit", std::uint64_t seed = 1) {
  Report r;
  r.label = label;
  r.generated_at = fmt::format("2024-05-0{}T12:00:00Z", seed % 9 + 1);
  r.tool = {"scancheck", "0.1.0", fmt::format("abc{}", seed)};
  r.environment = {"host", std::nullopt, "GCC 12.2.0", std::nullopt, "testhost", 2};
  r.method = {"custom",
              "float128",
              "first-order float32 bounds",
              "scan/sequential@fp32",
              "none: every element",
              seed,
              "scan/*@fp32",
              {2, 33},
              std::nullopt};
  r.coverage.backends_total = 5;
  r.scope = default_scope(r.method);
  return r;
}

//! The id of `request`'s case in `r`, adding the case when it is new.
std::string case_id(Report& r, const CaseRequest& request) {
  for (const CaseEntry& c : r.cases)
    if (to_string(c.request) == to_string(request)) return c.id;
  r.cases.push_back({fmt::format("c{}", r.cases.size()), request, 1000, 1000, 1, to_string(request), std::nullopt});
  return r.cases.back().id;
}

void add_row(Report& r, const CaseRequest& request, const std::string& backend, Direction direction,
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
}

//! Forward and backward rows of `backend` on the case of `seed`; errors grow with the seed so that rows
//! of different cases never look alike, and scale with `error_scale`.
void add_rows(Report& r, std::uint64_t seed, const std::string& backend, double error_scale = 1) {
  const double e = 4e-6 * (1 + 0.25 * static_cast<double>(seed)) * error_scale;
  add_row(r, scan_request(seed), backend, Direction::forward, {measured("h", e, 4), measured("h_last", e / 2, 3)});
  add_row(r, scan_request(seed), backend, Direction::backward,
          {measured("da", 2 * e, 6), measured("db", e, 5), measured("dh0", e / 4, 2)});
}

//! Both backends on the cases of seeds 1 and 2.
Report two_case_report(const std::string& label = "unit", std::uint64_t seed = 1) {
  Report r = empty_report(label, seed);
  for (std::uint64_t s : {1, 2})
    for (const std::string& b : {chunk16, sequential}) add_rows(r, s, b);
  summarise(r);
  return r;
}

Row& row_of(Report& r, std::uint64_t seed, const std::string& backend, Direction direction) {
  for (Row& row : r.rows)
    if (row.backend == backend && row.direction == direction && r.case_of(row).request.seed == seed) return row;
  throw std::logic_error("no such row");
}

TensorEntry& tensor_of(Row& row, const std::string& name) {
  for (TensorEntry& t : row.tensors)
    if (t.metrics.name == name) return t;
  throw std::logic_error("no such tensor");
}

void fail_row(Row& row) {
  row.tensors.front().pass = false;
  row.tensors.front().reasons = {"bound ratio 9.5 > 4 at [0, 2, 1]"};
  row.verdict = Verdict::fail;
}

const TensorGrowth& growth_of(const ReportDiff& d, const std::string& backend, const std::string& tensor) {
  for (const TensorGrowth& g : d.growth)
    if (g.backend == backend && g.tensor == tensor) return g;
  throw std::logic_error("no such growth");
}

// ---- diff ---------------------------------------------------------------------------------------------

TEST(ReportDiff, IdenticalReportsGrowByExactlyOne) {
  const Report r = two_case_report();
  const ReportDiff d = diff_reports(r, r, 1);
  EXPECT_FALSE(d.regressed());
  EXPECT_EQ(d.matched, 8);
  EXPECT_TRUE(d.new_failures.empty() && d.new_rows_failing.empty() && d.fixed.empty());
  EXPECT_TRUE(d.added.empty() && d.dropped.empty() && d.notes.empty());
  ASSERT_EQ(d.growth.size(), 10u);  // 2 backends x 5 tensors
  for (const TensorGrowth& g : d.growth) {
    SCOPED_TRACE(g.backend + " " + g.tensor);
    EXPECT_EQ(g.growth, 1.0);
    EXPECT_EQ(g.rows, 2);
  }
  EXPECT_NE(format_diff(d).find("verdict: no regression"), std::string::npos);
}

TEST(ReportDiff, ExactlyZeroErrorsDivideByNoZero) {
  Report before = two_case_report();
  for (Row& row : before.rows)
    for (TensorEntry& t : row.tensors) t.metrics.max_abs = 0;
  Report after = before;
  tensor_of(row_of(after, 1, chunk16, Direction::forward), "h").metrics.max_abs = 0x1p-22;
  const ReportDiff d = diff_reports(before, after, 2);
  EXPECT_EQ(growth_of(d, sequential, "h").growth, 1.0);
  // An error of 2^-22 from 0, over the floor 4 * 2^-24 = 2^-22 of the scale 4: growth 2, not infinite.
  EXPECT_EQ(growth_of(d, chunk16, "h").growth, 2.0);
  EXPECT_FALSE(d.regressed());
}

TEST(ReportDiff, ThreefoldErrorGrowthRegressesAtTwoNotAtFour) {
  const Report before = two_case_report();
  Report after = before;
  const double old_abs = tensor_of(row_of(after, 2, chunk16, Direction::backward), "da").metrics.max_abs;
  tensor_of(row_of(after, 2, chunk16, Direction::backward), "da").metrics.max_abs = 3 * old_abs;
  const double floor = 0x1p-24 * 6;
  for (double max_growth : {2.0, 4.0}) {
    SCOPED_TRACE(max_growth);
    const ReportDiff d = diff_reports(before, after, max_growth);
    const TensorGrowth& g = growth_of(d, chunk16, "da");
    EXPECT_DOUBLE_EQ(g.growth, (3 * old_abs + floor) / (old_abs + floor));
    EXPECT_GT(g.growth, 2.9);
    EXPECT_NE(g.repro.find("--seed 2 "), std::string::npos) << g.repro;
    EXPECT_EQ(d.regressed(), max_growth == 2.0);
    EXPECT_EQ(growth_of(d, sequential, "da").growth, 1.0);
  }
  const std::string text = format_diff(diff_reports(before, after, 2));
  EXPECT_NE(text.find("REGRESSION error growth"), std::string::npos) << text;
  EXPECT_NE(text.find("scan/chunk16@fp32 da"), std::string::npos) << text;
}

TEST(ReportDiff, NewlyFailingRowIsRegression) {
  const Report before = two_case_report();
  Report after = before;
  fail_row(row_of(after, 1, sequential, Direction::backward));
  summarise(after);
  const ReportDiff d = diff_reports(before, after, 1e6);
  ASSERT_EQ(d.new_failures.size(), 1u);
  EXPECT_EQ(d.new_failures[0].backend, sequential);
  EXPECT_EQ(d.new_failures[0].direction, Direction::backward);
  EXPECT_NE(d.new_failures[0].why.find("bound ratio 9.5"), std::string::npos);
  EXPECT_TRUE(d.regressed());
  EXPECT_NE(format_diff(d).find("REGRESSION new failure: scan/sequential@fp32 backward"), std::string::npos);
}

TEST(ReportDiff, FixedRowIsListedNotRegression) {
  Report before = two_case_report();
  fail_row(row_of(before, 2, chunk16, Direction::forward));
  summarise(before);
  const ReportDiff d = diff_reports(before, two_case_report(), 2);
  ASSERT_EQ(d.fixed.size(), 1u);
  EXPECT_EQ(d.fixed[0].backend, chunk16);
  EXPECT_FALSE(d.regressed());
  EXPECT_NE(format_diff(d).find("fixed: scan/chunk16@fp32 forward"), std::string::npos);
}

TEST(ReportDiff, RowsAreMatchedByRequestNotCaseId) {
  // OLD has seeds {1, 2} as c0, c1; NEW has seeds {2, 3} as c0, c1: only seed 2's rows match.
  const Report before = two_case_report();
  Report after = empty_report();
  for (std::uint64_t s : {2, 3})
    for (const std::string& b : {chunk16, sequential}) add_rows(after, s, b);
  summarise(after);
  const ReportDiff d = diff_reports(before, after, 2);
  EXPECT_EQ(d.matched, 4);
  EXPECT_EQ(d.added.size(), 4u);
  EXPECT_EQ(d.dropped.size(), 4u);
  for (const TensorGrowth& g : d.growth) EXPECT_EQ(g.growth, 1.0) << g.backend << " " << g.tensor;
  EXPECT_FALSE(d.regressed());
  EXPECT_NE(format_diff(d).find("added: 4 rows (only in new), dropped: 4 rows (only in old)"), std::string::npos);
}

TEST(ReportDiff, AddedFailingRowIsRegression) {
  const Report before = two_case_report();
  Report after = before;
  add_rows(after, 7, chunk16);
  fail_row(row_of(after, 7, chunk16, Direction::forward));
  summarise(after);
  const ReportDiff d = diff_reports(before, after, 2);
  EXPECT_TRUE(d.new_failures.empty());
  ASSERT_EQ(d.new_rows_failing.size(), 1u);
  EXPECT_EQ(d.added.size(), 2u);
  EXPECT_TRUE(d.regressed());
  EXPECT_NE(format_diff(d).find("REGRESSION new failing row"), std::string::npos);
}

TEST(ReportDiff, LabelAndPolicyDifferencesAreNotes) {
  const Report before = two_case_report("nightly");
  Report after = two_case_report("release");
  after.policy.bound_factor = 8;
  const ReportDiff d = diff_reports(before, after, 2);
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_NE(d.notes[0].find("labels differ: 'nightly' -> 'release'"), std::string::npos);
  EXPECT_NE(d.notes[1].find("tolerance policies differ"), std::string::npos);
  EXPECT_FALSE(d.regressed());
  EXPECT_NE(format_diff(d).find("note: the labels differ"), std::string::npos);
}

TEST(ReportDiff, MaxGrowthBelowOneIsRejected) {
  const Report r = two_case_report();
  EXPECT_NE(input_error([&] { diff_reports(r, r, 0.5); }).find("at least 1"), std::string::npos);
}

// ---- merge --------------------------------------------------------------------------------------------

//! Shard A: chunk16 on seeds 1, 2. Shard B: sequential on seeds 2, 3 (B's c0 is A's c1).
Report shard(const std::string& backend, std::vector<std::uint64_t> seeds, std::uint64_t report_seed,
             std::int64_t backends_total, const std::string& label = "unit") {
  Report r = empty_report(label, report_seed);
  for (std::uint64_t s : seeds) add_rows(r, s, backend);
  r.coverage.backends_total = backends_total;
  summarise(r);
  return r;
}

TEST(ReportMerge, ShardsAddCoverageAndShareCasesByRequest) {
  const Report a = shard(chunk16, {1, 2}, 11, 5), b = shard(sequential, {2, 3}, 12, 7);
  const Report m = merge_reports({{"a.json", a}, {"b.json", b}});
  ASSERT_EQ(m.cases.size(), 3u);
  for (std::size_t i = 0; i < m.cases.size(); ++i) {
    EXPECT_EQ(m.cases[i].id, fmt::format("c{}", i));
    EXPECT_EQ(m.cases[i].request.seed, i + 1);
  }
  ASSERT_EQ(m.rows.size(), 8u);
  for (const Row& row : m.rows) EXPECT_EQ(m.case_of(row).request.seed, row.seed) << row.backend;
  EXPECT_EQ(m.coverage.backends_total, 7);
  EXPECT_EQ(m.coverage.backends_checked, 2);
  EXPECT_EQ(m.coverage.cases, 3);
  EXPECT_EQ(m.coverage.rows, 8);
  EXPECT_EQ(m.coverage.elements_total, 3000);
  EXPECT_TRUE(m.verdict.pass);
  ASSERT_EQ(m.merged_from.size(), 2u);
  EXPECT_EQ(m.merged_from[0].seed, 11u);
  EXPECT_EQ(m.merged_from[0].generated_at, a.generated_at);
  EXPECT_EQ(m.merged_from[1].git_revision, b.tool.git_revision);
  EXPECT_EQ(m.method.seed, 11u);
  EXPECT_NE(m.generated_at, a.generated_at);
  // Every row of each shard is in the merge, unchanged: diffing a shard against it only adds rows.
  const ReportDiff d = diff_reports(a, m, 1);
  EXPECT_EQ(d.matched, 4);
  EXPECT_TRUE(d.dropped.empty());
  EXPECT_FALSE(d.regressed());
}

TEST(ReportMerge, MergedFromFlattensEarlierMerges) {
  const Report ab = merge_reports({{"a", shard(chunk16, {1}, 1, 5)}, {"b", shard(sequential, {1}, 2, 5)}});
  const Report abc = merge_reports({{"ab", ab}, {"c", shard(chunk16, {4}, 3, 5)}});
  ASSERT_EQ(abc.merged_from.size(), 4u);
  EXPECT_EQ(abc.merged_from[0].generated_at, ab.generated_at);
  EXPECT_EQ(abc.merged_from[1].seed, 1u);
  EXPECT_EQ(abc.merged_from[2].seed, 2u);
  EXPECT_EQ(abc.merged_from[3].seed, 3u);
  EXPECT_EQ(abc.rows.size(), 6u);
  EXPECT_EQ(std::count_if(abc.scope.begin(), abc.scope.end(),
                          [](const std::string& s) { return s.starts_with("Merged from"); }),
            1);
}

// An interrupted shard makes the merge interrupted: it never passes, and says which shard was cut short.
TEST(ReportMerge, InterruptedShardsMakeAnInterruptedMerge) {
  Report cut = shard(chunk16, {1}, 1, 5);
  cut.interrupted = "3 of 8 planned cases were run.";
  summarise(cut);
  EXPECT_FALSE(cut.verdict.pass);
  EXPECT_TRUE(cut.verdict.summary.starts_with("INTERRUPTED: 3 of 8 planned cases were run.")) << cut.verdict.summary;
  const Report whole = shard(sequential, {1}, 2, 5);
  ASSERT_TRUE(whole.verdict.pass);
  const Report m = merge_reports({{"cut.json", cut}, {"whole.json", whole}});
  ASSERT_TRUE(m.interrupted);
  EXPECT_NE(m.interrupted->find("1 of 2 shard reports were interrupted: cut.json (3 of 8"), std::string::npos);
  EXPECT_FALSE(m.verdict.pass);
  EXPECT_TRUE(merge_reports({{"a", whole}, {"b", shard(chunk16, {1}, 3, 5)}}).verdict.pass);
  // It travels through report.json.
  EXPECT_EQ(from_json(to_json(m), "m.json").interrupted, m.interrupted);
}

TEST(ReportMerge, DuplicateRowIsRejected) {
  const Report a = shard(chunk16, {1, 2}, 1, 5), b = shard(chunk16, {2, 3}, 2, 5);
  const std::string e = input_error([&] { merge_reports({{"a.json", a}, {"b.json", b}}); });
  EXPECT_NE(e.find("duplicate row: scan/chunk16@fp32 forward on case --arch scan --shape 1,33,8,1 --seed 2 "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("a.json and b.json"), std::string::npos) << e;
}

TEST(ReportMerge, LabelMismatchIsRejected) {
  const std::string e = input_error([] {
    merge_reports({{"a.json", shard(chunk16, {1}, 1, 5, "nightly")}, {"b.json", shard(sequential, {1}, 2, 5, "ci")}});
  });
  EXPECT_EQ(e, "cannot merge reports of different labels: 'nightly' (a.json) and 'ci' (b.json)");
}

TEST(ReportMerge, PolicyMismatchIsRejected) {
  Report b = shard(sequential, {1}, 2, 5);
  b.policy.baseline_factor = 3;
  const std::string e = input_error([&] { merge_reports({{"a.json", shard(chunk16, {1}, 1, 5)}, {"b.json", b}}); });
  EXPECT_NE(e.find("different tolerance policies"), std::string::npos) << e;
  EXPECT_NE(e.find("(b.json)"), std::string::npos) << e;
}

TEST(ReportMerge, FewerThanTwoReportsAreRejected) {
  EXPECT_NE(input_error([] {
              merge_reports({{"a.json", shard(chunk16, {1}, 1, 5)}});
            }).find("at least two"),
            std::string::npos);
}

//! Shard `index` of `count` of one run: its own case seed, a scope line saying which shard it is.
Report shard_of(std::int64_t index, std::int64_t count, const std::string& backend = chunk16) {
  Report r = shard(backend, {static_cast<std::uint64_t>(index + 1)}, 1, 5);
  r.method.shard = ShardOf{index, count};
  r.scope.push_back(fmt::format("Shard {} of {} (indices from 0): ...", index, count));
  return r;
}

// A campaign's merge (afterany) gets the shards that wrote a report: the others are named, never dropped
// silently, and the merge is not a pass.
TEST(ReportMerge, ShardsWithoutAReportAreNamedInCoverage) {
  Report cut = shard_of(3, 4);
  cut.interrupted = "0 of 1 planned cases were run.";
  const Report m = merge_reports({{"s0", shard_of(0, 4)}, {"s3", cut}});
  ASSERT_TRUE(m.coverage.shards);
  EXPECT_EQ(m.coverage.shards->count, 4);
  EXPECT_EQ(m.coverage.shards->merged, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(m.coverage.shards->missing, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(m.coverage.shards->interrupted, (std::vector<std::int64_t>{3}));
  ASSERT_TRUE(m.interrupted);
  EXPECT_EQ(*m.interrupted,
            "2 of 4 shards wrote no report (shard 1, 2: failed, preempted or never started); 1 of 4 shards were "
            "interrupted: shard 3 (0 of 1 planned cases were run.).");
  EXPECT_FALSE(m.verdict.pass);
  EXPECT_TRUE(m.verdict.summary.starts_with("INTERRUPTED: 2 of 4 shards wrote no report")) << m.verdict.summary;
  EXPECT_EQ(describe_shards(m.coverage), "2 of 4 shards merged; without a report: 1, 2; cut short: 3");
  // The merge is the run, not a shard of it.
  EXPECT_FALSE(m.method.shard);
  EXPECT_TRUE(
      std::none_of(m.scope.begin(), m.scope.end(), [](const std::string& s) { return s.starts_with("Shard "); }));
  const Report back = from_json(to_json(m), "m.json");
  EXPECT_EQ(back.coverage.shards->missing, m.coverage.shards->missing);
  EXPECT_EQ(back.coverage.shards->interrupted, m.coverage.shards->interrupted);
  save_report_json(m, saved_reports() / "merged_shards.json");
  save_report_json(shard_of(1, 4), saved_reports() / "shard_1_of_4.json");
}

TEST(ReportMerge, AllShardsMergeToAPass) {
  const Report m = merge_reports({{"s1", shard_of(1, 2)}, {"s0", shard_of(0, 2)}}, 2);
  EXPECT_TRUE(m.verdict.pass) << m.verdict.summary;
  EXPECT_FALSE(m.interrupted);
  EXPECT_EQ(m.coverage.shards->merged, (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(m.coverage.shards->missing.empty());
  // One shard of one is a whole run; one shard of several is a merge that names the others.
  EXPECT_EQ(merge_reports({{"s0", shard_of(0, 3)}}).coverage.shards->missing, (std::vector<std::int64_t>{1, 2}));
}

// Shards on other machines may have run a worker on another runtime: the merge keeps each distinct provider
// entry once, so that neither runtime is lost.
TEST(ReportMerge, KeepsEveryShardsProvidersOnce) {
  const ProviderEntry cpu{"numpy", "--worker 'python3 w.py'", "python 3.11.2, numpy 1.24.2", "mykernels", "1.2.0", {}};
  ProviderEntry gpu = cpu;
  gpu.runtime = "python 3.12.1, numpy 2.1.0";
  Report a = shard_of(0, 3), b = shard_of(1, 3), c = shard_of(2, 3);
  a.providers = {cpu};
  b.providers = {cpu};
  c.providers = {gpu};
  const Report m = merge_reports({{"a", a}, {"b", b}, {"c", c}});
  EXPECT_EQ(m.providers, (std::vector<ProviderEntry>{cpu, gpu}));
  EXPECT_EQ(from_json(to_json(m), "m.json").providers, m.providers);
  save_report_json(m, saved_reports() / "merged_providers.json");
}

TEST(ReportMerge, ShardsThatDisagreeAreRejected) {
  EXPECT_EQ(input_error([] {
              merge_reports({{"a.json", shard_of(1, 4)}, {"b.json", shard_of(1, 4, sequential)}});
            }),
            "shard 1 of 4 is in both a.json and b.json");
  EXPECT_EQ(input_error([] {
              merge_reports({{"a.json", shard_of(0, 4)}, {"b.json", shard_of(1, 3)}});
            }),
            "b.json is shard 1 of 3, but the run has 4 shards");
  EXPECT_EQ(input_error([] {
              merge_reports({{"a.json", shard_of(0, 4)}}, 5);
            }),
            "a.json is shard 0 of 4, but the run has 5 shards");
  EXPECT_EQ(input_error([] {
              merge_reports({{"a.json", shard_of(0, 2)}, {"b.json", shard(sequential, {1}, 2, 5)}});
            }),
            "cannot merge shard reports with a whole report: b.json has no method.shard");
  EXPECT_EQ(input_error([] {
              merge_reports({{"a.json", shard(chunk16, {1}, 1, 5)}, {"b.json", shard(sequential, {1}, 2, 5)}}, 2);
            }),
            "--shards 2: the reports are not shard reports (no method.shard)");
}

TEST(ReportMerge, MergedReportRoundTripsThroughJson) {
  const Report m = merge_reports({{"a", shard(chunk16, {1, 2}, 1, 5)}, {"b", shard(sequential, {2, 3}, 2, 5)}});
  const std::filesystem::path file = saved_reports() / "merged.json";
  save_report_json(m, file);
  save_report_json(shard(chunk16, {1, 2}, 1, 5), saved_reports() / "shard.json");
  const Report loaded = load_report(file);
  EXPECT_EQ(to_json(loaded), to_json(m));
  EXPECT_EQ(diff_reports(loaded, m, 1).growth_regressions(), 0);
}

// ---- calibrate ----------------------------------------------------------------------------------------

//! chunk16 on two cases where the largest error and the largest scaled error are in different cases.
Report calibration_report() {
  Report r = empty_report();
  add_row(r, scan_request(1), chunk16, Direction::forward, {measured("h", 2e-6, 1), measured("h_last", 1e-6, 1)});
  add_row(r, scan_request(2), chunk16, Direction::forward, {measured("h", 4e-6, 8), measured("h_last", 1e-6, 2)});
  add_rows(r, 1, sequential);
  add_rows(r, 2, sequential);
  fail_row(row_of(r, 2, sequential, Direction::backward));
  summarise(r);
  return r;
}

const Tolerance& tolerance_of(const Calibration& c, const std::string& backend, const std::string& tensor) {
  for (const Tolerance& t : c.tolerances)
    if (t.backend == backend && t.tensor == tensor) return t;
  throw std::logic_error("no such tolerance");
}

TEST(Calibrate, MarginTimesTheLargestObservedErrors) {
  const Calibration c = calibrate(calibration_report(), 2);
  ASSERT_EQ(c.tolerances.size(), 2u);  // chunk16's h and h_last; sequential fails
  const Tolerance& h = tolerance_of(c, chunk16, "h");
  EXPECT_EQ(h.io_dtype, DType::float32);
  EXPECT_DOUBLE_EQ(h.atol, 2 * 4e-6);
  EXPECT_DOUBLE_EQ(h.rtol, 2 * 2e-6);  // case 1: 2e-6 / 1 > case 2: 4e-6 / 8
  EXPECT_EQ(h.evidence.cases, 2);
  EXPECT_DOUBLE_EQ(h.evidence.max_exact, 8);
  EXPECT_NE(h.evidence.max_abs_repro.find("--seed 2 "), std::string::npos);
  EXPECT_NE(h.evidence.scaled_error_repro.find("--seed 1 "), std::string::npos);
  const Tolerance& h_last = tolerance_of(c, chunk16, "h_last");
  EXPECT_DOUBLE_EQ(h_last.atol, 2e-6);
  EXPECT_DOUBLE_EQ(h_last.rtol, 2e-6);
}

TEST(Calibrate, BackendsWithFailingRowsAreNotCalibrated) {
  const Calibration c = calibrate(calibration_report());
  ASSERT_EQ(c.not_calibrated.size(), 1u);
  EXPECT_EQ(c.not_calibrated[0].backend, sequential);
  EXPECT_NE(c.not_calibrated[0].reason.find("1 of 4 rows fail"), std::string::npos) << c.not_calibrated[0].reason;
  for (const Tolerance& t : c.tolerances) EXPECT_NE(t.backend, sequential);
}

TEST(Calibrate, MarginBelowOneIsRejected) {
  EXPECT_NE(input_error([] { calibrate(calibration_report(), 0.5); }).find("at least 1"), std::string::npos);
}

TEST(Calibrate, JsonCarriesEveryNumberExactly) {
  const Report r = calibration_report();
  const Calibration c = calibrate(r, 3);
  const nlohmann::json j = nlohmann::json::parse(to_json(c).dump());
  EXPECT_EQ(j.at("label"), r.label);
  EXPECT_EQ(j.at("git_revision"), r.tool.git_revision);
  EXPECT_EQ(j.at("margin"), 3.0);
  EXPECT_NE(j.at("note").get<std::string>().find("shapes, lengths and regimes only"), std::string::npos);
  ASSERT_EQ(j.at("tolerances").size(), c.tolerances.size());
  for (std::size_t i = 0; i < c.tolerances.size(); ++i) {
    const nlohmann::json& t = j.at("tolerances")[i];
    EXPECT_EQ(t.at("backend"), c.tolerances[i].backend);
    EXPECT_EQ(t.at("tensor"), c.tolerances[i].tensor);
    EXPECT_EQ(t.at("io_dtype"), "float32");
    EXPECT_EQ(t.at("rtol").get<double>(), c.tolerances[i].rtol);
    EXPECT_EQ(t.at("atol").get<double>(), c.tolerances[i].atol);
    EXPECT_EQ(t.at("evidence").at("cases"), c.tolerances[i].evidence.cases);
    EXPECT_EQ(t.at("evidence").at("max_scaled_error").get<double>(), c.tolerances[i].evidence.max_scaled_error);
  }
  EXPECT_EQ(j.at("not_calibrated")[0].at("backend"), sequential);
}

TEST(Calibrate, PytestModuleParsesAndNeverUndercutsTheRule) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  Report r = calibration_report();
  r.label = "quotes \"\"\" and \\ backslashes";
  const Calibration c = calibrate(r, 1);
  const std::string text = to_pytest(c);
  EXPECT_NE(text.find("(\"scan/chunk16@fp32\", \"h\"): {\"rtol\": 2.000e-06, \"atol\": 4.000e-06}"), std::string::npos)
      << text;
  test::TempDir dir;
  test::write_file(dir / "tolerances.py", text);
  const std::string parse =
      fmt::format("/usr/bin/python3 -c \"import ast,sys; ast.parse(open(sys.argv[1]).read())\" {}",
                  (dir / "tolerances.py").string());
  EXPECT_EQ(std::system(parse.c_str()), 0) << text;
  for (const Tolerance& t : c.tolerances) {
    const std::string check = fmt::format(
        "/usr/bin/python3 -c \"import runpy,sys; t = runpy.run_path(sys.argv[1])['tolerance']('{}', '{}'); "
        "sys.exit(not (t['rtol'] >= {:.17g} and t['atol'] >= {:.17g}))\" {}",
        t.backend, t.tensor, t.rtol, t.atol, (dir / "tolerances.py").string());
    EXPECT_EQ(std::system(check.c_str()), 0) << t.backend << " " << t.tensor << "\n" << text;
  }
}

}  // namespace
}  // namespace scancheck::reports
