// SPDX-License-Identifier: Apache-2.0
// A user's speed profile: its strict reader, the aliases, the join to a report's backward rows, and the
// lines the commands and pages show of it.
#include "reports/profile.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "backends/variant.hpp"
#include "core/error.hpp"
#include "core/json_reader.hpp"
#include "reports/sha256.hpp"
#include "reports/summary.hpp"

namespace scancheck::reports {

using nlohmann::json;

namespace {

constexpr int profile_schema_version = 1;

// ---- reading --------------------------------------------------------------------------------------------

//! Strict reading of the profile format (profile.hpp): the field named in every message.
struct ProfileReader : JsonReader {
  using JsonReader::JsonReader;

  //! Durations and counts are measurements: never negative, never NaN or infinite (the report's "inf"
  //! strings are no part of this format).
  double duration(const json& j, std::string_view path, const char* key) const {
    const json& v = field(j, path, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      fail(join(path, key), "expected a non-negative number");
    return v.get<double>();
  }

  std::int64_t events(const json& j, std::string_view path, const char* key) const {
    const json& v = field(j, path, key);
    constexpr auto largest = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > largest) ||
        v.get<std::int64_t>() < 0)
      fail(join(path, key), "expected a non-negative integer");
    return v.get<std::int64_t>();
  }

  ProfileShape row_shape(const json& row, const std::string& row_path) const {
    const std::string path = row_path + ".shape";
    const json& j = object(field(row, row_path, "shape"), path);
    only_keys(j, path, {"batch", "length", "width"});
    return {positive_integer(j, path, "batch"), positive_integer(j, path, "length"),
            positive_integer(j, path, "width")};
  }

  std::string architecture(const json& row, const std::string& path) const {
    const std::string name = text(row, path, "architecture");
    if (!is_variant_token(name))
      fail(join(path, "architecture"), "expected an architecture name ([A-Za-z0-9_.+-]+, e.g. rglru)");
    return name;
  }

  //! "variant" or "provider:variant": a backend name of backends/variant.hpp without "arch/" and "@dtype".
  void backend(const json& row, const std::string& path, ProfileRow& out) const {
    out.backend = text(row, path, "backend");
    try {
      ProviderVariant name = parse_provider_variant(out.backend);
      out.provider = std::move(name.provider);
      out.variant = std::move(name.variant);
    } catch (const InputError& e) {
      fail(join(path, "backend"), e.what());
    }
  }

  std::map<std::string, ProfileCategory> categories(const json& row, const std::string& row_path) const {
    const std::string path = row_path + ".categories";
    std::map<std::string, ProfileCategory> out;
    for (const auto& [name, c] : object(field(row, row_path, "categories"), path).items()) {
      const std::string c_path = join(path, name);
      if (name.empty()) fail(path, "a category has an empty name");
      only_keys(object(c, c_path), c_path, {"events", "duration_us"});
      out[name] = {events(c, c_path, "events"), duration(c, c_path, "duration_us")};
    }
    return out;
  }

  std::vector<ProfiledKernel> top_events(const json& row, const std::string& row_path) const {
    const json& list = array(row, row_path, "top_cuda_events");
    std::vector<ProfiledKernel> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("{}.top_cuda_events[{}]", row_path, i);
      only_keys(object(list[i], path), path, {"name", "events", "duration_us"});
      out.push_back(
          {text(list[i], path, "name"), events(list[i], path, "events"), duration(list[i], path, "duration_us")});
    }
    return out;
  }

  ProfileRow row(const json& j, const std::string& path) const {
    only_keys(object(j, path), path,
              {"shape", "architecture", "backend", "cuda_events", "summed_cuda_duration_us", "categories",
               "top_cuda_events"});
    ProfileRow r;
    r.shape = row_shape(j, path);
    r.architecture = architecture(j, path);
    backend(j, path, r);
    r.cuda_events = events(j, path, "cuda_events");
    r.summed_cuda_duration_us = duration(j, path, "summed_cuda_duration_us");
    r.categories = categories(j, path);
    r.top_cuda_events = top_events(j, path);
    return r;
  }

  void version(const json& j) const {
    const json& v = field(j, "$", "schema_version");
    if (!v.is_number_integer() || v.get<std::int64_t>() != profile_schema_version)
      fail("schema_version", fmt::format("expected {} (the profile format this scancheck reads), got {}",
                                         profile_schema_version, v.dump()));
  }
};

