// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated linear attention reference (reference/gla.hpp, recurrences.md section 7) against what it must
//! equal, each check by another route than the reference's own:
//! - the backward against forward-mode AD in Dual<float128>, along directions that move every input;
//! - the forward against the parallel (attention) form, o_t = scale sum_s (q_t . (k_s exp(G_t - G_s))) v_s
//!   plus the initial state's term, with G the cumulative log gates, evaluated here in mpfr50;
//! - dg against the identity the chunked kernels use: dg_t = sum_{r >= t} (q_r dq_r - k_r dk_r), plus
//!   dht * ht summed over V;
//! - packed sequences (cu_seqlens) against the same sequences as separate batch entries, scalar gates
//!   against vector gates broadcast, float128 against mpfr50, one thread against many;
//! - bad input named;
//! - fla's own naive forms in float64 (tests/fixtures/fla_gla, regenerate_fla_gla.py): every element within
//!   float64's rounding of an evaluation of its terms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json_reader.hpp"
#include "core/npy.hpp"
#include "reference/dual.hpp"
#include "reference/gla.hpp"
#include "reference/gla_sequence.hpp"
#include "reference/scalar.hpp"

namespace scancheck {
namespace {

using ref::Dual;
using ref::float128;
using ref::mpfr50;

//! float32-representable draws, as cases hold them.
struct Draw {
  std::mt19937_64 rng;
  explicit Draw(std::uint64_t seed) : rng(seed) {}
  double normal(double sd = 1) { return static_cast<float>(std::normal_distribution<double>(0, sd)(rng)); }
  double log_gate() {  // log sigmoid of a normal: fla's tests' gates, decays spread over (0, 1)
    const double z = std::normal_distribution<double>(0, 1)(rng);
    return static_cast<float>(-std::log1p(std::exp(-z)));
  }
  Tensor<double> tensor(Dims dims, bool gates = false) {
    Tensor<double> t(std::move(dims));
    for (double& x : t.values()) x = gates ? log_gate() : normal();
    return t;
  }
};

GlaProblem random_problem(std::uint64_t seed, GateForm gates, std::int64_t B, std::int64_t T, std::int64_t H,
                          std::int64_t K, std::int64_t V, bool states = true) {
  Draw d(seed);
  GlaProblem p;
  p.gates = gates;
  p.q = d.tensor({B, T, H, K});
  p.k = d.tensor({B, T, H, K});
  p.v = d.tensor({B, T, H, V});
  p.g = d.tensor(gates == GateForm::vector ? Dims{B, T, H, K} : Dims{B, T, H}, true);
  p.d_o = d.tensor({B, T, H, V});
  if (states) {
    p.h0 = d.tensor({B, H, K, V});
    p.dht = d.tensor({B, H, K, V});
  }
  return p;
}

//! One sequence of a problem without packing, in scalar S.
template <class S>
ref::GlaSequenceInputs<S> sequence_of(const GlaProblem& p, std::int64_t b, std::int64_t h) {
  const std::int64_t T = p.q.dim(1), H = p.q.dim(2), K = p.q.dim(3), V = p.v.dim(3);
  ref::GlaSequenceInputs<S> in;
  in.length = T;
  in.keys = K;
  in.values = V;
  in.scale = p.scale ? S(*p.scale) : S(1) / sqrt(S(static_cast<double>(K)));
  for (std::int64_t t = 0; t < T; ++t) {
    for (std::int64_t i = 0; i < K; ++i) {
      in.q.push_back(S(p.q(b, t, h, i)));
      in.k.push_back(S(p.k(b, t, h, i)));
      in.g.push_back(S(p.gates == GateForm::vector ? p.g(b, t, h, i) : p.g(b, t, h)));
    }
    for (std::int64_t j = 0; j < V; ++j) {
      in.v.push_back(S(p.v(b, t, h, j)));
      in.d_o.push_back(S(p.d_o(b, t, h, j)));
    }
  }
  for (std::int64_t e = 0; p.h0 && e < K * V; ++e) in.h0.push_back(S((*p.h0)[(b * H + h) * K * V + e]));
  for (std::int64_t e = 0; p.dht && e < K * V; ++e) in.dht.push_back(S((*p.dht)[(b * H + h) * K * V + e]));
  return in;
}

template <class S>
S dot(const std::vector<S>& x, const std::vector<S>& y) {
  S sum(0);
  for (std::size_t n = 0; n < x.size(); ++n) sum = sum + x[n] * y[n];
  return sum;
}

TEST(GlaReference, BackwardIsTheGradientOfTheLossAlongEveryDirection) {
  // loss = sum(o do) + sum(ht dht); its derivative along a direction moving q, k, v, g and h0 at once, by
  // forward-mode AD, must be the backward's gradients dotted with the direction.
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const bool states = seed % 3 != 0;
    const GlaProblem p =
        random_problem(seed, GateForm::vector, 1, 1 + seed * 3 % 23, 1, 1 + seed % 4, 1 + seed % 3, states);
    SCOPED_TRACE("seed " + std::to_string(seed) + " T " + std::to_string(p.q.dim(1)));
    const auto exact = ref::gla_sequence(sequence_of<float128>(p, 0, 0));
    auto dual = sequence_of<Dual<float128>>(p, 0, 0);
    Draw direction(seed + 1000);
    float128 expected = 0, scale = 0;
    const auto move = [&](std::vector<Dual<float128>>& xs, const std::vector<float128>& gradient) {
      for (std::size_t n = 0; n < xs.size(); ++n) {
        xs[n].d = direction.normal();
        expected += gradient[n] * xs[n].d;
        scale += fabs(gradient[n] * xs[n].d);
      }
    };
    move(dual.q, exact.dq);
    move(dual.k, exact.dk);
    move(dual.v, exact.dv);
    move(dual.g, exact.dg);
    if (states) move(dual.h0, exact.dh0);
    const auto forward = ref::gla_sequence(dual);
    float128 derivative = 0;
    for (std::size_t n = 0; n < forward.o.size(); ++n) derivative += forward.o[n].d * dual.d_o[n].v;
    for (std::size_t n = 0; n < forward.ht.size() && states; ++n) derivative += forward.ht[n].d * dual.dht[n].v;
    EXPECT_LE(fabs(derivative - expected), 1e-28 * scale)
        << static_cast<double>(derivative) << " vs " << static_cast<double>(expected);
  }
}

TEST(GlaReference, ForwardEqualsTheParallelForm) {
  // o_t[j] = scale sum_i q_t[i] (exp(G_t[i]) h0[i, j] + sum_{s <= t} k_s[i] v_s[j] exp(G_t[i] - G_s[i])),
  // G_t = g_0 + ... + g_t: the attention form of the chunked kernels, in mpfr50, summed in another order.
  for (const GateForm gates : {GateForm::vector, GateForm::scalar}) {
    GlaProblem p = random_problem(7 + static_cast<int>(gates), gates, 2, 19, 2, 5, 3);
    p.scale = 0.3;
    const auto exact = gla_reference(p, Precision::float128, 1);
    const auto magnitude = gla_term_magnitudes(p, 1);
    const std::int64_t B = 2, T = 19, H = 2, K = 5, V = 3;
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < H; ++h) {
        const auto gate = [&](std::int64_t t, std::int64_t i) {
          return mpfr50(gates == GateForm::vector ? p.g(b, t, h, i) : p.g(b, t, h));
        };
        for (std::int64_t t = 0; t < T; ++t)
          for (std::int64_t j = 0; j < V; ++j) {
            mpfr50 o = 0;
            for (std::int64_t i = 0; i < K; ++i) {
              mpfr50 G_t = 0;
              for (std::int64_t r = 0; r <= t; ++r) G_t += gate(r, i);
              mpfr50 term = exp(G_t) * (*p.h0)(b, h, i, j), G_s = 0;
              for (std::int64_t s = 0; s <= t; ++s) {
                G_s += gate(s, i);
                term += mpfr50(p.k(b, s, h, i)) * p.v(b, s, h, j) * exp(G_t - G_s);
              }
              o += mpfr50(p.q(b, t, h, i)) * term;
            }
            o *= 0.3;
            EXPECT_LE(std::fabs(static_cast<double>(o) - exact.at("o")(b, t, h, j)),
                      1e-15 * magnitude.at("o")(b, t, h, j))
                << "o at " << b << ", " << t << ", " << h << ", " << j;
          }
      }
  }
}

