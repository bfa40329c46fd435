// SPDX-License-Identifier: Apache-2.0
//! @file
//! A user's speed profile (reports/profile.hpp): the real seed profile parses; joined to a synthetic report
//! of the seed shapes (profile_fixtures.hpp) every profile row matches with samu=complex_rglru and each
//! unmatched one says why without; the reader rejects each malformed kind naming the field; the joined report
//! survives report.json (the pages' section of it: tests/render/profile_pages_test.cpp).
//! Writes SCANCHECK_TEST_REPORTS/profile_test/{joined,unmatched,seed_shapes}.json: the schema test
//! validates them, and profile_cli_test renders seed_shapes.json with `scancheck render --timings`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/model.hpp"
#include "reports/profile.hpp"
#include "tests/reports/profile_fixtures.hpp"
#include "tests/test_support.hpp"

namespace scancheck::reports {
namespace {

using nlohmann::json;
using test::contains;
using test::input_error;
using namespace profile_fixtures;

std::filesystem::path saved_reports() {
  const std::filesystem::path dir = std::filesystem::path(SCANCHECK_TEST_REPORTS) / "profile_test";
  std::filesystem::create_directories(dir);
  return dir;
}

const Row& row_of(const Report& r, const std::string& backend, const Shape& shape, Direction direction) {
  for (const Row& row : r.rows)
    if (row.backend == backend && row.shape == shape && row.direction == direction) return row;
  throw std::logic_error("no such row: " + backend);
}

// ---- reading ----------------------------------------------------------------------------------------------

TEST(ProfileReader, ReadsTheSeedProfile) {
  const Profile& p = seed();
  ASSERT_EQ(p.rows.size(), 8u);
  EXPECT_EQ(p.method, seed_method);
  EXPECT_EQ(p.source.rows, 8);
  EXPECT_EQ(p.source.bytes, std::filesystem::file_size(seed_profile));
  // `sha256sum backward_profile_seed.json`
  EXPECT_EQ(p.source.sha256, "01db05d8bdee4b6c23241686fb2ccb2e30ee717f7b65f83d48b66811094b4946");
  const ProfileRow& first = p.rows[0];
  EXPECT_EQ(first.shape, (ProfileShape{4, 2048, 2048}));
  EXPECT_EQ(first.architecture, "rglru");
  EXPECT_EQ(first.backend, rglru_variant);
  EXPECT_EQ(first.provider, "");
  EXPECT_EQ(first.variant, rglru_variant);
  EXPECT_EQ(first.cuda_events, 35);
  EXPECT_EQ(first.summed_cuda_duration_us, 1537.0);
  ASSERT_EQ(first.categories.size(), 8u);
  EXPECT_EQ(first.categories.at("copy").events, 9);
  EXPECT_EQ(first.categories.at("copy").duration_us, 486.0);
  ASSERT_EQ(first.top_cuda_events.size(), 17u);
  EXPECT_EQ(first.top_cuda_events[0].name, "_reverse_chunk_replay");
  EXPECT_EQ(p.rows[1].architecture, "samu");
  EXPECT_EQ(p.rows[1].backend, samu_chunk32);
  const auto samu =
      std::count_if(p.rows.begin(), p.rows.end(), [](const ProfileRow& r) { return r.architecture == "samu"; });
  EXPECT_EQ(samu, 4);
}

TEST(ProfileReader, HashesTheBytesAsSha256sumDoes) {
  const std::string text =
      R"({"schema_version":1,"method":"m","rows":[{"shape":{"batch":1,"length":2,"width":4},"architecture":"rglru",)"
      R"("backend":"chunk16","cuda_events":0,"summed_cuda_duration_us":0,"categories":{},"top_cuda_events":[]}]})";
  const Profile p = parse_profile(text, "tiny.json");
  EXPECT_EQ(p.source.file, "tiny.json");
  EXPECT_EQ(p.source.bytes, 209u);
  // python3 -c 'import hashlib; print(hashlib.sha256(TEXT.encode()).hexdigest())'
  EXPECT_EQ(p.source.sha256, "6236a674ca22935e9367aba63f45ec26f64e7789607a53f047c40ac86457ab55");
  EXPECT_NE(parse_profile(text + " ", "spaced.json").source.sha256, p.source.sha256);  // one more byte
}

TEST(ProfileReader, ReadsAForeignBackendsProvider) {
  const Profile p = parse_profile(R"({"schema_version": 1, "method": "m", "rows": [{"shape": {"batch": 1, "length": 2,
    "width": 4}, "architecture": "rglru", "backend": "triton:triton_chunk64", "cuda_events": 1,
    "summed_cuda_duration_us": 2.5, "categories": {"scan": {"events": 1, "duration_us": 2.5}}, "top_cuda_events": []}]})",
                                  "foreign.json");
  EXPECT_EQ(p.rows[0].provider, "triton");
  EXPECT_EQ(p.rows[0].variant, "triton_chunk64");
}

