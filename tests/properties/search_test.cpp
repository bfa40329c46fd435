// SPDX-License-Identifier: Apache-2.0
//! @file
//! The case generators (properties/generators.hpp) and the failure search (properties/search.hpp):
//! generated requests are valid, cover the awkward shapes and stay within the size limits; a deliberately
//! failing predicate is found and shrunk to its minimal request, replayed from its RC_PARAMS line and saved;
//! a predicate that never fails yields no finding.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <rapidcheck/detail/Configuration.h>
#include <nlohmann/json.hpp>

#include "core/architectures.hpp"
#include "core/case_dir.hpp"
#include "properties/generators.hpp"
#include "properties/search.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace scancheck;

CaseRequest draw(Architecture a, DType d, std::uint64_t seed, int size, const GeneratorOptions& o = {}) {
  return gen_case_request(a, d, o)(rc::Random(seed), size).value();
}

// ---- generators ----

// Invariants of every request at every size: valid for make_case, heads divide the state channels, complex
// widths even, within the size's limits (B L W may exceed max_elements only where H = 1 and k = 1 already),
// never exact with extreme, io dtype and architecture as asked.
TEST(Generators, RequestsAreValidAndWithinTheirSizeLimits) {
  for (Architecture a : all_architectures)
    for (DType d : {DType::float32, DType::bfloat16})
      for (int size = 0; size <= 100; size += 5)
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
          const CaseRequest r = draw(a, d, seed * 7919 + static_cast<std::uint64_t>(size), size);
          SCOPED_TRACE(fmt::format("size {}: {}", size, to_string(r)));
          const CaseLimits lim = limits_for_size(size, a);
          const Shape& s = r.shape;
          ASSERT_EQ(r.architecture, a);
          ASSERT_EQ(r.io_dtype, d);
          ASSERT_NO_THROW(validate(a, s));
          EXPECT_GE(s.length, 1);
          EXPECT_LE(s.length, lim.max_length);
          EXPECT_LE(s.batch, lim.max_batch);
          EXPECT_LE(s.heads, lim.max_heads);
          EXPECT_LE(s.width, std::max<std::int64_t>(lim.max_width, s.heads * (describe(a).complex ? 2 : 1)));
          if (s.batch * s.length * s.width > lim.max_elements) {
            EXPECT_EQ(s.heads, 1) << "over the element budget with H > 1";
            EXPECT_EQ(head_channels(a, s), 1) << "over the element budget with k > 1";
          }
          EXPECT_FALSE(r.regime == Regime::extreme && r.sqrt_gradient == SqrtGradient::exact);
          if (!(describe(a).family == Family::gated_layer)) {
            EXPECT_EQ(r.sqrt_gradient, SqrtGradient::bounded);
          }
        }
}

TEST(Generators, SizeZeroIsTheSmallestShapes) {
  for (Architecture a : all_architectures)
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
      const CaseRequest r = draw(a, DType::float32, seed, 0);
      EXPECT_LE(r.shape.length, 2);
      EXPECT_EQ(r.shape.batch, 1);
      EXPECT_EQ(r.shape.heads, 1);
    }
}

TEST(Generators, SameRandomAndSizeGiveTheSameRequest) {
  const CaseRequest a = draw(Architecture::complex_rglru, DType::bfloat16, 99, 60);
  const CaseRequest b = draw(Architecture::complex_rglru, DType::bfloat16, 99, 60);
  EXPECT_EQ(to_string(a), to_string(b));
  EXPECT_EQ(a.seed, b.seed);
}

// The boundary lengths follow the registered schedules: a schedule added to the registry adds its own.
TEST(Generators, BoundaryLengthsAreTheSchedulesBoundaries) {
  const std::vector<std::int64_t>& l = boundary_lengths();
  const auto has = [&](std::int64_t n) { return std::binary_search(l.begin(), l.end(), n); };
  ASSERT_TRUE(std::is_sorted(l.begin(), l.end()));
  for (const Schedule& s : builtin_schedules()) {
    if (s.chunk == 0) continue;  // sequential
    for (std::int64_t n : {s.chunk - 1, s.chunk, s.chunk + 1, 2 * s.chunk + 1})
      EXPECT_TRUE(has(n)) << "L = " << n << " of chunk " << s.chunk;
    if (s.group == 0) continue;
    for (std::int64_t n : {s.chunk * s.group - 1, s.chunk * s.group, s.chunk * s.group + 1})
      EXPECT_TRUE(has(n)) << "L = " << n << " of group span " << s.chunk * s.group;
  }
  EXPECT_TRUE(has(2048)) << "grouped_prefix64_hierarchical_chunk32's span";
}

