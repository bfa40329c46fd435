// SPDX-License-Identifier: Apache-2.0
//! @file
//! The one failure search over generated cases (generators.hpp) and its one shrinking, shared by the
//! backend properties, `scancheck fuzz` and the mutation test. A predicate judges a case; the first failing
//! case is shrunk and reported as a Finding (properties/finding.hpp).
//!
//! The search drives RapidCheck's generators and shrink trees itself: case i of a stream is the case
//! RapidCheck generates from rc::Random(key(seed, shard, i)) at a size that spreads 0..max_size over the
//! cases, and shrinking is a greedy descent of its shrink tree (the first smaller case that still fails is
//! accepted, then its shrinks are tried, until none fails: RapidCheck's own rule). Each step's path is
//! recorded, so a finding carries an `RC_PARAMS="reproduce=..."` line that replays the shrunk case when the
//! same property id runs again with options from from_rc_params (or SearchOptions::reproduce set).
//!
//! A predicate may draw further values with `*rc::gen::...` (a backend, a position to perturb): they are
//! part of the same RapidCheck case, shrink after the request and replay with it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "core/case.hpp"
#include "core/generate.hpp"
#include "properties/finding.hpp"
#include "properties/generators.hpp"

namespace scancheck {

//! What a predicate reports for a failing case. Implicitly made from the message alone, so a predicate
//! returning std::optional<std::string> fits too.
struct PropertyFailure {
  PropertyFailure(std::string message_, std::string backend_ = {})  // NOLINT: implicit by design
      : message(std::move(message_)), backend(std::move(backend_)) {}
  std::string message;
  std::string backend;  //!< the backend the failure is about (named in the repro command); empty when none
  std::string log;      //!< a worker's last stderr lines, when its run failed
  //! Further cases worth keeping beside the failing one (e.g. its perturbed copy), saved as subdirectories
  //! under these names.
  std::vector<std::pair<std::string, Case>> related;
};

using FailureOf = std::function<std::optional<PropertyFailure>(const Case&)>;

struct SearchOptions {
  std::string id = "scancheck";  //!< the property's name in reproduce strings and findings
  int max_success = 100;         //!< cases to try
  int max_size = 100;            //!< sizes run from 0 to this, spread evenly over the cases
  std::uint64_t seed = 0;
  std::int64_t shard = 0;  //!< disjoint streams of one seed (scancheck fuzz --shard)
  bool shrink = true;
  //! A RapidCheck reproduce string (the value after "reproduce="): replay the case it names for this id
  //! instead of searching. A string naming other ids only runs nothing (RapidCheck's rule).
  std::string reproduce;
  const std::atomic<bool>* stop = nullptr;  //!< set (e.g. by SIGINT) to stop searching or shrinking

  //! Options for property `id`: `max_success`, `max_size`, `seed`, `noshrink` and `reproduce` from RC_PARAMS
  //! where it sets them, the given defaults otherwise (the seed then is RapidCheck's, random per run unless
  //! RC_PARAMS fixes it).
  static SearchOptions from_rc_params(std::string id, int default_cases, int default_max_size);
};

struct SearchOutcome {
  int cases = 0;  //!< cases run (with a finding: until the first failure)
  std::optional<Finding> finding;
};

//! Where a case of a stream lives: the random and size it is drawn at, and the path of shrink-child indices
//! from that draw down to it (RapidCheck's reproduce triple, held in public types).
struct CaseAddress {
  rc::Random random;
  int size = 0;
  std::vector<std::size_t> shrink_path;
};
//! Case `index` of the stream (seed, shard) at `size`.
CaseAddress case_address(std::uint64_t seed, std::int64_t shard, std::int64_t index, int size);
//! The request a search's property draws from `generator` at `address` (a property draws through its own
//! split of the random, so this is not generator(random, size)).
CaseRequest request_at(const rc::Gen<CaseRequest>& generator, const CaseAddress& address);

//! Runs `failure_of` on cases from `generator`; an exception escaping it (or make_case) is a failure too.
SearchOutcome search(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator, const SearchOptions&);
//! On gen_case_request(arch, io, generator_options).
SearchOutcome search(const FailureOf& failure_of, Architecture, DType io, const SearchOptions&,
                     const GeneratorOptions& generator_options = {});
std::optional<Finding> find_failure(const FailureOf& failure_of, Architecture, DType io, const SearchOptions&,
                                    const GeneratorOptions& generator_options = {});

//! The finding of the case at `address` when `failure_of` fails it, shrunk unless options.shrink is false:
//! for a search that found its failure by other means (fuzz judges many backends on one case, then
//! shrinks each failing one alone). `cases_until_failure` is left to the caller.
std::optional<Finding> shrink_failure(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator,
                                      const CaseAddress& address, const SearchOptions&);

}  // namespace scancheck