//! A valid one-row profile as JSON, for the malformed kinds below to break.
json valid_profile() {
  return json::parse(R"({"schema_version": 1, "method": "one warmed backward pass", "rows": [
    {"shape": {"batch": 4, "length": 2048, "width": 2048}, "architecture": "rglru", "backend": "chunk16",
     "cuda_events": 3, "summed_cuda_duration_us": 10.5,
     "categories": {"copy": {"events": 2, "duration_us": 4.5}, "gemm": {"events": 1, "duration_us": 6}},
     "top_cuda_events": [{"name": "k", "events": 1, "duration_us": 6}]}]})");
}

struct Malformed {
  const char* what;
  std::function<void(json&)> mutate;
  const char* message;  //!< what the error must contain after "profile p.json: "
};

TEST(ProfileReader, RejectsEachMalformedKindNamingTheField) {
  ASSERT_NO_THROW(parse_profile(valid_profile().dump(), "p.json"));
  const std::vector<Malformed> kinds = {
      {"unknown top-level key", [](json& j) { j["comment"] = "x"; }, "unknown field 'comment'"},
      {"unknown row key", [](json& j) { j["rows"][0]["dtype"] = "bf16"; }, "rows[0]: unknown field 'dtype'"},
      {"unknown shape key", [](json& j) { j["rows"][0]["shape"]["heads"] = 16; },
       "rows[0].shape: unknown field 'heads'"},
      {"unknown category key", [](json& j) { j["rows"][0]["categories"]["copy"]["share"] = 0.4; },
       "rows[0].categories.copy: unknown field 'share'"},
      {"missing method", [](json& j) { j.erase("method"); }, "missing field 'method'"},
      {"missing cuda_events", [](json& j) { j["rows"][0].erase("cuda_events"); },
       "rows[0]: missing field 'cuda_events'"},
      {"missing categories", [](json& j) { j["rows"][0].erase("categories"); }, "rows[0]: missing field 'categories'"},
      {"architecture not a string", [](json& j) { j["rows"][0]["architecture"] = 5; },
       "rows[0].architecture: expected a string"},
      {"categories not an object", [](json& j) { j["rows"][0]["categories"] = json::array(); },
       "rows[0].categories: expected a JSON object"},
      {"rows not an array", [](json& j) { j["rows"] = json::object(); }, "rows: expected an array"},
      {"negative category duration", [](json& j) { j["rows"][0]["categories"]["copy"]["duration_us"] = -1; },
       "rows[0].categories.copy.duration_us: expected a non-negative number"},
      {"infinite summed duration", [](json& j) { j["rows"][0]["summed_cuda_duration_us"] = "inf"; },
       "rows[0].summed_cuda_duration_us: expected a non-negative number"},
      {"nan top event duration", [](json& j) { j["rows"][0]["top_cuda_events"][0]["duration_us"] = "nan"; },
       "rows[0].top_cuda_events[0].duration_us: expected a non-negative number"},
      {"duration as text", [](json& j) { j["rows"][0]["summed_cuda_duration_us"] = "10.5"; },
       "rows[0].summed_cuda_duration_us: expected a non-negative number"},
      {"negative events", [](json& j) { j["rows"][0]["cuda_events"] = -3; },
       "rows[0].cuda_events: expected a non-negative integer"},
      {"fractional events", [](json& j) { j["rows"][0]["categories"]["gemm"]["events"] = 1.5; },
       "rows[0].categories.gemm.events: expected a non-negative integer"},
      {"zero width", [](json& j) { j["rows"][0]["shape"]["width"] = 0; },
       "rows[0].shape.width: expected a positive integer"},
      {"schema_version 2", [](json& j) { j["schema_version"] = 2; }, "schema_version: expected 1"},
      {"schema_version as text", [](json& j) { j["schema_version"] = "1"; }, "schema_version: expected 1"},
      {"empty rows", [](json& j) { j["rows"] = json::array(); }, "rows: expected at least one row"},
      {"empty method", [](json& j) { j["method"] = ""; }, "method: expected a non-empty string"},
      {"duplicate row", [](json& j) { j["rows"].push_back(j["rows"][0]); }, "rows[1]: duplicate of rows[0]"},
      {"full backend name", [](json& j) { j["rows"][0]["backend"] = "rglru/chunk16@bf16"; },
       "rows[0].backend: 'rglru/chunk16@bf16': expected the variant alone"},
      {"bad provider", [](json& j) { j["rows"][0]["backend"] = "My Kernels:chunk16"; },
       "rows[0].backend: 'My Kernels:chunk16': the provider must be"},
      {"architecture with a space", [](json& j) { j["rows"][0]["architecture"] = "rg lru"; },
       "rows[0].architecture: expected an architecture name"},
      {"not an object",
       [](json& j) {
         j = json::array({1, 2});
       },
       "expected a JSON object"},
  };
  for (const Malformed& k : kinds) {
    SCOPED_TRACE(k.what);
    json j = valid_profile();
    k.mutate(j);
    const std::string message = input_error([&] { parse_profile(j.dump(), "p.json"); });
    EXPECT_TRUE(message.starts_with("profile p.json: ")) << message;
    EXPECT_TRUE(contains(message, k.message));
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_TRUE(
      contains(input_error([] { parse_profile("{\"schema_version\": 1,", "p.json"); }), "profile p.json: not JSON"));
  EXPECT_TRUE(contains(input_error([] { load_profile("/nonexistent/profile.json"); }),
                       "profile /nonexistent/profile.json: cannot read it"));
}

TEST(ProfileAliases, ParsesFromEqualsToAndRejectsTheRest) {
  const ProfileAliases a = parse_profile_aliases({"samu=complex_rglru", "triton=mykernels", "samu=complex_rglru"});
  ASSERT_EQ(a.aliases.size(), 2u);  // the repeated alias is one
  EXPECT_EQ(a.map("samu"), "complex_rglru");
  EXPECT_EQ(a.map("triton"), "mykernels");
  EXPECT_EQ(a.map("rglru"), "rglru");
  EXPECT_TRUE(contains(input_error([] { parse_profile_aliases({"samu"}); }), "--timings-alias 'samu': no '='"));
  EXPECT_TRUE(contains(input_error([] { parse_profile_aliases({"=rglru"}); }), "must both be non-empty"));
  EXPECT_TRUE(contains(input_error([] { parse_profile_aliases({"samu="}); }), "must both be non-empty"));
  EXPECT_TRUE(contains(input_error([] { parse_profile_aliases({"a=b=c"}); }), "more than one '='"));
  EXPECT_TRUE(contains(input_error([] { parse_profile_aliases({"rglru=rglru"}); }), "are the same"));
  EXPECT_TRUE(contains(input_error([] {
                         parse_profile_aliases({"samu=complex_rglru", "samu=rglru"});
                       }),
                       "'samu' is already read as 'complex_rglru'"));
}

// ---- joining ------------------------------------------------------------------------------------------------

TEST(ProfileJoin, EverySeedRowMatchesWithTheSamuAlias) {
  Report r = seed_shape_report();
  ASSERT_EQ(r.rows.size(), 48u);
  join_profile(r, seed(), samu_alias());
  ASSERT_TRUE(r.profile);
  const ProfileJoin& j = *r.profile;
  EXPECT_EQ(j.rows_matched, 8);
  EXPECT_EQ(j.report_rows_timed, 16);  // 8 profile rows x both io dtypes
  EXPECT_TRUE(j.unmatched.empty());
  EXPECT_EQ(j.aliases, (std::vector<ProfileAlias>{{"samu", "complex_rglru"}}));
  EXPECT_EQ(j.method, seed_method);
  EXPECT_EQ(j.source.rows, 8);
  // The profile has chunk32 at the first shape only and the grouped variant at the other three: the other
  // six combinations (x 2 dtypes) are backward rows at profiled shapes without an entry.
  EXPECT_EQ(j.report_rows_unprofiled, 8);
  EXPECT_EQ(j.unprofiled_backends.size(), 4u);
  const auto timed =
      std::count_if(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.profile.has_value(); });
  EXPECT_EQ(timed, 16);
  for (const Row& row : r.rows) {
    SCOPED_TRACE(row.backend + " " + to_string(row.shape));
    if (row.direction == Direction::forward) {
      EXPECT_FALSE(row.profile) << "a forward row got a backward timing";
    }
  }
  for (const char* dtype : {"@fp32", "@bf16"}) {
    const Row& rglru = row_of(r, "rglru/" + rglru_variant + dtype, seed_shapes[3], Direction::backward);
    ASSERT_TRUE(rglru.profile);
    EXPECT_EQ(rglru.profile->summed_cuda_duration_us, 5664.0);
    EXPECT_EQ(rglru.profile->profile_row, 6);
    const Row& samu = row_of(r, "complex_rglru/" + samu_chunk32 + dtype, seed_shapes[0], Direction::backward);
    ASSERT_TRUE(samu.profile);
    EXPECT_EQ(samu.profile->summed_cuda_duration_us, 1023.0);
    EXPECT_EQ(samu.profile->cuda_events, 49);
    EXPECT_EQ(samu.profile->categories.at("reverse_replay").duration_us, 191.0);
    EXPECT_FALSE(row_of(r, "complex_rglru/" + samu_chunk32 + dtype, seed_shapes[1], Direction::backward).profile);
  }
  const std::vector<std::string> lines = describe_profile_join(j);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("profile: 8 rows, 8 matched (16 report rows), 0 unmatched")) << lines[0];
}

