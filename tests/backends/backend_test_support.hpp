// SPDX-License-Identifier: Apache-2.0
//! @file
//! What the backend test suites share:
//!   - judging a run against the exact reference under the tolerance policy of docs/tolerance.md
//!     (judge_outputs of properties/differential.hpp with the default TolerancePolicy: per element within
//!     4x the reference's error bound, per tensor within 2x the sequential baseline's error plus a slack and
//!     an error distribution like the correct orders', no NaN/Inf disagreement); a failure prints the per-tensor table
//!     and the failed rules (format_result), the case and a `scancheck check` line that reruns it;
//!   - a process-wide cache of generated cases with, each computed once on first request, the float128
//!     reference with its float32 error bounds (one thread) and the outputs of the correct float32 orders
//!     (correct_orders of properties/differential.hpp), the two things every judgement needs;
//!   - bitwise equality of whole output sets (for what must be exact: determinism, flags that only move
//!     data, a sequential schedule against a plain loop), the cuda executor against its host twin (gpu
//!     suites), and gtest-safe backend names.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "core/generate.hpp"
#include "core/tensor.hpp"
#include "properties/differential.hpp"
#include "properties/policy.hpp"
#include "reference/reference.hpp"
#include "tests/test_support.hpp"

namespace scancheck::backend_test {

//! The case in one line: architecture, shape (B, L, W, H), io dtype, sqrt convention, which optional tensors are
//! present, and the seed and regime when the case was generated.
inline std::string describe_case(const Case& c) {
  std::string s = fmt::format("{} {} io={} sqrt_gradient={} h0={} dh_last={}", to_string(c.architecture),
                              to_string(c.shape), to_string(c.io_dtype), to_string(c.sqrt_gradient),
                              c.has("h0") ? "yes" : "no", c.has("dh_last") ? "yes" : "no");
  if (c.provenance.seed) s += fmt::format(" seed={}", *c.provenance.seed);
  if (!c.provenance.regime.empty()) s += " regime=" + c.provenance.regime;
  return s;
}

//! The command line that reruns the judgement of `backend` on the generated case `r`.
inline std::string repro_line(const CaseRequest& r, const std::string& backend, Executor executor = Executor::host) {
  return fmt::format("scancheck check {} --backend '{}'{}", to_string(r), backend,
                     executor == Executor::host ? "" : fmt::format(" --executor {}", to_string(executor)));
}

//! Judges `got`, backend `backend`'s outputs on `c`, against the reference (with bounds) and the correct
//! orders' outputs on the same case (the sequential baseline and the ensemble), under the default tolerance
//! policy (docs/tolerance.md).
//! A failing judgement is a gtest failure that prints format_result (per-tensor metrics and every failed
//! rule) and `description` (the case; a repro line where there is one). Returns the result for callers
//! that stop at the first failure or inspect the metrics.
inline BackendResult expect_passes_policy(const std::string& backend, const Case& c, const Outputs& got,
                                          const ReferenceResult& reference, const CorrectOrders& orders,
                                          const std::string& description) {
  BackendResult r = judge_outputs(backend, c, got, reference, &orders, TolerancePolicy{});
  EXPECT_TRUE(r.pass) << "tolerance policy (docs/tolerance.md):\n" << format_result(r) << "case: " << description;
  return r;
}

//! Cases and, each on first request, their float128 references with error bounds (one thread) and the
//! outputs of their correct orders (correct_orders), kept for the whole process under a suite's own key;
//! `request_of` says how a key becomes a case. Under ctest every test is its own process, so a test pays
//! for the references of its own cases only.
template <class Key>
class CaseCache {
 public:
  explicit CaseCache(CaseRequest (*request_of)(const Key&)) : request_of_(request_of) {}

  const Case& case_of(const Key& k) { return entry(k).c; }

  const ReferenceResult& reference_of(const Key& k) {
    Entry& e = entry(k);
    if (!e.reference) e.reference = std::make_unique<ReferenceResult>(reference_with_bounds(e.c, 1));
    return *e.reference;
  }

