// SPDX-License-Identifier: Apache-2.0
#include "render/markdown.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <map>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "properties/policy.hpp"
#include "reports/profile.hpp"
#include "reports/summary.hpp"

namespace scancheck::render {

using namespace reports;  // the model rendered here

namespace {

std::string number(double x) { return fmt::format("{:.3g}", x); }
std::string optional_number(const std::optional<double>& x) { return x ? number(*x) : "-"; }

bool alphanumeric(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; }

//! What would open a block if `line` began a line (a list item's text does; a stderr line does): a heading,
//! a bullet, a setext underline or thematic break, an ordered list's "1. " or "1) " (a version's "0.4.0" is
//! none). The position of the character to backslash, or npos.
std::size_t block_marker(std::string_view line) {
  constexpr auto none = std::string_view::npos;
  const std::size_t first = line.find_first_not_of(' ');
  if (first == none) return none;
  if (std::string_view("#-+=").find(line[first]) != none) return first;
  std::size_t end = first;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])) != 0) ++end;
  const bool delimiter = end > first && end < line.size() && (line[end] == '.' || line[end] == ')');
  return delimiter && (end + 1 == line.size() || line[end + 1] == ' ') ? end : none;
}

//! Every text taken from the report goes through here (labels, names, worker messages and stderr lines,
//! diagnoses, scope and repro lines: foreign workers and hand-edited report.json files write them), so
//! that it reads as itself wherever it lands: a table cell, a list item, a heading, bold text.
//!   - One line: control characters (newlines too) become spaces, so table rows and list items stay whole.
//!   - & < > become entities: a renderer that allows inline HTML shows tags as text.
//!   - The characters of inline syntax get a backslash (\ ` * [ ] | ~ $, and _ except inside a word, where
//!     GFM never reads it), as does a block marker at the start: no emphasis, code span, link, table
//!     column, strikethrough, math or heading comes out of the text.
//! Never put its result in a code span: backslashes and entities are literal there.
std::string escape(std::string_view text) {
  std::string line(text);
  for (char& ch : line)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
  const std::size_t marker = block_marker(line);
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    const bool intraword = i > 0 && i + 1 < line.size() && alphanumeric(line[i - 1]) && alphanumeric(line[i + 1]);
    if (ch == '&') out += "&amp;";
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (std::string_view("\\`*[]|~$").find(ch) != std::string_view::npos || (ch == '_' && !intraword) ||
             i == marker)
      out += {'\\', ch};
    else out += ch;
  }
  return out;
}

std::string header(const Report& r) {
  std::string device = escape(r.environment.executor);
  if (r.environment.device) device += fmt::format(" ({})", escape(*r.environment.device));
  const TolerancePolicy& p = r.policy;
  std::string s =
      fmt::format("# scancheck tolerance report: {}\n\n**{}**\n\n", escape(r.label), escape(r.verdict.summary));
  s += "| | |\n|---|---|\n";
  s += fmt::format("| generated | {} by scancheck {} (git {}) |\n", escape(r.generated_at), escape(r.tool.version),
                   escape(r.tool.git_revision));
  s += fmt::format("| executor | {}; {}{}; {} reference threads on {} |\n", device, escape(r.environment.compiler),
                   r.environment.cuda ? ", CUDA " + escape(*r.environment.cuda) : "", r.environment.threads,
                   escape(r.environment.host));
  s += fmt::format(
      "| coverage | {} of {} backends, {} cases ({} shapes), {} rows; {:.4g}% of output elements verified |\n",
      r.coverage.backends_checked, r.coverage.backends_total, r.coverage.cases, r.coverage.shapes, r.coverage.rows,
      100 * r.coverage.fraction_verified);
  if (r.coverage.shards) s += fmt::format("| shards | {} |\n", describe_shards(r.coverage));
  if (r.coverage.tiers) s += fmt::format("| reference tiers | {} |\n", describe_tiers(*r.coverage.tiers));
  if (r.method.shard) s += fmt::format("| shard | {} |\n", describe_shard(r.method));
  const std::string lengths =
      r.method.lengths.empty() ? "" : fmt::format(", lengths {}", fmt::join(r.method.lengths, ", "));
  s += fmt::format("| method | preset {}, seed {}, backends {}{}; {} reference; sampling: {} |\n",
                   escape(r.method.preset), r.method.seed, escape(r.method.backends), lengths,
                   escape(r.method.reference_precision), escape(r.method.sampling));
  s += fmt::format(
      "| policy | every element within {}x its error bound; max error <= {}x the sequential baseline's "
      "+ max({} ulps at scale, {}x the largest bound); typical and tail errors (p50, p90 in bounds) <= {}x those "
      "of any correct float32 order + {} bounds; no NaN/Inf disagreement |\n\n",
      p.bound_factor, p.baseline_factor, p.baseline_slack_ulps, p.baseline_slack_bound, p.ensemble_factor,
      p.ensemble_floor);
  return s;
}