TEST(ProfileJoin, WithoutTheAliasTheSamuRowsSayWhichOptionToUse) {
  Report r = seed_shape_report();
  join_profile(r, seed(), {});
  const ProfileJoin& j = *r.profile;
  EXPECT_EQ(j.rows_matched, 4);
  EXPECT_EQ(j.report_rows_timed, 8);
  ASSERT_EQ(j.unmatched.size(), 4u);
  for (const UnmatchedProfileRow& u : j.unmatched) {
    SCOPED_TRACE(u.reason);
    EXPECT_EQ(u.architecture, "samu");
    EXPECT_TRUE(contains(u.reason, "architecture 'samu' is not one of scancheck's"));
    EXPECT_TRUE(contains(u.reason, "--timings-alias samu="));
  }
  EXPECT_EQ(j.unmatched[0].profile_row, 1);
  EXPECT_EQ(j.unmatched[0].shape, (ProfileShape{4, 2048, 2048}));
  const std::vector<std::string> lines = describe_profile_join(j);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(lines[0].starts_with("profile: 8 rows, 4 matched (8 report rows), 4 unmatched")) << lines[0];
  EXPECT_TRUE(contains(lines[1], "rows[1] samu " + samu_chunk32 + " at 4 × 2048 × 2048: not joined: architecture"));
}

