// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated linear attention reference at a production shape, whole (not sampled): the tiered evaluation
//! (double values certified against their float32 bounds, float128 where not; what judging needs) against
//! the plain double evaluation of the same recurrence (values only) in the same run.
//!
//!     gla_reference_time [B T H K V [threads]]     (default: 4 4096 16 128 128, every core)
//!
//! Inputs: default-regime draws (normal q, k, v, do; log-sigmoid gates; h0 and dht present).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>

#include "reference/gla.hpp"

namespace {

using namespace scancheck;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const auto arg = [&](int i, std::int64_t fallback) { return argc > i ? std::atoll(argv[i]) : fallback; };
  const std::int64_t B = arg(1, 4), T = arg(2, 4096), H = arg(3, 16), K = arg(4, 128), V = arg(5, 128);
  const int threads = static_cast<int>(arg(6, 0));
  std::mt19937_64 rng(2026);
  std::normal_distribution<double> normal;
  const auto fill = [&](Dims dims, bool gates) {
    Tensor<double> t(std::move(dims));
    for (double& x : t.values()) {
      const double z = normal(rng);
      x = static_cast<float>(gates ? -std::log1p(std::exp(-z)) : z);
    }
    return t;
  };
  GlaProblem p;
  p.q = fill({B, T, H, K}, false);
  p.k = fill({B, T, H, K}, false);
  p.v = fill({B, T, H, V}, false);
  p.g = fill({B, T, H, K}, true);
  p.d_o = fill({B, T, H, V}, false);
  p.h0 = fill({B, H, K, V}, false);
  p.dht = fill({B, H, K, V}, false);
  std::cout << "gla B " << B << " T " << T << " H " << H << " K " << K << " V " << V << ", "
            << (threads ? std::to_string(threads) : std::string("every")) << " thread(s)\n";
  auto start = std::chrono::steady_clock::now();
  const auto plain = gla_reference(p, Precision::float64, threads);
  const double baseline = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const GlaEvaluation tiered = gla_evaluate(p, Precision::tiered, {}, threads);
  const double judged = seconds_since(start);
  std::int64_t elements = 0;
  for (const auto& [name, t] : tiered.values) elements += t.size();
  std::cout << "double values alone: " << baseline << " s\n"
            << "tiered values and bounds: " << judged << " s (" << elements << " elements, "
            << tiered.uncertified_elements << " not certified in double, " << tiered.float128_blocks.size()
            << " blocks in float128)\n"
            << "tiered/double: " << judged / baseline << "\n";
  return plain.at("o").size() == tiered.values.at("o").size() ? 0 : 1;
}
