// SPDX-License-Identifier: Apache-2.0
// The report runner and the model's JSON: presets plan what they promise, a real report (small_report.hpp)
// round-trips through report.json exactly and the strict reader names what is wrong with a bad file (its
// pages and the directory write_report writes: tests/render/). Every report written here lands under
// SCANCHECK_TEST_REPORTS, where report_schema_test validates it against reports/schema/report.schema.json.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/architectures.hpp"
#include "core/error.hpp"
#include "properties/differential.hpp"
#include "properties/fuzz.hpp"
#include "reports/runner.hpp"
#include "reports/summary.hpp"
#include "tests/reports/small_report.hpp"

namespace scancheck::reports {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using fixtures::small_report;

const fs::path test_reports = fs::path(SCANCHECK_TEST_REPORTS) / "report_runner_test";

TEST(ReportPlan, QuickCoversEveryBackendWithALadderOfLengths) {
  const ReportPlan plan = plan_report({});
  EXPECT_EQ(plan.backends.size(), registry().size());
  EXPECT_EQ(plan.executor, Executor::host);
  EXPECT_EQ(plan.cases.size(), 8u * 5u);  // 4 architectures x 2 dtypes, 5 lengths each
  std::multiset<std::int64_t> lengths;
  for (const PlannedCase& c : plan.cases) {
    lengths.insert(c.request.shape.length);
    EXPECT_FALSE(c.sample.has_value());
    EXPECT_EQ(c.precision, Precision::tiered);
    EXPECT_TRUE(c.notes);
  }
  for (std::int64_t length : {2, 33, 300, 2100, 8200}) EXPECT_EQ(lengths.count(length), 8u) << length;
  for (const PlannedCase& c : plan.cases) EXPECT_GE(c.request.shape.width, 64) << to_string(c.request);
  std::int64_t runs = 0;
  for (const PlannedCase& c : plan.cases)
    for (const BackendInfo& b : registry())
      runs += b.architecture == c.request.architecture && b.io_dtype == c.request.io_dtype;
  EXPECT_EQ(plan.backend_runs, runs);
}

TEST(ReportPlan, CiHasMoreCasesThanQuick) {
  ReportOptions o;
  o.preset = "ci";
  EXPECT_EQ(plan_report(o).cases.size(), 8u * 8u);
}

TEST(ReportPlan, SeedShapesVerifyEveryElementOfEachProductionShape) {
  ReportOptions o;
  o.preset = "seed-shapes";
  const ReportPlan plan = plan_report(o);
  ASSERT_EQ(plan.cases.size(), 16u);  // 4 shapes x {rglru, complex_rglru} x {fp32, bf16}
  for (const PlannedCase& c : plan.cases) {
    EXPECT_FALSE(c.sample.has_value()) << to_string(c.request);
    EXPECT_EQ(c.precision, Precision::tiered);
    EXPECT_FALSE(c.notes);  // only with --strict: a second bounded pass over every element
  }
  o.policy.strict = true;
  for (const PlannedCase& c : plan_report(o).cases) EXPECT_TRUE(c.notes);
}

TEST(ReportPlan, SeedShapesSampledVerifyOneBlockOfEachProductionShape) {
  ReportOptions o;
  o.preset = "seed-shapes";
  o.sample = true;
  const ReportPlan plan = plan_report(o);
  ASSERT_EQ(plan.cases.size(), 16u);  // 4 shapes x {rglru, complex_rglru} x {fp32, bf16}
  std::set<std::string> backends;
  for (const BackendInfo* b : plan.backends) backends.insert(b->name);
  EXPECT_EQ(backends.size(), 6u);
  EXPECT_TRUE(backends.count("rglru/fused_grouped_prefix32_hierarchical_chunk16@bf16"));
  EXPECT_TRUE(backends.count("complex_rglru/fused_output_fused_write_shared_sfu_chunk32@fp32"));
  std::set<std::int64_t> lengths;
  for (const PlannedCase& c : plan.cases) {
    EXPECT_TRUE((describe(c.request.architecture).family == Family::gated_layer));
    ASSERT_TRUE(c.sample.has_value());
    ASSERT_EQ(c.sample->size(), 1u);
    EXPECT_LT(c.sample->front().batch, c.request.shape.batch);
    EXPECT_LT(c.sample->front().head, c.request.shape.heads);
    EXPECT_EQ(c.precision, Precision::tiered);
    lengths.insert(c.request.shape.length);
  }
  EXPECT_EQ(lengths, (std::set<std::int64_t>{2048, 8192, 32768}));
}

// The shards of a plan are disjoint and together the whole plan, each with its share of the backend runs.
TEST(ReportPlan, ShardsSplitThePlanIntoDisjointParts) {
  ReportOptions o;
  o.preset = "ci";
  const ReportPlan whole = plan_report(o);
  std::multiset<std::string> seen;
  std::int64_t runs = 0;
  for (std::int64_t i = 0; i < 5; ++i) {
    o.shard = {i, 5};
    const ReportPlan part = plan_report(o);
    EXPECT_EQ(part.cases_unsharded, std::ssize(whole.cases));
    EXPECT_GE(std::ssize(part.cases), std::ssize(whole.cases) / 5);
    for (const PlannedCase& c : part.cases) seen.insert(to_string(c.request));
    runs += part.backend_runs;
  }
  std::multiset<std::string> expected;
  for (const PlannedCase& c : whole.cases) expected.insert(to_string(c.request));
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(runs, whole.backend_runs);
  o.shard = {0, std::ssize(whole.cases) + 1};  // a shard without a case is a mistake, said before any work
  EXPECT_THROW(plan_report(o), InputError);
}

// The scale preset runs where 32-bit index bugs live (device kernels, foreign backends), never the host
// twins alone, and refuses up front shapes this machine cannot hold.
TEST(ReportPlan, ScaleRefusesTheHostTwinsAlone) {
  ReportOptions o;
  o.preset = "scale";
  o.executor = Executor::host;
  try {
    plan_report(o);
    ADD_FAILURE() << "planned the scale preset for host twins";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--executor cuda"), std::string::npos) << e.what();
  }
  o.sample = true;  // sampling does not make the twins suspects either
  EXPECT_THROW(plan_report(o), InputError);
}

TEST(ReportPlan, BadOptionsAreInputErrors) {
  ReportOptions unknown;
  unknown.preset = "slow";
  EXPECT_THROW(plan_report(unknown), InputError);
  ReportOptions nothing;
  nothing.backends = "no_such/*";
  EXPECT_THROW(plan_report(nothing), InputError);
  ReportOptions scans;
  scans.preset = "seed-shapes";
  scans.backends = "scan/*";  // the production shapes are RG-LRU layers only
  EXPECT_THROW(plan_report(scans), InputError);
  ReportOptions sampled_quick;
  sampled_quick.sample = true;  // quick and ci always verify every element
  EXPECT_THROW(plan_report(sampled_quick), InputError);
  ReportOptions mpfr;
  mpfr.reference_precision = Precision::mpfr50;
  EXPECT_THROW(plan_report(mpfr), InputError);
}

TEST(ReportRun, EveryCorrectBackendPassesWithTwoRowsPerCase) {
  const Report& r = small_report();
  EXPECT_TRUE(r.verdict.pass) << r.verdict.summary;
  EXPECT_EQ(r.coverage.backends_checked, 6);
  EXPECT_EQ(r.coverage.cases, 6 * 3);
  EXPECT_EQ(r.rows.size(), 2u * 3u * 6u);
  EXPECT_EQ(r.method.lengths, (std::vector<std::int64_t>{2, 33, 300}));
  EXPECT_DOUBLE_EQ(r.coverage.fraction_verified, 1.0);
  EXPECT_EQ(r.label, "runner-test");
  EXPECT_FALSE(r.tool.git_revision.empty());
  for (const Row& row : r.rows) {
    ASSERT_TRUE(row.ok()) << row.backend << " " << row.repro;
    EXPECT_EQ(row.repro.rfind("scancheck check --arch ", 0), 0u);
    EXPECT_NE(row.repro.find(row.backend), std::string::npos);
    EXPECT_FALSE(row.timing.has_value()) << "host runs carry no device timings";
    for (const TensorEntry& t : row.tensors) {
      EXPECT_EQ(direction_of(row.architecture, t.metrics.name), row.direction) << t.metrics.name;
      std::int64_t counted = 0;
      for (std::int64_t n : t.metrics.ulp_histogram) counted += n;
      EXPECT_EQ(counted + t.metrics.unbounded + t.metrics.nonfinite_mismatches, t.metrics.compared) << t.metrics.name;
    }
    std::size_t outputs = 0;
    for (const TensorSpec& spec : tensor_layout(row.architecture, row.shape, TensorRole::output))
      outputs += spec.direction == row.direction;
    EXPECT_EQ(row.tensors.size(), outputs) << row.backend << " " << to_string(row.direction);
  }
}

// Every tensor with bounds states what its verdict rules out, for both rules where the ensemble rule judges it (a
// report runs the whole ensemble on every case), and each backend's loosest tensor is the largest of its rows'.
TEST(ReportRun, EveryTensorCarriesItsDetectionThreshold) {
  const Report& r = small_report();
  std::map<std::string, double> loosest;
  int with_distribution = 0;
  for (const Row& row : r.rows)
    for (const TensorEntry& t : row.tensors) {
      const std::optional<DetectionThreshold> d = detection_threshold(t.metrics, r.policy);
      ASSERT_TRUE(d) << row.backend << " " << t.metrics.name;
      EXPECT_EQ(t.metrics.ensemble_orders, static_cast<std::int64_t>(ensemble_members(row.architecture).size()))
          << t.metrics.name;
      // Zero where the typical element's bound is zero (dh0 after a reset at t = 0): no error at all passes there.
      EXPECT_GE(d->certainty.ulps, 0) << row.backend << " " << t.metrics.name;
      if (d->distribution) {
        ++with_distribution;
        EXPECT_LE(d->distribution->ulps, d->certainty.ulps) << row.backend << " " << t.metrics.name;
        if (d->certainty.ulps > 0) {
          EXPECT_LT(d->distribution->ulps, d->certainty.ulps) << t.metrics.name;
        }
      }
      double& l = loosest[row.backend];
      l = std::max(l, d->certainty.ulps);
    }
  EXPECT_GT(with_distribution, 0);
  for (const BackendSummary& b : summarise_backends(r)) {
    ASSERT_TRUE(b.detection && b.loosest) << b.backend;
    EXPECT_EQ(b.loosest->threshold.certainty.ulps, loosest.at(b.backend)) << b.backend;
    EXPECT_LE(b.detection->certainty.ulps, b.loosest->threshold.certainty.ulps) << b.backend;
  }
  const std::optional<ReportDetection> all = summarise_detection(r);
  ASSERT_TRUE(all);
  EXPECT_EQ(
      all->loosest.threshold.certainty.ulps,
      std::max_element(loosest.begin(), loosest.end(), [](auto& a, auto& b) { return a.second < b.second; })->second);
  EXPECT_NE(describe_detection(*all).find("a pass rules out errors above"), std::string::npos);
}

// Every case says how its tiered reference got its values: every verified element certified in double or
// recomputed in float128, and the coverage sums them.
TEST(ReportRun, EveryCaseStatesItsReferenceTiers) {
  const Report& r = small_report();
  EXPECT_EQ(r.method.reference_precision, "tiered");
  ReferenceTierCounts all;
  for (const CaseEntry& c : r.cases) {
    ASSERT_TRUE(c.tiers) << c.id;
    EXPECT_EQ(c.tiers->certified_by_double + c.tiers->needed_float128, c.elements_verified) << c.id;
    EXPECT_GT(c.tiers->blocks, 0) << c.id;
    EXPECT_LE(c.tiers->float128_blocks, c.tiers->blocks) << c.id;
    all.certified_by_double += c.tiers->certified_by_double;
    all.needed_float128 += c.tiers->needed_float128;
    all.float128_blocks += c.tiers->float128_blocks;
    all.blocks += c.tiers->blocks;
  }
  ASSERT_TRUE(r.coverage.tiers);
  EXPECT_EQ(*r.coverage.tiers, all);
}

TEST(ReportJson, RoundTripsExactly) {
  const json j = to_json(small_report());
  const Report back = from_json(json::parse(j.dump()), "round trip");
  EXPECT_EQ(to_json(back), j);
}

TEST(ReportJson, NonFiniteNumbersTravelAsStrings) {
  Report r = small_report();
  r.rows.front().tensors.front().metrics.baseline_ratio = std::numeric_limits<double>::infinity();
  const json j = to_json(r);
  EXPECT_EQ(j["rows"][0]["tensors"][0]["baseline_ratio"], "inf");
  const Report back = from_json(json::parse(j.dump()), "inf");
  EXPECT_TRUE(std::isinf(*back.rows.front().tensors.front().metrics.baseline_ratio));
}

//! The error message of reading `j`, or "" when it reads.
std::string read_error(const json& j) {
  try {
    from_json(j, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportJson, StrictReadingNamesTheProblem) {
  const json good = to_json(small_report());
  EXPECT_NE(read_error(json{{"a", 1}}).find("not a scancheck report"), std::string::npos);
  json future = good;
  future["schema_version"] = 3;
  EXPECT_NE(read_error(future).find("schema_version 3 is not supported"), std::string::npos);
  // Version 1 (rows with "pass" for the direction, verdicts pass | fail, no log or misshapen) still reads.
  json v1 = good;
  v1["schema_version"] = 1;
  for (json& row : v1["rows"]) {
    row["pass"] = row["direction"];
    for (const char* key : {"direction", "log", "misshapen"}) row.erase(key);
  }
  const Report old = from_json(v1, "v1.json");
  ASSERT_EQ(old.rows.size(), small_report().rows.size());
  EXPECT_EQ(to_json(old)["rows"], good["rows"]);
  json unknown_verdict = good;
  unknown_verdict["rows"][0]["verdict"] = "exploded";
  EXPECT_NE(read_error(unknown_verdict).find("rows[0].verdict: unknown verdict 'exploded'"), std::string::npos);
  json missing = good;
  missing["rows"][3]["tensors"][0].erase("max_abs");
  EXPECT_NE(read_error(missing).find("rows[3].tensors[0]: missing field 'max_abs'"), std::string::npos);
  json mistyped = good;
  mistyped["coverage"]["cases"] = "many";
  EXPECT_NE(read_error(mistyped).find("coverage.cases: expected an integer"), std::string::npos);
  json dangling = good;
  dangling["rows"][0]["case"] = "c999";
  EXPECT_NE(read_error(dangling).find("unknown case id 'c999'"), std::string::npos);
  json verdict = good;
  verdict["rows"][1]["verdict"] = "maybe";
  EXPECT_NE(read_error(verdict).find("rows[1].verdict"), std::string::npos);
  json foreign = good;
  foreign["tool"]["name"] = "othertool";
  EXPECT_NE(read_error(foreign).find("not scancheck"), std::string::npos);
  json nameless = good;
  nameless["rows"][2]["backend"] = "chunk16@fp32";
  EXPECT_NE(read_error(nameless).find("bad.json: rows[2].backend: backend name 'chunk16@fp32': no '/'"),
            std::string::npos)
      << read_error(nameless);
}

// A row's backend is any name of the grammar, a foreign provider's included, and reads back as written.
TEST(ReportJson, ReadsForeignBackendNames) {
  json j = to_json(small_report());
  j["rows"][0]["backend"] = "acme-kernels:scan/tiled_v2.1@fp32";
  EXPECT_EQ(read_error(j), "");
  EXPECT_EQ(from_json(j, "foreign.json").rows[0].backend, "acme-kernels:scan/tiled_v2.1@fp32");
}

// Foreign providers (a worker's hello "runtime" and "provenance"): absent from reports of built-ins, read
// back as written, strictly, and shown in report.md. The report with them is saved for the schema test.
TEST(ReportJson, ProvidersTravelWithTheirRuntimeAndProvenance) {
  EXPECT_FALSE(to_json(small_report()).contains("providers")) << "built-ins only: the report keeps its shape";
  Report r = small_report();
  r.providers = {{"numpy", "--worker 'python3 examples/numpy_worker.py'", "python 3.11.2, numpy 1.24.2", "mykernels",
                  "1.2.0", std::nullopt},
                 {"cppdemo", "--plugin build/cppdemo.so", std::nullopt, std::nullopt, std::nullopt, std::nullopt}};
  const json j = to_json(r);
  EXPECT_EQ(j["providers"][0]["provenance"],
            (json{{"package", "mykernels"}, {"version", "1.2.0"}, {"commit", nullptr}}));
  EXPECT_TRUE(j["providers"][1]["provenance"].is_null());
  EXPECT_EQ(from_json(json::parse(j.dump()), "providers.json").providers, r.providers);
  fs::create_directories(test_reports / "providers");
  save_report_json(r, test_reports / "providers" / "report.json");

  json misspelt = j;
  misspelt["providers"][0]["provenance"]["sha"] = "abc";
  EXPECT_NE(read_error(misspelt).find("providers[0].provenance: unknown field 'sha'"), std::string::npos)
      << read_error(misspelt);
  json mistyped = j;
  mistyped["providers"][1]["runtime"] = 3;
  EXPECT_NE(read_error(mistyped).find("providers[1].runtime: expected a string"), std::string::npos);
  json unnamed = j;
  unnamed["providers"][0]["name"] = "Bad Name";
  EXPECT_NE(read_error(unnamed).find("providers[0].name: 'Bad Name' is not [a-z0-9_-]+"), std::string::npos);
}

// Device timings (the cuda executor's) travel through report.json with their rows.
TEST(ReportJson, DeviceTimingsRoundTrip) {
  Report r = small_report();
  for (Row& row : r.rows) row.timing = Timing{row.direction == Direction::forward ? 0.25 : 0.75, 0.2, 0.9, 10};
  EXPECT_EQ(to_json(from_json(to_json(r), "timed")), to_json(r));
}

}  // namespace
}  // namespace scancheck::reports
