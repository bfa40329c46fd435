// SPDX-License-Identifier: Apache-2.0
// The page: its CSS and head, the summary's fact boxes, the verdict tables and failing rows, the scope, and
// the order of the sections. The plots are drawn in render/plots/, with the primitives of svg.hpp.
#include "render/html.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/html_text.hpp"
#include "render/palette.hpp"
#include "render/plots/bound_ratio_heat_map.hpp"
#include "render/plots/error_against_length.hpp"
#include "render/plots/ulp_histogram.hpp"
#include "render/row_groups.hpp"
#include "render/svg.hpp"
#include "reports/profile.hpp"
#include "reports/summary.hpp"

namespace scancheck::render {

using namespace reports;  // the model rendered here

namespace {

using namespace detail;

// ---- verdict table ------------------------------------------------------------------------------------

//! A detection level at the typical element: ulps, with the relative error beneath.
std::string detection_cell(const std::optional<DetectionLevel>& l) {
  if (!l) return "<td>-</td>";
  return fmt::format("<td class=\"detects\">{} ulp<br><small>{} rel.</small></td>", num(l->ulps), num(l->relative));
}

//! What the backend's PASS rules out (summary.hpp: the median tensor's thresholds) and where it sees least.
std::string detection_cells(const BackendSummary& s) {
  if (!s.detection) return "<td>-</td><td>-</td><td>-</td>";
  std::string loosest = "<td>-</td>";
  if (const auto& l = s.loosest)
    loosest = fmt::format("<td class=\"name\">{} / {} ulp: {} {} on {}</td>", num(l->threshold.certainty.ulps),
                          l->threshold.distribution ? num(l->threshold.distribution->ulps) : std::string("-"),
                          escape(l->tensor), escape(to_string(l->direction)), escape(l->case_id));
  return detection_cell(s.detection->certainty) + detection_cell(s.detection->distribution) + loosest;
}

//! One backend's line; device times only when the report has them.
std::string verdict_row(const BackendSummary& s, const TolerancePolicy& policy, bool timed) {
  std::string bound_style;
  if (s.bound_ratio) {
    const double position = heat_position(*s.bound_ratio, policy.bound_factor);
    bound_style =
        fmt::format(" style=\"background:{};color:{}\"", heat_colour(position), position > 0.7 ? "#fff" : "inherit");
  }
  const std::string times =
      timed ? fmt::format("<td>{}</td><td>{}</td>", num(s.forward_ms), num(s.backward_ms)) : std::string();
  return fmt::format(
      "<tr{}><td class=\"name\">{}</td><td class=\"name\">{}</td><td{}>{}</td><td>{}</td><td>{}</td><td>{}</td>"
      "<td>{}</td>{}<td>{}</td><td>{}</td>{}</tr>\n",
      s.ok() ? "" : " class=\"failed\"", escape(s.backend), escape(s.worst_tensor), bound_style, num(s.bound_ratio),
      num(s.baseline_ratio), num(s.ulp_p99), num(s.ulp_max), num(s.scaled_error), times, s.rows,
      s.ok() ? std::string("<span class=\"verdict-pass\">pass</span>")
             : fmt::format("<span class=\"verdict-fail\">FAIL</span> ({} rows)", s.rows_failed),
      detection_cells(s));
}

std::string verdict_table(Architecture architecture, const std::vector<BackendSummary>& summaries,
                          const TolerancePolicy& policy, bool timed) {
  std::string out = fmt::format(
      "<h3>{}</h3>\n<div class=\"scroll\"><table>\n<thead><tr><th class=\"name\">backend</th>"
      "<th class=\"name\">worst tensor</th><th>error / bound</th><th>max baseline ratio</th><th>ulp p99</th>"
      "<th>max ulp</th><th>max scaled error</th>{}<th>rows</th><th>verdict</th>"
      "<th>detects: bound rule</th><th>detects: ensemble rule</th><th class=\"name\">loosest</th></tr></thead>\n"
      "<tbody>\n",
      escape(to_string(architecture)), timed ? "<th>forward ms</th><th>backward ms</th>" : "");
  for (const BackendSummary& s : summaries)
    if (s.architecture == architecture) out += verdict_row(s, policy, timed);
  out += "</tbody></table></div>\n";
  return out;
}

std::vector<std::string> row_reasons(const Row& row) {
  std::vector<std::string> out;
  if (!row.error.empty()) out.push_back("run failed: " + row.error);
  for (const std::string& name : row.missing) out.push_back(name + ": missing from the outputs");
  for (const std::string& what : row.misshapen) out.push_back("wrong shape: " + what);
  for (const std::string& where : row.diagnosis) out.push_back("where: " + where);
  for (const TensorEntry& t : row.tensors) out.insert(out.end(), t.reasons.begin(), t.reasons.end());
  return out;
}

//! The failing row's worst tensor over (t, w) as a heat strip: one cell per bin, coloured by its largest
//! |error| / bound on the heat map's scale; chunk (grey) and group (dark) boundaries as vertical lines,
//! resets as red ticks above, so a pattern (the last chunk, a boundary, a reset, some channels) shows.
std::string heat_strip(const ErrorStrip& s, double bound_factor) {
  constexpr double cell_w = 9, cell_h = 7, left = 34, top = 16;
  const double width = std::max(left + cell_w * static_cast<double>(s.t_bins) + 8, 160.0);  // room for the axis label
  const double height = top + cell_h * static_cast<double>(s.w_bins) + 16;
  std::string out = fmt::format(
      "<svg class=\"strip\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{} of batch entry {} over t and "
      "w\">\n",
      px(width), px(height), escape(s.tensor), s.batch);
  put(out, "<text x=\"0\" y=\"{}\">w</text><text x=\"{}\" y=\"{}\">t (0..{})</text>\n", px(top + 8), px(left),
      px(height - 3), s.length - 1);
  for (std::int64_t tb = 0; tb < s.t_bins; ++tb)
    for (std::int64_t wb = 0; wb < s.w_bins; ++wb) {
      const double ratio = s.ratios[static_cast<std::size_t>(tb * s.w_bins + wb)];
      if (ratio == 0) continue;
      put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{:.3g} bounds</title></rect>\n",
          px(left + cell_w * static_cast<double>(tb)), px(top + cell_h * static_cast<double>(wb)), px(cell_w),
          px(cell_h), heat_colour(heat_position(ratio, bound_factor)), ratio);
    }
  const auto x_of = [&](std::int64_t t) {
    return left + cell_w * static_cast<double>(t) * static_cast<double>(s.t_bins) / static_cast<double>(s.length);
  };
  for (std::int64_t t = s.chunk; s.chunk > 0 && t < s.length; t += s.chunk) {
    const bool group = s.group_span > 0 && t % s.group_span == 0;
    put(out, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"{4}\"/>\n", px(x_of(t)),
        px(top), px(top + cell_h * static_cast<double>(s.w_bins)), group ? "#1f2328" : "#8c959f", group ? 1.5 : 0.6);
  }
  for (std::int64_t t : s.resets)
    put(out, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\"/>\n",
        px(x_of(t) + cell_w / 2), px(top - 8), px(top - 2), fail_red);
  return out + "</svg>\n";
}

std::string failing_row(const Row& row, double bound_factor) {
  std::string out = fmt::format(
      "<div class=\"failure\"><div><code class=\"backend\">{}</code> · case {} · {} · {} · seed {} · "
      "<strong>{}</strong></div>\n<ul>",
      escape(row.backend), escape(row.case_id), escape(to_string(row.shape)), to_string(row.direction), row.seed,
      to_string(row.verdict));
  for (const std::string& reason : row_reasons(row)) put(out, "<li>{}</li>", escape(reason));
  if (!row.log.empty()) put(out, "<li>its stderr ended with:<pre>{}</pre></li>", escape(row.log));
  put(out, "</ul>\n");
  if (row.strip) out += heat_strip(*row.strip, bound_factor);
  put(out, "<code class=\"repro\">{}</code></div>\n", escape(row.repro));
  return out;
}

//! Every failing row with its reasons and repro line (the first few hundred: the rest are in report.json).
std::string failing_rows(const Report& r) {
  constexpr std::int64_t shown = 200;
  std::int64_t count = 0;
  std::string out;
  for (const Row& row : r.rows)
    if (!row.ok() && count++ < shown) out += failing_row(row, r.policy.bound_factor);
  if (count == 0) return "<p class=\"note\">No row failed.</p>\n";
  std::string head = fmt::format("<h3 id=\"failing-rows\">Failing rows ({})</h3>\n", count);
  if (count > shown) put(out, "<p class=\"note\">… and {} more failing rows in report.json.</p>\n", count - shown);
  return head + out;
}

//! The passing rows' notes (accuracy a better formulation keeps).
std::string notes_list(const Report& r) {
  std::string out;
  for (const Row& row : r.rows)
    for (const std::string& note : row.notes)
      put(out, "<li><code class=\"backend\">{}</code> {} on {}: {}</li>\n", escape(row.backend),
          to_string(row.direction), escape(row.case_id), escape(note));
  return out.empty() ? out : "<h3 id=\"notes\">Notes</h3>\n<ul class=\"notes\">\n" + out + "</ul>\n";
}

std::string verdict_section(const Report& r) {
  std::string out =
      "<section id=\"verdict-table\">\n<h2>Verdicts</h2>\n<p class=\"note\">Per backend, over all its rows: the "
      "worst tensor (largest bound ratio, else largest scaled error), the largest ulp error, bound ratio, ratio "
      "to the sequential baseline's error and scaled error, the device times when measured, and the verdict. "
      "Detects: what a pass rules out, the smallest error that fails at the typical element, in ulps of the stored "
      "dtype and relative, on any one element by the bound rule and on half of the elements by the ensemble rule "
      "(the median over the backend's tensors); loosest: the tensor where the bound rule's is largest.</p>\n";
  const std::vector<BackendSummary> summaries = summarise_backends(r);
  const bool timed = std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.timing.has_value(); });
  for (const auto& [architecture, rows] : rows_by_architecture(r))
    out += verdict_table(architecture, summaries, r.policy, timed);
  out += failing_rows(r);
  out += notes_list(r);
  out += "</section>\n";
  return out;
}

