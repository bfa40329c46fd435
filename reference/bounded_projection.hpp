// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gate projection (gate_projection.hpp) over Bounded<double>: the same three K_in x K_out products,
//! values in the generic order (i ascending for z, j ascending for dx), so bit for bit the generic path's,
//! but the bounds summed per output in vectorised loops instead of operation by operation. The projections
//! are almost all of a bounded pass's arithmetic (6 K_in products per element against a few dozen
//! operations in the recurrence), and operation by operation each carries branches and two bounds.
//!
//! The bookkeeping is the generic rule regrouped: the gate inputs and weights are inputs of the case, exact
//! (bounds 0), so a product with an exact factor carries |exact| E(other) and rounds by half an ulp, and a
//! sum carries E(a) + E(b) and rounds by half an ulp (bounded.hpp). Summed over the terms of one output,
//! the float32 bound is the carried part plus half an ulp of every product and partial sum; the working
//! bound of a certifying scalar takes the same roundings in the double unit and bounds its carried part by
//! the largest working-to-float32 ratio of the inexact factors times the float32 carried part (larger
//! than the generic propagation by at most that ratio's spread, which certification tolerates).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "reference/bounded.hpp"
#include "reference/gate_projection.hpp"

//! The inner loops are compiled for AVX-512, AVX2 and the x86-64 baseline, and the loader picks the best the
//! machine has. Without contraction (-ffp-contract=off) every clone rounds identically: results do not
//! depend on the machine.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCANCHECK_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SCANCHECK_VECTOR_CLONES
#endif

namespace scancheck::ref {

template <BoundScope Scope, bool Certifies>
class GateProjection<Bounded<double, Scope, Certifies>> {
  using B = Bounded<double, Scope, Certifies>;

  //! Sums of products kept as the value, the carried float32 bound sum |c| E(a) + |a| E(c) over the terms,
  //! and the sum of |product| + |partial sum| over the terms, whose half ulps are the roundings:
  //!   E = carried + 2^-24 magnitudes + terms (2^-149 + 2 flush32),
  //!   C = ratio carried + 2^-53 magnitudes + terms 2^-1074,
  //! where `ratio` is the largest C(dz) / E(dz) of the inexact factors met: C(dz) <= ratio E(dz) for each,
  //! so ratio times the carried float32 bound is a (slightly larger) carried working bound.
  struct Sums {
    std::vector<double> value, carried, magnitudes;
    double ratio = 0;
    std::int64_t terms = 0;
    explicit Sums(std::size_t n = 0) : value(n, 0.0), carried(n, 0.0), magnitudes(n, 0.0) {}
    B at(std::size_t k) const {
      const auto guarded = [](double e) { return std::isnan(e) ? std::numeric_limits<double>::infinity() : e; };
      const double n = static_cast<double>(terms);
      constexpr FloatUnit unit = float32_unit_of<Scope>;  // n products and n additions, each may flush
      const double single = carried[k] + 0.5 * unit.relative * magnitudes[k] + n * (unit.smallest + 2 * unit.flushed);
      const double working =
          Certifies ? ratio * carried[k] + 0.5 * float64_unit.relative * magnitudes[k] + n * float64_unit.smallest
                    : 0.0;
      return B::with_bound(value[k], guarded(single), guarded(working));
    }
  };

 public:
  //! w: [K_in, K_out] row-major, bias: [K_out]; both exact inputs.
  GateProjection(const std::vector<B>& w, const std::vector<B>& bias, std::int64_t k_in, std::int64_t k_out)
      : bias_(bias),
        k_in_(k_in),
        k_out_(k_out),
        w_(w.size()),
        w_transposed_(w.size()),
        w_transposed_abs_(w.size()),
        dw_(w.size()),
        pending_x_(pending_steps * k_in),
        pending_dz_(pending_steps * k_out),
        pending_dz_bound_(pending_steps * k_out) {
    require_exact(w.data(), static_cast<std::int64_t>(w.size()));
    for (std::int64_t i = 0; i < k_in; ++i)
      for (std::int64_t j = 0; j < k_out; ++j) {
        w_[i * k_out + j] = w[i * k_out + j].value();
        w_transposed_[j * k_in + i] = w_[i * k_out + j];
        w_transposed_abs_[j * k_in + i] = std::fabs(w_[i * k_out + j]);
      }
  }

  //! z[j] = sum_i x[i] w[i, j] + bias[j], i ascending.
  void forward(const B* x, B* z) const {
    require_exact(x, k_in_);
    Sums acc(k_out_);
    for (std::int64_t i = 0; i < k_in_; ++i) add_exact_products(acc, 0, k_out_, x[i].value(), &w_[i * k_out_]);
    acc.terms = k_in_;
    for (std::int64_t j = 0; j < k_out_; ++j) z[j] = acc.at(j) + bias_[j];
  }

  //! dx[i] = sum_j w[i, j] dz[j], j ascending.
  void back_project(const B* dz, B* dx) const {
    Sums acc(k_in_);
    for (std::int64_t j = 0; j < k_out_; ++j) {
      add_products(acc, 0, k_in_, dz[j].value(), dz[j].bound(), &w_transposed_[j * k_in_],
                   &w_transposed_abs_[j * k_in_]);
      note_ratio(acc, dz[j]);
    }
    acc.terms = k_out_;
    for (std::int64_t i = 0; i < k_in_; ++i) dx[i] = acc.at(i);
  }