  const CorrectOrders& orders_of(const Key& k) {
    Entry& e = entry(k);
    if (!e.orders) e.orders = std::make_unique<CorrectOrders>(correct_orders(e.c));
    return *e.orders;
  }

  //! expect_passes_policy on k's case, described by its request and a repro line for `b`.
  BackendResult expect_passes(const Key& k, const BackendInfo& b, const Outputs& got,
                              Executor executor = Executor::host) {
    const CaseRequest r = request_of_(k);
    return expect_passes_policy(
        b.name, case_of(k), got, reference_of(k), orders_of(k),
        fmt::format("{}\nrepro: {}", describe_case(case_of(k)), repro_line(r, b.name, executor)));
  }

 private:
  struct Entry {
    Case c;
    std::unique_ptr<ReferenceResult> reference;
    std::unique_ptr<CorrectOrders> orders;
  };
  Entry& entry(const Key& k) {
    auto it = entries_.find(k);
    if (it == entries_.end()) it = entries_.emplace(k, Entry{make_case(request_of_(k)), nullptr, nullptr}).first;
    return it->second;
  }
  CaseRequest (*request_of_)(const Key&);
  std::map<Key, Entry> entries_;
};

inline void expect_bitwise_equal(const Outputs& got, const Outputs& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, w] : want) {
    ASSERT_TRUE(got.count(name)) << "missing output " << name;
    const Tensor<float>& g = got.at(name);
    if (test::bitwise_equal(g, w)) continue;
    std::int64_t first = 0;
    while (first < g.size() && std::memcmp(&g[first], &w[first], sizeof(float)) == 0) ++first;
    ADD_FAILURE() << name << " differs, first at " << index_string(g.dims(), first) << ": " << g[first] << " vs "
                  << w[first];
  }
}

//! The cuda executor's outputs against its host twin's on the same case, per output tensor:
//!   max |cuda - host| / max |host|  <=  tolerance,
//! NaN in either failing, and a tensor the host leaves all zero must be all zero on the device too. Not a
//! judgement of accuracy (the tolerance policy against the reference is that): the two executors run the
//! same program bodies, so this checks that the device ran the same algorithm, within the hardware
//! differences (FMA contraction, cuBLAS summation order) each gpu suite states with its tolerance.
inline void expect_twin_close(const Outputs& cuda, const Outputs& host, double tolerance) {
  ASSERT_EQ(cuda.size(), host.size());
  for (const auto& [name, h] : host) {
    ASSERT_TRUE(cuda.count(name)) << "missing output " << name;
    const Tensor<float>& d = cuda.at(name);
    ASSERT_EQ(d.dims(), h.dims()) << name;
    double scale = 0, worst = 0;
    std::int64_t worst_at = 0, nan_at = -1;
    for (std::int64_t i = 0; i < h.size(); ++i) scale = std::max(scale, std::abs(static_cast<double>(h[i])));
    for (std::int64_t i = 0; i < d.size(); ++i) {
      const double diff = std::abs(static_cast<double>(d[i]) - static_cast<double>(h[i]));
      if (std::isnan(diff) && nan_at < 0) nan_at = i;
      if (diff > worst) worst = diff, worst_at = i;
    }
    if (nan_at >= 0) {
      ADD_FAILURE() << name << ": NaN at " << index_string(d.dims(), nan_at) << ": cuda " << d[nan_at] << ", host "
                    << h[nan_at];
    } else if (scale == 0) {
      EXPECT_EQ(worst, 0) << name << ": the host twin is all zero, cuda has " << d[worst_at] << " at "
                          << index_string(d.dims(), worst_at);
    } else {
      EXPECT_LE(worst / scale, tolerance)
          << name << ": max |cuda - host| / max |host| = " << worst / scale << " at "
          << index_string(d.dims(), worst_at) << ": cuda " << d[worst_at] << ", host " << h[worst_at];
    }
  }
}

//! gtest names allow [A-Za-z0-9_] only: scan/chunk16@fp32 -> scan_chunk16_fp32 (the id itself is traced).
inline std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (ch == '/' || ch == '@') ch = '_';
  return s;
}

}  // namespace scancheck::backend_test