TEST(GlaReference, GateGradientSatisfiesTheChunkedKernelsIdentity) {
  // Every exp(G_t - G_s) has G_t with the query side and -G_s with the key side, so d loss / d G_r =
  // q_r dq_r - k_r dk_r (+ dht ht at the last step), and dg_t is its suffix sum over r >= t.
  for (const bool states : {true, false}) {
    const GlaProblem p = random_problem(31 + states, GateForm::vector, 1, 40, 1, 4, 6, states);
    const auto in = sequence_of<float128>(p, 0, 0);
    const auto out = ref::gla_sequence(in);
    const std::int64_t T = 40, K = 4, V = 6;
    for (std::int64_t i = 0; i < K; ++i) {
      float128 suffix = 0, scale = 0;
      for (std::int64_t j = 0; j < V && states; ++j) {
        suffix += in.dht[i * V + j] * out.ht[i * V + j];
        scale += fabs(in.dht[i * V + j] * out.ht[i * V + j]);
      }
      for (std::int64_t t = T - 1; t >= 0; --t) {
        const float128 query = in.q[t * K + i] * out.dq[t * K + i], key = in.k[t * K + i] * out.dk[t * K + i];
        suffix += query - key;
        scale += fabs(query) + fabs(key);
        EXPECT_LE(fabs(suffix - out.dg[t * K + i]), 1e-28 * scale) << "dg at t " << t << ", i " << i;
      }
    }
  }
}