// At full size every boundary length, regime, batch size, one and several heads, h0 / dh_last present
// and absent, both sqrt conventions and widths that are no multiple of 32 all occur.
TEST(Generators, CoverTheAwkwardShapes) {
  std::set<std::int64_t> lengths, batches;
  std::set<Regime> regimes;
  std::set<bool> h0, dh_last, many_heads, odd_width;
  std::set<SqrtGradient> sqrt;
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    const CaseRequest r = draw(Architecture::rglru, DType::float32, seed, 100);
    lengths.insert(r.shape.length);
    batches.insert(r.shape.batch);
    regimes.insert(r.regime);
    h0.insert(r.with_h0);
    dh_last.insert(r.with_dh_last);
    many_heads.insert(r.shape.heads > 1);
    odd_width.insert(r.shape.width % 32 != 0);
    sqrt.insert(r.sqrt_gradient);
  }
  for (std::int64_t l : boundary_lengths()) EXPECT_TRUE(lengths.count(l)) << "L = " << l << " never drawn";
  EXPECT_GT(lengths.size(), boundary_lengths().size() + 100) << "few lengths off the boundaries";
  EXPECT_EQ(batches, (std::set<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(regimes.size(), 5u);
  EXPECT_EQ(h0.size(), 2u);
  EXPECT_EQ(dh_last.size(), 2u);
  EXPECT_EQ(many_heads.size(), 2u);
  EXPECT_TRUE(odd_width.count(true));
  EXPECT_EQ(sqrt.size(), 2u);
}

TEST(Generators, OptionsRestrictRegimesAndBatch) {
  GeneratorOptions o;
  o.regimes = {Regime::long_memory, Regime::clip};
  o.min_batch = 2;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const CaseRequest r = draw(Architecture::scan, DType::float32, seed, static_cast<int>(seed % 101), o);
    EXPECT_TRUE(r.regime == Regime::long_memory || r.regime == Regime::clip);
    EXPECT_GE(r.shape.batch, 2);
  }
}

// A narrow max_width caps the heads too: the size's own head limit must not widen W past it (a client of
// accelerated-scan declaring max_width 2 got W = 4, and the run stopped as bad input), whatever the width
// multiple, and the decay space and resets at start are the constraints'.
TEST(Generators, ConstraintsBoundTheWidthThroughTheHeads) {
  for (const std::int64_t multiple : {1, 2}) {
    GeneratorOptions o;
    o.constraints.max_width = 2;
    o.constraints.width_multiple = multiple;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      const CaseRequest r = draw(Architecture::scan, DType::float32, seed, static_cast<int>(seed % 101), o);
      ASSERT_LE(r.shape.width, 2) << seed;
      ASSERT_EQ(r.shape.width % multiple, 0) << seed;
    }
  }
  GeneratorOptions log;
  log.constraints.decays = DecaySpace::log;
  GeneratorOptions starts;
  starts.constraints.resets_at_start = true;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    const CaseRequest r = draw(Architecture::scan, DType::float32, seed, static_cast<int>(seed % 101), log);
    EXPECT_EQ(r.decays, DecaySpace::log);
    EXPECT_NE(r.regime, Regime::resets);
    EXPECT_NE(r.regime, Regime::extreme);
    EXPECT_TRUE(draw(Architecture::rglru, DType::float32, seed, static_cast<int>(seed % 101), starts).resets_at_start);
    EXPECT_FALSE(draw(Architecture::scan, DType::float32, seed, static_cast<int>(seed % 101), starts).resets_at_start);
  }
}

