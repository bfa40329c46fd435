// SPDX-License-Identifier: Apache-2.0
//! @file
//! A reusable failure search over generated cases (generators.hpp): RapidCheck draws case requests, a
//! predicate judges each case, and the first failure is shrunk by RapidCheck to a minimal failing request.
//! Used by the property tests, the mutation test and `scancheck fuzz`.
//!
//! RapidCheck runs programmatically (rc::detail::checkProperty with explicit TestParams, a silent listener
//! and a reproduce map), so the search is independent of the global RC_PARAMS unless the caller takes its
//! options from them (SearchOptions::from_rc_params). The finding is the last failing invocation RapidCheck
//! made, which is the fully shrunk one (RapidCheck re-runs the minimal case last). Its `rc_reproduce` line,
//! `RC_PARAMS="reproduce=..."`, replays exactly that case when the same property id runs again with options
//! from from_rc_params (or with SearchOptions::reproduce set to its value).
//!
//! A predicate may draw further values with `*rc::gen::...` (a backend, a position to perturb): they are
//! part of the same RapidCheck case, shrink after the request and replay with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "core/case.hpp"
#include "core/generate.hpp"
#include "properties/generators.hpp"

namespace scancheck {

//! What a predicate reports for a failing case. Implicitly made from the message alone, so a predicate
//! returning std::optional<std::string> fits too.
struct PropertyFailure {
  PropertyFailure(std::string message_, std::string backend_ = {}) // NOLINT: implicit by design
      : message(std::move(message_)), backend(std::move(backend_)) {}
  std::string message;
  std::string backend;  //!< the backend the failure is about (named in the repro command); empty when none
  //! Further cases worth keeping beside the failing one (e.g. its perturbed copy), saved as subdirectories
  //! under these names.
  std::vector<std::pair<std::string, Case>> related;
};

using FailureOf = std::function<std::optional<PropertyFailure>(const Case&)>;

struct SearchOptions {
  std::string id = "scancheck";  //!< the property's name in RapidCheck reproduce strings
  int max_success = 100;         //!< cases to try
  int max_size = 100;            //!< RapidCheck sizes run from 0 to this, spread evenly over the cases
  std::uint64_t seed = 0;
  bool shrink = true;
  //! A RapidCheck reproduce string (the value after "reproduce="): replay the case it names for this id
  //! instead of searching. A string naming other ids only runs nothing (RapidCheck's rule).
  std::string reproduce;

  //! Options for property `id`: `max_success`, `max_size`, `seed`, `noshrink` and `reproduce` from RC_PARAMS
  //! where it sets them, the given defaults otherwise (the seed then is RapidCheck's, random per run unless
  //! RC_PARAMS fixes it).
  static SearchOptions from_rc_params(std::string id, int default_cases, int default_max_size);
};

struct SearchFinding {
  std::string id;               //!< the property
  CaseRequest request;          //!< the shrunk failing request
  std::string message;
  std::string backend;
  std::vector<std::pair<std::string, Case>> related;
  int cases_until_failure = 0;  //!< cases run up to and including the first failing one
  int shrink_steps = 0;         //!< accepted shrinks
  int shrink_tries = 0;         //!< shrinks tried
  std::uint64_t seed = 0;       //!< the search's seed
  std::string rc_reproduce;     //!< RC_PARAMS="reproduce=..." replaying the shrunk case; empty if unobtainable
};

struct SearchOutcome {
  int cases = 0;  //!< cases run (with a finding: until the first failure)
  std::optional<SearchFinding> finding;
};

//! Runs `failure_of` on cases from `generator`; an exception escaping it (or make_case) is a failure too.
SearchOutcome search(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator, const SearchOptions&);
//! On gen_case_request(arch, io, generator_options).
SearchOutcome search(const FailureOf& failure_of, Architecture, DType io, const SearchOptions&,
                     const GeneratorOptions& generator_options = {});

std::optional<SearchFinding> find_failure(const FailureOf& failure_of, Architecture, DType io,
                                          const SearchOptions&, const GeneratorOptions& generator_options = {});

//! The lines that reproduce a finding: the RC_PARAMS replay and, when it names a backend, the
//! `scancheck check` of the saved case directory `case_dir`.
std::vector<std::string> repro_lines(const SearchFinding&, const std::filesystem::path& case_dir);

//! Saves the finding under `findings_dir` (created if needed) as a directory named after the property, the
//! seed and the shrunk shape, written atomically: case/ (the shrunk case, save_case), one subdirectory per
//! related case, finding.json (property, message, backend, request, cases until failure, shrink steps,
//! RC_PARAMS line, repro commands) and README.txt (the repro lines). Returns the directory.
std::filesystem::path save_finding(const SearchFinding&, const std::filesystem::path& findings_dir);

}  // namespace scancheck
