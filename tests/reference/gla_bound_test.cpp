// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated linear attention bounds (gla_bounds, docs/reference.md "Gated linear attention") hold for the
//! evaluation orders kernels use, evaluated here in float32 against the float128 reference:
//! - the recurrent order (gla_reference at Precision::float32: fla's fused_recurrent);
//! - fla's chunked structure (chunk_float32 below): per chunk, cumulative log gates G by a float32 prefix
//!   sum, the intra-chunk attention A[t, s] = sum_i q_t[i] k_s[i] exp(G_t[i] - G_s[i]) times V, the queries
//!   times the carried state through exp(G_t), the state carried with exp(G_last) and
//!   k_s exp(G_last - G_s); the backward by the same pieces in reverse, dg by the suffix-sum identity.
//! Every element of every output must lie within its bound, over regimes that stress each term of it; the
//! looseness (error / bound) is printed. The bounds are not vacuous: a chunked kernel that forgets to decay
//! the carried state, and a recurrent one that reads its gate a step late, exceed them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "reference/gla.hpp"

namespace scancheck {
namespace {

//! A test problem's draws: float32-representable, gates by regime.
GlaProblem draw(std::uint64_t seed, const std::string& regime, GateForm gates, std::int64_t B, std::int64_t T,
                std::int64_t H, std::int64_t K, std::int64_t V) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  const auto activation = [&] {
    const double x = normal(rng);
    return static_cast<double>(static_cast<float>(regime == "extreme" ? x * std::pow(10.0, 8 * uniform(rng) - 4) : x));
  };
  const auto gate = [&]() -> double {
    const double z = normal(rng), pick = uniform(rng);
    double g = -std::log1p(std::exp(-z));  // log sigmoid: fla's tests' gates
    if (regime == "long_memory") g = -std::exp(std::log(1e-5) + uniform(rng) * std::log(1e3));
    if (regime == "strong_decay") g = -8 * uniform(rng);
    if (regime == "extreme") g = pick < 0.2 ? 0.0 : pick < 0.4 ? -20 - 40 * uniform(rng) : g;
    return static_cast<float>(g);
  };
  const auto fill = [](Dims dims, auto&& f) {
    Tensor<double> t(std::move(dims));
    for (double& x : t.values()) x = f();
    return t;
  };
  GlaProblem p;
  p.gates = gates;
  p.q = fill({B, T, H, K}, activation);
  p.k = fill({B, T, H, K}, activation);
  p.v = fill({B, T, H, V}, activation);
  p.g = fill(gates == GateForm::vector ? Dims{B, T, H, K} : Dims{B, T, H}, gate);
  p.d_o = fill({B, T, H, V}, activation);
  p.h0 = fill({B, H, K, V}, activation);
  p.dht = fill({B, H, K, V}, activation);
  return p;
}

//! fla's chunked forward and backward in float32, chunk C, one (batch, head) of an unpacked problem.
struct ChunkFloat32 {
  std::int64_t C;
  bool decay_carried_state = true;  // false: the mutant that forgets exp(G_last) on the carried state

  std::map<std::string, Tensor<double>> operator()(const GlaProblem& p) const {
    std::map<std::string, Tensor<double>> out;
    const std::int64_t B = p.q.dim(0), H = p.q.dim(2), K = p.q.dim(3), V = p.v.dim(3);
    for (const char* name : {"o", "dv"}) out[name] = Tensor<double>(p.v.dims());
    for (const char* name : {"dq", "dk"}) out[name] = Tensor<double>(p.q.dims());
    out["dg"] = Tensor<double>(p.g.dims());
    for (const char* name : {"ht", "dh0"}) out[name] = Tensor<double>({B, H, K, V});
    const float scale = p.scale ? static_cast<float>(*p.scale) : 1.0f / std::sqrt(static_cast<float>(K));
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < H; ++h) run(p, b, h, scale, out);
    return out;
  }

 private:
  using Matrix = std::vector<float>;