// Every immediate shrink makes one choice smaller and none larger, towards B = 1, L = 1, H = 1, the
// default regime, h0 / dh_last present, k = 1, bounded; the seed never changes.
TEST(Generators, ShrinksOnlyTowardsSmallerRequests) {
  for (Architecture a : all_architectures)
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      const rc::Shrinkable<CaseRequest> s = gen_case_request(a, DType::float32)(rc::Random(seed), 100);
      const CaseRequest r = s.value();
      int count = 0;
      auto shrinks = s.shrinks();
      while (auto child = shrinks.next()) {
        const CaseRequest c = child->value();
        SCOPED_TRACE(to_string(r) + " -> " + to_string(c));
        ++count;
        EXPECT_EQ(c.seed, r.seed);
        EXPECT_LE(c.shape.batch, r.shape.batch);
        EXPECT_LE(c.shape.length, r.shape.length);
        EXPECT_LE(c.shape.heads, r.shape.heads);
        EXPECT_LE(c.shape.width, r.shape.width);
        EXPECT_LE(static_cast<int>(c.regime), static_cast<int>(r.regime));
        EXPECT_TRUE(c.with_h0 || !r.with_h0);
        EXPECT_TRUE(c.with_dh_last || !r.with_dh_last);
        EXPECT_NO_THROW(validate(a, c.shape));
      }
      const bool minimal = r.shape.batch == 1 && r.shape.length == 1 && r.shape.heads == 1 &&
                           head_channels(a, r.shape) == 1 && r.regime == Regime::default_ && r.with_h0 &&
                           r.with_dh_last && r.sqrt_gradient == SqrtGradient::bounded;
      EXPECT_EQ(count == 0, minimal) << to_string(r);
    }
}

// ---- the bucketed shape plan ----

//! The constraints' own limits, checked on a request (violated_by needs a whole case).
bool within(const CaseRequest& r, const BackendConstraints& k) {
  const Shape& s = r.shape;
  return s.width % k.width_multiple == 0 && s.length >= k.min_length && s.length % k.length_multiple == 0 &&
         s.length <= k.max_length.value_or(s.length) && s.width <= k.max_width.value_or(s.width) &&
         (k.heads.empty() || std::find(k.heads.begin(), k.heads.end(), s.heads) != k.heads.end()) &&
         (k.h0 || !r.with_h0);
}

// The set crosses every built-in boundary and every power-of-two block, each shape valid and within the
// generators' largest case, and the rotation lets every batch, head count and channel count appear.
TEST(Generators, BucketedShapesCrossEveryBoundary) {
  for (Architecture a : all_architectures) {
    SCOPED_TRACE(std::string(to_string(a)));
    const std::vector<Shape> set = bucketed_shapes(a, {});
    std::set<std::int64_t> lengths, batches, heads, per_head;
    for (const Shape& s : set) {
      lengths.insert(s.length), batches.insert(s.batch), heads.insert(s.heads);
      per_head.insert(head_channels(a, s));
      EXPECT_NO_THROW(validate(a, s));
      EXPECT_LE(s.width, limits_for_size(100, a).max_width);
      EXPECT_LE(s.batch * s.length * s.width, limits_for_size(100, a).max_elements);
    }
    for (std::int64_t l : boundary_lengths()) EXPECT_TRUE(lengths.count(l)) << "L = " << l;
    for (std::int64_t p : {4, 8, 128, 256})
      EXPECT_TRUE(lengths.count(p - 1) && lengths.count(p) && lengths.count(p + 1));
    EXPECT_EQ(set.size(), lengths.size()) << "one shape per length";
    EXPECT_EQ(batches, (std::set<std::int64_t>{1, 2, 3}));
    EXPECT_EQ(heads, (std::set<std::int64_t>{1, 2, 3, 4}));
    EXPECT_GE(per_head.size(), 4u) << "channels per head hardly vary";
  }
}