//! Two rows of one (shape, architecture, backend) would give one report row two timings.
void reject_duplicates(const ProfileReader& in, const std::vector<ProfileRow>& rows) {
  std::map<std::tuple<ProfileShape, std::string, std::string>, std::size_t> first;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto [it, fresh] = first.try_emplace({rows[i].shape, rows[i].architecture, rows[i].backend}, i);
    if (!fresh)
      in.fail(fmt::format("rows[{}]", i), fmt::format("duplicate of rows[{}]: {} {} at {} again", it->second,
                                                      rows[i].architecture, rows[i].backend, to_string(rows[i].shape)));
  }
}

// ---- joining --------------------------------------------------------------------------------------------

//! A report row (its index) and its backend, split once.
struct RowBackend {
  std::size_t index;
  const Row* row;
  BackendName name;
};

std::string batch_length_width(const ProfileShape& s) {
  return fmt::format("batch {}, length {}, width {}", s.batch, s.length, s.width);
}

ProfileShape profile_shape_of(const Row& row) { return {row.shape.batch, row.shape.length, row.shape.width}; }

//! Why a profile row matches no row of the report, in words, or "" with the rows it matches.
class Matcher {
 public:
  Matcher(const Report& report, const ProfileAliases& aliases) : aliases_(aliases) {
    for (std::size_t i = 0; i < report.rows.size(); ++i)
      rows_.push_back({i, &report.rows[i], parse_backend_name(report.rows[i].backend)});
  }

  //! "" with `architecture` set when the profile's name for it (after the aliases) is scancheck's; else why not.
  std::string resolve_architecture(const ProfileRow& p, std::optional<Architecture>& architecture) const {
    const std::string name = aliases_.map(p.architecture);
    try {
      architecture = parse_architecture(name);
      return "";
    } catch (const InputError&) {
    }
    const std::string known = fmt::format("{}", fmt::join(all_architecture_names(), ", "));
    if (const ProfileAlias* a = aliases_.find(p.architecture))
      return fmt::format(
          "architecture '{}' is read as '{}' (--timings-alias {}={}), which is not one of "
          "scancheck's ({})",
          p.architecture, a->to, a->from, a->to, known);
    return fmt::format("architecture '{}' is not one of scancheck's ({}): name it with --timings-alias {}=ARCHITECTURE",
                       p.architecture, known, p.architecture);
  }

  //! The reason, or "" with `matched` filled (indices of the report's rows).
  std::string match(const ProfileRow& p, Architecture architecture, std::vector<std::size_t>& matched) const {
    const std::string provider = p.provider.empty() ? "" : aliases_.map(p.provider);
    const std::string backend = name_without_dtype({provider, architecture, p.variant, DType::float32});
    const auto same_backend = [&](const RowBackend& r) {
      return r.name.architecture == architecture && r.name.provider == provider && r.name.variant == p.variant;
    };
    const auto at_shape = [&](const RowBackend& r) { return profile_shape_of(*r.row) == p.shape; };
    if (std::none_of(rows_.begin(), rows_.end(), at_shape))
      return fmt::format("no row of this report has {} (any heads)", batch_length_width(p.shape));
    if (std::none_of(rows_.begin(), rows_.end(), same_backend))
      return absent_backend(p, provider, architecture, backend);
    std::vector<const RowBackend*> here;
    for (const RowBackend& r : rows_)
      if (same_backend(r) && at_shape(r)) here.push_back(&r);
    if (here.empty())
      return fmt::format("backend {} (any io dtype) has no row at {} in this report", backend,
                         batch_length_width(p.shape));
    for (const RowBackend* r : here)
      if (r->row->direction == Direction::backward) matched.push_back(r->index);
    if (matched.empty())
      return fmt::format("backend {} has only forward rows at {}: the profile times the backward pass", backend,
                         batch_length_width(p.shape));
    return "";
  }

 private:
  static std::vector<std::string> all_architecture_names() {
    std::vector<std::string> out;
    for (Architecture a : all_architectures) out.emplace_back(to_string(a));
    return out;
  }

  //! The backend is nowhere in the report; a provider named differently here is the likely cause.
  std::string absent_backend(const ProfileRow& p, const std::string& provider, Architecture architecture,
                             const std::string& backend) const {
    std::string hint;
    for (const RowBackend& r : rows_)
      if (r.name.architecture == architecture && r.name.variant == p.variant && r.name.provider != provider) {
        if (r.name.provider.empty())
          hint = "; the report has it as a built-in backend (drop the provider from the profile's name)";
        else if (p.provider.empty())
          hint = fmt::format("; the report has it from provider '{0}' (name it {0}:{1} in the profile)",
                             r.name.provider, p.variant);
        else
          hint = fmt::format("; the report has it from provider '{}': --timings-alias {}={} maps provider names",
                             r.name.provider, p.provider, r.name.provider);
        break;
      }
    return fmt::format("backend {} (any io dtype) is not in this report{}", backend, hint);
  }

