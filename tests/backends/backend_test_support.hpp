// SPDX-License-Identifier: Apache-2.0
//! @file
//! Comparisons shared by the backend test suites: outputs against a reference or another backend under the
//! placeholder tolerance, bitwise equality of whole output sets, gtest-safe backend names, and a process-wide
//! cache of cases and their references.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "core/generate.hpp"
#include "core/tensor.hpp"
#include "reference/reference.hpp"
#include "tests/test_support.hpp"

namespace scancheck::backend_test {

//! Cases and, on first request, their float128 references (no bounds, one thread), kept for the whole
//! process under a suite's own key; `request_of` says how a key becomes a case.
template <class Key>
class CaseCache {
 public:
  explicit CaseCache(CaseRequest (*request_of)(const Key&)) : request_of_(request_of) {}

  const Case& case_of(const Key& k) { return entry(k).c; }
  const std::map<std::string, Tensor<double>>& reference_of(const Key& k) {
    Entry& e = entry(k);
    if (!e.reference) {
      ReferenceOptions options;  // float128
      options.threads = 1;
      options.bounds = false;
      e.reference = std::make_unique<ReferenceResult>(compute_reference(e.c, options));
    }
    return e.reference->values;
  }

 private:
  struct Entry {
    Case c;
    std::unique_ptr<ReferenceResult> reference;
  };
  Entry& entry(const Key& k) {
    auto it = entries_.find(k);
    if (it == entries_.end()) it = entries_.emplace(k, Entry{make_case(request_of_(k)), nullptr}).first;
    return it->second;
  }
  CaseRequest (*request_of_)(const Key&);
  std::map<Key, Entry> entries_;
};

//! Placeholder tolerance until the tolerance-policy issue replaces it with properties/tolerance_table.hpp
//! (per-element bounds, ULP metrics, ratio to the sequential baseline): per output tensor,
//!   max_i |got_i - want_i| / max_i |want_i|  <=  1e-4 (fp32 io) or 3e-2 (bf16 io),
//! and a tensor whose expected values are all zero must be exactly zero. NaN anywhere fails.
inline double tolerance(DType io) { return io == DType::float32 ? 1e-4 : 3e-2; }

template <class T>
void expect_tensor_close(const std::string& name, const Tensor<float>& got, const Tensor<T>& want, double tol,
                         const char* against) {
  ASSERT_EQ(got.dims(), want.dims()) << name;
  double scale = 0, worst = 0;
  std::int64_t worst_at = -1, nan_at = -1;
  for (std::int64_t i = 0; i < want.size(); ++i) scale = std::max(scale, std::abs(static_cast<double>(want[i])));
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const double d = std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (std::isnan(d) && nan_at < 0) nan_at = i;
    if (d > worst) worst = d, worst_at = i;
  }
  ASSERT_LT(nan_at, 0) << name << " at " << index_string(got.dims(), nan_at) << ": got " << got[nan_at] << ", "
                       << against << " " << static_cast<double>(want[nan_at]);
  if (scale == 0) {
    EXPECT_EQ(worst, 0) << name << ": " << against << " is all zero, got " << got[worst_at] << " at "
                        << index_string(got.dims(), worst_at);
    return;
  }
  EXPECT_LE(worst / scale, tol) << name << ": max |error| / max |" << against << "| = " << worst / scale
                                << "; worst at " << index_string(got.dims(), worst_at) << ": got " << got[worst_at]
                                << ", " << against << " " << static_cast<double>(want[worst_at])
                                << ", tensor max " << scale;
}

template <class T>
void expect_outputs_close(const Outputs& got, const std::map<std::string, Tensor<T>>& want, double tol,
                          const char* against) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, w] : want) {
    ASSERT_TRUE(got.count(name)) << "missing output " << name;
    expect_tensor_close(name, got.at(name), w, tol, against);
  }
}

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

//! gtest names allow [A-Za-z0-9_] only: scan/chunk16@fp32 -> scan_chunk16_fp32 (the id itself is traced).
inline std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (ch == '/' || ch == '@') ch = '_';
  return s;
}


}  // namespace scancheck::backend_test
