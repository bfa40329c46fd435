// SPDX-License-Identifier: Apache-2.0
//! @file
//! The six properties of every backend (properties/backend_properties.hpp: agrees_with_reference,
//! deterministic, writes_every_output, causal_and_local, batch_permutation, nan_reaches_dependents), checked
//! by the failure search (properties/search.hpp) for each architecture x io dtype. `scancheck property NAME`
//! runs the same searches from the command line.
//!
//! Each property tries a moderate number of cases (RC_PARAMS="max_success=N max_size=S" overrides) with
//! RapidCheck's seed (random per run; RC_PARAMS="seed=N" fixes it). A failure is shrunk, saved under
//! $SCANCHECK_FINDINGS (default: <build>/findings) and reported with its repro lines: the
//! RC_PARAMS="reproduce=..." that replays it here (one property at a time: the others then run no case), and
//! `scancheck check --case DIR --backend NAME` (which re-judges the saved case against the reference; for
//! the properties other than agrees_with_reference the finding directory also holds the changed case).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/backend.hpp"
#include "properties/backend_properties.hpp"
#include "properties/search.hpp"

#include "tests/properties/architecture_params.hpp"

namespace {

using namespace scancheck;

using Param = test::ArchitectureParam;
using test::name_of;

//! $SCANCHECK_FINDINGS, else the build tree's findings/ (SCANCHECK_FINDINGS_DEFAULT), else <temp>/scancheck-findings.
std::filesystem::path findings_dir() {
  if (const char* env = std::getenv("SCANCHECK_FINDINGS"); env && *env) return env;
#ifdef SCANCHECK_FINDINGS_DEFAULT
  return SCANCHECK_FINDINGS_DEFAULT;
#else
  return std::filesystem::temp_directory_path() / "scancheck-findings";
#endif
}

class BackendProperties : public testing::TestWithParam<Param> {
 protected:
  //! Searches the property's default number of cases (RC_PARAMS overrides) for a failure; a finding fails
  //! the test with its repro and is saved.
  void expect_holds(std::string_view name) {
    const BackendProperty& property = find_property(name);
    const Param p = GetParam();
    const std::string id = property_id(property, p.architecture, p.io_dtype);
    const SearchOptions options = SearchOptions::from_rc_params(id, property.default_cases, property.default_max_size);
    const auto start = std::chrono::steady_clock::now();
    const SearchOutcome out =
        search(property.make(p.architecture, p.io_dtype), p.architecture, p.io_dtype, options, property.generator);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!out.finding) {
      std::printf("%s: %d cases (max size %d, seed %llu) in %.2f s\n", id.c_str(), out.cases, options.max_size,
                  static_cast<unsigned long long>(options.seed), seconds);
      return;
    }
    const Finding& f = *out.finding;
    std::filesystem::path dir;
    std::string saved;
    try {
      dir = save_finding(f, findings_dir());
      saved = dir.string();
    } catch (const std::exception& e) {
      saved = fmt::format("(not saved: {})", e.what());
    }
    ADD_FAILURE() << id << " fails after " << f.cases_until_failure << " cases; shrunk in " << f.shrink_steps
                  << " steps (" << f.shrink_tries << " tried) to\n  " << to_string(f.request) << "\n"
                  << f.message << "\nsaved: " << saved << "\nrepro:\n  "
                  << fmt::format("{}", fmt::join(repro_lines(f, dir / "case"), "\n  "));
  }
};

TEST_P(BackendProperties, AgreesWithReference) { expect_holds("agrees_with_reference"); }
TEST_P(BackendProperties, Deterministic) { expect_holds("deterministic"); }
TEST_P(BackendProperties, WritesEveryOutput) { expect_holds("writes_every_output"); }
TEST_P(BackendProperties, CausalAndLocal) { expect_holds("causal_and_local"); }
TEST_P(BackendProperties, BatchPermutation) { expect_holds("batch_permutation"); }
TEST_P(BackendProperties, NaNReachesDependents) { expect_holds("nan_reaches_dependents"); }

INSTANTIATE_TEST_SUITE_P(AllArchitectures, BackendProperties, test::all_architecture_params(), name_of);

}  // namespace