//! A worker's stderr tail under its failing row's list item: a line each, escaped (a fenced block would
//! show the entities literally) and ended by a hard line break (a trailing backslash). Blank lines are
//! left out: one would end the list item.
std::string stderr_tail(std::string_view log) {
  std::string s = "  - its stderr ended with:";
  while (!log.empty()) {
    const std::size_t end = std::min(log.find_first_of("\r\n"), log.size());
    if (log.substr(0, end).find_first_not_of(" \t") != std::string_view::npos)
      s += fmt::format("\\\n    {}", escape(log.substr(0, end)));
    log.remove_prefix(std::min(end + 1, log.size()));
  }
  return s + "\n";
}

//! The passing rows' notes: accuracy a better formulation keeps (never a failure without --strict).
std::string notes(const Report& r) {
  std::string s;
  for (const Row& row : r.rows) {
    if (row.notes.empty()) continue;
    if (s.empty()) s = "## Notes\n\n";
    s += fmt::format("- **{}** {} on {}:\n", escape(row.backend), to_string(row.direction), escape(row.case_id));
    for (const std::string& note : row.notes) s += fmt::format("  - {}\n", escape(note));
  }
  return s.empty() ? s : s + "\n";
}

std::string failures(const Report& r) {
  std::string s;
  for (const Row& row : r.rows) {
    if (row.ok()) continue;
    if (s.empty()) s = "## Failures\n\n";
    s += fmt::format("- **{}** {} on {} ({}): **{}**\n", escape(row.backend), to_string(row.direction),
                     escape(row.case_id), escape(to_string(row.shape)), to_string(row.verdict));
    if (!row.error.empty()) s += fmt::format("  - run failed: {}\n", escape(row.error));
    if (!row.log.empty()) s += stderr_tail(row.log);
    for (const std::string& name : row.missing) s += fmt::format("  - missing output {}\n", escape(name));
    for (const std::string& what : row.misshapen) s += fmt::format("  - output of the wrong shape: {}\n", escape(what));
    for (const std::string& where : row.diagnosis) s += fmt::format("  - where: {}\n", escape(where));
    for (const TensorEntry& t : row.tensors)
      for (const std::string& why : t.reasons) s += fmt::format("  - {}\n", escape(why));
    s += fmt::format("  - repro: {}\n", escape(row.repro));
  }
  return s.empty() ? s : s + "\n";
}

//! The foreign providers: how each was loaded and what its worker said of itself, so that every verdict on
//! their backends names the code and the runtime it is about.
std::string providers(const Report& r) {
  if (r.providers.empty()) return "";
  std::string s = "## Foreign providers\n\n| provider | loaded by | runtime | provenance |\n|---|---|---|---|\n";
  for (const ProviderEntry& p : r.providers)
    s += fmt::format("| {} | {} | {} | {} |\n", escape(p.name), escape(p.loaded_by),
                     p.runtime ? escape(*p.runtime) : "not said", escape(describe_provenance(p)));
  return s + "\n";
}

