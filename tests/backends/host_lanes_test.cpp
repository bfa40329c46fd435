// SPDX-License-Identifier: Apache-2.0
//! @file
//! The host executor's tile width does not change a result. Its programs own HostExecutor::lanes = 1024
//! channels (whole rows at every width the other suites use, host_executor.hpp), so the backend suites
//! never run a body on more than one channel tile or on a partial tile that starts past channel 0. Here
//! every built-in backend runs on one case per architecture and io dtype under the production executor
//! (the library's run_*_host) and under an executor of 8 lanes (9 tiles, the last partial), and the outputs
//! must agree bit for bit: every lane performs the same operations whatever its tile
//! (affine_scan/schedules.hpp, Lanes), so any difference is a body that indexes its tile wrongly. One narrow
//! width only: each width instantiates every kernel again (this file took 90 s to compile under ASan with
//! two).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "backends/backend.hpp"
#include "backends/case_arrays.hpp"
#include "backends/gated_run.hpp"
#include "backends/host/host_executor.hpp"
#include "backends/scan_run.hpp"
#include "core/architectures.hpp"
#include "core/generate.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace scancheck;

//! The host executor with programs of V channels; everything else is the production executor's.
template <int V>
struct NarrowHostExecutor : backends::HostExecutor {
  static constexpr int lanes = V;
  NarrowHostExecutor() : HostExecutor(1) {}
};

//! B = 2, L = 37 (chunks of 16: two whole and one partial, so chunked schedules cross chunks and groups are
//! partial), 5 heads of 14 channels: W = 70 state channels, 9 tiles of 8 lanes (the last of 6). Resets, so
//! the gated decays take both branches.
const Case& case_of(Architecture a, DType io_dtype) {
  static std::map<std::pair<Architecture, DType>, Case> cases;
  const auto key = std::make_pair(a, io_dtype);
  auto it = cases.find(key);
  if (it == cases.end()) {
    CaseRequest r;
    r.architecture = a;
    r.shape = {2, 37, 70 * (describe(a).complex ? 2 : 1), 5};
    r.seed = 4242;
    r.regime = Regime::resets;
    r.io_dtype = io_dtype;
    it = cases.emplace(key, make_case(r)).first;
  }
  return it->second;
}

//! One run of `backend` on the narrow executor, outputs as run_backend returns them.
Outputs run_narrow(const BackendInfo& backend, const Case& c) {
  NarrowHostExecutor<8> ex;
  Outputs out = backends::output_tensors(c);
  const Variant& v = *backend.builtin;
  if (describe(c.architecture).family == Family::gated_layer)
    backends::run_gated(ex, backends::gated_arrays(c, &out), v.flags, v.schedule);
  else backends::run_scan(ex, backends::scan_arrays(c, &out), v.schedule);
  return out;
}

//! The same run on the production host executor, one thread (the library's instantiation).
Outputs run_production(const BackendInfo& backend, const Case& c) {
  Outputs out = backends::output_tensors(c);
  const Variant& v = *backend.builtin;
  if (describe(c.architecture).family == Family::gated_layer)
    backends::run_gated_host(backends::gated_arrays(c, &out), v.flags, v.schedule, 1);
  else backends::run_scan_host(backends::scan_arrays(c, &out), v.schedule, 1);
  return out;
}

void expect_same_bits(const Outputs& got, const Outputs& want, const std::string& executor) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, w] : want) {
    const Tensor<float>& g = got.at(name);
    if (test::bitwise_equal(g, w)) continue;
    std::int64_t first = 0;
    while (first < g.size() && std::memcmp(&g[first], &w[first], sizeof(float)) == 0) ++first;
    ADD_FAILURE() << name << " under " << executor << " differs from the production executor's at flat index " << first
                  << ": " << g[first] << " vs " << w[first];
  }
}

TEST(HostLanes, EveryBuiltinBackendGivesTheSameBitsWhateverTheTileWidth) {
  static_assert(backends::HostExecutor::lanes > 70, "the production executor owns the case's whole rows");
  int backends_run = 0;
  for (const BackendInfo& b : registry()) {
    if (!b.builtin) continue;
    SCOPED_TRACE(b.name);
    const Case& c = case_of(b.architecture, b.io_dtype);
    expect_same_bits(run_narrow(b, c), run_production(b, c), "8 lanes");
    ++backends_run;
  }
  EXPECT_GT(backends_run, 0);
}

}  // namespace
