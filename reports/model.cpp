// SPDX-License-Identifier: Apache-2.0
#include "reports/model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/case_dir.hpp"
#include "core/case_request.hpp"
#include "core/json_reader.hpp"
#include "core/error.hpp"

namespace scancheck::reports {

using nlohmann::json;

const CaseEntry& Report::case_of(const Row& row) const {
  for (const CaseEntry& c : cases)
    if (c.id == row.case_id) return c;
  throw InputError(fmt::format("row of {} refers to unknown case '{}'", row.backend, row.case_id));
}

double scaled_error(const TensorMetrics& m) { return m.max_exact > 0 ? m.max_abs / m.max_exact : m.max_abs; }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void summarise(Report& r) {
  std::set<std::string> backends, shapes;
  std::map<std::string, bool> backend_ok;
  std::vector<std::string> order;
  for (const Row& row : r.rows) {
    if (backends.insert(row.backend).second) order.push_back(row.backend);
    backend_ok.try_emplace(row.backend, true).first->second &= row.ok;
  }
  r.coverage.backends_checked = static_cast<std::int64_t>(backends.size());
  r.coverage.cases = static_cast<std::int64_t>(r.cases.size());
  r.coverage.rows = static_cast<std::int64_t>(r.rows.size());
  r.coverage.elements_total = r.coverage.elements_verified = 0;
  for (const CaseEntry& c : r.cases) {
    shapes.insert(to_string(c.request.shape));
    r.coverage.elements_total += c.elements_total;
    r.coverage.elements_verified += c.elements_verified;
  }
  r.coverage.shapes = static_cast<std::int64_t>(shapes.size());
  r.coverage.fraction_verified = r.coverage.elements_total > 0 ? static_cast<double>(r.coverage.elements_verified) /
                                                                    static_cast<double>(r.coverage.elements_total)
                                                              : 1;
  r.verdict = {};
  for (const Row& row : r.rows) r.verdict.rows_failed += row.ok ? 0 : 1;
  for (const std::string& b : order)
    if (!backend_ok[b]) r.verdict.backends_failed.push_back(b);
  r.verdict.pass = r.verdict.rows_failed == 0 && !r.rows.empty();
  if (r.rows.empty())
    r.verdict.summary = "FAIL: nothing was checked";
  else if (r.verdict.pass)
    r.verdict.summary = fmt::format("PASS: {} backends x {} cases, {} rows, every row within the tolerance policy",
                                    r.coverage.backends_checked, r.coverage.cases, r.coverage.rows);
  else
    r.verdict.summary = fmt::format("FAIL: {} of {} backends failed ({} of {} rows)", r.verdict.backends_failed.size(),
                                    r.coverage.backends_checked, r.verdict.rows_failed, r.coverage.rows);
}

std::vector<std::string> default_scope(const Method& m) {
  return {
      fmt::format("Errors are measured against a {} reference, exact to far below float32 rounding; "
                  "bound ratios divide by {}.",
                  m.reference_precision, m.bounds),
      "A pass means every compared element and tensor satisfied the tolerance policy on these cases only: "
      "other shapes, seeds and regimes are not covered, and a pass is no proof of correctness.",
      fmt::format("Sampling: {}. Elements a sampled reference did not compute are not compared.", m.sampling),
      "Elements whose error bound is infinite (float32 cannot be trusted there) are counted as unbounded and "
      "not judged.",
      "ULP errors are distances from the correctly rounded exact value in ulps of the stored dtype; "
      "histogram bucket 0 is exact, bucket k >= 1 holds (2^(k-2), 2^(k-1)] ulps, bucket 1 is (0, 1].",
      "Device timings, where present, are CUDA-event times of warmed runs on device-resident data; host runs "
      "carry no timings.",
  };
}

// ---- JSON ---------------------------------------------------------------------------------------------
namespace {

json number(double x) { return json_number(x); }
json optional_number(const std::optional<double>& x) { return json_number(x); }

json shape_json(const Shape& s) { return json::array({s.batch, s.length, s.width, s.heads}); }

json metrics_json(const TensorEntry& t) {
  const TensorMetrics& m = t.metrics;
  return {{"name", m.name},
          {"dtype", to_string(m.dtype)},
          {"compared", m.compared},
          {"max_abs", number(m.max_abs)},
          {"max_rel", number(m.max_rel)},
          {"max_exact", number(m.max_exact)},
          {"ulp", {{"p50", number(m.ulp_p50)}, {"p90", number(m.ulp_p90)}, {"p99", number(m.ulp_p99)},
                   {"max", number(m.ulp_max)}, {"histogram", m.ulp_histogram}}},
          {"bound_ratio", optional_number(m.bound_ratio)},
          {"max_bound", number(m.max_bound)},
          {"unbounded", m.unbounded},
          {"baseline_abs", optional_number(m.baseline_abs)},
          {"baseline_ratio", optional_number(m.baseline_ratio)},
          {"nonfinite_mismatches", m.nonfinite_mismatches},
          {"worst", {{"index", m.worst.index}, {"at", m.worst.at}, {"got", number(m.worst.got)},
                     {"exact", number(m.worst.exact)}, {"bound", number(m.worst.bound)},
                     {"ulp", number(m.worst.ulp)}}},
          {"verdict", t.pass ? "pass" : "fail"},
          {"reasons", t.reasons}};
}

json row_json(const Row& r) {
  json tensors = json::array();
  for (const TensorEntry& t : r.tensors) tensors.push_back(metrics_json(t));
  json j = {{"case", r.case_id},
            {"shape", shape_json(r.shape)},
            {"architecture", to_string(r.architecture)},
            {"backend", r.backend},
            {"io_dtype", to_string(r.io_dtype)},
            {"pass", to_string(r.direction)},
            {"verdict", r.ok ? "pass" : "fail"},
            {"error", r.error.empty() ? json(nullptr) : json(r.error)},
            {"missing", r.missing},
            {"tensors", std::move(tensors)},
            {"seed", r.seed},
            {"repro", r.repro},
            {"timing", nullptr}};
  if (r.timing)
    j["timing"] = {{"median_ms", number(r.timing->median_ms)}, {"min_ms", number(r.timing->min_ms)},
                   {"max_ms", number(r.timing->max_ms)}, {"repeats", r.timing->repeats}};
  return j;
}

// Strict reading (core/json_reader.hpp) of the report's own structures.
struct Reader : JsonReader {
  using JsonReader::JsonReader;