// ---- page ---------------------------------------------------------------------------------------------

constexpr std::string_view style = R"css(
h2{font-size:20px;margin:40px 0 6px;padding-bottom:4px;border-bottom:1px solid var(--rule)}
h3{font-size:15px;margin:22px 0 6px}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:12px;margin-top:16px}
.facts section.wide{grid-column:1/-1}
.facts section.wide dl{grid-template-columns:max-content 1fr max-content 1fr}
.facts section{background:var(--panel);border:1px solid var(--rule);border-radius:6px;padding:10px 14px}
.facts h3{margin:0 0 6px;font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0;font-size:13px}
dd{margin:0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.empty{font-size:17px;padding:24px;border:1px dashed var(--rule);border-radius:6px;text-align:center}
figure{margin:0;max-width:650px}
.legend .failing{color:var(--fail)}
.swatch.bar{height:10px;width:10px}
.swatch.dashed{border-top:2px dashed #111;height:0}
.swatch.dotted{border-top:2px dotted #6e7781;height:0}
svg .empty-panel{fill:#8c959f;font-size:13px}
svg .roundoff{stroke:#6e7781;stroke-width:1.2;stroke-dasharray:2 3}
svg .series polyline{fill:none;stroke-width:1.1;stroke-opacity:var(--line-opacity,.4)}
svg .series circle{stroke:none;fill-opacity:var(--line-opacity,.4)}
svg .series.baseline polyline{stroke-width:1.6;stroke-opacity:.9;stroke-dasharray:6 4}
svg .series.baseline circle{fill-opacity:.9}
svg .series.fail polyline{stroke-width:1.8;stroke-opacity:.9}
svg .series.fail circle{fill-opacity:.95}
svg .cell.unbounded{fill:#c9ced4}
svg .cell.unmeasured{fill:#fff;stroke:#d0d7de;stroke-dasharray:2 2}
svg .cell.failed{stroke:#1f2328;stroke-width:1.6}
svg .cell-value{font-size:9px;text-anchor:middle;font-variant-numeric:tabular-nums}
svg .row-name,svg .column{font:10.5px ui-monospace,"DejaVu Sans Mono",monospace;fill:#24292f}
svg .row-name.fail{fill:var(--fail);font-weight:700}
svg .legend-tick{stroke:#57606a}
.verdict-pass{color:var(--pass);font-weight:600}
.verdict-fail{color:var(--fail);font-weight:700}
.failure{border-left:4px solid var(--fail);background:#fff8f7;padding:8px 12px;margin:10px 0;border-radius:0 6px 6px 0}
.failure ul{margin:6px 0;padding-left:20px}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;background:#eff2f5;padding:1px 5px;
  border-radius:4px}
.repro{display:block;white-space:pre-wrap;overflow-wrap:anywhere;margin-top:6px}
.repro::before{content:"$ ";color:var(--muted)}
#scope li{margin:3px 0}
.profile-facts{margin:8px 0;max-width:1080px}
.profile-method{margin:4px 0 12px;padding:6px 12px;border-left:4px solid var(--rule);background:var(--panel)}
table.speed td{vertical-align:top}
table.speed th{white-space:normal;vertical-align:bottom}
table.speed td:first-child{white-space:normal;overflow-wrap:anywhere;max-width:380px}
td.categories{text-align:left;font-size:11.5px;color:var(--muted)}
)css";

std::string page_head(const Report& r) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>scancheck tolerance report{}{}</title>\n<style>{}{}</style>\n</head>\n<body>\n<main>\n",
      r.label.empty() ? "" : " — ", escape(r.label), base_style, style);
}

std::string fact(std::string_view name, std::string_view value) {
  return fmt::format("<dt>{}</dt><dd>{}</dd>", name, escape(value));
}

std::string facts_box(std::string_view title, const std::string& items, bool wide = false) {
  return fmt::format("<section{}><h3>{}</h3><dl>{}</dl></section>\n", wide ? " class=\"wide\"" : "", title, items);
}

std::string run_facts(const Report& r) {
  std::string items = fact("label", r.label.empty() ? "–" : r.label) + fact("generated", r.generated_at) +
                      fact("tool", r.tool.name + " " + r.tool.version) + fact("git revision", r.tool.git_revision) +
                      fact("schema version", std::to_string(r.schema_version));
  for (const Source& s : r.merged_from)
    items += fact("merged from", fmt::format("{} ({}, seed {})", s.generated_at, s.git_revision, s.seed));
  return facts_box("Run", items);
}

std::string environment_facts(const Environment& e) {
  return facts_box("Environment", fact("executor", e.executor) + fact("device", e.device.value_or("–")) +
                                      fact("compiler", e.compiler) + fact("CUDA", e.cuda.value_or("–")) +
                                      fact("host", e.host) + fact("reference threads", std::to_string(e.threads)));
}

std::string method_facts(const Method& m) {
  std::string items = fact("preset", m.preset) + fact("reference", m.reference_precision) + fact("bounds", m.bounds) +
                      fact("baseline", m.baseline) + fact("sampling", m.sampling) +
                      fact("seed", std::to_string(m.seed)) + fact("backends", m.backends);
  if (!m.lengths.empty()) items += fact("lengths", fmt::format("{}", fmt::join(m.lengths, ", ")));
  if (m.shard) items += fact("shard", describe_shard(m));
  return facts_box("Method", items, true);
}

std::string coverage_facts(const Coverage& c) {
  return facts_box("Coverage",
                   fact("backends", fmt::format("{} of {} checked", c.backends_checked, c.backends_total)) +
                       fact("cases", std::to_string(c.cases)) + fact("shapes", std::to_string(c.shapes)) +
                       fact("rows", std::to_string(c.rows)) +
                       fact("elements", fmt::format("{} verified of {}", c.elements_verified, c.elements_total)) +
                       fact("fraction verified", percent(c.fraction_verified)) +
                       (c.shards ? fact("shards", describe_shards(c)) : std::string()) +
                       (c.tiers ? fact("reference tiers", describe_tiers(*c.tiers)) : std::string()));
}

std::string policy_facts(const TolerancePolicy& p) {
  return facts_box("Tolerance policy",
                   fact("bound factor", num(p.bound_factor) + " × the element's error bound") +
                       fact("baseline factor", num(p.baseline_factor) + " × the sequential baseline's error") +
                       fact("baseline slack", fmt::format("max({} ulps at scale, {} × max bound)",
                                                          num(p.baseline_slack_ulps), num(p.baseline_slack_bound))) +
                       fact("ensemble", fmt::format("p50 and p90 of the error in bounds ≤ {} × any correct float32 "
                                                    "order's + {}",
                                                    num(p.ensemble_factor), num(p.ensemble_floor))));
}

//! Each foreign provider: how it was loaded and what its worker said of itself (hello runtime, provenance).
std::string provider_facts(const std::vector<ProviderEntry>& providers) {
  if (providers.empty()) return "";
  std::string items;
  for (const ProviderEntry& p : providers)
    items += fact(escape(p.name), fmt::format("{}; runtime: {}; provenance: {}", p.loaded_by,
                                              p.runtime.value_or("not said"), describe_provenance(p)));
  return facts_box("Foreign providers", items, true);
}

std::string summary_section(const Report& r) {
  std::string out = "<header id=\"summary\">\n<h1>scancheck tolerance report";
  if (!r.label.empty()) put(out, " <small>{}</small>", escape(r.label));
  const std::string summary = r.verdict.summary.empty() ? (r.verdict.pass ? "PASS" : "FAIL") : r.verdict.summary;
  put(out, "</h1>\n<div class=\"banner {}\">{}</div>\n<div class=\"facts\">\n", r.verdict.pass ? "pass" : "fail",
      escape(summary));
  out += run_facts(r) + environment_facts(r.environment) + coverage_facts(r.coverage) + policy_facts(r.policy) +
         method_facts(r.method) + provider_facts(r.providers);
  out += "</div>\n</header>\n";
  return out;
}

// measured speed: the user's profile (profile.hpp)

//! Microseconds for reading: whole ones from 100 up, three significant digits below.
std::string microseconds(double us) { return us >= 100 ? fmt::format("{:.0f}", us) : num(us); }

//! "copy 486 µs (32%)<br>gemm 181 µs (12%)<br>..." of a timing's largest categories, escaped.
std::string largest_categories_html(const ProfileTiming& t) {
  std::vector<std::string> parts;
  for (const auto& [name, c] : largest_categories(t, 3))
    parts.push_back(
        fmt::format("{} {} µs ({})", escape(name), microseconds(c.duration_us),
                    percent(t.summed_cuda_duration_us > 0 ? c.duration_us / t.summed_cuda_duration_us : 0)));
  return parts.empty() ? "–" : fmt::format("{}", fmt::join(parts, "<br>"));
}

std::string profile_facts(const ProfileJoin& p) {
  std::vector<std::string> aliases;
  for (const ProfileAlias& a : p.aliases) aliases.push_back(a.from + " → " + a.to);
  return fmt::format(
      "<dl class=\"profile-facts\">{}{}{}{}{}{}</dl>\n", fact("profile file", p.source.file),
      fact("size", fmt::format("{} bytes, {} rows", p.source.bytes, p.source.rows)), fact("SHA-256", p.source.sha256),
      fact("aliases", aliases.empty() ? "none" : fmt::format("{}", fmt::join(aliases, ", "))),
      fact("joined", fmt::format("{} of {} profile rows matched {} backward rows; {} did not", p.rows_matched,
                                 p.source.rows, p.report_rows_timed, p.unmatched.size())),
      fact("direction", "backward (the profile times the backward pass)"));
}

std::string speed_table(const Report& r) {
  const std::vector<ProfiledSpeed> speeds = profiled_speeds(r);
  if (speeds.empty()) return "<p class=\"note\">No row of this report has a profile timing.</p>\n";
  std::string out =
      "<div class=\"scroll\"><table class=\"speed\">\n<thead><tr><th class=\"name\">backend</th><th>batch × length × "
      "width</th><th>backward rows</th><th>max scaled error</th><th>error / bound</th><th class=\"name\">verdict</th>"
      "<th>summed CUDA µs</th><th>CUDA events</th><th class=\"name\">largest categories</th></tr></thead>\n<tbody>\n";
  for (const ProfiledSpeed& p : speeds)
    put(out,
        "<tr{}><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td>"
        "<td>{}</td><td>{}</td><td class=\"categories\">{}</td></tr>\n",
        p.rows_failed == 0 ? "" : " class=\"failed\"", escape(p.backend), to_string(p.shape), p.rows,
        num(p.scaled_error), num(p.bound_ratio),
        p.rows_failed == 0 ? std::string("<span class=\"verdict-pass\">pass</span>")
                           : fmt::format("<span class=\"verdict-fail\">{}</span> ({} of {} rows)", escape(p.verdict),
                                         p.rows_failed, p.rows),
        microseconds(p.timing.summed_cuda_duration_us), p.timing.cuda_events, largest_categories_html(p.timing));
  return out + "</tbody></table></div>\n";
}

std::string unmatched_profile_rows(const ProfileJoin& p) {
  std::string out;
  if (!p.unmatched.empty()) {
    put(out, "<h3 id=\"profile-unmatched\">Profile rows not joined ({})</h3>\n<ul class=\"notes\">\n",
        p.unmatched.size());
    for (const UnmatchedProfileRow& u : p.unmatched)
      put(out, "<li>row {} (<code class=\"backend\">{} {}</code> at {}): {}</li>\n", u.profile_row,
          escape(u.architecture), escape(u.backend), to_string(u.shape), escape(u.reason));
    out += "</ul>\n";
  }
  if (p.report_rows_unprofiled > 0)
    put(out, "<p class=\"note\">{} backward rows of this report at profiled shapes have no profile entry: {}.</p>\n",
        p.report_rows_unprofiled, escape(fmt::format("{}", fmt::join(p.unprofiled_backends, ", "))));
  return out;
}

//! The user's profile beside the accuracy: per backend and shape the backward rows' worst error and verdict,
//! the profile's summed CUDA time and largest categories; its method quoted and its provenance.
std::string measured_speed_section(const Report& r) {
  if (!r.profile) return "";
  const ProfileJoin& p = *r.profile;
  std::string out =
      "<section id=\"measured-speed\">\n<h2>Measured speed (your profile)</h2>\n<p class=\"note\">Durations from "
      "your profile, not measured by scancheck, beside the accuracy of the backward rows they joined to (per backend "
      "and shape: the largest scaled error and error / bound over the rows' tensors, and their verdict).</p>\n";
  out += profile_facts(p);
  put(out, "<p class=\"note\">Its method, verbatim:</p>\n<blockquote class=\"profile-method\">{}</blockquote>\n",
      escape(p.method));
  out += speed_table(r) + unmatched_profile_rows(p);
  out += "<ul class=\"notes\">\n";
  for (const std::string& note : p.notes) put(out, "<li>{}</li>\n", escape(note));
  out += "</ul>\n</section>\n";
  return out;
}

std::string scope_section(const Report& r) {
  std::string out = "<section id=\"scope\">\n<h2>Scope</h2>\n<ul>\n";
  for (const std::string& line : r.scope) put(out, "<li>{}</li>\n", escape(line));
  if (r.scope.empty()) out += "<li>The report states no scope.</li>\n";
  out += "</ul>\n</section>\n";
  return out;
}

}  // namespace

std::string render_html(const Report& r) {
  std::string out = page_head(r) + summary_section(r);
  if (r.rows.empty()) {
    out += "<p class=\"empty\">The report has no rows: nothing was checked.</p>\n";
  } else {
    const Palette palette = make_palette(r);
    out += error_against_length_section(r, palette);
    out += ulp_histogram_section(r);
    out += bound_ratio_heat_map_section(r, palette);
    out += verdict_section(r);
  }
  out += measured_speed_section(r);
  out += scope_section(r);
  put(out,
      "<footer>Written by {} {} from report.json (schema v{}); self-contained: no scripts, no external "
      "resources.</footer>\n</main>\n</body>\n</html>\n",
      escape(r.tool.name), escape(r.tool.version), r.schema_version);
  return out;
}

}  // namespace scancheck::render
