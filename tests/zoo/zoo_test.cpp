// SPDX-License-Identifier: Apache-2.0
//! @file
//! Every evaluation order of the zoo (order_zoo.hpp), with the registered backends whose orders differ from
//! the sequential one (local_chunk64, tree_chunk32, chunk{C}, hierarchical), passes the default tolerance
//! policy on random cases of every architecture, io dtype and regime: the order-free bound accepts what
//! correct kernels compute in any order (docs/tolerance.md, "Every evaluation order"). Cases per
//! architecture and io dtype from SCANCHECK_ZOO_CASES: 40 in the default suite (label property), 2,500 on
//! demand (label soak, `ctest --preset soak -R zoo`): 10,000 cases for the orders of the plain scans alone
//! (autograd, FMA), 20,000 for the schedules, every order judged on each case of its architecture.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "core/architectures.hpp"
#include "properties/fuzz.hpp"
#include "tests/zoo/order_zoo.hpp"

namespace {

using namespace scancheck;

std::int64_t cases_per_group() {
  const char* text = std::getenv("SCANCHECK_ZOO_CASES");
  return text ? std::atoll(text) : 40;
}

TEST(OrderZoo, EveryOrderPassesTheDefaultPolicy) {
  FuzzOptions o;
  for (const BackendInfo& b : registry())  // the registered orders other than the sequential one
    if (b.builtin && b.builtin->flags == VariantFlags{} && b.builtin->schedule.kind != Schedule::Kind::sequential)
      o.backends.push_back(&b);
  std::map<std::string, int> per_order;
  for (BackendInfo& b : zoo::order_zoo()) {  // registered here, in this test process only, like a worker's
    ++per_order[b.variant];
    o.backends.push_back(&registry().add(std::move(b)));
  }
  o.seed = 2032;
  o.cases = cases_per_group();
  o.reference_threads = 1;
  const FuzzProgress p = fuzz(o, [](const FuzzProgress& progress) {
    if (progress.cases % 200 == 0)
      std::printf("[ zoo ] %lld cases, %lld backend runs, %zu failures, %.0f s\n",
                  static_cast<long long>(progress.cases), static_cast<long long>(progress.checks),
                  progress.findings.size(), progress.elapsed);
  });
  std::printf(
      "[ zoo ] %zu backends (%zu zoo orders), %lld cases, %lld backend runs, %zu failures in %.1f s (seed %llu)\n",
      o.backends.size(), per_order.size(), static_cast<long long>(p.cases), static_cast<long long>(p.checks),
      p.findings.size(), p.elapsed, static_cast<unsigned long long>(o.seed));
  EXPECT_EQ(p.groups, static_cast<std::int64_t>(std::size(architecture_descriptors)) * 2);  // and io dtypes
  EXPECT_EQ(p.cases, *o.cases * p.groups);
  for (const Finding& f : p.findings)
    ADD_FAILURE() << f.backend << " on case " << f.cases_until_failure << ", shrunk to " << to_string(f.request) << ": "
                  << f.message;
}

}  // namespace
