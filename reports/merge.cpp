// SPDX-License-Identifier: Apache-2.0
#include "reports/merge.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "reports/diff.hpp"

namespace scancheck::reports {
namespace {

void check_compatible(const std::vector<MergeInput>& inputs) {
  if (inputs.size() < 2)
    throw InputError(fmt::format("merge needs at least two reports, got {}", inputs.size()));
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

  void add(const MergeInput& in) {
    for (const Row& row : in.report.rows) {
      const RowIdentity id = row_identity(in.report, row);
      const auto [seen, fresh] = row_sources_.emplace(id, in.source);
      if (!fresh)
        throw InputError(fmt::format("duplicate row: {} {} on case {} is in both {} and {}", id.backend,
                                     to_string(id.direction), id.request, seen->second, in.source));
      Row merged = row;
      merged.case_id = case_id(in.report.case_of(row), id.request);
      out_.rows.push_back(std::move(merged));
    }
  }

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

//! The first input's scope, saying once (also when merging merged reports) whose metadata the merge kept.
std::vector<std::string> merged_scope(std::vector<std::string> scope, std::size_t inputs) {
  const std::string marker = "Merged from ";
  std::erase_if(scope, [&](const std::string& line) { return line.starts_with(marker); });
  scope.push_back(fmt::format("{}{} reports (merged_from): tool, environment and method are those of the first; "
                              "the other shards may have run on other machines.",
                              marker, inputs));
  return scope;
}

}  // namespace

Report merge_reports(const std::vector<MergeInput>& inputs) {
  check_compatible(inputs);
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
  for (const MergeInput& in : inputs) {
    merger.add(in);
    out.coverage.backends_total = std::max(out.coverage.backends_total, in.report.coverage.backends_total);
  }
  out.merged_from = provenance(inputs);
  // A merge of interrupted shards is interrupted: it covers less than its shards planned.
  std::vector<std::string> cut;
  for (const auto& in : inputs)
    if (in.report.interrupted) cut.push_back(fmt::format("{} ({})", in.source, *in.report.interrupted));
  if (!cut.empty())
    out.interrupted = fmt::format("{} of {} shard reports were interrupted: {}.", cut.size(), inputs.size(),
                                  fmt::join(cut, "; "));
  summarise(out);
  return out;
}

}  // namespace scancheck::reports