TEST(GlaReference, PackedSequencesAreTheSameSequencesApart) {
  // Three sequences of lengths 5, 0 and 12 packed with cu_seqlens = [0, 5, 5, 17] give, row for row and
  // state for state, what the same rows give as batch entries of their own: nothing crosses a boundary.
  const GlaProblem packed_source = random_problem(51, GateForm::vector, 1, 17, 2, 3, 4, false);
  GlaProblem packed = packed_source;
  packed.cu_seqlens = {0, 5, 5, 17};
  Draw d(52);
  packed.h0 = d.tensor({3, 2, 3, 4});
  packed.dht = d.tensor({3, 2, 3, 4});
  const auto together = gla_reference(packed, Precision::float64, 2);
  const auto state_of = [](const Tensor<double>& t, std::int64_t n) {
    const std::int64_t size = t.size() / t.dim(0);
    return Tensor<double>({1, t.dim(1), t.dim(2), t.dim(3)},
                          std::vector<double>(t.data() + n * size, t.data() + (n + 1) * size));
  };
  const std::vector<std::pair<std::int64_t, std::int64_t>> spans{{0, 5}, {5, 5}, {5, 17}};
  for (std::size_t n = 0; n < spans.size(); ++n) {
    const std::int64_t begin = spans[n].first,
                       end = spans[n].second;  // not a structured binding: the lambdas capture them
    GlaProblem alone;
    const auto rows = [&](const Tensor<double>& t) {
      Tensor<double> r({1, end - begin, t.dim(2), t.dim(3)});
      for (std::int64_t t_ = begin; t_ < end; ++t_)
        for (std::int64_t h = 0; h < t.dim(2); ++h)
          for (std::int64_t e = 0; e < t.dim(3); ++e) r(0, t_ - begin, h, e) = t(0, t_, h, e);
      return r;
    };
    const auto state = [n, &state_of](const Tensor<double>& t) { return state_of(t, static_cast<std::int64_t>(n)); };
    alone.q = rows(packed.q), alone.k = rows(packed.k), alone.v = rows(packed.v), alone.g = rows(packed.g);
    alone.d_o = rows(packed.d_o), alone.h0 = state(*packed.h0), alone.dht = state(*packed.dht);
    const auto apart = gla_reference(alone, Precision::float64, 1);
    for (const char* name : {"o", "dq", "dk", "dv", "dg"})
      EXPECT_EQ(rows(together.at(name)).values(), apart.at(name).values()) << name << " of sequence " << n;
    for (const char* name : {"ht", "dh0"})
      EXPECT_EQ(state(together.at(name)).values(), apart.at(name).values()) << name << " of sequence " << n;
  }
  // An empty sequence passes its state through: ht = h0, dh0 = dht.
  EXPECT_EQ(state_of(together.at("ht"), 1).values(), state_of(*packed.h0, 1).values());
  EXPECT_EQ(state_of(together.at("dh0"), 1).values(), state_of(*packed.dht, 1).values());
}

