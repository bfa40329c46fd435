// SPDX-License-Identifier: Apache-2.0
//! @file
//! A joined speed profile on the pages (render/markdown.hpp, render/html.hpp): the "Measured speed (your
//! profile)" section with the profile's method quoted and the rows that did not join, a failing line's
//! verdict, no section without a profile, and the profile's outside text escaped on both pages. The report and
//! the profile are profile_fixtures.hpp's (tests/reports).
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/html.hpp"
#include "render/markdown.hpp"
#include "reports/model.hpp"
#include "reports/profile.hpp"
#include "tests/reports/profile_fixtures.hpp"
#include "tests/test_support.hpp"

namespace scancheck::render {
namespace {

using namespace reports;
using namespace reports::profile_fixtures;
using nlohmann::json;
using test::contains;

TEST(ProfilePages, AFailingBackwardRowShowsInItsSpeedLine) {
  Report r = seed_shape_report();
  join_profile(r, seed(), samu_alias());
  for (Row& row : r.rows)
    if (row.backend == "rglru/" + rglru_variant + "@bf16" && row.shape == seed_shapes[0] &&
        row.direction == Direction::backward)
      row.verdict = Verdict::fail;
  EXPECT_TRUE(contains(render_markdown(r), "| **fail** (1 of 1 rows) | 1537 |"));
}

TEST(ProfilePages, ShowTheSectionWithTheMethodQuoted) {
  Report r = seed_shape_report();
  join_profile(r, seed(), {});
  const std::string md = render_markdown(r);
  EXPECT_TRUE(contains(md, "## Measured speed (your profile)"));
  EXPECT_TRUE(contains(md, "> " + seed_method));
  EXPECT_TRUE(contains(md, seed().source.sha256));
  // rglru at (1, 32768, 2048): 5664 µs, its largest category copy 2001 µs... read from the profile itself.
  const ProfileRow& big = seed().rows[6];
  const auto top = largest_categories({6, big.summed_cuda_duration_us, big.cuda_events, big.categories}, 1);
  EXPECT_TRUE(contains(md, fmt::format("| rglru/{}@fp32 | 1 × 32768 × 2048 | 1 |", rglru_variant)));
  EXPECT_TRUE(contains(md, fmt::format("| 5664 | 36 | {} {:.0f} µs", top[0].first, top[0].second.duration_us)));
  EXPECT_TRUE(contains(md, "architecture 'samu' is not one of scancheck's"));
  EXPECT_TRUE(contains(md, "The profile names no io dtype"));

  const std::string html = render_html(r);
  EXPECT_TRUE(contains(html, "<section id=\"measured-speed\">"));
  EXPECT_TRUE(contains(html, "<h2>Measured speed (your profile)</h2>"));
  EXPECT_TRUE(contains(html, "<blockquote class=\"profile-method\">" + seed_method + "</blockquote>"));
  EXPECT_TRUE(contains(html, "Profile rows not joined (4)"));
  EXPECT_TRUE(contains(html, "architecture &#39;samu&#39; is not one of scancheck&#39;s"));
  EXPECT_TRUE(contains(html, seed().source.sha256));

  EXPECT_FALSE(contains(render_markdown(seed_shape_report()), "Measured speed"));
  EXPECT_FALSE(contains(render_html(seed_shape_report()), "measured-speed"));
}

TEST(ProfilePages, OutsideTextIsEscapedOnBothPages) {
  json j = json::parse(test::read_file(seed_profile));
  j["method"] = "<script>alert(1)</script> | *bold* [link](x)";
  j["rows"][0]["categories"]["<img src=x onerror=alert(2)>"] = {{"events", 1}, {"duration_us", 9999}};
  Report r = seed_shape_report();
  join_profile(r, parse_profile(j.dump(), "<b>hostile</b>.json"), samu_alias());
  const std::string html = render_html(r);
  EXPECT_FALSE(contains(html, "<script>alert"));
  EXPECT_FALSE(contains(html, "<img src=x"));
  EXPECT_FALSE(contains(html, "<b>hostile"));
  EXPECT_TRUE(contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  const std::string md = render_markdown(r);
  EXPECT_FALSE(contains(md, "<script>"));
  EXPECT_FALSE(contains(md, "<img"));
  EXPECT_TRUE(contains(md, "&lt;script&gt;alert(1)&lt;/script&gt; \\| \\*bold\\* \\[link\\](x)"));
}

}  // namespace
}  // namespace scancheck::render