// 300 cases of a fuzzing run draw from the set alone, whatever the constraints, so a kernel compiled per
// shape compiles at most |set| times; every shrink is again a member, with fewer elements.
TEST(Generators, BucketedDrawsAndShrinksStayInTheSet) {
  BackendConstraints plain, pallas, blocked;
  pallas.width_multiple = 128, pallas.max_width = 128, pallas.max_length = 48;
  blocked.length_multiple = 16, blocked.min_length = 16, blocked.heads = {2}, blocked.h0 = false;
  for (BackendConstraints k : {plain, pallas, blocked})
    for (Architecture a : {Architecture::scan, Architecture::complex_rglru}) {
      k.shapes = ShapePlan::bucketed;
      const std::vector<Shape> set = bucketed_shapes(a, k);
      const auto member = [&](const CaseRequest& r) {
        return std::find(set.begin(), set.end(), r.shape) != set.end() && within(r, k);
      };
      GeneratorOptions o;
      o.constraints = k;
      std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> seen;
      const auto key = [](const Shape& s) { return std::tuple(s.batch, s.length, s.width, s.heads); };
      for (std::uint64_t i = 0; i < 300; ++i) {
        const rc::Shrinkable<CaseRequest> s = gen_case_request(a, DType::float32, o)(rc::Random(i), int(i * 37 % 101));
        const CaseRequest r = s.value();
        ASSERT_TRUE(member(r)) << to_string(r);
        seen.insert(key(r.shape));
        if (i % 30) continue;
        auto shrinks = s.shrinks();
        while (auto child = shrinks.next()) {
          const CaseRequest c = child->value();
          ASSERT_TRUE(member(c)) << to_string(r) << " -> " << to_string(c);
          EXPECT_LE(c.shape.batch * c.shape.length * c.shape.width, r.shape.batch * r.shape.length * r.shape.width);
        }
      }
      EXPECT_LE(seen.size(), set.size());
      EXPECT_GE(seen.size(), set.size() / 2) << "most of the set is drawn in 300 cases";
    }
}

RC_GTEST_PROP(Generators, AnyDrawnRequestMakesACase, ()) {
  const CaseRequest r = *gen_case_request(DType::bfloat16);
  const Case c = make_case(r);
  RC_ASSERT(c.shape == r.shape);
  RC_ASSERT(c.io_dtype == DType::bfloat16);
}

// ---- search ----

SearchOptions options(const std::string& id, int cases, std::uint64_t seed) {
  SearchOptions o;
  o.id = id;
  o.max_success = cases;
  o.max_size = 100;
  o.seed = seed;
  return o;
}

std::optional<PropertyFailure> long_and_batched(const Case& c) {
  if (c.shape.length > 40 && c.shape.batch > 1)
    return PropertyFailure(fmt::format("L = {} > 40 with B = {}", c.shape.length, c.shape.batch), "scan/chunk16@fp32");
  return std::nullopt;
}

// "Fails when L > 40 and B > 1" shrinks to B = 2, L = 41 and everything else minimal, for any seed.
TEST(Search, ShrinksAFailureToItsMinimalRequest) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const SearchOutcome out = search(long_and_batched, Architecture::complex_rglru, DType::bfloat16,
                                     options("search_test/long_and_batched", 200, seed));
    ASSERT_TRUE(out.finding) << "seed " << seed;
    const Finding& f = *out.finding;
    SCOPED_TRACE(to_string(f.request));
    EXPECT_EQ(f.request.shape.batch, 2);
    EXPECT_EQ(f.request.shape.length, 41);
    EXPECT_EQ(f.request.shape.heads, 1);
    EXPECT_EQ(f.request.shape.width, 2);  // one complex channel
    EXPECT_EQ(f.request.regime, Regime::default_);
    EXPECT_TRUE(f.request.with_h0);
    EXPECT_TRUE(f.request.with_dh_last);
    EXPECT_EQ(f.request.sqrt_gradient, SqrtGradient::bounded);
    EXPECT_EQ(f.request.architecture, Architecture::complex_rglru);
    EXPECT_EQ(f.request.io_dtype, DType::bfloat16);
    EXPECT_EQ(f.message, "L = 41 > 40 with B = 2");
    EXPECT_EQ(f.backend, "scan/chunk16@fp32");
    EXPECT_GE(f.cases_until_failure, 1);
    EXPECT_EQ(out.cases, f.cases_until_failure);
    EXPECT_GT(f.shrink_steps, 0);
    EXPECT_GE(f.shrink_tries, f.shrink_steps);
    EXPECT_EQ(f.seed, seed);
    EXPECT_TRUE(f.rc_reproduce.starts_with("RC_PARAMS=\"reproduce=")) << f.rc_reproduce;
  }
}

