// SPDX-License-Identifier: Apache-2.0
//! @file
//! Long property runs over random cases (`scancheck fuzz`, the soak tests): cases drawn from the
//! generators (generators.hpp) by a RapidCheck Random keyed by (seed, shard, index), so a case is
//! reproducible from those three numbers and shards never share a stream; every backend of the case's
//! architecture and io dtype that matches is judged against one shared reference; a failure is shrunk
//! (greedily along the generator's shrink tree, re-judging only the failing backend) and saved as a
//! finding directory with its repro.
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
#include "properties/policy.hpp"

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
  std::optional<std::filesystem::path> findings;  //!< where shrunk failing cases are saved
  const std::atomic<bool>* stop = nullptr;        //!< set (e.g. by SIGINT) to stop after the current case
};

struct Finding {
  std::string backend;
  std::string reason;          //!< the first failed rule
  CaseRequest original, shrunk;
  std::int64_t case_index = 0; //!< cases run before it was found (1-based)
  int shrink_steps = 0;
  std::optional<std::filesystem::path> saved;  //!< the case directory, when saved
};

struct FuzzProgress {
  std::int64_t cases = 0, checks = 0;  //!< cases run, backend runs judged
  double elapsed = 0;
  std::vector<Finding> findings;
  bool interrupted = false;
};

//! Case `index` of the stream (seed, shard): the architecture and dtype of `groups[index % groups.size()]`.
CaseRequest fuzz_case(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture, DType);

//! Runs until a budget is spent or `stop` is set; calls `report` after every case (progress display).
FuzzProgress fuzz(const FuzzOptions&, const std::function<void(const FuzzProgress&)>& report = {});

//! A request as a CLI fragment: --arch A --shape B,L,W,H --seed S --regime R --io-dtype D ...
std::string describe_request(const CaseRequest&);

}  // namespace scancheck