//! "37 ulp (4.4e-06)": a detection level at the typical element, in ulps and relative.
std::string level_text(const std::optional<DetectionLevel>& l) {
  return l ? fmt::format("{} ulp ({})", number(l->ulps), number(l->relative)) : "-";
}

//! The detection columns of a backend's line: both rules' levels at the median tensor, and the loosest tensor.
std::string detection_cells(const BackendSummary& b) {
  if (!b.detection) return "- | - | -";
  std::string loosest = "-";
  if (const auto& l = b.loosest)
    loosest = fmt::format("{} / {} ulp: {} {} on {}", number(l->threshold.certainty.ulps),
                          l->threshold.distribution ? number(l->threshold.distribution->ulps) : "-", escape(l->tensor),
                          to_string(l->direction), escape(l->case_id));
  return fmt::format("{} | {} | {}", level_text(b.detection->certainty), level_text(b.detection->distribution),
                     loosest);
}

std::string architecture_table(const std::vector<BackendSummary>& backends, Architecture arch, bool timed) {
  std::vector<const BackendSummary*> members;
  for (const BackendSummary& b : backends)
    if (b.architecture == arch) members.push_back(&b);
  if (members.empty()) return "";
  const auto failed = std::count_if(members.begin(), members.end(), [](const BackendSummary* b) { return !b->ok(); });
  std::string s = fmt::format("## {}\n\n", to_string(arch));
  const bool fold = members.size() > 24;
  if (fold)
    s += fmt::format("<details{}><summary>{} backends, {} failed</summary>\n\n", failed > 0 ? " open" : "",
                     members.size(), failed);
  s += "| backend | worst tensor | error / bound | baseline ratio | ULP p99 | max ULP |";
  s += timed ? " fwd ms | bwd ms |" : "";
  s += " rows | verdict | detects: bound rule | detects: ensemble rule | loosest |\n|---|---|---:|---:|---:|---:|";
  s += timed ? "---:|---:|" : "";
  s += "---:|---|---:|---:|---|\n";
  for (const BackendSummary* b : members) {
    s += fmt::format("| {} | {} | {} | {} | {} | {} |", escape(b->backend), escape(b->worst_tensor),
                     optional_number(b->bound_ratio), optional_number(b->baseline_ratio), optional_number(b->ulp_p99),
                     optional_number(b->ulp_max));
    if (timed) s += fmt::format(" {} | {} |", optional_number(b->forward_ms), optional_number(b->backward_ms));
    s += fmt::format(" {} | {} | {} |\n", b->rows, b->ok() ? "pass" : fmt::format("**FAIL** ({})", b->rows_failed),
                     detection_cells(*b));
  }
  return s + (fold ? "\n</details>\n\n" : "\n");
}

// ---- Measured speed (your profile) ----------------------------------------------------------------------

//! Microseconds for reading: whole ones from 100 up, three significant digits below.
std::string microseconds(double us) { return us >= 100 ? fmt::format("{:.0f}", us) : number(us); }

