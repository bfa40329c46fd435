// SPDX-License-Identifier: Apache-2.0
//! @file
//! Long property runs over random cases (`scancheck fuzz`, the soak tests). Case i of the stream
//! (seed, shard) is the search's case at case_address(seed, shard, i) (properties/search.hpp), drawn from
//! the generators (generators.hpp) at a size that cycles through 0..100, so small and large cases alternate
//! from the first case on and shards never share a stream. Every backend of the case's architecture and
//! io dtype that matches is judged against one shared reference; each failing backend is then shrunk alone
//! by the search's shrinking and becomes a Finding (properties/finding.hpp), saved with its repro.
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
  std::optional<std::int64_t> cases;         //!< stop after this many cases ...
  std::optional<double> seconds;             //!< ... or after this long (whichever comes first)
  Executor executor = Executor::host;
  TolerancePolicy policy;
  int reference_threads = 0;
  Precision reference_precision = Precision::tiered;  //!< tiered, or float128 (the fuzz benchmark's baseline)
  std::optional<std::filesystem::path> findings;  //!< where shrunk failing cases are saved
  std::vector<Regime> regimes{Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip};
  const std::atomic<bool>* stop = nullptr;        //!< set (e.g. by SIGINT) to stop after the current case
};

struct FuzzProgress {
  std::int64_t cases = 0, checks = 0;  //!< cases run, backend runs judged
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
