// SPDX-License-Identifier: Apache-2.0
// report.json's strict reader: every field present and of its type, names of the enums and of backends
// parsed, case ids unique and every row's case known; any problem is an InputError naming the file and the
// field (core/json_reader.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/variant.hpp"
#include "core/case_request.hpp"
#include "core/error.hpp"
#include "core/json_reader.hpp"
#include "reports/model.hpp"

namespace scancheck::reports {

using nlohmann::json;

namespace {

// Strict reading (core/json_reader.hpp) of the report's own structures.
struct Reader : JsonReader {
  Reader(std::string source, int version_) : JsonReader(std::move(source)), version(version_) {}
  int version;  //!< of the document: 1 or 2

  //! method.shard: absent or null for a whole run; otherwise 0 <= index < count.
  std::optional<ShardOf> shard(const json& method) const {
    if (!has(method, "shard") || method.at("shard").is_null()) return std::nullopt;
    const json& j = field(method, "method", "shard");
    only_keys(j, "method.shard", {"index", "count"});
    const ShardOf s{count(j, "method.shard", "index"), positive_integer(j, "method.shard", "count")};
    if (s.index >= s.count) fail("method.shard.index", fmt::format("{} is not below count {}", s.index, s.count));
    return s;
  }

  //! coverage.shards of a merged report: absent or null when no shards were merged.
  std::optional<ShardCoverage> shard_coverage(const json& coverage) const {
    if (!has(coverage, "shards") || coverage.at("shards").is_null()) return std::nullopt;
    const json& j = field(coverage, "coverage", "shards");
    only_keys(j, "coverage.shards", {"count", "merged", "missing", "interrupted"});
    ShardCoverage s;
    s.count = positive_integer(j, "coverage.shards", "count");
    for (const auto& [key, list] :
         {std::pair{"merged", &s.merged}, std::pair{"missing", &s.missing}, std::pair{"interrupted", &s.interrupted}}) {
      const json& a = array(j, "coverage.shards", key);
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!a[i].is_number_integer() || a[i].get<std::int64_t>() < 0 || a[i].get<std::int64_t>() >= s.count)
          fail(fmt::format("coverage.shards.{}[{}]", key, i), fmt::format("expected a shard index below {}", s.count));
        list->push_back(a[i].get<std::int64_t>());
      }
    }
    return s;
  }

  //! A case's or the coverage's reference_tiers: absent or null unless the reference was tiered.
  std::optional<ReferenceTierCounts> tiers(const json& parent, const std::string& path) const {
    if (!has(parent, "reference_tiers") || parent.at("reference_tiers").is_null()) return std::nullopt;
    const std::string here = join(path, "reference_tiers");
    const json& j = field(parent, path, "reference_tiers");
    only_keys(j, here, {"certified_by_double", "needed_float128", "float128_blocks", "blocks"});
    const ReferenceTierCounts t{count(j, here, "certified_by_double"), count(j, here, "needed_float128"),
                                count(j, here, "float128_blocks"), count(j, here, "blocks")};
    if (t.float128_blocks > t.blocks) fail(join(here, "float128_blocks"), "more blocks recomputed than computed");
    return t;
  }

  // ---- a joined profile (reports/profile.hpp): optional everywhere, absent or null when none was joined ----

  double duration(const json& j, const std::string& path, const char* key) const {
    const double d = real(j, path, key);
    if (!(d >= 0) || !std::isfinite(d)) fail(join(path, key), "expected a non-negative number");
    return d;
  }

  ProfileShape profile_shape(const json& j, const std::string& path) const {
    only_keys(j, path, {"batch", "length", "width"});
    return {positive_integer(j, path, "batch"), positive_integer(j, path, "length"),
            positive_integer(j, path, "width")};
  }

  std::optional<ProfileTiming> profile_timing(const json& row, const std::string& row_path) const {
    if (!has(row, "profile") || row.at("profile").is_null()) return std::nullopt;
    const std::string path = row_path + ".profile";
    const json& j = field(row, row_path, "profile");
    only_keys(j, path, {"profile_row", "summed_cuda_duration_us", "cuda_events", "categories"});
    ProfileTiming t;
    t.profile_row = count(j, path, "profile_row");
    t.summed_cuda_duration_us = duration(j, path, "summed_cuda_duration_us");
    t.cuda_events = count(j, path, "cuda_events");
    const std::string categories_path = path + ".categories";
    for (const auto& [name, c] : object(field(j, path, "categories"), categories_path).items()) {
      const std::string c_path = join(categories_path, name);
      only_keys(object(c, c_path), c_path, {"events", "duration_us"});
      t.categories[name] = {count(c, c_path, "events"), duration(c, c_path, "duration_us")};
    }
    return t;
  }