  const ProfileAliases& aliases_;
  std::vector<RowBackend> rows_;
};

ProfileTiming timing_of(const ProfileRow& p, std::size_t index) {
  return {static_cast<std::int64_t>(index), p.summed_cuda_duration_us, p.cuda_events, p.categories};
}

//! What the joined timings do and do not mean; stored with the join so report.json says it too.
std::vector<std::string> join_notes() {
  return {
      "The profile times the backward pass (one warmed backward pass per shape, architecture and backend): its "
      "timings are joined to backward rows only; forward rows carry none.",
      "The profile names no io dtype: a profile row's timing is joined to its backend's backward rows of every io "
      "dtype, though it was measured with one.",
      "The profile names no heads: a profile row is joined at its batch, length and width to rows of any heads.",
      "These durations are the profile's, taken by its own method (quoted), not measured by scancheck: they were "
      "matched to the accuracy rows by name and shape only.",
  };
}

//! Backward rows at a profiled (batch, length, width) that received no timing, and their backends.
void count_unprofiled(const Report& report, const Profile& profile, ProfileJoin& join) {
  std::set<ProfileShape> shapes;
  for (const ProfileRow& p : profile.rows) shapes.insert(p.shape);
  for (const Row& row : report.rows) {
    if (row.direction != Direction::backward || row.profile || !shapes.count(profile_shape_of(row))) continue;
    ++join.report_rows_unprofiled;
    if (std::find(join.unprofiled_backends.begin(), join.unprofiled_backends.end(), row.backend) ==
        join.unprofiled_backends.end())
      join.unprofiled_backends.push_back(row.backend);
  }
}

}  // namespace

// ---- public -----------------------------------------------------------------------------------------------

std::string to_string(const ProfileShape& s) { return fmt::format("{} × {} × {}", s.batch, s.length, s.width); }

Profile parse_profile(std::string_view text, const std::string& file) {
  const ProfileReader in("profile " + file);
  const json j = parse_json_text(text, in.source());
  in.object(j, "$");
  in.only_keys(j, "$", {"schema_version", "method", "rows"});
  in.version(j);
  Profile p;
  p.method = in.text(j, "$", "method");
  if (p.method.empty()) in.fail("method", "expected a non-empty string (how the profile was taken)");
  const json& rows = in.array(j, "$", "rows");
  if (rows.empty()) in.fail("rows", "expected at least one row");
  for (std::size_t i = 0; i < rows.size(); ++i) p.rows.push_back(in.row(rows[i], fmt::format("rows[{}]", i)));
  reject_duplicates(in, p.rows);
  p.source = {file, text.size(), sha256_hex(text), static_cast<std::int64_t>(p.rows.size())};
  return p;
}

Profile load_profile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw InputError(fmt::format("profile {}: cannot read it (--timings takes a profile JSON file)", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), path.string());
}

std::string ProfileAliases::map(std::string_view name) const {
  const ProfileAlias* a = find(name);
  return a ? a->to : std::string(name);
}

const ProfileAlias* ProfileAliases::find(std::string_view name) const {
  for (const ProfileAlias& a : aliases)
    if (a.from == name) return &a;
  return nullptr;
}

ProfileAliases parse_profile_aliases(const std::vector<std::string>& texts) {
  ProfileAliases out;
  for (const std::string& text : texts) {
    const std::size_t eq = text.find('=');
    const auto bad = [&](std::string_view why) {
      return InputError(fmt::format("--timings-alias '{}': {} (expected FROM=TO, e.g. samu=complex_rglru)", text, why));
    };
    if (eq == std::string::npos) throw bad("no '='");
    const ProfileAlias alias{text.substr(0, eq), text.substr(eq + 1)};
    if (alias.from.empty() || alias.to.empty()) throw bad("FROM and TO must both be non-empty");
    if (alias.to.find('=') != std::string::npos) throw bad("more than one '='");
    if (alias.from == alias.to) throw bad("FROM and TO are the same");
    if (const ProfileAlias* seen = out.find(alias.from)) {
      if (seen->to != alias.to) throw bad(fmt::format("'{}' is already read as '{}'", alias.from, seen->to));
      continue;  // the same alias twice says nothing new
    }
    out.aliases.push_back(alias);
  }
  return out;
}