TEST(Search, NoShrinkKeepsTheFirstFailure) {
  SearchOptions o = options("search_test/no_shrink", 200, 5);
  o.shrink = false;
  const auto f = find_failure(long_and_batched, Architecture::scan, DType::float32, o);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->shrink_steps, 0);
  EXPECT_GT(f->request.shape.length, 40);
  EXPECT_GT(f->request.shape.batch, 1);
}

// The RC_PARAMS line replays the shrunk case, and only for the property it names.
TEST(Search, ReproduceStringReplaysTheShrunkCase) {
  const auto f =
      find_failure(long_and_batched, Architecture::rglru, DType::float32, options("search_test/replay", 200, 11));
  ASSERT_TRUE(f);
  const std::string prefix = "RC_PARAMS=\"reproduce=";
  ASSERT_TRUE(f->rc_reproduce.starts_with(prefix));
  SearchOptions replay = options("search_test/replay", 200, 12345);
  replay.reproduce = f->rc_reproduce.substr(prefix.size(), f->rc_reproduce.size() - prefix.size() - 1);
  const SearchOutcome again = search(long_and_batched, Architecture::rglru, DType::float32, replay);
  ASSERT_TRUE(again.finding);
  EXPECT_EQ(to_string(again.finding->request), to_string(f->request));
  EXPECT_EQ(again.finding->request.seed, f->request.seed);
  EXPECT_EQ(again.cases, 1);

  replay.id = "search_test/another_property";
  EXPECT_FALSE(search(long_and_batched, Architecture::rglru, DType::float32, replay).finding);
}

//! Sets RC_PARAMS for the scope (unset when `value` is null) and restores it after.
class ScopedRcParams {
 public:
  explicit ScopedRcParams(const char* value) {
    rc::detail::configuration();  // RapidCheck reads RC_PARAMS once, at first use: let that happen before
    if (const char* old = std::getenv("RC_PARAMS")) saved_ = old;
    if (value) ::setenv("RC_PARAMS", value, 1);
    else ::unsetenv("RC_PARAMS");
  }
  ~ScopedRcParams() {
    if (saved_) ::setenv("RC_PARAMS", saved_->c_str(), 1);
    else ::unsetenv("RC_PARAMS");
  }

 private:
  std::optional<std::string> saved_;
};

TEST(Search, OptionsComeFromRcParamsOrTheDefaults) {
  {
    const ScopedRcParams env("max_success=7 max_size=9 noshrink=1 seed=42");
    const SearchOptions o = SearchOptions::from_rc_params("search_test/options", 3, 4);
    EXPECT_EQ(o.id, "search_test/options");
    EXPECT_EQ(o.max_success, 7);
    EXPECT_EQ(o.max_size, 9);
    EXPECT_EQ(o.seed, 42u);
    EXPECT_FALSE(o.shrink);
    EXPECT_TRUE(o.reproduce.empty());
  }
  {
    const ScopedRcParams env(nullptr);
    const SearchOptions o = SearchOptions::from_rc_params("search_test/options", 3, 4);
    EXPECT_EQ(o.max_success, 3);
    EXPECT_EQ(o.max_size, 4);
    EXPECT_EQ(o.seed, rc::detail::configuration().testParams.seed);
    EXPECT_TRUE(o.shrink);
  }
  // The printed RC_PARAMS line, set in the environment, reaches the options and replays the finding.
  const auto f =
      find_failure(long_and_batched, Architecture::scan, DType::bfloat16, options("search_test/options", 200, 31));
  ASSERT_TRUE(f);
  const std::string line = f->rc_reproduce;  // RC_PARAMS="reproduce=..."
  const std::string value =
      line.substr(std::string("RC_PARAMS=\"").size(), line.size() - std::string("RC_PARAMS=\"").size() - 1);
  const ScopedRcParams env(value.c_str());
  const SearchOptions o = SearchOptions::from_rc_params("search_test/options", 3, 4);
  EXPECT_EQ("reproduce=" + o.reproduce, value);
  const auto again = find_failure(long_and_batched, Architecture::scan, DType::bfloat16, o);
  ASSERT_TRUE(again);
  EXPECT_EQ(to_string(again->request), to_string(f->request));
}

