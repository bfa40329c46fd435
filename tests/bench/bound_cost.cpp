// SPDX-License-Identifier: Apache-2.0
//! @file
//! What the order-free bound costs (reference/order_free_bound.hpp): how much looser it is than the bound of
//! the sequential order alone (before 2026-12) and how much longer it takes to compute, on the soak's cases
//! (properties/fuzz.hpp: the case stream of `scancheck fuzz`, seed 2026). For each architecture, regime and io
//! dtype: the median and the largest of bound(every order) / bound(sequential) over every element with a
//! finite positive bound, and the time of the bounds pass (float64 with bounds) in both scopes, in the same
//! run. docs/reference.md quotes a full run.
//! Usage: bound_cost [CASES per architecture and dtype, default 400]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/architectures.hpp"
#include "core/generate.hpp"
#include "properties/fuzz.hpp"
#include "reference/reference.hpp"

namespace {

using namespace scancheck;
using Clock = std::chrono::steady_clock;

struct Group {
  std::vector<double> ratios;
  double seconds_every_order = 0, seconds_sequential = 0;
};

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

//! The bounds pass of `c` in one scope, and its time.
ReferenceResult bounds_of(const Case& c, bool every_order, double& seconds) {
  ReferenceOptions o;
  o.precision = Precision::float64;
  o.threads = 1;
  o.bounds_every_order = every_order;
  const auto start = Clock::now();
  ReferenceResult r = compute_reference(c, o);
  seconds += std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t cases = argc > 1 ? std::atoll(argv[1]) : 400;
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  for (const ArchitectureDescriptor& arch : architecture_descriptors)
    for (const DType dtype : {DType::float32, DType::bfloat16})
      for (std::int64_t i = 0; i < cases; ++i) {
        const CaseRequest request = fuzz_case(2026, 0, i, arch.id, dtype);
        const Case c = make_case(request);
        Group& g = groups[{std::string(to_string(arch.id)), std::string(to_string(request.regime)),
                           std::string(to_string(dtype))}];
        // Alternated, so a slow moment of the shared machine falls on both.
        const ReferenceResult sequential = bounds_of(c, false, g.seconds_sequential);
        const ReferenceResult every = bounds_of(c, true, g.seconds_every_order);
        for (const auto& [name, bound] : every.bounds) {
          const Tensor<double>& before = sequential.bounds.at(name);
          for (std::int64_t k = 0; k < bound.size(); ++k)
            if (std::isfinite(bound[k]) && std::isfinite(before[k]) && before[k] > 0)
              g.ratios.push_back(bound[k] / before[k]);
        }
      }
  std::printf("bound(every order) / bound(sequential order), %lld cases per architecture and dtype (seed 2026)\n",
              static_cast<long long>(cases));
  std::printf("%-14s %-12s %-9s %11s %9s %9s %9s %12s\n", "architecture", "regime", "dtype", "elements", "median",
              "p99", "max", "time ratio");
  double all_every = 0, all_sequential = 0;
  for (auto& [key, g] : groups) {
    const auto& [arch, regime, dtype] = key;
    std::printf("%-14s %-12s %-9s %11zu %9.3g %9.3g %9.3g %12.3g\n", arch.c_str(), regime.c_str(), dtype.c_str(),
                g.ratios.size(), quantile(g.ratios, 0.5), quantile(g.ratios, 0.99), quantile(g.ratios, 1.0),
                g.seconds_every_order / g.seconds_sequential);
    all_every += g.seconds_every_order;
    all_sequential += g.seconds_sequential;
  }
  std::printf("bounds pass in all: %.2f s every order, %.2f s sequential order: %.3gx\n", all_every, all_sequential,
              all_every / all_sequential);
  return 0;
}