  std::optional<ProfileJoin> profile_join(const json& report) const {
    if (!has(report, "profile") || report.at("profile").is_null()) return std::nullopt;
    const json& j = field(report, "$", "profile");
    only_keys(j, "profile",
              {"source", "method", "direction", "aliases", "rows_matched", "report_rows_timed", "unmatched",
               "report_rows_unprofiled", "unprofiled_backends", "notes"});
    ProfileJoin p;
    const json& source = field(j, "profile", "source");
    only_keys(source, "profile.source", {"file", "bytes", "sha256", "rows"});
    p.source = {text(source, "profile.source", "file"), unsigned_integer(source, "profile.source", "bytes"),
                text(source, "profile.source", "sha256"), positive_integer(source, "profile.source", "rows")};
    const bool hex =
        p.source.sha256.size() == 64 && p.source.sha256.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!hex) fail("profile.source.sha256", "expected 64 lowercase hex digits");
    p.method = text(j, "profile", "method");
    if (text(j, "profile", "direction") != "backward")
      fail("profile.direction", "expected \"backward\" (profiles time the backward pass)");
    const json& aliases = array(j, "profile", "aliases");
    for (std::size_t i = 0; i < aliases.size(); ++i) {
      const std::string path = fmt::format("profile.aliases[{}]", i);
      only_keys(object(aliases[i], path), path, {"from", "to"});
      p.aliases.push_back({text(aliases[i], path, "from"), text(aliases[i], path, "to")});
    }
    p.rows_matched = count(j, "profile", "rows_matched");
    p.report_rows_timed = count(j, "profile", "report_rows_timed");
    const json& unmatched = array(j, "profile", "unmatched");
    for (std::size_t i = 0; i < unmatched.size(); ++i) {
      const std::string path = fmt::format("profile.unmatched[{}]", i);
      only_keys(object(unmatched[i], path), path, {"profile_row", "shape", "architecture", "backend", "reason"});
      p.unmatched.push_back(
          {count(unmatched[i], path, "profile_row"),
           profile_shape(object(field(unmatched[i], path, "shape"), path + ".shape"), path + ".shape"),
           text(unmatched[i], path, "architecture"), text(unmatched[i], path, "backend"),
           text(unmatched[i], path, "reason")});
    }
    p.report_rows_unprofiled = count(j, "profile", "report_rows_unprofiled");
    p.unprofiled_backends = strings(j, "profile", "unprofiled_backends");
    p.notes = strings(j, "profile", "notes");
    return p;
  }

  // ---- foreign providers: optional, absent or null in reports of built-ins and in those written before ----
  std::vector<ProviderEntry> providers(const json& report) const {
    std::vector<ProviderEntry> out;
    if (!has(report, "providers") || report.at("providers").is_null()) return out;
    const json& entries = array(report, "$", "providers");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const std::string path = fmt::format("providers[{}]", i);
      only_keys(object(entries[i], path), path, {"name", "loaded_by", "runtime", "provenance"});
      ProviderEntry p{text(entries[i], path, "name"),
                      text(entries[i], path, "loaded_by"),
                      optional_text(entries[i], path, "runtime"),
                      {},
                      {},
                      {}};
      if (!is_provider_name(p.name)) fail(path + ".name", fmt::format("'{}' is not [a-z0-9_-]+", p.name));
      if (!field(entries[i], path, "provenance").is_null()) {
        const std::string where = path + ".provenance";
        const json& k = object(field(entries[i], path, "provenance"), where);
        only_keys(k, where, {"package", "version", "commit"});
        p.package = optional_text(k, where, "package");
        p.version = optional_text(k, where, "version");
        p.commit = optional_text(k, where, "commit");
      }
      out.push_back(std::move(p));
    }
    return out;
  }

  std::optional<ErrorStrip> strip(const json& j, const std::string& path) const {
    if (j.is_null()) return std::nullopt;
    ErrorStrip s;
    s.tensor = text(j, path, "tensor");
    s.batch = integer(j, path, "batch");
    s.length = positive_integer(j, path, "length");
    s.width = positive_integer(j, path, "width");
    s.t_bins = positive_integer(j, path, "t_bins");
    s.w_bins = positive_integer(j, path, "w_bins");
    const json& ratios = array(j, path, "ratios");
    if (static_cast<std::int64_t>(ratios.size()) != s.t_bins * s.w_bins)
      fail(path + ".ratios", "expected t_bins x w_bins values");
    for (std::size_t i = 0; i < ratios.size(); ++i)
      s.ratios.push_back(real(ratios[i], fmt::format("{}.ratios[{}]", path, i)));
    s.chunk = integer(j, path, "chunk");
    s.group_span = integer(j, path, "group_span");
    for (const json& t : array(j, path, "resets")) {
      if (!t.is_number_integer()) fail(path + ".resets", "expected integers");
      s.resets.push_back(t.get<std::int64_t>());
    }
    return s;
  }

  bool verdict(const json& j, const std::string& path) const {
    const std::string v = text(j, path, "verdict");
    if (v != "pass" && v != "fail") fail(path + ".verdict", "expected \"pass\" or \"fail\"");
    return v == "pass";
  }

  //! The row's backend, kept as written, and only a name of the grammar (backends/variant.hpp): the page
  //! reads a backend's schedule and baseline from its name and diff matches rows by it, so a malformed
  //! name is an error of the file, not a backend of its own.
  std::string backend(const json& j, const std::string& path) const {
    named(j, path, "backend", parse_backend_name);
    return text(j, path, "backend");
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
    const auto count = [](const json& x) { return x.is_number_integer() && x.get<std::int64_t>() >= 0; };
    if (histogram.size() != static_cast<std::size_t>(ulp_buckets) ||
        !std::all_of(histogram.begin(), histogram.end(), count))
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
    m.worst = {integer(worst, worst_path, "index"), text(worst, worst_path, "at"),    real(worst, worst_path, "got"),
               real(worst, worst_path, "exact"),    real(worst, worst_path, "bound"), real(worst, worst_path, "ulp")};
    distribution(j, path, m);
    t.pass = verdict(j, path);
    t.reasons = strings(j, path, "reasons");
    return t;
  }

  ErrorProfile profile(const json& j, const std::string& path) const {
    ErrorProfile p;
    p.elements = count(j, path, "elements");
    p.p50 = real(j, path, "p50");
    p.p90 = real(j, path, "p90");
    p.rms = real(j, path, "rms");
    return p;
  }

  //! Rule 4's inputs and the bound's scale, optional within version 2 (written by reports since 2026-12-07);
  //! the "detection" beside them is derived from them and the policy, and not read.
  void distribution(const json& j, const std::string& path, TensorMetrics& m) const {
    if (has(j, "profile")) m.profile = profile(field(j, path, "profile"), path + ".profile");
    if (has(j, "ensemble_profile")) {
      const json& e = field(j, path, "ensemble_profile");
      m.ensemble_profile = profile(e, path + ".ensemble_profile");
      m.ensemble_orders = count(e, path + ".ensemble_profile", "orders");
    }
    if (has(j, "bound_scale")) {
      const json& b = field(j, path, "bound_scale");
      m.bound_scale = BoundScale{real(b, path + ".bound_scale", "ulps"), real(b, path + ".bound_scale", "relative")};
    }
  }

  Row row(const json& j, const std::string& path) const {
    Row r;
    r.case_id = text(j, path, "case");
    r.shape = shape(j, path);
    r.architecture = named(j, path, "architecture", parse_architecture);
    r.backend = backend(j, path);
    r.io_dtype = named(j, path, "io_dtype", parse_dtype);
    if (version == 1) {  // "pass" was the direction; verdicts were pass or fail
      r.direction = named(j, path, "pass", parse_direction);
      r.verdict = verdict(j, path) ? scancheck::Verdict::pass : scancheck::Verdict::fail;
    } else {
      r.direction = named(j, path, "direction", parse_direction);
      r.verdict = named(j, path, "verdict", parse_verdict);
      r.log = optional_text(j, path, "log").value_or("");
      r.misshapen = strings(j, path, "misshapen");
      r.diagnosis = strings(j, path, "diagnosis");
      r.notes = strings(j, path, "notes");
      r.strip = strip(field(j, path, "strip"), path + ".strip");
    }
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
    r.profile = profile_timing(j, path);
    if (r.profile && r.direction != Direction::backward)
      fail(path + ".profile", "only backward rows carry a profile timing (profiles time the backward pass)");
    return r;
  }
};

}  // namespace

