// SPDX-License-Identifier: Apache-2.0
// The HTML report (render/html.hpp) on synthetic reports built here: every section is drawn, the page
// names no external resource, report text is escaped, a failing backend shows with its repro line, an
// empty report says nothing was checked, and no infinite or NaN number reaches an SVG coordinate. The
// page of WritesThePageForTheRenderTest is what html_render_test (render_html.sh) screenshots in Chromium.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/case_dir.hpp"
#include "render/html.hpp"

namespace scancheck::render {
namespace {

namespace fs = std::filesystem;
using namespace reports;

constexpr double inf = std::numeric_limits<double>::infinity();

//! A deterministic jitter in [0.5, 1.5) per (backend, length, tensor).
double jitter(std::size_t backend, std::int64_t length, std::size_t tensor) {
  std::uint64_t h = backend * 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(length) * 0xbf58476d1ce4e5b9ull ^
                    (tensor + 1) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  h *= 0xd6e9f8cc5ca3d8b5ull;
  h ^= h >> 29;
  return 0.5 + static_cast<double>(h % 1000) / 1000.0;
}

//! A tensor whose error grows like sqrt(L) ulps of its scale, with a plausible ulp histogram.
TensorEntry tensor(const std::string& name, DType dtype, std::int64_t length, double growth) {
  TensorEntry t;
  TensorMetrics& m = t.metrics;
  m.name = name;
  m.dtype = dtype;
  m.compared = 2 * length * 16;
  m.max_exact = 3.5;
  m.max_abs = m.max_exact * unit_roundoff(dtype) * growth * std::sqrt(static_cast<double>(length));
  m.max_rel = m.max_abs;
  m.ulp_max = 2 * growth * std::sqrt(static_cast<double>(length));
  m.ulp_p50 = 0.5;
  m.ulp_p90 = 1;
  m.ulp_p99 = m.ulp_max / 2;
  m.max_bound = m.max_exact * unit_roundoff(dtype) * static_cast<double>(length + 8);
  m.bound_ratio = m.max_abs / m.max_bound;
  m.baseline_abs = m.max_abs / growth;
  m.baseline_ratio = growth;
  // The detection columns (policy.hpp, detection_threshold): a bound of about L/2 ulps at the typical element, a
  // typical error a tenth of a bound, the ensemble's a little less.
  m.bound_scale =
      BoundScale{static_cast<double>(length + 8) / 2, unit_roundoff(dtype) * static_cast<double>(length + 8)};
  m.profile = ErrorProfile{m.compared, 0.1 / growth, 0.3 / growth, 0.15 / growth};
  m.ensemble_profile = ErrorProfile{m.compared, 0.08, 0.25, 0.12};
  m.ensemble_orders = 6;
  // Three in five of the elements left fall in each bucket, up to the one of ulp_max, which takes the rest.
  std::int64_t left = m.compared;
  const int top = ulp_bucket(m.ulp_max);
  for (int k = 0; k <= top; ++k) {
    const std::int64_t here = k == top ? left : left * 3 / 5;
    m.ulp_histogram[static_cast<std::size_t>(k)] = here;
    left -= here;
  }
  return t;
}

struct Synthetic {
  std::vector<std::string> variants;  //!< per architecture: sequential first (the baseline)
  std::vector<std::int64_t> lengths{1, 2, 7, 33, 128, 300, 1024, 2100, 4096};
};

//! The tensors of each architecture's passes (core/case.cpp's layouts, shortened for rglru).
std::vector<std::string> outputs(Architecture a, Direction direction) {
  if (a == Architecture::scan)
    return direction == Direction::forward ? std::vector<std::string>{"h", "h_last"}
                                           : std::vector<std::string>{"da", "db", "dh0"};
  return direction == Direction::forward
             ? std::vector<std::string>{"y", "h_last"}
             : std::vector<std::string>{"dx", "dh0", "d_a_param", "d_input_gate_w", "d_a_gate_b"};
}

//! Rows of scan and rglru (float32; rglru also bfloat16) over lengths 1..4096, with the oddities the page
//! must survive: a failing row with reasons and a repro line, a run that failed, a tensor without bound, an
//! infinite baseline ratio, an infinite error, and `<&>"'` in the label and a backend name.
Report synthetic_report(const Synthetic& s) {
  Report r;
  r.label = "nightly <&> \"quoted\" 'single'";
  r.generated_at = "2025-01-02T03:04:05Z";
  r.tool = {"scancheck", "0.4.0", "9d58afa"};
  r.environment = {"host", std::nullopt, "GCC 12.2.0", std::nullopt, "builder-1", 2};
  r.method = {"custom",
              "float128",
              "the first-order bound of a float32 sequential evaluation",
              "rglru/sequential@fp32",
              "full",
              7,
              "*",
              {1, 64, 4096},
              std::nullopt};
  r.coverage.backends_total = 480;
  r.scope = default_scope(r.method);
  int case_index = 0;
  for (const auto& [architecture, dtype] :
       {std::pair{Architecture::scan, DType::float32}, std::pair{Architecture::rglru, DType::float32},
        std::pair{Architecture::rglru, DType::bfloat16}})
    for (const std::int64_t length : s.lengths) {
      CaseEntry c;
      c.id = fmt::format("c{}", case_index++);
      c.request.architecture = architecture;
      c.request.io_dtype = dtype;
      c.request.shape = {2, length, 16, 2};
      c.request.seed = 7;
      c.elements_total = c.elements_verified = 2 * length * 16 * 6;
      c.repro = fmt::format("--architecture {} --length {} --seed 7", to_string(architecture), length);
      for (std::size_t b = 0; b < s.variants.size(); ++b)
        for (const Direction direction : {Direction::forward, Direction::backward}) {
          Row row;
          row.case_id = c.id;
          row.shape = c.request.shape;
          row.architecture = architecture;
          row.io_dtype = dtype;
          row.backend = fmt::format("{}/{}@{}", to_string(architecture), s.variants[b],
                                    dtype == DType::float32 ? "fp32" : "bf16");
          row.direction = direction;
          row.seed = 7;
          row.repro = fmt::format("scancheck check {} --backend {}", c.repro, row.backend);
          const std::vector<std::string> names = outputs(architecture, direction);
          for (std::size_t t = 0; t < names.size(); ++t) {
            const DType stored = names[t] == "h" || names[t] == "y" || names[t] == "dx" ? dtype : DType::float32;
            const double spread = 2 * static_cast<double>(b) / static_cast<double>(s.variants.size());
            const double growth = (b == 0 ? 0.8 : 1 + spread) * jitter(b, length, t);
            row.tensors.push_back(tensor(names[t], stored, length, growth));
          }
          r.rows.push_back(std::move(row));
        }
      r.cases.push_back(std::move(c));
    }
  return r;
}

Row* find_row(Report& r, std::string_view backend, std::int64_t length, Direction direction) {
  for (Row& row : r.rows)
    if (row.backend == backend && row.shape.length == length && row.direction == direction) return &row;
  return nullptr;
}

TensorEntry* find_tensor(Row& row, std::string_view name) {
  for (TensorEntry& t : row.tensors)
    if (t.metrics.name == name) return &t;
  return nullptr;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

//! The oddities: see synthetic_report.
void add_oddities(Report& r) {
  Row* failing = find_row(r, "rglru/chunk16@fp32", 4096, Direction::backward);
  TensorEntry* d_a_param = find_tensor(*failing, "d_a_param");
  d_a_param->metrics.bound_ratio = 9.5;
  d_a_param->pass = false;
  d_a_param->reasons = {"d_a_param: error 0.0123 bounds at [0, 17] (got 1.5, exact 1.49); allowed 4"};
  TensorEntry* dx = find_tensor(*failing, "dx");
  dx->metrics.max_abs = inf;
  dx->metrics.bound_ratio = inf;
  dx->metrics.nonfinite_mismatches = 3;
  dx->pass = false;
  dx->reasons = {"dx: 3 elements disagree with the reference on NaN/Inf"};
  failing->verdict = Verdict::fail;
  // Its heat strip: 4 t-bins x 2 w-bins, failing in the last t-bin, chunks of 1024, a reset at t = 2048.
  ErrorStrip strip;
  strip.tensor = "dx";
  strip.length = 4096;
  strip.width = 2;
  strip.t_bins = 4;
  strip.w_bins = 2;
  strip.ratios = {0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 40, inf};
  strip.chunk = 1024;
  strip.resets = {2048};
  failing->strip = strip;

  Row* crashed = find_row(r, "rglru/chunk16@fp32", 33, Direction::forward);
  crashed->tensors.clear();
  crashed->error = "kernel fault <at block 3>";
  crashed->verdict = Verdict::error;

  for (Row& row : r.rows)
    if (row.architecture == Architecture::scan)
      if (TensorEntry* h_last = find_tensor(row, "h_last")) h_last->metrics.bound_ratio.reset();
  find_tensor(*find_row(r, "scan/chunk16@fp32", 7, Direction::backward), "dh0")->metrics.baseline_ratio = inf;
  summarise(r);
}

Report small_report() {
  Report r = synthetic_report({{"sequential", "chunk16", "weird<&>chunk8"}});
  add_oddities(r);
  return r;
}

//! What a section's element contains: from id="ID" to the end of the section.
std::string section(const std::string& html, std::string_view id) {
  const std::size_t begin = html.find(fmt::format("id=\"{}\"", id));
  if (begin == std::string::npos) return {};
  return html.substr(begin, html.find("</section>", begin) - begin);
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, DrawsEverySection) {
  const std::string html = render_html(small_report());
  for (const char* id : {"error-vs-length", "ulp-histograms", "bound-ratio-heat-map"})
    EXPECT_NE(section(html, id).find("<svg"), std::string::npos) << id;
  EXPECT_NE(section(html, "verdict-table").find("<table"), std::string::npos);
  EXPECT_NE(html.find("id=\"scope\""), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
  // One error panel per (architecture, dtype) and pass, one histogram per group, one heat map per architecture.
  EXPECT_EQ(count(section(html, "error-vs-length"), "<svg"), 3u * 2u);
  EXPECT_EQ(count(section(html, "ulp-histograms"), "<svg"), 3u);
  EXPECT_EQ(count(section(html, "bound-ratio-heat-map"), "<svg"), 2u);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("FAIL: 1 of 9 backends failed (2 of 162 rows: 1 fail, 1 error)"), std::string::npos);
  // The failing row's heat strip: its cells, three chunk boundaries and one reset tick.
  const std::size_t strip = html.find("<svg class=\"strip\"");
  ASSERT_NE(strip, std::string::npos);
  const std::string svg = html.substr(strip, html.find("</svg>", strip) - strip);
  EXPECT_NE(svg.find("aria-label=\"dx of batch entry 0 over t and w\""), std::string::npos);
  EXPECT_EQ(count_of(svg, "<rect "), 8);
  EXPECT_EQ(count_of(svg, "<line "), 4);
  EXPECT_NE(svg.find("<title>40 bounds</title>"), std::string::npos);
}

TEST(HtmlReport, NamesNoExternalResource) {
  const std::string html = render_html(small_report());
  const std::string svg_namespace = "http://www.w3.org/2000/svg";
  for (const char* scheme : {"http://", "https://"})
    for (std::size_t at = html.find(scheme); at != std::string::npos; at = html.find(scheme, at + 1))
      EXPECT_EQ(html.compare(at, svg_namespace.size(), svg_namespace), 0) << html.substr(at, 80);
  for (const char* tag : {"src=", "href=", "<link", "<script", "<img", "<iframe", "url(", "@import", "@font-face"})
    EXPECT_EQ(html.find(tag), std::string::npos) << tag;
}

TEST(HtmlReport, EscapesReportText) {
  const std::string html = render_html(small_report());
  EXPECT_EQ(html.find("<&>"), std::string::npos);
  EXPECT_EQ(html.find("<at block 3>"), std::string::npos);
  EXPECT_NE(html.find("nightly &lt;&amp;&gt; &quot;quoted&quot; &#39;single&#39;"), std::string::npos);
  EXPECT_NE(html.find("rglru/weird&lt;&amp;&gt;chunk8@fp32"), std::string::npos);
  EXPECT_NE(html.find("kernel fault &lt;at block 3&gt;"), std::string::npos);
}

TEST(HtmlReport, ShowsTheFailingBackendWithItsReasonsAndRepro) {
  const std::string verdicts = section(render_html(small_report()), "verdict-table");
  EXPECT_NE(verdicts.find("Failing rows (2)"), std::string::npos);
  EXPECT_NE(verdicts.find("d_a_param: error 0.0123 bounds at [0, 17]"), std::string::npos);
  EXPECT_NE(verdicts.find("dx: 3 elements disagree with the reference on NaN/Inf"), std::string::npos);
  EXPECT_NE(verdicts.find("scancheck check --architecture rglru --length 4096 --seed 7 --backend "
                          "rglru/chunk16@fp32</code>"),
            std::string::npos);
  EXPECT_NE(verdicts.find("<td class=\"name\">rglru/chunk16@fp32</td><td class=\"name\">dx (backward)</td>"),
            std::string::npos);
}

TEST(HtmlReport, MarksTheFailingBackendInEveryPicture) {
  const std::string html = render_html(small_report());
  EXPECT_NE(section(html, "error-vs-length").find("failing: <code>rglru/chunk16@fp32</code>"), std::string::npos);
  EXPECT_NE(section(html, "error-vs-length").find("<title>rglru/chunk16@fp32 (fails)</title>"), std::string::npos);
  const std::string heat = section(html, "bound-ratio-heat-map");
  EXPECT_NE(heat.find("class=\"row-name fail\""), std::string::npos);
  EXPECT_NE(heat.find("rglru/chunk16@fp32 · d_a_param: bound ratio 9.5"), std::string::npos);
  EXPECT_NE(heat.find("rglru/chunk16@fp32 · dx: bound ratio inf"), std::string::npos);
  EXPECT_NE(heat.find("scan/chunk16@fp32 · h_last: no bound"), std::string::npos);
}

TEST(HtmlReport, EmptyReportSaysNothingWasChecked) {
  Report r;
  r.label = "empty";
  summarise(r);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("nothing was checked"), std::string::npos);
  EXPECT_NE(html.find("class=\"banner fail\""), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_TRUE(html.ends_with("</html>\n"));
}

TEST(HtmlReport, PassingReportHasAGreenBanner) {
  Report r = synthetic_report({{"sequential", "chunk16"}});
  summarise(r);
  ASSERT_TRUE(r.verdict.pass);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("class=\"banner pass\">PASS: 6 backends"), std::string::npos);
  EXPECT_NE(section(html, "verdict-table").find("No row failed."), std::string::npos);
}

//! Every coordinate-like attribute of the page's SVG: a finite decimal, or for points/viewBox/transform a
//! list of them.
void expect_finite_coordinates(const std::string& html) {
  static const std::regex attribute(
      R"re(\s(x|y|x1|x2|y1|y2|cx|cy|r|width|height|points|viewBox|transform)="([^"]*)")re");
  static const std::regex number(R"re(-?[0-9]+(\.[0-9]+)?)re");
  static const std::regex numbers(R"re(-?[0-9]+(\.[0-9]+)?([ ,]+-?[0-9]+(\.[0-9]+)?)*)re");
  static const std::regex transform(R"re((translate\(-?[0-9.]+,-?[0-9.]+\) ?)?(rotate\(-?[0-9.]+\))?)re");
  std::size_t checked = 0;
  for (std::size_t begin = html.find("<svg"); begin != std::string::npos; begin = html.find("<svg", begin + 1)) {
    const std::string svg = html.substr(begin, html.find("</svg>", begin) - begin);
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), attribute); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1], value = (*it)[2];
      const std::regex& form = name == "points" || name == "viewBox" ? numbers
                               : name == "transform"                 ? transform
                                                                     : number;
      EXPECT_TRUE(std::regex_match(value, form)) << name << "=\"" << value << '"';
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(HtmlReport, NoNonFiniteNumberReachesAnSvgCoordinate) {
  Report r = small_report();
  // Worse than add_oddities: NaN and infinite metrics everywhere in one row, a zero error, a huge one.
  Row& row = r.rows.front();
  row.tensors.front().metrics.max_abs = std::nan("");
  row.tensors.back().metrics.max_abs = inf;
  row.tensors.back().metrics.bound_ratio = std::nan("");
  row.tensors.back().metrics.ulp_max = inf;
  r.rows[2].tensors.front().metrics.max_abs = 0;
  r.rows[4].tensors.front().metrics.max_abs = 1e300;
  const std::string html = render_html(r);
  expect_finite_coordinates(html);
}

TEST(HtmlReport, StaysCompactWithARegistrysWorthOfBackends) {
  // complex_rglru's 128 variants per dtype: every subset of four flags on each of eight schedules.
  Synthetic s;
  for (const char* schedule : {"sequential", "chunk16", "chunk32", "chunk64", "grouped_prefix32_hierarchical_chunk16",
                               "grouped_prefix32_hierarchical_chunk32", "grouped_prefix64_hierarchical_chunk16",
                               "grouped_prefix64_hierarchical_chunk32"})
    for (unsigned flags = 0; flags < 16; ++flags)
      s.variants.push_back(fmt::format("{}{}{}{}{}", flags & 1 ? "fused_" : "", flags & 2 ? "fused_output_" : "",
                                       flags & 4 ? "fused_write_" : "", flags & 8 ? "shared_sfu_" : "", schedule));
  Report r = synthetic_report(s);
  for (Row& row : r.rows)  // one backend fails its long cases
    if (row.backend == "rglru/fused_write_chunk64@fp32" && row.shape.length >= 1024) {
      row.verdict = Verdict::fail;
      for (TensorEntry& t : row.tensors) {
        t.metrics.max_abs *= 30;
        *t.metrics.bound_ratio *= 30;
      }
    }
  summarise(r);
  const std::string html = render_html(r);
  EXPECT_LT(html.size(), 8u << 20) << "bytes";
  expect_finite_coordinates(html.substr(0, 400000));
  const fs::path dir = fs::path(SCANCHECK_TEST_REPORTS) / "html_test";
  fs::create_directories(dir);
  write_file_atomically(dir / "registry.html", html);  // for looking at: 128 backends per group
}

//! The page html_render_test screenshots: a realistic report of a handful of backends per architecture.
TEST(HtmlReport, WritesThePageForTheRenderTest) {
  Report r = synthetic_report({{"sequential", "chunk16", "chunk32", "grouped_prefix32_hierarchical_chunk16",
                                "fused_output_shared_sfu_chunk32", "weird<&>chunk8"}});
  add_oddities(r);
  const fs::path dir = fs::path(SCANCHECK_TEST_REPORTS) / "html_test";
  fs::create_directories(dir);
  // Atomically: the discovered copy of this test may rewrite it while html_render_test reads it.
  write_file_atomically(dir / "report.html", render_html(r));
  EXPECT_GT(fs::file_size(dir / "report.html"), 10000u);
}

}  // namespace
}  // namespace scancheck::render
