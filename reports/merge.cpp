// SPDX-License-Identifier: Apache-2.0
#include "reports/merge.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "reports/diff.hpp"

namespace scancheck::reports {
namespace {

void check_compatible(const std::vector<MergeInput>& inputs, bool shards) {
  if (inputs.empty()) throw InputError("merge: no report to merge");
  if (inputs.size() < 2 && !shards)
    throw InputError(fmt::format("merge needs at least two reports (or shard reports), got {}", inputs.size()));
  const MergeInput& first = inputs.front();
  for (const MergeInput& in : inputs) {
    if (in.report.label != first.report.label)
      throw InputError(fmt::format("cannot merge reports of different labels: '{}' ({}) and '{}' ({})",
                                   first.report.label, first.source, in.report.label, in.source));
    if (in.report.policy.to_json() != first.report.policy.to_json())
      throw InputError(fmt::format("cannot merge reports of different tolerance policies: {} ({}) and {} ({})",
                                   first.report.policy.to_json().dump(), first.source,
                                   in.report.policy.to_json().dump(), in.source));
  }
}

//! Builds the merged cases and rows; cases are keyed by request text, rows by identity.
class Merger {
 public:
  explicit Merger(Report& out) : out_(out) {}

  //! Moves `in`'s rows into the merge (a campaign's shards hold many): `in` keeps its header only.
  void add(MergeInput& in) {
    for (Row& row : in.report.rows) {
      const RowIdentity id = row_identity(in.report, row);
      const auto [seen, fresh] = row_sources_.emplace(id, in.source);
      if (!fresh)
        throw InputError(fmt::format("duplicate row: {} {} on case {} is in both {} and {}", id.backend,
                                     to_string(id.direction), id.request, seen->second, in.source));
      const std::string merged_case = case_id(in.report.case_of(row), id.request);
      Row merged = std::move(row);
      merged.case_id = merged_case;
      // A joined profile belongs to the report it was joined to (its counts, its unmatched rows): the
      // merge drops it and says so, and `render --timings` joins the profile to the merged report.
      dropped_profile_timings_ |= merged.profile.has_value();
      merged.profile.reset();
      out_.rows.push_back(std::move(merged));
    }
    in.report.rows.clear();
  }

  bool dropped_profile_timings() const { return dropped_profile_timings_; }

 private:
  //! The merged id of a case, adding the case on its first appearance.
  std::string case_id(const CaseEntry& c, const std::string& request) {
    const auto [it, fresh] = case_ids_.emplace(request, fmt::format("c{}", out_.cases.size()));
    if (fresh) {
      CaseEntry merged = c;
      merged.id = it->second;
      out_.cases.push_back(std::move(merged));
    }
    return it->second;
  }

