// SPDX-License-Identifier: Apache-2.0
// report.json's writer: the model as JSON (reports::schema_version, reports/schema/report.schema.json), its
// text and the file. Non-finite numbers travel as "inf", "-inf", "nan" (json_number), which the reader takes back.
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/case_dir.hpp"
#include "core/case_request.hpp"
#include "core/json_reader.hpp"
#include "reports/model.hpp"

namespace scancheck::reports {

using nlohmann::json;

namespace {

json number(double x) { return json_number(x); }
json optional_number(const std::optional<double>& x) { return json_number(x); }

json shape_json(const Shape& s) { return json::array({s.batch, s.length, s.width, s.heads}); }

json profile_json(const ErrorProfile& p) {
  return {{"elements", p.elements}, {"p50", number(p.p50)}, {"p90", number(p.p90)}, {"rms", number(p.rms)}};
}

json level_json(const DetectionLevel& l) {
  return {{"bounds", number(l.bounds)}, {"ulps", number(l.ulps)}, {"relative", number(l.relative)}};
}

//! Rule 4's inputs and the detection threshold, written only where there are bounds: reports of runs without
//! them keep their shape. "detection" is derived (policy.hpp, detection_threshold): the reader recomputes it.
void add_distribution(json& out, const TensorMetrics& m, const TolerancePolicy& policy) {
  if (m.profile) out["profile"] = profile_json(*m.profile);
  if (m.ensemble_profile) {
    out["ensemble_profile"] = profile_json(*m.ensemble_profile);
    out["ensemble_profile"]["orders"] = m.ensemble_orders;
  }
  if (m.bound_scale)
    out["bound_scale"] = {{"ulps", number(m.bound_scale->ulps)}, {"relative", number(m.bound_scale->relative)}};
  if (const auto d = detection_threshold(m, policy))
    out["detection"] = {{"certainty", level_json(d->certainty)},
                        {"distribution", d->distribution ? level_json(*d->distribution) : json(nullptr)}};
}

json metrics_json(const TensorEntry& t, const TolerancePolicy& policy) {
  const TensorMetrics& m = t.metrics;
  json out = {{"name", m.name},
              {"dtype", to_string(m.dtype)},
              {"compared", m.compared},
              {"max_abs", number(m.max_abs)},
              {"max_rel", number(m.max_rel)},
              {"max_exact", number(m.max_exact)},
              {"ulp",
               {{"p50", number(m.ulp_p50)},
                {"p90", number(m.ulp_p90)},
                {"p99", number(m.ulp_p99)},
                {"max", number(m.ulp_max)},
                {"histogram", m.ulp_histogram}}},
              {"bound_ratio", optional_number(m.bound_ratio)},
              {"max_bound", number(m.max_bound)},
              {"unbounded", m.unbounded},
              {"baseline_abs", optional_number(m.baseline_abs)},
              {"baseline_ratio", optional_number(m.baseline_ratio)},
              {"nonfinite_mismatches", m.nonfinite_mismatches},
              {"worst",
               {{"index", m.worst.index},
                {"at", m.worst.at},
                {"got", number(m.worst.got)},
                {"exact", number(m.worst.exact)},
                {"bound", number(m.worst.bound)},
                {"ulp", number(m.worst.ulp)}}},
              {"verdict", t.pass ? "pass" : "fail"},
              {"reasons", t.reasons}};
  add_distribution(out, m, policy);
  return out;
}

json strip_json(const std::optional<ErrorStrip>& s) {
  if (!s) return nullptr;
  json ratios = json::array();
  for (double r : s->ratios) ratios.push_back(number(r));
  return {{"tensor", s->tensor},         {"batch", s->batch},   {"length", s->length},         {"width", s->width},
          {"t_bins", s->t_bins},         {"w_bins", s->w_bins}, {"ratios", std::move(ratios)}, {"chunk", s->chunk},
          {"group_span", s->group_span}, {"resets", s->resets}};
}

// A joined profile (reports/profile.hpp): written only when there is one, so reports without keep their shape.
json categories_json(const std::map<std::string, ProfileCategory>& categories) {
  json out = json::object();
  for (const auto& [name, c] : categories) out[name] = {{"events", c.events}, {"duration_us", number(c.duration_us)}};
  return out;
}

json profile_timing_json(const ProfileTiming& t) {
  return {{"profile_row", t.profile_row},
          {"summed_cuda_duration_us", number(t.summed_cuda_duration_us)},
          {"cuda_events", t.cuda_events},
          {"categories", categories_json(t.categories)}};
}

json profile_shape_json(const ProfileShape& s) {
  return {{"batch", s.batch}, {"length", s.length}, {"width", s.width}};
}

json profile_join_json(const ProfileJoin& p) {
  json aliases = json::array(), unmatched = json::array();
  for (const ProfileAlias& a : p.aliases) aliases.push_back({{"from", a.from}, {"to", a.to}});
  for (const UnmatchedProfileRow& u : p.unmatched)
    unmatched.push_back({{"profile_row", u.profile_row},
                         {"shape", profile_shape_json(u.shape)},
                         {"architecture", u.architecture},
                         {"backend", u.backend},
                         {"reason", u.reason}});
  return {{"source",
           {{"file", p.source.file}, {"bytes", p.source.bytes}, {"sha256", p.source.sha256}, {"rows", p.source.rows}}},
          {"method", p.method},
          {"direction", "backward"},
          {"aliases", std::move(aliases)},
          {"rows_matched", p.rows_matched},
          {"report_rows_timed", p.report_rows_timed},
          {"unmatched", std::move(unmatched)},
          {"report_rows_unprofiled", p.report_rows_unprofiled},
          {"unprofiled_backends", p.unprofiled_backends},
          {"notes", p.notes}};
}

// Foreign providers: written only when the report has some, so that reports of built-ins keep their shape.
json providers_json(const std::vector<ProviderEntry>& providers) {
  const auto optional_string = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
  json out = json::array();
  for (const ProviderEntry& p : providers) {
    json provenance = nullptr;
    if (p.package || p.version || p.commit)
      provenance = {{"package", optional_string(p.package)},
                    {"version", optional_string(p.version)},
                    {"commit", optional_string(p.commit)}};
    out.push_back({{"name", p.name},
                   {"loaded_by", p.loaded_by},
                   {"runtime", optional_string(p.runtime)},
                   {"provenance", std::move(provenance)}});
  }
  return out;
}

json row_json(const Row& r, const TolerancePolicy& policy) {
  json tensors = json::array();
  for (const TensorEntry& t : r.tensors) tensors.push_back(metrics_json(t, policy));
  json j = {{"case", r.case_id},
            {"shape", shape_json(r.shape)},
            {"architecture", to_string(r.architecture)},
            {"backend", r.backend},
            {"io_dtype", to_string(r.io_dtype)},
            {"direction", to_string(r.direction)},
            {"verdict", to_string(r.verdict)},
            {"error", r.error.empty() ? json(nullptr) : json(r.error)},
            {"log", r.log.empty() ? json(nullptr) : json(r.log)},
            {"missing", r.missing},
            {"misshapen", r.misshapen},
            {"diagnosis", r.diagnosis},
            {"notes", r.notes},
            {"strip", strip_json(r.strip)},
            {"tensors", std::move(tensors)},
            {"seed", r.seed},
            {"repro", r.repro},
            {"timing", nullptr}};
  if (r.timing)
    j["timing"] = {{"median_ms", number(r.timing->median_ms)},
                   {"min_ms", number(r.timing->min_ms)},
                   {"max_ms", number(r.timing->max_ms)},
                   {"repeats", r.timing->repeats}};
  if (r.profile) j["profile"] = profile_timing_json(*r.profile);
  return j;
}

}  // namespace

json tiers_json(const ReferenceTierCounts& t) {
  return {{"certified_by_double", t.certified_by_double},
          {"needed_float128", t.needed_float128},
          {"float128_blocks", t.float128_blocks},
          {"blocks", t.blocks}};
}

json to_json(const Report& r) {
  json cases = json::array(), rows = json::array(), sources = json::array();
  for (const CaseEntry& c : r.cases) {
    cases.push_back({{"id", c.id},
                     {"request", to_json(c.request)},
                     {"elements_total", c.elements_total},
                     {"elements_verified", c.elements_verified},
                     {"fraction_verified", number(c.fraction_verified)},
                     {"repro", c.repro}});
    if (c.tiers) cases.back()["reference_tiers"] = tiers_json(*c.tiers);
  }
  for (const Row& row : r.rows) rows.push_back(row_json(row, r.policy));
  for (const Source& s : r.merged_from)
    sources.push_back({{"generated_at", s.generated_at}, {"git_revision", s.git_revision}, {"seed", s.seed}});
  const auto optional_string = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
  json j = {
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
        {"lengths", r.method.lengths},
        {"shard",
         r.method.shard ? json{{"index", r.method.shard->index}, {"count", r.method.shard->count}} : json(nullptr)}}},
      {"policy", r.policy.to_json()},
      {"coverage",
       {{"backends_total", r.coverage.backends_total},
        {"backends_checked", r.coverage.backends_checked},
        {"cases", r.coverage.cases},
        {"shapes", r.coverage.shapes},
        {"rows", r.coverage.rows},
        {"elements_total", r.coverage.elements_total},
        {"elements_verified", r.coverage.elements_verified},
        {"fraction_verified", number(r.coverage.fraction_verified)},
        {"shards", r.coverage.shards ? json{{"count", r.coverage.shards->count},
                                            {"merged", r.coverage.shards->merged},
                                            {"missing", r.coverage.shards->missing},
                                            {"interrupted", r.coverage.shards->interrupted}}
                                     : json(nullptr)},
        {"reference_tiers", r.coverage.tiers ? tiers_json(*r.coverage.tiers) : json(nullptr)}}},
      {"cases", std::move(cases)},
      {"rows", std::move(rows)},
      {"verdict",
       {{"pass", r.verdict.pass},
        {"rows_failed", r.verdict.rows_failed},
        {"backends_failed", r.verdict.backends_failed},
        {"summary", r.verdict.summary}}},
      {"scope", r.scope},
      {"merged_from", std::move(sources)},
      {"interrupted", r.interrupted ? json(*r.interrupted) : json(nullptr)},
  };
  if (r.profile) j["profile"] = profile_join_json(*r.profile);
  if (!r.providers.empty()) j["providers"] = providers_json(r.providers);
  return j;
}

// Compact: a quick report has thousands of rows, and indentation would triple its size.
std::string to_json_text(const Report& r) { return to_json(r).dump() + "\n"; }

void save_report_json(const Report& r, const std::filesystem::path& path) {
  write_file_atomically(path, to_json_text(r));
}

}  // namespace scancheck::reports