  //! dW[i, j] += x[i] dz[j]. Buffered: a flush adds the buffered steps row by row of dW, in the order they
  //! came, so each row stays in the first-level cache while it takes them.
  void accumulate_gradient(const B* x, const B* dz) {
    require_exact(x, k_in_);
    const std::size_t step = pending_++;
    for (std::int64_t i = 0; i < k_in_; ++i) pending_x_[step * k_in_ + i] = x[i].value();
    for (std::int64_t j = 0; j < k_out_; ++j) {
      pending_dz_[step * k_out_ + j] = dz[j].value();
      pending_dz_bound_[step * k_out_ + j] = dz[j].bound();
      note_ratio(dw_, dz[j]);
    }
    if (pending_ == pending_steps) flush_gradient();
  }

  std::vector<B> weight_gradient() {
    flush_gradient();
    std::vector<B> dw(dw_.value.size());
    for (std::size_t k = 0; k < dw.size(); ++k) dw[k] = dw_.at(k);
    return dw;
  }

 private:
  // The three inner loops: acc[at + k] += (product k), restricted pointers so that they vectorise.

  void flush_gradient() {
    for (std::int64_t i = 0; i < k_in_; ++i)
      for (std::size_t step = 0; step < pending_; ++step)
        add_scaled_products(dw_, i * k_out_, k_out_, pending_x_[step * k_in_ + i], &pending_dz_[step * k_out_],
                            &pending_dz_bound_[step * k_out_]);
    dw_.terms += static_cast<std::int64_t>(pending_);
    pending_ = 0;
  }

  //! Products of exact factors c a[k]: nothing carried.
  SCANCHECK_VECTOR_CLONES static void add_exact_products(Sums& acc, std::int64_t at, std::int64_t n, double c,
                                                         const double* __restrict a) {
    double* __restrict value = acc.value.data() + at;
    double* __restrict magnitudes = acc.magnitudes.data() + at;
    for (std::int64_t k = 0; k < n; ++k) {
      const double p = c * a[k], s = value[k] + p;
      value[k] = s;
      magnitudes[k] += std::fabs(p) + std::fabs(s);
    }
  }

  //! Products c a[k] of an inexact scalar c (float32 bound c_single) and exact a[k] (|a[k]| = a_abs[k]).
  SCANCHECK_VECTOR_CLONES static void add_products(Sums& acc, std::int64_t at, std::int64_t n, double c,
                                                   double c_single, const double* __restrict a,
                                                   const double* __restrict a_abs) {
    double* __restrict value = acc.value.data() + at;
    double* __restrict carried = acc.carried.data() + at;
    double* __restrict magnitudes = acc.magnitudes.data() + at;
    for (std::int64_t k = 0; k < n; ++k) {
      const double p = c * a[k], s = value[k] + p;
      value[k] = s;
      carried[k] += a_abs[k] * c_single;
      magnitudes[k] += std::fabs(p) + std::fabs(s);
    }
  }

  //! Products c a[k] of an exact scalar c and inexact a[k] (float32 bounds a_single[k]).
  SCANCHECK_VECTOR_CLONES static void add_scaled_products(Sums& acc, std::int64_t at, std::int64_t n, double c,
                                                          const double* __restrict a,
                                                          const double* __restrict a_single) {
    double* __restrict value = acc.value.data() + at;
    double* __restrict carried = acc.carried.data() + at;
    double* __restrict magnitudes = acc.magnitudes.data() + at;
    const double c_abs = std::fabs(c);
    for (std::int64_t k = 0; k < n; ++k) {
      const double p = c * a[k], s = value[k] + p;
      value[k] = s;
      carried[k] += c_abs * a_single[k];
      magnitudes[k] += std::fabs(p) + std::fabs(s);
    }
  }

  //! Widens acc's ratio to cover an inexact factor's working bound (0 / 0 is 0; w / 0 is unbounded).
  static void note_ratio(Sums& acc, const B& factor) {
    if constexpr (Certifies) {
      if (factor.working_bound() == 0) return;
      acc.ratio = std::max(acc.ratio, factor.bound() > 0 ? factor.working_bound() / factor.bound()
                                                         : std::numeric_limits<double>::infinity());
    }
  }

  static void require_exact(const B* x, std::int64_t n) {
    for (std::int64_t k = 0; k < n; ++k)
      if (x[k].bound() != 0 || x[k].working_bound() != 0)
        throw std::logic_error("gate projection: gate inputs and weights enter exact");
  }

  const std::vector<B>& bias_;
  std::int64_t k_in_, k_out_;
  std::vector<double> w_;                 // [K_in, K_out]
  std::vector<double> w_transposed_;      // [K_out, K_in]
  std::vector<double> w_transposed_abs_;  // |w|, [K_out, K_in]
  Sums dw_;
  static constexpr std::size_t pending_steps = 32;  //!< time steps buffered before dW takes them
  std::size_t pending_ = 0;
  std::vector<double> pending_x_, pending_dz_, pending_dz_bound_;  // [pending_steps, K_in] and [pending_steps, K_out]
};

}  // namespace scancheck::ref