TEST(GlaReference, ScalarGatesAreVectorGatesBroadcast) {
  // simple_gla is gla with g_t[i] = g_t for every i, and its dg is the vector dg summed over i.
  const GlaProblem simple = random_problem(61, GateForm::scalar, 2, 13, 3, 4, 2);
  GlaProblem vector = simple;
  vector.gates = GateForm::vector;
  vector.g = Tensor<double>({2, 13, 3, 4});
  for (std::int64_t n = 0; n < simple.g.size(); ++n)
    for (std::int64_t i = 0; i < 4; ++i) vector.g[n * 4 + i] = simple.g[n];
  const auto a = gla_reference(simple, Precision::float128), b = gla_reference(vector, Precision::float128);
  for (const char* name : {"o", "ht", "dq", "dk", "dv", "dh0"})
    EXPECT_EQ(a.at(name).values(), b.at(name).values()) << name;
  const auto magnitude = gla_term_magnitudes(vector);
  for (std::int64_t n = 0; n < simple.g.size(); ++n) {
    double sum = 0, scale = 0;
    for (std::int64_t i = 0; i < 4; ++i) sum += b.at("dg")[n * 4 + i], scale += magnitude.at("dg")[n * 4 + i];
    EXPECT_NEAR(a.at("dg")[n], sum, 1e-15 * scale) << "dg at " << n;
  }
}

TEST(GlaReference, PrecisionsAgreeAndThreadsChangeNothing) {
  // float128 and mpfr50 agree to float128's precision (30 digits of the magnitudes here); the float64 run
  // to float64's; the float128 values are the same on one thread and on four.
  GlaProblem p = random_problem(71, GateForm::vector, 2, 70, 2, 3, 5);
  p.cu_seqlens = {};
  const auto quad = gla_reference(p, Precision::float128, 1), mpfr = gla_reference(p, Precision::mpfr50, 3);
  const auto working = gla_reference(p, Precision::float64, 4), threaded = gla_reference(p, Precision::float128, 4);
  const auto magnitude = gla_term_magnitudes(p);
  for (std::string_view name : gla_output_names) {
    const std::string n(name);
    EXPECT_EQ(quad.at(n).values(), mpfr.at(n).values()) << n << ": both round the same exact value to double";
    EXPECT_EQ(quad.at(n).values(), threaded.at(n).values()) << n;
    for (std::int64_t e = 0; e < quad.at(n).size(); ++e)
      EXPECT_LE(std::fabs(working.at(n)[e] - quad.at(n)[e]), 500 * 0x1p-53 * magnitude.at(n)[e]) << n << " at " << e;
  }
}

