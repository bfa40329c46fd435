// SPDX-License-Identifier: Apache-2.0
//! @file
//! The block-diagonal gate projection of one head, forward and backward, over a reference scalar S:
//! z = x W + b, dx = W dz, dW = sum_t x_t^T dz_t. These three K_in x K_out products are almost all of the
//! reference's arithmetic, so for S = float128 they have a fast path:
//!
//! Inputs and weights are float32 values (exactly representable in double), so x W is an exact double
//! product, and sums of such products kept as double-double (error-free transformations, Knuth's TwoSum)
//! are accurate to about 2^-104 relative to the sum of |terms|: near-quad results at double speed.
//! A float128 cotangent dz is split into double-double hi + lo with hi cut into two 26-bit halves
//! (Veltkamp), so x * hi is two exact products and only x * lo (2^-53 smaller) rounds.
//! Any operand that is not float-exact sends that row down the plain S path, so results never depend on
//! the fast path being applicable.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "reference/scalar.hpp"

namespace scancheck::ref {

namespace dd {

//! A double-double: hi + lo with |lo| <= ulp(hi) / 2.
struct Number {
  double hi = 0, lo = 0;
};

//! s + e == a + b exactly (Knuth).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bp = s - a;
  e = (a - (s - bp)) + (b - bp);
}

//! acc += p, keeping acc normalised.
inline void add(Number& acc, double p) {
  double s, e;
  two_sum(acc.hi, p, s, e);
  e += acc.lo;
  acc.hi = s + e;
  acc.lo = e - (acc.hi - s);
}

//! A double-double split further: hi = h1 + h2 with h1, h2 of at most 26 significant bits (Veltkamp), so
//! that a float32 value times h1 or h2 is exact in double.
struct Split {
  double h1 = 0, h2 = 0, lo = 0;
};

inline Split split(const float128& v) {
  const double hi = static_cast<double>(v);
  const double lo = static_cast<double>(v - float128(hi));
  const double c = 134217729.0 * hi;  // 2^27 + 1
  const double h1 = c - (c - hi);
  return {h1, hi - h1, lo};
}

//! acc += x * v for a float-exact x.
inline void add_product(Number& acc, double x, const Split& v) {
  add(acc, x * v.h1);
  add(acc, x * v.h2);
  acc.lo += x * v.lo;
}

inline float128 to_float128(const Number& n) { return float128(n.hi) + float128(n.lo); }

inline bool float_exact(const float128& v) {
  const double d = static_cast<double>(v);
  return float128(d) == v && static_cast<double>(static_cast<float>(d)) == d;
}

}  // namespace dd

template <class S>
class GateProjection {
  static constexpr bool has_fast_path = std::is_same_v<S, float128>;

 public:
  //! w: [K_in, K_out] row-major, bias: [K_out].
  GateProjection(const std::vector<S>& w, const std::vector<S>& bias, std::int64_t k_in, std::int64_t k_out)
      : w_(w), bias_(bias), k_in_(k_in), k_out_(k_out), dw_(w.size(), S(0)) {
    if constexpr (has_fast_path) {
      fast_ = true;
      for (const S& v : w) fast_ = fast_ && dd::float_exact(v);
      if (fast_) {
        w_double_.resize(w.size());
        w_transposed_.resize(w.size());
        for (std::int64_t i = 0; i < k_in; ++i)
          for (std::int64_t j = 0; j < k_out; ++j) {
            w_double_[i * k_out + j] = static_cast<double>(w[i * k_out + j]);
            w_transposed_[j * k_in + i] = w_double_[i * k_out + j];
          }
        dw_dd_.resize(w.size());
      }
    }
  }

