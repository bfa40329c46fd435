// SPDX-License-Identifier: Apache-2.0
//! @file
//! A correct backend never fails: random cases (properties/fuzz.hpp, every architecture and io dtype in
//! turn), each judged against one shared reference for every registered backend of its architecture and
//! dtype, under the default tolerance policy, with zero failures. The case count in all comes from
//! SCANCHECK_SOAK_CASES: ctest runs 200 in the default suite (label property) and 2,000 on demand
//! (`ctest --preset soak`, label soak), shared evenly by the architectures and io dtypes; docs/tolerance.md
//! records the last long run.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/architectures.hpp"
#include "properties/fuzz.hpp"

namespace {

using namespace scancheck;

std::int64_t soak_cases() {
  const char* text = std::getenv("SCANCHECK_SOAK_CASES");
  return text ? std::atoll(text) : 200;
}

TEST(Soak, NoCorrectBackendEverFails) {
  FuzzOptions o;
  for (const BackendInfo& b : registry()) o.backends.push_back(&b);
  o.seed = 2026;
  // fuzz counts cases per group: one per architecture and io dtype, the built-ins having no constraints.
  const auto groups = static_cast<std::int64_t>(std::size(architecture_descriptors)) * 2;
  o.cases = (soak_cases() + groups - 1) / groups;
  o.reference_threads = 1;
  const FuzzProgress p = fuzz(o, [](const FuzzProgress& progress) {
    if (progress.cases % 100 == 0)
      std::printf("[ soak ] %lld cases, %lld backend runs, %zu failures, %.0f s\n",
                  static_cast<long long>(progress.cases), static_cast<long long>(progress.checks),
                  progress.findings.size(), progress.elapsed);
  });
  std::printf("[ soak ] %lld cases, %lld backend runs, %zu failures in %.1f s (seed %llu)\n",
              static_cast<long long>(p.cases), static_cast<long long>(p.checks), p.findings.size(), p.elapsed,
              static_cast<unsigned long long>(o.seed));
  EXPECT_EQ(p.groups, groups);
  EXPECT_EQ(p.cases, *o.cases * groups);
  for (const Finding& f : p.findings)
    ADD_FAILURE() << f.backend << " on case " << f.cases_until_failure << ", shrunk to " << to_string(f.request) << ": "
                  << f.message;
}

}  // namespace
