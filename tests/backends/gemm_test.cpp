// SPDX-License-Identifier: Apache-2.0
//! @file
//! The executors' strided batched GEMM (backends/gemm.hpp) against a plain triple loop in double, for
//! every transposition, with leading dimensions and batch strides larger than the matrices (the layout of
//! the per-head gate projections), and beta = 0 (C overwritten, NaN included) and beta = 1 (accumulate); and
//! the host executor's ordered sums (GemmOrder) bit for bit against the same float32 sums in that order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "backends/host/host_executor.hpp"
#include "core/rng.hpp"

namespace scancheck::backends {
namespace {

struct Problem {
  std::int64_t m = 5, n = 7, k = 9, batch = 3;
  bool ta = false, tb = false;
  float beta = 0;
  std::vector<float> a, b, c;
  StridedBatchedGemm g{};

  Problem(bool transpose_a, bool transpose_b, float beta_) : ta(transpose_a), tb(transpose_b), beta(beta_) {
    // Stored shapes: A is m x k (k x m when transposed) with 3 spare columns; B likewise with 2.
    const std::int64_t a_rows = ta ? k : m, a_cols = (ta ? m : k) + 3;
    const std::int64_t b_rows = tb ? n : k, b_cols = (tb ? k : n) + 2;
    const std::int64_t ldc = n + 4;
    a = random(batch * a_rows * a_cols, 1);
    b = random(batch * b_rows * b_cols, 2);
    c = random(batch * m * ldc, 3);
    if (beta == 0) c[0] = std::numeric_limits<float>::quiet_NaN();  // beta = 0 must overwrite, not scale
    g = {
        m,        n,   k,       batch, {a.data(), a_cols, a_rows * a_cols, ta}, {b.data(), b_cols, b_rows * b_cols, tb},
        c.data(), ldc, m * ldc, beta};
  }

  static std::vector<float> random(std::int64_t n, std::uint64_t stream) {
    const CounterRng rng(11);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(rng.normal(stream, i));
    return v;
  }

  float a_at(std::int64_t h, std::int64_t i, std::int64_t p) const {
    return ta ? a[h * g.a.stride + p * g.a.ld + i] : a[h * g.a.stride + i * g.a.ld + p];
  }
  float b_at(std::int64_t h, std::int64_t p, std::int64_t j) const {
    return tb ? b[h * g.b.stride + j * g.b.ld + p] : b[h * g.b.stride + p * g.b.ld + j];
  }
};

class ExecutorGemm : public testing::TestWithParam<std::tuple<int, GemmOrder>> {};

TEST_P(ExecutorGemm, HostMatchesTripleLoop) {
  const auto [v, order] = GetParam();
  Problem p(v & 1, v & 2, (v & 4) ? 1.0f : 0.0f);
  const std::vector<float> before = p.c;
  HostExecutor ex(1, order);
  ex.gemm("test", p.g);
  for (std::int64_t h = 0; h < p.batch; ++h)
    for (std::int64_t i = 0; i < p.m; ++i) {
      for (std::int64_t j = 0; j < p.n; ++j) {
        const float c_before = before[h * p.g.stride_c + i * p.g.ldc + j];
        const float got = p.c[h * p.g.stride_c + i * p.g.ldc + j];
        double expected = p.beta ? c_before : 0.0;
        for (std::int64_t q = 0; q < p.k; ++q) expected += double(p.a_at(h, i, q)) * p.b_at(h, q, j);
        EXPECT_NEAR(got, expected, 1e-5 * (1 + std::fabs(expected))) << "batch " << h << " (" << i << ", " << j << ")";
        if (order == GemmOrder::library) continue;
        const auto product = [&](std::int64_t q) { return p.a_at(h, i, q) * p.b_at(h, q, j); };
        float in_order = 0;                    // the products in the order asked for, then beta C
        if (order == GemmOrder::pairwise_k) {  // k = 9: ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + (7 + 8)))
          in_order = ((product(0) + product(1)) + (product(2) + product(3))) +
                     ((product(4) + product(5)) + (product(6) + (product(7) + product(8))));
        } else {
          for (std::int64_t s = 0; s < p.k; ++s) in_order += product(order == GemmOrder::ascending_k ? s : p.k - 1 - s);
        }
        EXPECT_EQ(got, p.beta ? p.beta * c_before + in_order : in_order)
            << "batch " << h << " (" << i << ", " << j << ")";
      }
      for (std::int64_t j = p.n; j < p.g.ldc; ++j)  // the padding of C is not touched
        EXPECT_EQ(p.c[h * p.g.stride_c + i * p.g.ldc + j], before[h * p.g.stride_c + i * p.g.ldc + j]);
    }
}

std::string gemm_test_name(const testing::TestParamInfo<std::tuple<int, GemmOrder>>& info) {
  const int v = std::get<0>(info.param);
  const char* orders[] = {"library", "ascending_k", "descending_k", "pairwise_k"};
  return std::string(v & 1 ? "At" : "A") + (v & 2 ? "Bt" : "B") + (v & 4 ? "_accumulate_" : "_overwrite_") +
         orders[static_cast<int>(std::get<1>(info.param))];
}

INSTANTIATE_TEST_SUITE_P(Transpositions, ExecutorGemm,
                         testing::Combine(testing::Range(0, 8),
                                          testing::Values(GemmOrder::library, GemmOrder::ascending_k,
                                                          GemmOrder::descending_k, GemmOrder::pairwise_k)),
                         gemm_test_name);

}  // namespace
}  // namespace scancheck::backends