  Report& out_;
  bool dropped_profile_timings_ = false;
  std::map<std::string, std::string> case_ids_;
  std::map<RowIdentity, std::string> row_sources_;
};

std::vector<Source> provenance(const std::vector<MergeInput>& inputs) {
  std::vector<Source> sources;
  for (const MergeInput& in : inputs) {
    sources.push_back({in.report.generated_at, in.report.tool.git_revision, in.report.method.seed});
    sources.insert(sources.end(), in.report.merged_from.begin(), in.report.merged_from.end());
  }
  return sources;
}

//! The inputs' foreign providers, each distinct entry once: shards on other machines may have run their
//! workers on another runtime, and the merge keeps both rather than the first's alone.
std::vector<ProviderEntry> providers_of(const std::vector<MergeInput>& inputs) {
  std::vector<ProviderEntry> providers;
  for (const MergeInput& in : inputs)
    for (const ProviderEntry& p : in.report.providers)
      if (std::find(providers.begin(), providers.end(), p) == providers.end()) providers.push_back(p);
  return providers;
}

//! The first input's scope, saying once (also when merging merged reports) whose metadata the merge kept.
std::vector<std::string> merged_scope(std::vector<std::string> scope, std::size_t inputs) {
  const std::string marker = "Merged from ";
  std::erase_if(scope, [&](const std::string& line) { return line.starts_with(marker); });
  scope.push_back(
      fmt::format("{}{} reports (merged_from): tool, environment and method are those of the first; "
                  "the other shards may have run on other machines.",
                  marker, inputs));
  return scope;
}

//! Which shards of how many the inputs are; nullopt when none is a shard report. Every input must then be one
//! shard of the same count, each index once.
std::optional<ShardCoverage> shards_of(const std::vector<MergeInput>& inputs, std::int64_t expected) {
  const auto is_shard = [](const MergeInput& in) { return in.report.method.shard.has_value(); };
  if (std::none_of(inputs.begin(), inputs.end(), is_shard)) {
    if (expected > 0)
      throw InputError(fmt::format("--shards {}: the reports are not shard reports (no method.shard)", expected));
    return std::nullopt;
  }
  ShardCoverage s;
  s.count = expected > 0 ? expected : inputs.front().report.method.shard.value_or(ShardOf{}).count;
  std::map<std::int64_t, std::string> seen;
  for (const MergeInput& in : inputs) {
    if (!is_shard(in))
      throw InputError(
          fmt::format("cannot merge shard reports with a whole report: {} has no method.shard", in.source));
    const ShardOf& shard = *in.report.method.shard;
    if (shard.count != s.count)
      throw InputError(
          fmt::format("{} is shard {} of {}, but the run has {} shards", in.source, shard.index, shard.count, s.count));
    if (const auto [it, fresh] = seen.emplace(shard.index, in.source); !fresh)
      throw InputError(fmt::format("shard {} of {} is in both {} and {}", shard.index, s.count, it->second, in.source));
    if (in.report.interrupted) s.interrupted.push_back(shard.index);
  }
  for (std::int64_t i = 0; i < s.count; ++i) (seen.count(i) ? s.merged : s.missing).push_back(i);
  std::sort(s.interrupted.begin(), s.interrupted.end());
  return s;
}

//! Why a merge covers less than its run planned: shards without a report, shards and reports cut short.
std::optional<std::string> incompleteness(const std::vector<MergeInput>& inputs,
                                          const std::optional<ShardCoverage>& shards) {
  std::vector<std::string> what;
  if (shards && !shards->missing.empty())
    what.push_back(fmt::format("{} of {} shards wrote no report (shard {}: failed, preempted or never started)",
                               shards->missing.size(), shards->count, fmt::join(shards->missing, ", ")));
  std::vector<std::string> cut;
  for (const auto& in : inputs)
    if (in.report.interrupted)
      cut.push_back(in.report.method.shard
                        ? fmt::format("shard {} ({})", in.report.method.shard->index, *in.report.interrupted)
                        : fmt::format("{} ({})", in.source, *in.report.interrupted));
  if (!cut.empty())
    what.push_back(fmt::format("{} of {} {} were interrupted: {}", cut.size(),
                               shards ? shards->count : std::ssize(inputs), shards ? "shards" : "shard reports",
                               fmt::join(cut, "; ")));
  if (what.empty()) return std::nullopt;
  return fmt::format("{}.", fmt::join(what, "; "));
}

}  // namespace

Report merge_reports(std::vector<MergeInput> inputs, std::int64_t expected_shards) {
  const std::optional<ShardCoverage> shards = shards_of(inputs, expected_shards);
  check_compatible(inputs, shards.has_value());
  const Report& first = inputs.front().report;
  Report out;
  out.label = first.label;
  out.generated_at = utc_now();
  out.tool = first.tool;
  out.environment = first.environment;
  out.method = first.method;
  out.policy = first.policy;
  out.scope = merged_scope(first.scope, inputs.size());
  Merger merger(out);
  for (MergeInput& in : inputs) {
    merger.add(in);
    out.coverage.backends_total = std::max(out.coverage.backends_total, in.report.coverage.backends_total);
  }
  if (merger.dropped_profile_timings())
    out.scope.push_back(
        "The shards' joined speed profiles were not merged: join the profile to this report with "
        "`scancheck render REPORT --timings PROFILE.json --out DIR`.");
  out.merged_from = provenance(inputs);
  out.providers = providers_of(inputs);
  out.method.shard.reset();  // the merge is the run, not one of its parts
  std::erase_if(out.scope, [](const std::string& line) { return line.starts_with("Shard "); });
  out.coverage.shards = shards;
  // A merge of interrupted or missing shards is interrupted: it covers less than its run planned.
  out.interrupted = incompleteness(inputs, shards);
  summarise(out);
  return out;
}

}  // namespace scancheck::reports