Report from_json(const json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("schema_version"))
    throw InputError(fmt::format("{}: not a scancheck report (no schema_version)", source));
  const json& version = j.at("schema_version");
  if (!version.is_number_integer())
    throw InputError(fmt::format("{}: not a scancheck report (schema_version is not an integer)", source));
  if (version.get<int>() != schema_version && version.get<int>() != 1)
    throw InputError(fmt::format("{}: schema_version {} is not supported (this scancheck reads versions 1 and {})",
                                 source, version.get<int>(), schema_version));
  const Reader in(source, version.get<int>());
  Report r;
  if (in.version >= 2)
    in.only_keys(j, "$",
                 {"schema_version", "label", "generated_at", "tool", "environment", "method", "policy", "coverage",
                  "cases", "rows", "verdict", "scope", "merged_from", "interrupted", "profile", "providers"});
  r.label = in.text(j, "$", "label");
  r.generated_at = in.text(j, "$", "generated_at");
  const json& tool = in.field(j, "$", "tool");
  r.tool = {in.text(tool, "tool", "name"), in.text(tool, "tool", "version"), in.text(tool, "tool", "git_revision")};
  if (r.tool.name != "scancheck") in.fail("tool.name", fmt::format("written by '{}', not scancheck", r.tool.name));
  const json& env = in.field(j, "$", "environment");
  r.environment = {
      in.text(env, "environment", "executor"), in.optional_text(env, "environment", "device"),
      in.text(env, "environment", "compiler"), in.optional_text(env, "environment", "cuda"),
      in.text(env, "environment", "host"),     static_cast<int>(in.integer(env, "environment", "threads"))};
  const json& method = in.field(j, "$", "method");
  r.method = {in.text(method, "method", "preset"),
              in.text(method, "method", "reference_precision"),
              in.text(method, "method", "bounds"),
              in.text(method, "method", "baseline"),
              in.text(method, "method", "sampling"),
              in.unsigned_integer(method, "method", "seed"),
              in.text(method, "method", "backends"),
              in.positive_integers(method, "method", "lengths"),
              in.shard(method)};
  r.policy = TolerancePolicy::from_json(in.field(j, "$", "policy"), source + ": policy");
  const json& cov = in.field(j, "$", "coverage");
  r.coverage = {in.count(cov, "coverage", "backends_total"),
                in.count(cov, "coverage", "backends_checked"),
                in.count(cov, "coverage", "cases"),
                in.count(cov, "coverage", "shapes"),
                in.count(cov, "coverage", "rows"),
                in.count(cov, "coverage", "elements_total"),
                in.count(cov, "coverage", "elements_verified"),
                in.real(cov, "coverage", "fraction_verified"),
                in.shard_coverage(cov),
                in.tiers(cov, "coverage")};
  const json& cases = in.array(j, "$", "cases");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = fmt::format("cases[{}]", i);
    CaseEntry c;
    c.id = in.text(cases[i], path, "id");
    if (!ids.insert(c.id).second) in.fail(path + ".id", fmt::format("duplicate case id '{}'", c.id));
    c.request = request_from_json(in, in.field(cases[i], path, "request"), path + ".request");
    c.elements_total = in.count(cases[i], path, "elements_total");
    c.elements_verified = in.count(cases[i], path, "elements_verified");
    c.fraction_verified = in.real(cases[i], path, "fraction_verified");
    c.repro = in.text(cases[i], path, "repro");
    c.tiers = in.tiers(cases[i], path);
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
  // "interrupted" came within version 2: reports written before it have none.
  if (in.version >= 2 && in.has(j, "interrupted")) r.interrupted = in.optional_text(j, "$", "interrupted");
  r.profile = in.profile_join(j);
  r.providers = in.providers(j);
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
  const std::filesystem::path path = std::filesystem::is_directory(argument) ? argument / "report.json" : argument;
  const json j = read_json_file(path, "the report");
  return from_json(j, path.string());
}

}  // namespace scancheck::reports