TEST(ProfileJoin, AJoinReplacesTheOneBefore) {
  Report r = seed_shape_report();
  join_profile(r, seed(), samu_alias());
  join_profile(r, seed(), {});
  EXPECT_EQ(r.profile->report_rows_timed, 8);
  const auto timed =
      std::count_if(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.profile.has_value(); });
  EXPECT_EQ(timed, 8);
}

//! A one-row profile of `architecture`/`backend` at `shape`.
Profile one_row_profile(const std::string& architecture, const std::string& backend, ProfileShape shape) {
  return parse_profile(json{{"schema_version", 1},
                            {"method", "m"},
                            {"rows",
                             {{{"shape", {{"batch", shape.batch}, {"length", shape.length}, {"width", shape.width}}},
                               {"architecture", architecture},
                               {"backend", backend},
                               {"cuda_events", 2},
                               {"summed_cuda_duration_us", 12.5},
                               {"categories", {{"scan", {{"events", 2}, {"duration_us", 12.5}}}}},
                               {"top_cuda_events", json::array()}}}}}
                           .dump(),
                       "one.json");
}

std::string reason_of(Report r, const Profile& p, const ProfileAliases& aliases = {}) {
  join_profile(r, p, aliases);
  if (r.profile->unmatched.size() != 1) return "(matched)";
  return r.profile->unmatched[0].reason;
}

