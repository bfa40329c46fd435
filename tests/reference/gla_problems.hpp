// SPDX-License-Identifier: Apache-2.0
//! @file
//! Gated linear attention problems for the tests (reference bounds, mutation): float32-representable draws
//! in fla's layout, log gates by regime (default: log sigmoid of a normal; long_memory: within 1e-5 to 1e-2
//! of zero; strong_decay: down to -8; extreme: exact zeros and decays down to e^-60, values over 8 decades).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "core/dtype.hpp"
#include "reference/gla.hpp"

namespace scancheck {

//! A test problem's draws: float32-representable, gates by regime.
inline GlaProblem draw(std::uint64_t seed, const std::string& regime, GateForm gates, std::int64_t B, std::int64_t T,
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

//! The problem with its inputs rounded to bfloat16: what a bfloat16-io kernel is given.
inline GlaProblem in_bf16(GlaProblem p) {
  for (Tensor<double>* t : {&p.q, &p.k, &p.v, &p.g, &p.d_o})
    for (double& x : t->values()) x = round_to_bf16(static_cast<float>(x));
  for (std::optional<Tensor<double>>* t : {&p.h0, &p.dht})
    if (*t)
      for (double& x : (*t)->values()) x = round_to_bf16(static_cast<float>(x));
  return p;
}

}  // namespace scancheck
