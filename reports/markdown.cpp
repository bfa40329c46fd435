// SPDX-License-Identifier: Apache-2.0
#include "reports/markdown.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/summary.hpp"

namespace scancheck::reports {
namespace {

std::string number(double x) { return fmt::format("{:.3g}", x); }
std::string optional_number(const std::optional<double>& x) { return x ? number(*x) : "-"; }

//! Markdown table cells must not contain a bare '|'.
std::string cell(std::string text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string header(const Report& r) {
  std::string device = r.environment.executor;
  if (r.environment.device) device += fmt::format(" ({})", *r.environment.device);
  const TolerancePolicy& p = r.policy;
  std::string s = fmt::format("# scancheck tolerance report: {}\n\n**{}**\n\n", r.label, r.verdict.summary);
  s += "| | |\n|---|---|\n";
  s += fmt::format("| generated | {} by scancheck {} (git {}) |\n", r.generated_at, r.tool.version, r.tool.git_revision);
  s += fmt::format("| executor | {}; {}{}; {} reference threads on {} |\n", device, r.environment.compiler,
                   r.environment.cuda ? ", CUDA " + *r.environment.cuda : "", r.environment.threads, r.environment.host);
  s += fmt::format("| coverage | {} of {} backends, {} cases ({} shapes), {} rows; {:.4g}% of output elements verified |\n",
                   r.coverage.backends_checked, r.coverage.backends_total, r.coverage.cases, r.coverage.shapes,
                   r.coverage.rows, 100 * r.coverage.fraction_verified);
  const std::string lengths =
      r.method.lengths.empty() ? "" : fmt::format(", lengths {}", fmt::join(r.method.lengths, ", "));
  s += fmt::format("| method | preset {}, seed {}, backends `{}`{}; {} reference; sampling: {} |\n", r.method.preset,
                   r.method.seed, r.method.backends, lengths, r.method.reference_precision, r.method.sampling);
  s += fmt::format("| policy | every element within {}x its error bound; max error <= {}x the sequential baseline's "
                   "+ max({} ulps at scale, {}x the largest bound); no NaN/Inf disagreement |\n\n",
                   p.bound_factor, p.baseline_factor, p.baseline_slack_ulps, p.baseline_slack_bound);
  return s;
}

//! `text` with every line prefixed by `prefix`.
std::string indented(const std::string& text, const std::string& prefix) {
  std::string out = prefix;
  for (char ch : text) out += ch == '\n' ? "\n" + prefix : std::string(1, ch);
  return out;
}

//! The passing rows' notes: accuracy a better formulation keeps (never a failure without --strict).
std::string notes(const Report& r) {
  std::string s;
  for (const Row& row : r.rows) {
    if (row.notes.empty()) continue;
    if (s.empty()) s = "## Notes\n\n";
    s += fmt::format("- **{}** {} on {}:\n", row.backend, to_string(row.direction), row.case_id);
    for (const std::string& note : row.notes) s += fmt::format("  - {}\n", note);
  }
  return s.empty() ? s : s + "\n";
}

std::string failures(const Report& r) {
  std::string s;
  for (const Row& row : r.rows) {
    if (row.ok()) continue;
    if (s.empty()) s = "## Failures\n\n";
    s += fmt::format("- **{}** {} on {} (`{}`): **{}**\n", row.backend, to_string(row.direction), row.case_id,
                     to_string(row.shape), to_string(row.verdict));
    if (!row.error.empty()) s += fmt::format("  - run failed: {}\n", row.error);
    if (!row.log.empty()) s += fmt::format("  - its stderr ended with:\n\n    ```\n{}\n    ```\n", indented(row.log, "    "));
    for (const std::string& name : row.missing) s += fmt::format("  - missing output {}\n", name);
    for (const std::string& what : row.misshapen) s += fmt::format("  - output of the wrong shape: {}\n", what);
    for (const std::string& where : row.diagnosis) s += fmt::format("  - where: {}\n", where);
    for (const TensorEntry& t : row.tensors)
      for (const std::string& why : t.reasons) s += fmt::format("  - {}\n", why);
    s += fmt::format("  - repro: `{}`\n", row.repro);
  }
  return s.empty() ? s : s + "\n";
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
  s += " rows | verdict |\n|---|---|---:|---:|---:|---:|";
  s += timed ? "---:|---:|" : "";
  s += "---:|---|\n";
  for (const BackendSummary* b : members) {
    s += fmt::format("| `{}` | {} | {} | {} | {} | {} |", cell(b->backend), b->worst_tensor,
                     optional_number(b->bound_ratio), optional_number(b->baseline_ratio), optional_number(b->ulp_p99),
                     optional_number(b->ulp_max));
    if (timed) s += fmt::format(" {} | {} |", optional_number(b->forward_ms), optional_number(b->backward_ms));
    s += fmt::format(" {} | {} |\n", b->rows, b->ok() ? "pass" : fmt::format("**FAIL** ({})", b->rows_failed));
  }
  return s + (fold ? "\n</details>\n\n" : "\n");
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::string s = header(r) + failures(r) + notes(r);
  const std::vector<BackendSummary> backends = summarise_backends(r);
  const bool timed = std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.timing.has_value(); });
  for (Architecture arch : all_architectures)
    s += architecture_table(backends, arch, timed);
  s += "Error / bound: the largest |error| in units of the element's own first-order bound (the policy allows up to "
       + number(r.policy.bound_factor) + "): what to read first. Baseline ratio: largest |error| / the sequential "
       "baseline's. ULP p99 and max ULP: distance from the correctly rounded exact value in the stored dtype; the "
       "max is large for correct backends wherever an exact value cancels to near zero.\n\n";
  s += "### Scope\n\n";
  for (const std::string& line : r.scope) s += "- " + line + "\n";
  return s;
}

}  // namespace scancheck::reports
