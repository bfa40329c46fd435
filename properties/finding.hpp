// SPDX-License-Identifier: Apache-2.0
//! @file
//! A finding: a failing case, shrunk, with what failed and how to replay it. One type and one directory
//! layout for every source of failures (the backend properties, `scancheck fuzz`, the mutation test), all
//! produced by the one search and shrinking of properties/search.hpp.
//!
//! A saved finding is a directory <property>-seed<S>-B<B>-L<L>-W<W>-H<H>, written atomically:
//!   case/           the shrunk case (a case directory, docs/architecture.md "Cases")
//!   <related>/      further cases worth keeping (e.g. a property's perturbed copy)
//!   finding.json    {"format": "scancheck-finding", "version": 1, "property", "backend", "message",
//!                    "request" (core/case_request.hpp), "original_request" (or null), "related_cases",
//!                    "log", "diagnosis", "cases_until_failure", "shrink_steps", "shrink_tries", "search_seed",
//!                    "rc_params", "repro": [lines]}
//!   README.txt      the property, the request, the message and the repro lines
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case.hpp"
#include "core/generate.hpp"

namespace scancheck {

inline constexpr int finding_format_version = 1;

struct Finding {
  std::string property;                 //!< what failed: a property id, or "fuzz" for the differential check
  std::string backend;                  //!< the backend the failure is about (named in the repro); empty when none
  std::string message;                  //!< the first failed rule
  std::string log;                      //!< a worker's last stderr lines, when its run failed
  std::vector<std::string> diagnosis;   //!< where the shrunk case goes wrong (diagnosis.hpp), when known
  CaseRequest request;                  //!< the shrunk failing request
  std::optional<CaseRequest> original;  //!< the request as first found, when shrinking moved it
  //! Further cases worth keeping beside the failing one, saved as subdirectories under these names.
  std::vector<std::pair<std::string, Case>> related;
  std::int64_t cases_until_failure = 0;  //!< cases run up to and including the first failing one
  int shrink_steps = 0;                  //!< accepted shrinks
  int shrink_tries = 0;                  //!< shrinks tried
  std::uint64_t seed = 0;                //!< the search's seed
  std::string rc_reproduce;              //!< RC_PARAMS="reproduce=..." replaying the shrunk case; empty when none
};

//! The lines that reproduce a finding: the RC_PARAMS replay (when there is one) and, when it names a
//! backend, the `scancheck check` of the saved case directory `case_dir`.
std::vector<std::string> repro_lines(const Finding&, const std::filesystem::path& case_dir);

//! Saves the finding under `findings_dir` (created if needed) as the directory of the file comment.
//! Returns the directory.
std::filesystem::path save_finding(const Finding&, const std::filesystem::path& findings_dir);

//! Reads a saved finding (its directory or its finding.json) strictly; the related cases are not loaded.
//! A finding.json of an earlier scancheck (no "format") is an InputError that says so and what to do.
Finding load_finding(const std::filesystem::path&);
//! The reading of a finding.json already parsed; `source` names it in errors.
Finding finding_from_json(const nlohmann::json&, const std::string& source);

}  // namespace scancheck