TEST(GlaReference, BadInputIsNamed) {
  const GlaProblem good = random_problem(81, GateForm::vector, 2, 6, 1, 2, 3);
  const auto message = [](const GlaProblem& p) {
    try {
      gla_reference(p, Precision::float64);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  GlaProblem p = good;
  p.k = Tensor<double>({2, 6, 1, 3});
  EXPECT_EQ(message(p), "gla: k is [2, 6, 1, 3], expected [2, 6, 1, 2]");
  p = good;
  p.cu_seqlens = {0, 6};
  EXPECT_EQ(message(p), "gla: with cu_seqlens the batch must be 1, got 2");
  p = random_problem(82, GateForm::vector, 1, 6, 1, 2, 3, false);
  p.cu_seqlens = {0, 4, 3, 6};
  EXPECT_EQ(message(p), "gla: cu_seqlens must not decrease (at offset 2)");
  p.cu_seqlens = {0, 5};
  EXPECT_EQ(message(p), "gla: cu_seqlens must run from 0 to T = 6");
  p = good;
  p.gates = GateForm::scalar;
  EXPECT_EQ(message(p), "gla: g is [2, 6, 1, 2], expected [2, 6, 1]");
  p = good;
  p.h0 = Tensor<double>({1, 1, 2, 3});
  EXPECT_EQ(message(p), "gla: h0 is [1, 1, 2, 3], expected [2, 1, 2, 3]");
  p = good;
  p.scale = std::nan("");
  EXPECT_EQ(message(p), "gla: the scale must be finite");
}

namespace fs = std::filesystem;

//! A fixture case directory as a problem: inputs as stored (float32 values), case.json's scale.
GlaProblem load_fixture(const fs::path& dir, std::string& architecture) {
  const JsonReader reader((dir / "case.json").string());
  const auto json = read_json_file(dir / "case.json", "fixture");
  architecture = reader.text(json, "", "architecture");
  GlaProblem p;
  p.gates = architecture == "gla" ? GateForm::vector : GateForm::scalar;
  p.scale = reader.optional_real(json, "", "scale");
  const auto load = [&](const char* name) {
    const Tensor<float> t = read_npy_float(dir / (std::string(name) + ".npy"));
    return Tensor<double>(t.dims(), std::vector<double>(t.values().begin(), t.values().end()));
  };
  p.q = load("q"), p.k = load("k"), p.v = load("v"), p.g = load("g"), p.d_o = load("do");
  if (fs::exists(dir / "h0.npy")) p.h0 = load("h0"), p.dht = load("dht");
  if (fs::exists(dir / "cu_seqlens.npy")) {
    const Tensor<std::int32_t> offsets = read_npy_int32(dir / "cu_seqlens.npy");
    p.cu_seqlens.assign(offsets.values().begin(), offsets.values().end());
  }
  return p;
}

TEST(GlaFixtures, AgreeWithFlasNaiveFormsToFloat64Rounding) {
  // fla's naive recurrent forms in float64 multiply up to T decays, each rounded, and add up to T + K or T + V
  // terms: an error of at most (2 T + K + V + 8) u64 of the element's sum of |terms|. Both architectures, four
  // regimes each (default, long_memory, resets with cu_seqlens, extreme), must be present and agree.
  const fs::path root = fs::path(SCANCHECK_FIXTURES_DIR) / "fla_gla";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root))
    if (fs::exists(entry.path() / "case.json")) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  ASSERT_EQ(cases.size(), 8u) << "under " << root;
  for (const fs::path& dir : cases) {
    std::string architecture;
    const GlaProblem p = load_fixture(dir, architecture);
    SCOPED_TRACE(dir.filename().string());
    const auto exact = gla_reference(p, Precision::float128), magnitude = gla_term_magnitudes(p);
    const std::int64_t T = p.q.dim(1), K = p.q.dim(3), V = p.v.dim(3);
    const double allowed = static_cast<double>(2 * T + K + V + 8);
    double worst = 0;
    for (std::string_view name : gla_output_names) {
      const std::string n(name);
      const Tensor<double> expected = read_npy_double(dir / "expected" / (n + ".npy"));
      ASSERT_EQ(expected.dims(), exact.at(n).dims()) << n;
      for (std::int64_t e = 0; e < expected.size(); ++e) {
        const double units = std::fabs(expected[e] - exact.at(n)[e]) / (0x1p-53 * magnitude.at(n)[e] + 1e-300);
        EXPECT_LE(units, allowed) << n << " at " << index_string(expected.dims(), e) << ": fla " << expected[e]
                                  << ", exact " << exact.at(n)[e];
        worst = std::max(worst, units);
      }
    }
    std::cout << dir.filename().string() << ": worst " << worst << " u64 of the terms' magnitude (allowed " << allowed
              << ")\n";
  }
}

}  // namespace
}  // namespace scancheck
