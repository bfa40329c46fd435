// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck merge A B ... --out FILE`: one report from shard reports of the same run (model.hpp), e.g. one
//! report per backend group or per machine.
//!
//! Contract:
//!   - at least two inputs, all with the same label and the same tolerance policy (else the verdicts would
//!     not mean the same thing); shard reports (method.shard, `report --shard i/n`) may be fewer: a merge of
//!     shards knows how many there should be (from the shards or `expected_shards`) and names in
//!     coverage.shards the shards without a report (failed, preempted, never started) and those cut short
//!     (interrupted); either makes the merge interrupted, never PASS. Shards must agree on their count and
//!     not repeat an index;
//!   - no row identity (diff.hpp: case request text, backend, pass) in two inputs: a duplicate is an error
//!     naming the backend, the case and both sources;
//!   - cases are matched by their request text, so one case run against different backends in two shards
//!     is one case, and are renumbered c0, c1, ... in order of first appearance; rows keep the input order;
//!   - coverage and verdict are recomputed (summarise), backends_total is the largest of the inputs';
//!   - tool, environment, method (its seed included) and scope are the first input's; merged_from lists
//!     every input {generated_at, git_revision, method.seed}, each followed by its own merged_from;
//!     generated_at is now.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::reports {

struct MergeInput {
  std::string source;  //!< where the report came from (a file name), for error messages
  Report report;
};

//! Throws InputError for too few inputs, a label or policy mismatch, shards that disagree, or a duplicate row.
//! `expected_shards` (> 0): the run's shard count, checked against the shards' own.
//! The inputs are taken by value: their rows move into the merge (pass them with std::move to save a copy).
Report merge_reports(std::vector<MergeInput> inputs, std::int64_t expected_shards = 0);

}  // namespace scancheck::reports