  void run(const GlaProblem& p, std::int64_t b, std::int64_t h, float scale,
           std::map<std::string, Tensor<double>>& out) const {
    const std::int64_t T = p.q.dim(1), K = p.q.dim(3), V = p.v.dim(3);
    const auto q = [&](std::int64_t t, std::int64_t i) { return static_cast<float>(p.q(b, t, h, i)); };
    const auto k = [&](std::int64_t t, std::int64_t i) { return static_cast<float>(p.k(b, t, h, i)); };
    const auto v = [&](std::int64_t t, std::int64_t j) { return static_cast<float>(p.v(b, t, h, j)); };
    const auto d_o = [&](std::int64_t t, std::int64_t j) { return static_cast<float>(p.d_o(b, t, h, j)); };
    const auto g = [&](std::int64_t t, std::int64_t i) {
      return static_cast<float>(p.gates == GateForm::vector ? p.g(b, t, h, i) : p.g(b, t, h));
    };
    // Cumulative log gates within each chunk (a float32 prefix sum restarting at every chunk).
    Matrix G(T * K);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t i = 0; i < K; ++i) G[t * K + i] = (t % C == 0 ? 0.0f : G[(t - 1) * K + i]) + g(t, i);
    const std::int64_t chunks = (T + C - 1) / C;
    std::vector<Matrix> entering(chunks + 1, Matrix(K * V));  // the state entering each chunk, and ht
    for (std::int64_t e = 0; e < K * V; ++e)
      entering[0][e] = static_cast<float>((*p.h0)[(b * p.q.dim(2) + h) * K * V + e]);
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t c0 = c * C, c1 = std::min(T, c0 + C), last = c1 - 1;
      const Matrix& S = entering[c];
      for (std::int64_t t = c0; t < c1; ++t)
        for (std::int64_t j = 0; j < V; ++j) {
          float inter = 0, intra = 0;
          for (std::int64_t i = 0; i < K; ++i) inter += q(t, i) * std::exp(G[t * K + i]) * S[i * V + j];
          for (std::int64_t s = c0; s <= t; ++s) {
            float a = 0;
            for (std::int64_t i = 0; i < K; ++i) a += q(t, i) * k(s, i) * std::exp(G[t * K + i] - G[s * K + i]);
            intra += a * v(s, j);
          }
          out["o"](b, t, h, j) = scale * (inter + intra);
        }
      Matrix& next = entering[c + 1];
      for (std::int64_t i = 0; i < K; ++i)
        for (std::int64_t j = 0; j < V; ++j) {
          float sum = (decay_carried_state ? std::exp(G[last * K + i]) : 1.0f) * S[i * V + j];
          for (std::int64_t s = c0; s < c1; ++s) sum += k(s, i) * std::exp(G[last * K + i] - G[s * K + i]) * v(s, j);
          next[i * V + j] = sum;
        }
    }
    const std::int64_t state = (b * p.q.dim(2) + h) * K * V;
    for (std::int64_t e = 0; e < K * V; ++e) out["ht"][state + e] = entering[chunks][e];

    Matrix dS(K * V);  // the cotangent of the state leaving the chunk
    for (std::int64_t e = 0; e < K * V; ++e) dS[e] = static_cast<float>((*p.dht)[state + e]);
    for (std::int64_t c = chunks - 1; c >= 0; --c) {
      const std::int64_t c0 = c * C, c1 = std::min(T, c0 + C), last = c1 - 1;
      const Matrix& S = entering[c];
      for (std::int64_t t = c0; t < c1; ++t)
        for (std::int64_t i = 0; i < K; ++i) {
          float inter = 0, intra = 0;
          for (std::int64_t j = 0; j < V; ++j) inter += d_o(t, j) * S[i * V + j];
          for (std::int64_t s = c0; s <= t; ++s) {
            float dov = 0;
            for (std::int64_t j = 0; j < V; ++j) dov += d_o(t, j) * v(s, j);
            intra += dov * k(s, i) * std::exp(G[t * K + i] - G[s * K + i]);
          }
          out["dq"](b, t, h, i) = scale * (inter * std::exp(G[t * K + i]) + intra);
        }
      for (std::int64_t s = c0; s < c1; ++s) {
        for (std::int64_t i = 0; i < K; ++i) {
          float intra = 0, carried = 0;
          for (std::int64_t t = s; t < c1; ++t) {
            float dov = 0;
            for (std::int64_t j = 0; j < V; ++j) dov += d_o(t, j) * v(s, j);
            intra += scale * dov * q(t, i) * std::exp(G[t * K + i] - G[s * K + i]);
          }
          for (std::int64_t j = 0; j < V; ++j) carried += v(s, j) * dS[i * V + j];
          out["dk"](b, s, h, i) = intra + carried * std::exp(G[last * K + i] - G[s * K + i]);
        }
        for (std::int64_t j = 0; j < V; ++j) {
          float intra = 0, carried = 0;
          for (std::int64_t t = s; t < c1; ++t) {
            float a = 0;
            for (std::int64_t i = 0; i < K; ++i) a += q(t, i) * k(s, i) * std::exp(G[t * K + i] - G[s * K + i]);
            intra += scale * a * d_o(t, j);
          }
          for (std::int64_t i = 0; i < K; ++i)
            carried += k(s, i) * std::exp(G[last * K + i] - G[s * K + i]) * dS[i * V + j];
          out["dv"](b, s, h, j) = intra + carried;
        }
      }
      Matrix previous(K * V);
      for (std::int64_t i = 0; i < K; ++i)
        for (std::int64_t j = 0; j < V; ++j) {
          float sum = std::exp(G[last * K + i]) * dS[i * V + j];
          for (std::int64_t t = c0; t < c1; ++t) sum += scale * q(t, i) * std::exp(G[t * K + i]) * d_o(t, j);
          previous[i * V + j] = sum;
        }
      dS = previous;
    }
    for (std::int64_t e = 0; e < K * V; ++e) out["dh0"][state + e] = dS[e];
    // dg_t = sum_{r >= t} (q_r dq_r - k_r dk_r) + sum_j dht ht, per channel; a scalar gate sums the channels.
    std::vector<float> suffix(K, 0.0f);
    for (std::int64_t i = 0; i < K; ++i)
      for (std::int64_t j = 0; j < V; ++j)
        suffix[i] += static_cast<float>((*p.dht)[state + i * V + j]) * entering[chunks][i * V + j];
    for (std::int64_t t = T - 1; t >= 0; --t) {
      float total = 0;
      for (std::int64_t i = 0; i < K; ++i) {
        suffix[i] +=
            q(t, i) * static_cast<float>(out["dq"](b, t, h, i)) - k(t, i) * static_cast<float>(out["dk"](b, t, h, i));
        if (p.gates == GateForm::vector) out["dg"](b, t, h, i) = suffix[i];
        total += suffix[i];
      }
      if (p.gates == GateForm::scalar) out["dg"](b, t, h) = total;
    }
  }
};