  //! z[j] = sum_i x[i] w[i, j] + bias[j], i ascending.
  void forward(const S* x, S* z) const {
    if constexpr (has_fast_path) {
      if (fast_ && row_float_exact(x, k_in_)) return forward_fast(x, z);
    }
    for (std::int64_t j = 0; j < k_out_; ++j) z[j] = S(0);
    for (std::int64_t i = 0; i < k_in_; ++i)
      for (std::int64_t j = 0; j < k_out_; ++j) z[j] = z[j] + x[i] * w_[i * k_out_ + j];
    for (std::int64_t j = 0; j < k_out_; ++j) z[j] = z[j] + bias_[j];
  }

  //! dx[i] = sum_j w[i, j] dz[j], j ascending.
  void back_project(const S* dz, S* dx) const {
    if constexpr (has_fast_path) {
      if (fast_) return back_project_fast(dz, dx);
    }
    for (std::int64_t i = 0; i < k_in_; ++i) {
      S acc(0);
      for (std::int64_t j = 0; j < k_out_; ++j) acc = acc + w_[i * k_out_ + j] * dz[j];
      dx[i] = acc;
    }
  }

  //! dW[i, j] += x[i] dz[j].
  void accumulate_gradient(const S* x, const S* dz) {
    if constexpr (has_fast_path) {
      if (fast_ && row_float_exact(x, k_in_)) return accumulate_gradient_fast(x, dz);
    }
    for (std::int64_t i = 0; i < k_in_; ++i)
      for (std::int64_t j = 0; j < k_out_; ++j) dw_[i * k_out_ + j] = dw_[i * k_out_ + j] + x[i] * dz[j];
  }

  std::vector<S> weight_gradient() const {
    std::vector<S> dw = dw_;
    if constexpr (has_fast_path) {
      if (fast_)
        for (std::size_t k = 0; k < dw.size(); ++k) dw[k] = dw[k] + dd::to_float128(dw_dd_[k]);
    }
    return dw;
  }

 private:
  static bool row_float_exact(const S* x, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
      if (!dd::float_exact(x[i])) return false;
    return true;
  }

  void forward_fast(const S* x, S* z) const {
    std::vector<dd::Number> acc(k_out_);
    for (std::int64_t i = 0; i < k_in_; ++i) {
      const double xi = static_cast<double>(x[i]);
      const double* w = &w_double_[i * k_out_];
      for (std::int64_t j = 0; j < k_out_; ++j) dd::add(acc[j], xi * w[j]);  // exact product
    }
    for (std::int64_t j = 0; j < k_out_; ++j) z[j] = dd::to_float128(acc[j]) + bias_[j];
  }

  //! j outer, i inner: each dx[i] still sums j ascending, but the K_in sums advance side by side.
  void back_project_fast(const S* dz, S* dx) const {
    std::vector<dd::Number> acc(k_in_);
    for (std::int64_t j = 0; j < k_out_; ++j) {
      const dd::Split part = dd::split(dz[j]);
      const double* w = &w_transposed_[j * k_in_];
      for (std::int64_t i = 0; i < k_in_; ++i) dd::add_product(acc[i], w[i], part);
    }
    for (std::int64_t i = 0; i < k_in_; ++i) dx[i] = dd::to_float128(acc[i]);
  }

  void accumulate_gradient_fast(const S* x, const S* dz) {
    std::vector<dd::Split> parts(k_out_);
    for (std::int64_t j = 0; j < k_out_; ++j) parts[j] = dd::split(dz[j]);
    for (std::int64_t i = 0; i < k_in_; ++i) {
      const double xi = static_cast<double>(x[i]);
      dd::Number* acc = &dw_dd_[i * k_out_];
      for (std::int64_t j = 0; j < k_out_; ++j) dd::add_product(acc[j], xi, parts[j]);
    }
  }

  const std::vector<S>& w_;
  const std::vector<S>& bias_;
  std::int64_t k_in_, k_out_;
  std::vector<S> dw_;
  bool fast_ = false;
  std::vector<double> w_double_;      // [K_in, K_out]
  std::vector<double> w_transposed_;  // [K_out, K_in]
  std::vector<dd::Number> dw_dd_;
};

}  // namespace scancheck::ref