void join_profile(Report& report, const Profile& profile, const ProfileAliases& aliases) {
  for (Row& row : report.rows) row.profile.reset();
  ProfileJoin join;
  join.source = profile.source;
  join.method = profile.method;
  join.aliases = aliases.aliases;
  join.notes = join_notes();
  const Matcher matcher(report, aliases);
  std::map<std::size_t, std::size_t> claimed;  // report row -> the profile row that timed it
  for (std::size_t i = 0; i < profile.rows.size(); ++i) {
    const ProfileRow& p = profile.rows[i];
    std::optional<Architecture> architecture;
    std::vector<std::size_t> matched;
    std::string reason = matcher.resolve_architecture(p, architecture);
    if (reason.empty()) reason = matcher.match(p, *architecture, matched);
    if (!reason.empty()) {
      join.unmatched.push_back({static_cast<std::int64_t>(i), p.shape, p.architecture, p.backend, reason});
      continue;
    }
    for (const std::size_t row : matched) {
      const auto [it, fresh] = claimed.try_emplace(row, i);
      if (!fresh)
        throw InputError(
            fmt::format("profile {}: rows[{}] and rows[{}] both time {} at {} once the aliases are "
                        "applied: drop one or change the --timings-alias options",
                        profile.source.file, it->second, i, report.rows[row].backend, to_string(p.shape)));
      report.rows[row].profile = timing_of(p, i);
    }
    ++join.rows_matched;
    join.report_rows_timed += static_cast<std::int64_t>(matched.size());
  }
  count_unprofiled(report, profile, join);
  report.profile = std::move(join);
}

const ProfileJoin& attach_profile(Report& report, const std::filesystem::path& profile, const ProfileAliases& aliases) {
  join_profile(report, load_profile(profile), aliases);
  return *report.profile;
}

std::vector<std::string> describe_profile_join(const ProfileJoin& j) {
  std::string summary = fmt::format("profile: {} rows, {} matched ({} report rows), {} unmatched", j.source.rows,
                                    j.rows_matched, j.report_rows_timed, j.unmatched.size());
  if (j.report_rows_unprofiled > 0)
    summary += fmt::format("; {} backward report rows at profiled shapes have no profile entry ({})",
                           j.report_rows_unprofiled, fmt::join(j.unprofiled_backends, ", "));
  std::vector<std::string> lines{summary};
  for (const UnmatchedProfileRow& u : j.unmatched)
    lines.push_back(fmt::format("profile: rows[{}] {} {} at {}: not joined: {}", u.profile_row, u.architecture,
                                u.backend, to_string(u.shape), u.reason));
  return lines;
}

std::vector<ProfiledSpeed> profiled_speeds(const Report& r) {
  std::vector<ProfiledSpeed> out;
  std::map<std::pair<std::string, ProfileShape>, std::size_t> index;
  for (const Row& row : r.rows) {
    if (!row.profile) continue;
    const auto [it, fresh] = index.try_emplace({row.backend, profile_shape_of(row)}, out.size());
    if (fresh) {
      out.emplace_back();
      out.back().backend = row.backend;
      out.back().architecture = row.architecture;
      out.back().shape = profile_shape_of(row);
      out.back().timing = *row.profile;
      out.back().verdict = "pass";
    }
    ProfiledSpeed& s = out[it->second];
    ++s.rows;
    if (!row.ok() && ++s.rows_failed == 1) s.verdict = std::string(to_string(row.verdict));
    for (const TensorEntry& t : row.tensors) {
      fold_max(s.scaled_error, scaled_error(t.metrics));
      fold_max(s.bound_ratio, t.metrics.bound_ratio);
    }
  }
  // A backend's lines together, its shapes in report order, the io dtypes of one shape side by side.
  std::map<std::string, std::size_t> backend_order;
  std::map<ProfileShape, std::size_t> shape_order;
  const auto without_dtype = [](const ProfiledSpeed& s) { return name_without_dtype(parse_backend_name(s.backend)); };
  for (const ProfiledSpeed& s : out) {
    backend_order.try_emplace(without_dtype(s), backend_order.size());
    shape_order.try_emplace(s.shape, shape_order.size());
  }
  const auto key = [&](const ProfiledSpeed& s) {
    return std::pair{backend_order.at(without_dtype(s)), shape_order.at(s.shape)};
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const ProfiledSpeed& a, const ProfiledSpeed& b) { return key(a) < key(b); });
  return out;
}

std::vector<std::pair<std::string, ProfileCategory>> largest_categories(const ProfileTiming& t, std::size_t n) {
  std::vector<std::pair<std::string, ProfileCategory>> out(t.categories.begin(), t.categories.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second.duration_us > b.second.duration_us; });
  out.resize(std::min(n, out.size()));
  return out;
}

}  // namespace scancheck::reports