  bool verdict(const json& j, const std::string& path) const {
    const std::string v = text(j, path, "verdict");
    if (v != "pass" && v != "fail") fail(path + ".verdict", "expected \"pass\" or \"fail\"");
    return v == "pass";
  }

  TensorEntry tensor(const json& j, const std::string& path) const {
    TensorEntry t;
    TensorMetrics& m = t.metrics;
    m.name = text(j, path, "name");
    m.dtype = named(j, path, "dtype", parse_dtype);
    m.compared = integer(j, path, "compared");
    m.max_abs = real(j, path, "max_abs");
    m.max_rel = real(j, path, "max_rel");
    m.max_exact = real(j, path, "max_exact");
    const json& ulp = field(j, path, "ulp");
    const std::string ulp_path = path + ".ulp";
    m.ulp_p50 = real(ulp, ulp_path, "p50");
    m.ulp_p90 = real(ulp, ulp_path, "p90");
    m.ulp_p99 = real(ulp, ulp_path, "p99");
    m.ulp_max = real(ulp, ulp_path, "max");
    const json& histogram = array(ulp, ulp_path, "histogram");
    if (histogram.size() != static_cast<std::size_t>(ulp_buckets) ||
        !std::all_of(histogram.begin(), histogram.end(), [](const json& x) { return x.is_number_integer() && x.get<std::int64_t>() >= 0; }))
      fail(ulp_path + ".histogram", fmt::format("expected {} non-negative counts", ulp_buckets));
    m.ulp_histogram = histogram.get<std::vector<std::int64_t>>();
    m.bound_ratio = optional_real(j, path, "bound_ratio");
    m.max_bound = real(j, path, "max_bound");
    m.unbounded = integer(j, path, "unbounded");
    m.baseline_abs = optional_real(j, path, "baseline_abs");
    m.baseline_ratio = optional_real(j, path, "baseline_ratio");
    m.nonfinite_mismatches = integer(j, path, "nonfinite_mismatches");
    const json& worst = field(j, path, "worst");
    const std::string worst_path = path + ".worst";
    m.worst = {integer(worst, worst_path, "index"), text(worst, worst_path, "at"), real(worst, worst_path, "got"),
               real(worst, worst_path, "exact"), real(worst, worst_path, "bound"), real(worst, worst_path, "ulp")};
    t.pass = verdict(j, path);
    t.reasons = strings(j, path, "reasons");
    return t;
  }