TEST(Search, NeverFailingPredicateHasNoFinding) {
  int calls = 0;
  const SearchOutcome out = search(
      [&calls](const Case&) -> std::optional<std::string> {
        ++calls;
        return std::nullopt;
      },
      Architecture::scan, DType::float32, options("search_test/never", 60, 3));
  EXPECT_FALSE(out.finding);
  EXPECT_EQ(out.cases, 60);
  EXPECT_EQ(calls, 60);
}

// An exception escaping the predicate is a failure carrying its message, and shrinks like any other.
TEST(Search, ExceptionsAreFailures) {
  const auto f = find_failure(
      [](const Case& c) -> std::optional<std::string> {
        if (c.shape.length >= 17) throw std::runtime_error("boom at L >= 17");
        return std::nullopt;
      },
      Architecture::scan, DType::float32, options("search_test/throws", 200, 4));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->request.shape.length, 17);
  EXPECT_EQ(f->message, "exception: boom at L >= 17");
}

// Values a predicate draws beside the case shrink too: "fails when the drawn position >= 5" ends at 5.
// (The request shrinks first; a shorter L redraws the position from the same random bits, so L itself
// need not end at 6.)
TEST(Search, ValuesDrawnByThePredicateShrink) {
  std::int64_t last = -1;
  const auto f = find_failure(
      [&last](const Case& c) -> std::optional<std::string> {
        const std::int64_t t = *gen_index(c.shape.length);
        last = t;
        if (t >= 5) return fmt::format("t = {}", t);
        return std::nullopt;
      },
      Architecture::scan, DType::float32, options("search_test/drawn", 200, 8));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->message, "t = 5");
  EXPECT_GT(f->request.shape.length, 5);
  EXPECT_EQ(last, 5);  // the last invocation is the minimal failing one
}

TEST(Search, SavedFindingHoldsTheCaseAndItsRepro) {
  const scancheck::test::TempDir dir;
  auto f = find_failure(long_and_batched, Architecture::scan, DType::float32, options("search_test/save", 200, 21));
  ASSERT_TRUE(f);
  Case related = make_case(f->request);
  related.at("b")[0] = 42;
  f->related.emplace_back("perturbed", related);
  const std::filesystem::path saved = save_finding(*f, dir.path());
  EXPECT_EQ(saved.parent_path(), dir.path());
  const Case c = load_case(saved / "case");
  EXPECT_EQ(c.shape, f->request.shape);
  EXPECT_EQ(c.provenance.seed, f->request.seed);
  EXPECT_TRUE(scancheck::test::bitwise_equal(c.at("b"), make_case(f->request).at("b")));
  EXPECT_EQ(load_case(saved / "perturbed").at("b")[0], 42.0f);
  const nlohmann::json j = nlohmann::json::parse(scancheck::test::read_file(saved / "finding.json"));
  EXPECT_EQ(j.at("property"), "search_test/save");
  EXPECT_EQ(j.at("backend"), "scan/chunk16@fp32");
  EXPECT_EQ(j.at("request").at("shape").at(1), 41);  // [B, L, W, H]
  EXPECT_EQ(j.at("format"), "scancheck-finding");
  EXPECT_EQ(j.at("rc_params"), f->rc_reproduce);
  EXPECT_EQ(j.at("cases_until_failure"), f->cases_until_failure);
  const std::string readme = scancheck::test::read_file(saved / "README.txt");
  EXPECT_TRUE(scancheck::test::contains(
      readme, fmt::format("scancheck check --case {} --backend 'scan/chunk16@fp32'", (saved / "case").string())));
  EXPECT_TRUE(scancheck::test::contains(readme, f->rc_reproduce));
  // finding.json reads back; one of an earlier scancheck (no "format") is refused with a clear line.
  const Finding back = load_finding(saved);
  EXPECT_EQ(to_string(back.request), to_string(f->request));
  EXPECT_EQ(back.backend, f->backend);
  EXPECT_EQ(back.message, f->message);
  EXPECT_EQ(back.rc_reproduce, f->rc_reproduce);
  nlohmann::json old = j;
  old.erase("format");
  scancheck::test::write_file(saved / "finding.json", old.dump());
  EXPECT_TRUE(scancheck::test::contains(scancheck::test::input_error([&] { load_finding(saved); }),
                                        "a finding of an earlier scancheck"));
}

}  // namespace