TEST(ProfileJoin, EachUnmatchedRowSaysWhy) {
  const Report r = seed_shape_report();
  EXPECT_TRUE(contains(reason_of(r, one_row_profile("rglru", rglru_variant, {2, 100, 64})),
                       "no row of this report has batch 2, length 100, width 64 (any heads)"));
  EXPECT_TRUE(contains(reason_of(r, one_row_profile("rglru", "fused_chunk16", {4, 2048, 2048})),
                       "backend rglru/fused_chunk16 (any io dtype) is not in this report"));
  // The variant exists, under the other architecture only.
  EXPECT_TRUE(contains(reason_of(r, one_row_profile("rglru", samu_chunk32, {4, 2048, 2048})), "is not in this report"));
  EXPECT_TRUE(contains(
      reason_of(r, one_row_profile("samu", samu_chunk32, {4, 2048, 2048}), parse_profile_aliases({"samu=lstm"})),
      "architecture 'samu' is read as 'lstm' (--timings-alias samu=lstm)"));
  Report some_shapes = seed_shape_report();
  std::erase_if(some_shapes.rows,
                [](const Row& row) { return row.backend.starts_with("rglru/") && row.shape == seed_shapes[1]; });
  EXPECT_TRUE(contains(reason_of(some_shapes, one_row_profile("rglru", rglru_variant, {1, 8192, 2560})),
                       "has no row at batch 1, length 8192, width 2560"));
  Report forward_only = seed_shape_report();
  std::erase_if(forward_only.rows, [](const Row& row) {
    return row.backend.starts_with("rglru/") && row.shape == seed_shapes[0] && row.direction == Direction::backward;
  });
  EXPECT_TRUE(
      contains(reason_of(forward_only, one_row_profile("rglru", rglru_variant, {4, 2048, 2048})),
               "has only forward rows at batch 4, length 2048, width 2048: the profile times the backward pass"));
}

TEST(ProfileJoin, ProviderAliasesJoinForeignBackends) {
  Report r = seed_shape_report();
  add_row(r, "mykernels:rglru/triton_chunk64@bf16", seed_shapes[0], Direction::forward);
  add_row(r, "mykernels:rglru/triton_chunk64@bf16", seed_shapes[0], Direction::backward);
  const Profile p = one_row_profile("rglru", "triton:triton_chunk64", {4, 2048, 2048});
  EXPECT_TRUE(
      contains(reason_of(r, p), "the report has it from provider 'mykernels': --timings-alias triton=mykernels"));
  join_profile(r, p, parse_profile_aliases({"triton=mykernels"}));
  EXPECT_TRUE(r.profile->unmatched.empty());
  EXPECT_EQ(r.profile->report_rows_timed, 1);
  EXPECT_TRUE(row_of(r, "mykernels:rglru/triton_chunk64@bf16", seed_shapes[0], Direction::backward).profile);
  // The foreign variant named without its provider: the hint says how to name it.
  EXPECT_TRUE(
      contains(reason_of(r, one_row_profile("rglru", "triton_chunk64", {4, 2048, 2048})),
               "the report has it from provider 'mykernels' (name it mykernels:triton_chunk64 in the profile)"));
  // A built-in's variant under a provider name that the report lacks does not join to the built-in.
  EXPECT_TRUE(contains(reason_of(r, one_row_profile("rglru", "triton:" + rglru_variant, {4, 2048, 2048})),
                       "the report has it as a built-in backend"));
}

TEST(ProfileJoin, TwoProfileRowsNamingOneRowAfterTheAliasesAreAnError) {
  json j = json::parse(test::read_file(seed_profile));
  json copy = j["rows"][1];
  copy["architecture"] = "complex_rglru";  // rows[1] is samu: the same row once samu reads as complex_rglru
  j["rows"].push_back(copy);
  const Profile p = parse_profile(j.dump(), "twice.json");  // distinct as written
  Report r = seed_shape_report();
  EXPECT_TRUE(contains(input_error([&] { join_profile(r, p, samu_alias()); }),
                       "profile twice.json: rows[1] and rows[8] both time complex_rglru/" + samu_chunk32));
}

// ---- report.json and the pages -----------------------------------------------------------------------------