struct Looseness {
  double worst = 0;  // max error / bound
  std::string where;
};

//! The largest error / bound over every output, and where.
Looseness looseness(const std::map<std::string, Tensor<double>>& got,
                    const std::map<std::string, Tensor<double>>& exact,
                    const std::map<std::string, Tensor<double>>& bound) {
  Looseness l;
  for (const auto& [name, e] : exact)
    for (std::int64_t n = 0; n < e.size(); ++n) {
      const double ratio = std::fabs(got.at(name)[n] - e[n]) / bound.at(name)[n];
      if (!(ratio <= l.worst)) l = {ratio, name + index_string(e.dims(), n)};
    }
  return l;
}

struct BoundCase {
  std::string regime;
  GateForm gates;
  std::int64_t T, K, V;
};

const std::vector<BoundCase> bound_cases{
    {"default", GateForm::vector, 150, 8, 6},      {"default", GateForm::scalar, 130, 6, 8},
    {"long_memory", GateForm::vector, 300, 4, 4},  {"long_memory", GateForm::scalar, 257, 16, 16},
    {"strong_decay", GateForm::vector, 100, 5, 3}, {"extreme", GateForm::vector, 97, 7, 5},
    {"extreme", GateForm::scalar, 80, 3, 9},
};

TEST(GlaBounds, HoldForTheRecurrentAndChunkedOrdersInFloat32) {
  std::uint64_t seed = 100;
  for (const BoundCase& c : bound_cases) {
    const GlaProblem p = draw(++seed, c.regime, c.gates, 2, c.T, 2, c.K, c.V);
    const std::string name = c.regime + (c.gates == GateForm::vector ? " gla" : " simple_gla");
    SCOPED_TRACE(name);
    const auto exact = gla_reference(p, Precision::float128), bound = gla_bounds(p);
    std::cout << name << " T " << c.T << " K " << c.K << " V " << c.V << ":";
    const auto judge = [&](const char* order, const std::map<std::string, Tensor<double>>& got) {
      const Looseness l = looseness(got, exact, bound);
      EXPECT_LE(l.worst, 1.0) << order << " exceeds its bound at " << l.where;
      std::cout << " " << order << " " << l.worst << " (" << l.where << ")";
    };
    const auto recurrent = gla_reference(p, Precision::float32);
    judge("recurrent", recurrent);
    // What admitting chunks costs: the recurrent order against the bound of chunk 1 (no cumulative gates).
    std::cout << " recurrent/chunk1-bound " << looseness(recurrent, exact, gla_bounds(p, {.chunk = 1})).worst;
    for (const std::int64_t C : {7, 16, 64}) judge(("chunk" + std::to_string(C)).c_str(), ChunkFloat32{C}(p));
    std::cout << "\n";
  }
}

