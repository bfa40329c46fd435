// SPDX-License-Identifier: Apache-2.0
#include "render/row_groups.hpp"

#include <set>

#include <fmt/format.h>

#include "reports/summary.hpp"

namespace scancheck::render::detail {

using namespace reports;  // the model rendered here

std::map<GroupKey, RowSet> rows_by_group(const Report& r) {
  std::map<GroupKey, RowSet> out;
  for (const Row& row : r.rows) out[{row.architecture, row.io_dtype}].push_back(&row);
  return out;
}

std::map<Architecture, RowSet> rows_by_architecture(const Report& r) {
  std::map<Architecture, RowSet> out;
  for (const Row& row : r.rows) out[row.architecture].push_back(&row);
  return out;
}

std::vector<std::string> backends_in(const RowSet& rows) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Row* row : rows)
    if (seen.insert(row->backend).second) out.push_back(row->backend);
  return out;
}

std::string group_title(const GroupKey& g) { return fmt::format("{} · {}", to_string(g.first), to_string(g.second)); }

std::optional<double> row_scaled_error(const Row& row) {
  std::optional<double> out;
  for (const TensorEntry& t : row.tensors) fold_max(out, scaled_error(t.metrics));
  return out;
}

}  // namespace scancheck::render::detail
