// SPDX-License-Identifier: Apache-2.0
//! @file
//! Long property runs over random cases (`scancheck fuzz`, the soak tests). The candidates fall into groups
//! of one architecture, io dtype and constraints, which take turns; case i of a group is the search's case
//! at case_address(seed, shard, i) (properties/search.hpp), drawn from the group's generator
//! (generators.hpp) at a size that cycles through 0..100, so small and large cases alternate from the first
//! case on, shards never share a stream, and a group's cases do not depend on which other groups run.
//! Every backend of the group is judged against one shared reference; each failing backend is then shrunk
//! alone by the search's shrinking and becomes a Finding (properties/finding.hpp), saved with its repro.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/generate.hpp"
#include "properties/finding.hpp"
#include "properties/policy.hpp"
#include "reference/reference.hpp"

namespace scancheck {

struct FuzzOptions {
  std::vector<const BackendInfo*> backends;  //!< the candidates; each case runs those of its arch and dtype
  std::uint64_t seed = 1;
  std::int64_t shard = 0, shards = 1;
  std::optional<std::int64_t> cases;  //!< cases per group: every backend is judged on this many ...
  std::optional<double> seconds;      //!< ... unless this time runs out first
  //! False: a backend is judged until its first failure. True: on every case of its group, the first
  //! failure shrunk and saved as ever, the later ones counted (BackendTally), for a failure rate.
  bool keep_going = false;
  Executor executor = Executor::host;
  TolerancePolicy policy;
  int reference_threads = 0;
  Precision reference_precision = Precision::tiered;  //!< tiered, or float128 (the fuzz benchmark's baseline)
  std::optional<std::filesystem::path> findings;      //!< where shrunk failing cases are saved
  std::vector<Regime> regimes{Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip};
  const std::atomic<bool>* stop = nullptr;  //!< set (e.g. by SIGINT) to stop after the current case
};

//! How often one backend failed: `failed` of the `judged` cases it ran on (a run not attempted, its worker
//! given up, is not judged).
struct BackendTally {
  std::string backend;
  std::int64_t judged = 0, failed = 0;
};

struct FuzzProgress {
  std::int64_t cases = 0, checks = 0;  //!< cases run (every group's), backend runs judged
  std::int64_t groups = 0;             //!< groups of architecture, io dtype and constraints
  std::int64_t fewest = 0, most = 0;   //!< the cases of the group that ran the fewest and of the one that ran the most
  //! With FuzzOptions::cases: the cases the run holds when done (groups whose every backend failed stop early).
  std::int64_t planned = 0;
  std::vector<BackendTally> tallies;  //!< per candidate, in the order of FuzzOptions::backends
  double elapsed = 0;
  double reference_seconds = 0;  //!< of elapsed, spent computing the cases' references (shrinking excluded)
  std::vector<Finding> findings;
  std::vector<std::filesystem::path> saved;  //!< beside findings: where each was saved (empty: not saved)
  bool interrupted = false;
};

//! The property id of fuzz findings: the differential check against the reference.
inline constexpr const char* fuzz_property = "agrees_with_reference";

//! Case `index` of the stream (seed, shard) for one architecture and io dtype.
CaseRequest fuzz_case(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture, DType);

//! Runs until a budget is spent or `stop` is set; calls `report` after every case (progress display).
FuzzProgress fuzz(const FuzzOptions&, const std::function<void(const FuzzProgress&)>& report = {});

}  // namespace scancheck