//! "copy 486 µs (32%), gemm 181 µs (12%), ..." of a timing's largest categories.
std::string largest_categories_text(const ProfileTiming& t) {
  std::vector<std::string> parts;
  for (const auto& [name, c] : largest_categories(t, 3))
    parts.push_back(fmt::format("{} {} µs ({:.0f}%)", escape(name), microseconds(c.duration_us),
                                t.summed_cuda_duration_us > 0 ? 100 * c.duration_us / t.summed_cuda_duration_us : 0.0));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string profile_provenance(const ProfileJoin& p) {
  std::vector<std::string> aliases;
  for (const ProfileAlias& a : p.aliases) aliases.push_back(escape(a.from) + " → " + escape(a.to));
  return fmt::format(
      "From the profile {} ({} bytes, SHA-256 {}, {} rows){}. {} of its rows matched {} backward "
      "rows of this report; {} did not.\n\n",
      escape(p.source.file), p.source.bytes, escape(p.source.sha256), p.source.rows,
      aliases.empty() ? "" : fmt::format(", read with the aliases {}", fmt::join(aliases, ", ")), p.rows_matched,
      p.report_rows_timed, p.unmatched.size());
}

std::string speed_table(const Report& r) {
  const std::vector<ProfiledSpeed> speeds = profiled_speeds(r);
  if (speeds.empty()) return "No row of this report has a profile timing.\n\n";
  const bool fold = speeds.size() > 24;
  std::string s = fold ? fmt::format("<details><summary>{} backends x shapes</summary>\n\n", speeds.size()) : "";
  s += "| backend | batch × length × width | backward rows | max scaled error | error / bound | verdict | "
       "summed CUDA µs | CUDA events | largest categories |\n|---|---|---:|---:|---:|---|---:|---:|---|\n";
  for (const ProfiledSpeed& p : speeds)
    s += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", escape(p.backend), to_string(p.shape), p.rows,
        optional_number(p.scaled_error), optional_number(p.bound_ratio),
        p.rows_failed == 0 ? "pass" : fmt::format("**{}** ({} of {} rows)", p.verdict, p.rows_failed, p.rows),
        microseconds(p.timing.summed_cuda_duration_us), p.timing.cuda_events, largest_categories_text(p.timing));
  return s + (fold ? "\n</details>\n\n" : "\n");
}

std::string unmatched_profile_rows(const ProfileJoin& p) {
  std::string s;
  if (!p.unmatched.empty()) s += "Profile rows not joined:\n\n";
  for (const UnmatchedProfileRow& u : p.unmatched)
    s += fmt::format("- profile row {} ({} {} at {}): {}\n", u.profile_row, escape(u.architecture), escape(u.backend),
                     to_string(u.shape), escape(u.reason));
  if (!p.unmatched.empty()) s += "\n";
  if (p.report_rows_unprofiled > 0) {
    std::vector<std::string> backends;
    for (const std::string& b : p.unprofiled_backends) backends.push_back(escape(b));
    s += fmt::format("{} backward rows of this report at profiled shapes have no profile entry: {}.\n\n",
                     p.report_rows_unprofiled, fmt::join(backends, ", "));
  }
  return s;
}

//! The user's profile beside the accuracy (profile.hpp): per backend and shape the backward rows' worst
//! error and verdict, the profile's summed CUDA time and its largest categories; the method quoted.
std::string measured_speed(const Report& r) {
  if (!r.profile) return "";
  const ProfileJoin& p = *r.profile;
  std::string s = "## Measured speed (your profile)\n\n" + profile_provenance(p);
  s += "Its method, verbatim:\n\n> " + escape(p.method) + "\n\n";
  s += speed_table(r) + unmatched_profile_rows(p);
  for (const std::string& note : p.notes) s += "- " + escape(note) + "\n";
  return s + "\n";
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::string s = header(r) + failures(r) + notes(r) + providers(r);
  const std::vector<BackendSummary> backends = summarise_backends(r);
  const bool timed = std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.timing.has_value(); });
  for (Architecture arch : all_architectures) s += architecture_table(backends, arch, timed);
  s += "Error / bound: the largest |error| in units of the element's own bound, " + std::string(bound_description) +
       " (the policy allows up to " + number(r.policy.bound_factor) +
       "): what to read first. Baseline ratio: largest |error| / the sequential "
       "baseline's. ULP p99 and max ULP: distance from the correctly rounded exact value in the stored dtype; the "
       "max is large for correct backends wherever an exact value cancels to near zero. Detects: what a PASS rules "
       "out, the smallest error that fails at the typical element (in ulps of the stored dtype, and relative), on "
       "any one element by the bound rule (" +
       number(r.policy.bound_factor) +
       " bounds) and on half of the elements by the ensemble rule; the median over the backend's tensors. Loosest: "
       "the tensor where the bound rule's is largest (bound rule / ensemble rule), and its case.\n\n";
  s += measured_speed(r);
  s += "### Scope\n\n";
  for (const std::string& line : r.scope) s += "- " + escape(line) + "\n";
  return s;
}

}  // namespace scancheck::render