TEST(GlaBounds, ChunkedFloat32IsTheSameFunction) {
  // The chunked evaluator agrees with the reference to float32 accuracy on a benign case, so the bound test
  // above measures rounding, not a different function.
  const GlaProblem p = draw(7, "default", GateForm::vector, 1, 40, 1, 4, 4);
  const auto exact = gla_reference(p, Precision::float128), got = ChunkFloat32{16}(p);
  for (const auto& [name, e] : exact)
    for (std::int64_t n = 0; n < e.size(); ++n)
      EXPECT_NEAR(got.at(name)[n], e[n], 1e-4 * (1 + std::fabs(e[n]))) << name;
}

TEST(GlaBounds, AreExceededByWrongKernels) {
  // A chunked kernel whose carried state is not decayed by its chunk's last gate, and a recurrent one that
  // reads each step's gate one step late, differ from the exact values by far more than the bound.
  const GlaProblem p = draw(9, "default", GateForm::vector, 1, 100, 1, 4, 4);
  const auto exact = gla_reference(p, Precision::float128), bound = gla_bounds(p);
  EXPECT_GT(looseness(ChunkFloat32{16, false}(p), exact, bound).worst, 100.0);
  GlaProblem late = p;
  for (std::int64_t t = late.g.dim(1) - 1; t > 0; --t)
    for (std::int64_t i = 0; i < 4; ++i) late.g(0, t, 0, i) = p.g(0, t - 1, 0, i);
  EXPECT_GT(looseness(gla_reference(late, Precision::float32), exact, bound).worst, 100.0);
}

TEST(GlaTiered, DoubleCertifiedAgreesWithFloat128WithinAThousandthOfTheBound) {
  // Every regime: tiered values within 1/1000 of the bound of float128's (plus float128's own rounding to
  // double), bounds bit for bit gla_bounds'; the benign regimes need no float128.
  std::uint64_t seed = 300;
  for (const BoundCase& c : bound_cases) {
    GlaProblem p = draw(++seed, c.regime, c.gates, 1, c.T / 2, 2, c.K, c.V);
    SCOPED_TRACE(c.regime);
    const GlaEvaluation tiered = gla_evaluate(p), exact = gla_evaluate(p, Precision::float128);
    for (const auto& [name, e] : exact.values) {
      EXPECT_EQ(tiered.bounds.at(name).values(), exact.bounds.at(name).values()) << name;
      for (std::int64_t n = 0; n < e.size(); ++n)
        EXPECT_LE(std::fabs(tiered.values.at(name)[n] - e[n]),
                  1e-3 * exact.bounds.at(name)[n] + 0x1p-52 * std::fabs(e[n]))
            << name << index_string(e.dims(), n);
    }
    if (c.regime != "extreme") {
      EXPECT_TRUE(tiered.float128_blocks.empty()) << tiered.float128_blocks.size();
    }
  }
}

TEST(GlaTiered, ValuesDoubleCannotHoldAreRecomputedInFloat128BlockByBlock) {
  // A gate of +750 overflows double's exp (e^750 = 1e325): its (sequence, head) block, and only it, is
  // recomputed in float128, whose values it then holds.
  GlaProblem p = draw(5, "default", GateForm::vector, 2, 9, 2, 3, 2);
  p.g(1, 4, 0, 2) = 750;
  const GlaEvaluation tiered = gla_evaluate(p);
  ASSERT_EQ(tiered.float128_blocks.size(), 1u);
  EXPECT_EQ(tiered.float128_blocks[0], (std::array<std::int64_t, 2>{1, 0}));
  EXPECT_GT(tiered.uncertified_elements, 0);
  const auto exact = gla_reference(p, Precision::float128);
  for (const auto& [name, e] : exact)
    for (std::int64_t n = 0; n < e.size(); ++n)
      if (std::isfinite(e[n])) {
        EXPECT_NEAR(tiered.values.at(name)[n], e[n], 1e-12 * std::fabs(e[n])) << name << n;
      }
}

}  // namespace
}  // namespace scancheck
