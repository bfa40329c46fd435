// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: how the HTML page groups a report's rows: per (architecture, io dtype) for the
//! error and ulp plots, per architecture for the heat maps and verdict tables, and the backends of a group
//! in the runner's order.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::render::detail {

//! Pointers into Report::rows, in report order.
using RowSet = std::vector<const reports::Row*>;
using GroupKey = std::pair<Architecture, DType>;

std::map<GroupKey, RowSet> rows_by_group(const reports::Report&);
std::map<Architecture, RowSet> rows_by_architecture(const reports::Report&);

//! The backends of `rows` in the order they first appear (the runner's registry order).
std::vector<std::string> backends_in(const RowSet& rows);

//! "rglru · float32": a group's heading.
std::string group_title(const GroupKey&);

//! The largest scaled error of a row's tensors; absent when it has none (the run failed).
std::optional<double> row_scaled_error(const reports::Row&);

}  // namespace scancheck::render::detail