TEST(ProfileJoin, SurvivesReportJsonAndOldReportsStillRead) {
  Report r = seed_shape_report();
  join_profile(r, seed(), {});
  const json written = to_json(r);
  const Report back = from_json(written, "joined.json");
  EXPECT_EQ(to_json(back), written);
  ASSERT_TRUE(back.profile);
  EXPECT_EQ(back.profile->unmatched.size(), 4u);
  EXPECT_EQ(back.profile->source.sha256, seed().source.sha256);
  const Row& row = row_of(back, "rglru/" + rglru_variant + "@bf16", seed_shapes[2], Direction::backward);
  ASSERT_TRUE(row.profile);
  EXPECT_EQ(row.profile->summed_cuda_duration_us, 3029.0);
  EXPECT_EQ(row.profile->categories.size(), 8u);

  json old = written;  // as written before profiles: no key at all
  old.erase("profile");
  for (json& row_json : old["rows"]) row_json.erase("profile");
  const Report plain = from_json(old, "old.json");
  EXPECT_FALSE(plain.profile);
  EXPECT_TRUE(std::none_of(plain.rows.begin(), plain.rows.end(), [](const Row& x) { return x.profile.has_value(); }));
  EXPECT_EQ(to_json(seed_shape_report()), to_json(plain)) << "a report without a profile writes no profile key";

  json forward = written;
  for (json& row_json : forward["rows"])
    if (row_json.contains("profile")) {
      row_json["direction"] = "forward";
      break;
    }
  EXPECT_TRUE(
      contains(input_error([&] { from_json(forward, "f.json"); }), "only backward rows carry a profile timing"));
  json negative = written;
  negative["profile"]["source"]["sha256"] = "xyz";
  EXPECT_TRUE(contains(input_error([&] { from_json(negative, "n.json"); }), "profile.source.sha256"));
}

TEST(ProfileJoin, SpeedLinesGroupABackendsShapesWithTheDtypesSideBySide) {
  Report r = seed_shape_report();
  join_profile(r, seed(), samu_alias());
  const std::vector<ProfiledSpeed> speeds = profiled_speeds(r);
  ASSERT_EQ(speeds.size(), 16u);  // one line per backend (with dtype) and shape: 8 profile rows x 2 dtypes
  for (std::size_t i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(speeds[i].backend, "rglru/" + rglru_variant + (i % 2 == 0 ? "@fp32" : "@bf16"));
    const Shape& shape = seed_shapes[i / 2];
    EXPECT_EQ(speeds[i].shape, (ProfileShape{shape.batch, shape.length, shape.width}));
    EXPECT_EQ(speeds[i].rows, 1);
    EXPECT_EQ(speeds[i].verdict, "pass");
    EXPECT_EQ(speeds[i].bound_ratio, 0.25);  // the largest of the backward tensors' (dx 0.25, dh0 0.125)
  }
  EXPECT_EQ(speeds[8].backend, "complex_rglru/" + samu_chunk32 + "@fp32");
  EXPECT_EQ(speeds[9].backend, "complex_rglru/" + samu_chunk32 + "@bf16");
  EXPECT_EQ(speeds[10].backend, "complex_rglru/" + samu_grouped + "@fp32");
  EXPECT_EQ(speeds[10].shape, (ProfileShape{1, 8192, 2560}));
  EXPECT_EQ(speeds[10].timing.summed_cuda_duration_us, 1212.0);
  // A failing backward row shows in its line's verdict.
  for (Row& row : r.rows)
    if (row.backend == "rglru/" + rglru_variant + "@bf16" && row.shape == seed_shapes[0] &&
        row.direction == Direction::backward)
      row.verdict = Verdict::fail;
  const ProfiledSpeed line = profiled_speeds(r)[1];
  EXPECT_EQ(line.verdict, "fail");
  EXPECT_EQ(line.rows_failed, 1);
}

// ---- reports for the schema test and the CLI test ---------------------------------------------------------

TEST(ProfileJoin, WritesReportsForTheSchemaAndCliTests) {
  Report joined = seed_shape_report();
  join_profile(joined, seed(), samu_alias());
  save_report_json(joined, saved_reports() / "joined.json");
  Report unmatched = seed_shape_report();
  join_profile(unmatched, seed(), {});
  save_report_json(unmatched, saved_reports() / "unmatched.json");
  save_report_json(seed_shape_report(), saved_reports() / "seed_shapes.json");
  EXPECT_TRUE(load_report(saved_reports() / "joined.json").profile);
  EXPECT_FALSE(load_report(saved_reports() / "seed_shapes.json").profile);
}

}  // namespace
}  // namespace scancheck::reports