  Row row(const json& j, const std::string& path) const {
    Row r;
    r.case_id = text(j, path, "case");
    r.shape = shape(j, path);
    r.architecture = named(j, path, "architecture", parse_architecture);
    r.backend = text(j, path, "backend");
    r.io_dtype = named(j, path, "io_dtype", parse_dtype);
    r.direction = named(j, path, "pass", parse_direction);
    r.ok = verdict(j, path);
    r.error = optional_text(j, path, "error").value_or("");
    r.missing = strings(j, path, "missing");
    const json& tensors = array(j, path, "tensors");
    for (std::size_t i = 0; i < tensors.size(); ++i)
      r.tensors.push_back(tensor(tensors[i], fmt::format("{}.tensors[{}]", path, i)));
    r.seed = unsigned_integer(j, path, "seed");
    r.repro = text(j, path, "repro");
    const json& timing = field(j, path, "timing");
    if (!timing.is_null()) {
      const std::string t = path + ".timing";
      r.timing = Timing{real(timing, t, "median_ms"), real(timing, t, "min_ms"), real(timing, t, "max_ms"),
                        static_cast<int>(integer(timing, t, "repeats"))};
    }
    return r;
  }
};

}  // namespace

json to_json(const Report& r) {
  json cases = json::array(), rows = json::array(), sources = json::array();
  for (const CaseEntry& c : r.cases)
    cases.push_back({{"id", c.id},
                     {"request", to_json(c.request)},
                     {"elements_total", c.elements_total},
                     {"elements_verified", c.elements_verified},
                     {"fraction_verified", number(c.fraction_verified)},
                     {"repro", c.repro}});
  for (const Row& row : r.rows) rows.push_back(row_json(row));
  for (const Source& s : r.merged_from)
    sources.push_back({{"generated_at", s.generated_at}, {"git_revision", s.git_revision}, {"seed", s.seed}});
  const auto optional_string = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
  return {
      {"schema_version", r.schema_version},
      {"label", r.label},
      {"generated_at", r.generated_at},
      {"tool", {{"name", r.tool.name}, {"version", r.tool.version}, {"git_revision", r.tool.git_revision}}},
      {"environment",
       {{"executor", r.environment.executor},
        {"device", optional_string(r.environment.device)},
        {"compiler", r.environment.compiler},
        {"cuda", optional_string(r.environment.cuda)},
        {"host", r.environment.host},
        {"threads", r.environment.threads}}},
      {"method",
       {{"preset", r.method.preset},
        {"reference_precision", r.method.reference_precision},
        {"bounds", r.method.bounds},
        {"baseline", r.method.baseline},
        {"sampling", r.method.sampling},
        {"seed", r.method.seed},
        {"backends", r.method.backends},
        {"lengths", r.method.lengths}}},
      {"policy", r.policy.to_json()},
      {"coverage",
       {{"backends_total", r.coverage.backends_total},
        {"backends_checked", r.coverage.backends_checked},
        {"cases", r.coverage.cases},
        {"shapes", r.coverage.shapes},
        {"rows", r.coverage.rows},
        {"elements_total", r.coverage.elements_total},
        {"elements_verified", r.coverage.elements_verified},
        {"fraction_verified", number(r.coverage.fraction_verified)}}},
      {"cases", std::move(cases)},
      {"rows", std::move(rows)},
      {"verdict",
       {{"pass", r.verdict.pass},
        {"rows_failed", r.verdict.rows_failed},
        {"backends_failed", r.verdict.backends_failed},
        {"summary", r.verdict.summary}}},
      {"scope", r.scope},
      {"merged_from", std::move(sources)},
  };
}

Report from_json(const json& j, const std::string& source) {
  const Reader in(source);
  if (!j.is_object() || !j.contains("schema_version"))
    throw InputError(fmt::format("{}: not a scancheck report (no schema_version)", source));
  const json& version = j.at("schema_version");
  if (!version.is_number_integer())
    throw InputError(fmt::format("{}: not a scancheck report (schema_version is not an integer)", source));
  if (version.get<int>() != schema_version)
    throw InputError(fmt::format("{}: schema_version {} is not supported (this scancheck reads version {})", source,
                                 version.get<int>(), schema_version));
  Report r;
  r.label = in.text(j, "$", "label");
  r.generated_at = in.text(j, "$", "generated_at");
  const json& tool = in.field(j, "$", "tool");
  r.tool = {in.text(tool, "tool", "name"), in.text(tool, "tool", "version"), in.text(tool, "tool", "git_revision")};
  if (r.tool.name != "scancheck") in.fail("tool.name", fmt::format("written by '{}', not scancheck", r.tool.name));
  const json& env = in.field(j, "$", "environment");
  r.environment = {in.text(env, "environment", "executor"),     in.optional_text(env, "environment", "device"),
                   in.text(env, "environment", "compiler"),     in.optional_text(env, "environment", "cuda"),
                   in.text(env, "environment", "host"),
                   static_cast<int>(in.integer(env, "environment", "threads"))};
  const json& method = in.field(j, "$", "method");
  r.method = {in.text(method, "method", "preset"),   in.text(method, "method", "reference_precision"),
              in.text(method, "method", "bounds"),   in.text(method, "method", "baseline"),
              in.text(method, "method", "sampling"), in.unsigned_integer(method, "method", "seed"),
              in.text(method, "method", "backends"), in.positive_integers(method, "method", "lengths")};
  r.policy = TolerancePolicy::from_json(in.field(j, "$", "policy"), source + ": policy");
  const json& cov = in.field(j, "$", "coverage");
  r.coverage = {in.integer(cov, "coverage", "backends_total"),   in.integer(cov, "coverage", "backends_checked"),
                in.integer(cov, "coverage", "cases"),            in.integer(cov, "coverage", "shapes"),
                in.integer(cov, "coverage", "rows"),             in.integer(cov, "coverage", "elements_total"),
                in.integer(cov, "coverage", "elements_verified"), in.real(cov, "coverage", "fraction_verified")};
  const json& cases = in.array(j, "$", "cases");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = fmt::format("cases[{}]", i);
    CaseEntry c;
    c.id = in.text(cases[i], path, "id");
    if (!ids.insert(c.id).second) in.fail(path + ".id", fmt::format("duplicate case id '{}'", c.id));
    c.request = request_from_json(in, in.field(cases[i], path, "request"), path + ".request");
    c.elements_total = in.integer(cases[i], path, "elements_total");
    c.elements_verified = in.integer(cases[i], path, "elements_verified");
    c.fraction_verified = in.real(cases[i], path, "fraction_verified");
    c.repro = in.text(cases[i], path, "repro");
    r.cases.push_back(std::move(c));
  }
  const json& rows = in.array(j, "$", "rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string path = fmt::format("rows[{}]", i);
    r.rows.push_back(in.row(rows[i], path));
    if (!ids.count(r.rows.back().case_id))
      in.fail(path + ".case", fmt::format("unknown case id '{}'", r.rows.back().case_id));
  }
  const json& verdict = in.field(j, "$", "verdict");
  r.verdict = {in.boolean(verdict, "verdict", "pass"), in.integer(verdict, "verdict", "rows_failed"),
               in.strings(verdict, "verdict", "backends_failed"), in.text(verdict, "verdict", "summary")};
  r.scope = in.strings(j, "$", "scope");
  const json& sources = in.array(j, "$", "merged_from");
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string path = fmt::format("merged_from[{}]", i);
    r.merged_from.push_back({in.text(sources[i], path, "generated_at"), in.text(sources[i], path, "git_revision"),
                             in.unsigned_integer(sources[i], path, "seed")});
  }
  return r;
}

Report load_report(const std::filesystem::path& argument) {
  const std::filesystem::path path =
      std::filesystem::is_directory(argument) ? argument / "report.json" : argument;
  const json j = read_json_file(path, "the report");
  return from_json(j, path.string());
}

// Compact: a quick report has thousands of rows, and indentation would triple its size.
std::string to_json_text(const Report& r) { return to_json(r).dump() + "\n"; }

void save_report_json(const Report& r, const std::filesystem::path& path) {
  write_file_atomically(path, to_json_text(r));
}

}  // namespace scancheck::reports
