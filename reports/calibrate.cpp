// SPDX-License-Identifier: Apache-2.0
#include "reports/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace scancheck::reports {
namespace {

using nlohmann::json;

struct BackendRows {
  std::string backend;
  std::vector<const Row*> rows;
};

//! Rows grouped by backend, backends in order of first appearance.
std::vector<BackendRows> rows_by_backend(const Report& r) {
  std::vector<BackendRows> groups;
  for (const Row& row : r.rows) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const BackendRows& g) { return g.backend == row.backend; });
    if (it == groups.end()) it = groups.insert(groups.end(), BackendRows{row.backend, {}});
    it->rows.push_back(&row);
  }
  return groups;
}

std::string failing_reason(const BackendRows& g) {
  const auto failing = std::count_if(g.rows.begin(), g.rows.end(), [](const Row* r) { return !r->ok(); });
  const auto first = std::find_if(g.rows.begin(), g.rows.end(), [](const Row* r) { return !r->ok(); });
  return fmt::format("{} of {} rows fail the tolerance policy, e.g. {}", failing, g.rows.size(), (*first)->repro);
}

//! Folds one passing row's tensor into the evidence; a tensor with nothing compared, or non-finite metrics
//! (a passing row has none), says nothing about a tolerance.
void observe(ToleranceEvidence& e, const TensorMetrics& m, const std::string& repro) {
  if (m.compared == 0 || !std::isfinite(m.max_abs) || !std::isfinite(m.max_exact)) return;
  const double scaled = scaled_error(m);
  ++e.cases;
  if (e.cases == 1 || m.max_abs > e.max_abs) {
    e.max_abs = m.max_abs;
    e.max_abs_repro = repro;
  }
  if (e.cases == 1 || scaled > e.max_scaled_error) {
    e.max_scaled_error = scaled;
    e.scaled_error_repro = repro;
  }
  e.max_exact = std::max(e.max_exact, m.max_exact);
}

std::vector<Tolerance> calibrate_backend(const BackendRows& g, double margin) {
  std::vector<Tolerance> out;
  for (const Row* row : g.rows)
    for (const TensorEntry& t : row->tensors) {
      auto it = std::find_if(out.begin(), out.end(), [&](const Tolerance& x) { return x.tensor == t.metrics.name; });
      if (it == out.end()) it = out.insert(out.end(), Tolerance{g.backend, row->io_dtype, t.metrics.name, 0, 0, {}});
      observe(it->evidence, t.metrics, row->repro);
    }
  std::erase_if(out, [](const Tolerance& t) { return t.evidence.cases == 0; });
  for (Tolerance& t : out) {
    t.atol = margin * t.evidence.max_abs;
    t.rtol = margin * t.evidence.max_scaled_error;
  }
  return out;
}

std::string rule_note(double margin) {
  return fmt::format(
      "atol = {0} x the largest max |got - exact| and rtol = {0} x the largest max |got - exact| / max |exact| over "
      "the report's passing cases, per backend x io dtype x tensor: |got - ref| <= atol + rtol * |ref| held on "
      "every observed element with a factor {0} to spare, and rtol carries it to tensors of a larger scale. They "
      "hold for the report's shapes, lengths and regimes only (a scan's error grows with its length); backends "
      "with failing rows are not calibrated.",
      margin);
}

//! `x` with 4 significant digits, rounded up: a printed tolerance is never tighter than the rule's.
std::string ceil_3e(double x) {
  const std::string nearest = fmt::format("{:.3e}", x);
  if (std::stod(nearest) >= x) return nearest;
  return fmt::format("{:.3e}", std::stod(nearest) + std::pow(10.0, std::floor(std::log10(x)) - 3));
}

std::string python_string(const std::string& text) { return json(text).dump(); }

//! Text safe inside a """ docstring.
std::string docstring_text(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

Calibration calibrate(const Report& r, double margin) {
  if (!std::isfinite(margin) || margin < 1)
    throw InputError(
        fmt::format("margin {} must be at least 1: below it the tolerances would not hold on the "
                    "report's own cases",
                    margin));
  Calibration c{r.label, r.tool.git_revision, r.generated_at, margin, {}, {}};
  for (const BackendRows& g : rows_by_backend(r)) {
    if (std::any_of(g.rows.begin(), g.rows.end(), [](const Row* row) { return !row->ok(); })) {
      c.not_calibrated.push_back({g.backend, failing_reason(g)});
      continue;
    }
    for (Tolerance& t : calibrate_backend(g, margin)) c.tolerances.push_back(std::move(t));
  }
  return c;
}

json to_json(const Calibration& c) {
  json tolerances = json::array(), skipped = json::array();
  for (const Tolerance& t : c.tolerances) {
    const ToleranceEvidence& e = t.evidence;
    tolerances.push_back({{"backend", t.backend},
                          {"io_dtype", to_string(t.io_dtype)},
                          {"tensor", t.tensor},
                          {"rtol", t.rtol},
                          {"atol", t.atol},
                          {"evidence",
                           {{"cases", e.cases},
                            {"max_abs", e.max_abs},
                            {"max_scaled_error", e.max_scaled_error},
                            {"max_exact", e.max_exact},
                            {"max_abs_repro", e.max_abs_repro},
                            {"scaled_error_repro", e.scaled_error_repro}}}});
  }
  for (const UncalibratedBackend& u : c.not_calibrated)
    skipped.push_back({{"backend", u.backend}, {"reason", u.reason}});
  return {{"label", c.label},
          {"git_revision", c.git_revision},
          {"report_generated_at", c.generated_at},
          {"margin", c.margin},
          {"note", rule_note(c.margin)},
          {"tolerances", std::move(tolerances)},
          {"not_calibrated", std::move(skipped)}};
}

std::string to_pytest(const Calibration& c) {
  std::string out = fmt::format(
      "\"\"\"Tolerances for torch.testing.assert_close, calibrated by scancheck.\n\n"
      "Report: label '{}', git revision {}, generated {}.\n\n{}\n",
      docstring_text(c.label), docstring_text(c.git_revision), docstring_text(c.generated_at),
      docstring_text(rule_note(c.margin)));
  if (!c.not_calibrated.empty()) out += "\nNot calibrated:\n";
  for (const UncalibratedBackend& u : c.not_calibrated)
    out += fmt::format("  {}: {}\n", docstring_text(u.backend), docstring_text(u.reason));
  out +=
      "\"\"\"\n\n# (backend, tensor): rtol and atol as the docstring says; the comment gives the evidence.\n"
      "TOLERANCES = {\n";
  for (const Tolerance& t : c.tolerances)
    out += fmt::format("    ({}, {}): {{\"rtol\": {}, \"atol\": {}}},  # {} cases, max |exact| {:.3e}\n",
                       python_string(t.backend), python_string(t.tensor), ceil_3e(t.rtol), ceil_3e(t.atol),
                       t.evidence.cases, t.evidence.max_exact);
  out +=
      "}\n\n\n"
      "def tolerance(backend, tensor):\n"
      "    \"\"\"Keyword arguments for torch.testing.assert_close(got, ref, **tolerance(backend, tensor)).\"\"\"\n"
      "    return dict(TOLERANCES[(backend, tensor)])\n";
  return out;
}

}  // namespace scancheck::reports
