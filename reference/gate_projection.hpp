// SPDX-License-Identifier: Apache-2.0
//! @file
//! The block-diagonal gate projection of one head, forward and backward, over a reference scalar S:
//! z = x W + b, dx = W dz, dW = sum_t x_t^T dz_t. These three K_in x K_out products are almost all of the
//! reference's arithmetic, so for S = float128 and Quad (quad.hpp) they have a fast path:
//!
//! Inputs and weights are float32 values (exactly representable in double), so x W is an exact double
//! product, and sums of such products kept as double-double (error-free transformations, Knuth's TwoSum)
//! are accurate to about 2^-104 relative to the sum of |terms|: near-quad results at double speed.
//! A float128 cotangent dz is split into double-double hi + lo with hi cut into two 26-bit halves
//! (Veltkamp), so x * hi is exactly a double plus its error (Dekker's product) and only x * lo (2^-53
//! smaller) rounds. The accumulators are separate hi and lo arrays (double_double.hpp's add_products), so
//! the loops vectorise. Any operand that is not float-exact sends that row down the plain S path, so results
//! never depend on the fast path being applicable.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "reference/double_double.hpp"
#include "reference/quad.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {

//! The scalars whose values are float128, which take the double-double path: float128 itself and Quad.
inline const float128& quad_value(const float128& v) { return v; }
inline const float128& quad_value(const Quad& v) { return v.value(); }

template <class S>
class GateProjection {
  static constexpr bool has_fast_path = std::is_same_v<S, float128> || std::is_same_v<S, Quad>;

 public:
  //! w: [K_in, K_out] row-major, bias: [K_out].
  GateProjection(const std::vector<S>& w, const std::vector<S>& bias, std::int64_t k_in, std::int64_t k_out)
      : w_(w), bias_(bias), k_in_(k_in), k_out_(k_out), dw_(w.size(), S(0)) {
    if constexpr (has_fast_path) {
      fast_ = true;
      for (const S& v : w) fast_ = fast_ && dd::float_exact(quad_value(v));
      if (fast_) {
        w_double_.resize(w.size());
        w_transposed_.resize(w.size());
        for (std::int64_t i = 0; i < k_in; ++i)
          for (std::int64_t j = 0; j < k_out; ++j) {
            w_double_[i * k_out + j] = exact_double(w[i * k_out + j]);
            w_transposed_[j * k_in + i] = w_double_[i * k_out + j];
          }
        dw_hi_.assign(w.size(), 0.0);
        dw_lo_.assign(w.size(), 0.0);
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
        for (std::size_t k = 0; k < dw.size(); ++k) dw[k] = dw[k] + S(dd::to_float128({dw_hi_[k], dw_lo_[k]}));
    }
    return dw;
  }

 private:
  static bool row_float_exact(const S* x, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
      if (!dd::float_exact(quad_value(x[i]))) return false;
    return true;
  }

  //! The double a float-exact value is.
  static double exact_double(const S& v) { return dd::nearest_double(quad_value(v)); }

  void forward_fast(const S* x, S* z) const {
    std::vector<double> hi(k_out_, 0.0), lo(k_out_, 0.0);
    for (std::int64_t i = 0; i < k_in_; ++i)
      dd::add_products(hi.data(), lo.data(), exact_double(x[i]), &w_double_[i * k_out_], k_out_);
    for (std::int64_t j = 0; j < k_out_; ++j) z[j] = S(dd::to_float128({hi[j], lo[j]})) + bias_[j];
  }

  //! j outer, i inner: each dx[i] still sums j ascending, but the K_in sums advance side by side.
  void back_project_fast(const S* dz, S* dx) const {
    std::vector<double> hi(k_in_, 0.0), lo(k_in_, 0.0);
    for (std::int64_t j = 0; j < k_out_; ++j)
      dd::add_products(hi.data(), lo.data(), &w_transposed_[j * k_in_], dd::split(quad_value(dz[j])), k_in_);
    for (std::int64_t i = 0; i < k_in_; ++i) dx[i] = S(dd::to_float128({hi[i], lo[i]}));
  }

  void accumulate_gradient_fast(const S* x, const S* dz) {
    std::vector<double> h1(k_out_), h2(k_out_), v_lo(k_out_);
    for (std::int64_t j = 0; j < k_out_; ++j) {
      const dd::Split part = dd::split(quad_value(dz[j]));
      h1[j] = part.h1;
      h2[j] = part.h2;
      v_lo[j] = part.lo;
    }
    for (std::int64_t i = 0; i < k_in_; ++i)
      dd::add_products(&dw_hi_[i * k_out_], &dw_lo_[i * k_out_], exact_double(x[i]), h1.data(), h2.data(), v_lo.data(),
                       k_out_);
  }

  const std::vector<S>& w_;
  const std::vector<S>& bias_;
  std::int64_t k_in_, k_out_;
  std::vector<S> dw_;
  bool fast_ = false;
  std::vector<double> w_double_;       // [K_in, K_out]
  std::vector<double> w_transposed_;   // [K_out, K_in]
  std::vector<double> dw_hi_, dw_lo_;  // [K_in, K_out]: the float-exact rows' dW in double-double
};

}  // namespace scancheck::ref
