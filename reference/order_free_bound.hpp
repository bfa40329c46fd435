// SPDX-License-Identifier: Apache-2.0
//! @file
//! A float32 rounding-error bound of the linear recurrence h_t = a_t h_{t-1} + b_t, and of its reverse scan,
//! that holds for every evaluation order scan kernels use: sequential; chunked with the carry fed in;
//! chunk-local scans from a zero state plus the cumulative decay product times the carry; Kogge-Stone
//! (Hillis-Steele) and Blelloch trees over the whole sequence; trees inside blocks with sequential or tree
//! carries between them; any block size, with or without FMA contraction. The derivation is in
//! docs/reference.md ("Every evaluation order"); in short:
//!
//!   h_t = sum_s b_s a_{s+1} ... a_t. Every order multiplies term s by the same t - s decays (a product of
//!   n factors takes n - 1 roundings in any grouping), and adds it in at most (t - s + 1) + D(L) times,
//!   D(L) = 2 ceil(log2 L) + 4 covering the trees' depth and the carries' extra additions. A product rounds
//!   by at most c_m u of its exact magnitude, an addition by u of its partial sum, which is at most the sum
//!   of its terms' magnitudes. With S_t = sum_s |term_s| and W_t = sum_s (t - s) |term_s|, both running
//!   forms in O(L) (S_t = |a_t| S_{t-1} + |b_t|, W_t = |a_t| (W_{t-1} + S_{t-1})), the rounding of h_t in
//!   any of those orders is at most
//!       u ((c_m + 1) W_t + (1 + D(L)) S_t),       u = 2^-24, c_m = 1 (real) or 2 sqrt 2 (complex).
//!   The errors the inputs a_t, b_t already carry (the gates' own float32 roundings in the RG-LRU layers)
//!   reach h_t through the exact derivatives, the same in every order to first order:
//!       P_t = |a_t| P_{t-1} + |h_{t-1}| E(a_t) + E(a_t) P_{t-1} + E(b_t).
//!
//! The backward's product G_t = g_t conj(h_{t-1}) (da of the plain scans, d(at) of the layers) is bounded the
//! same way over its cross terms c_r b_s a_{s+1} .. a_r (without a_t): whether a kernel multiplies the two
//! scans' results or sums the cross terms in a tree (autograd through an associative scan, jax.grad), each
//! term takes r - s multiplications and at most (r - s + 1) + 2 D(L) additions, and their magnitudes sum to
//! S^g_t S^h_{t-1}: the product of an absolute reverse scan and an absolute forward scan.
//!
//! Only Bounded fields (reference/bounded.hpp) carry bounds; those of scope sequential_order are not widened.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "reference/bounded.hpp"
#include "reference/complex.hpp"

namespace scancheck::ref {

//! Fields whose float32 bounds admit every evaluation order: Bounded<T> and Complex<Bounded<T>> but those of
//! scope sequential_order (reference/bounded.hpp).
template <class F>
inline constexpr bool admits_every_order_v = false;
template <class T, BoundScope Scope, bool Certifies>
inline constexpr bool admits_every_order_v<Bounded<T, Scope, Certifies>> = Scope != BoundScope::sequential_order;
template <class T, BoundScope Scope, bool Certifies>
inline constexpr bool admits_every_order_v<Complex<Bounded<T, Scope, Certifies>>> =
    Scope != BoundScope::sequential_order;

//! What the order-free bound of one element of a scan is made of.
struct TermSums {
  double sum = 0;      //!< S_t: the exact terms' absolute sum (an absolute scan)
  double chain = 0;    //!< W_t: each term's magnitude times its number of decay multiplications
  double carried = 0;  //!< P_t: the inputs' own errors carried to h_t, and gradual underflow's
};

//! D(L): additions a term can take in any of the orders above beyond the sequential order's t - s + 1.
//! Kogge-Stone adds ceil(log2 L), Blelloch 2 ceil(log2 L), trees in blocks of C with tree carries
//! 2 (ceil(log2 C) + ceil(log2 L/C)) <= 2 ceil(log2 L) + 2, chunk-local scans plus carries 1.
inline double extra_additions(std::int64_t length) {
  // ceil(log2 L) = bit_width(L - 1), exactly and without a logarithm: this runs once per element.
  return 2.0 * std::bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(length, 2) - 1)) + 4;
}

//! The roundings of one field: a product's error is at most `product` u times its exact magnitude. A complex
//! product (x.re y.re - x.im y.im, ...) errs by at most 2 u (|x.re y.re| + |x.im y.im|) per component, which
//! is 2 sqrt 2 u |x| |y| as a vector; a real one by u |x y|. Additions by u of the result, both.
template <class F>
inline constexpr double product_rounding = is_complex_v<F> ? 2.8284271247461903 : 1.0;

//! Unit roundoff of float32.
inline constexpr double u32 = 0x1p-24;

//! The most a rounding near underflow adds in absolute terms in field F's bound: half the subnormal spacing,
//! and the flushed result's 2^-126 where the bound admits flush-to-zero arithmetic (reference/bounded.hpp).
template <class F>
inline constexpr double underflow32 = 0x1p-150;
template <class T, BoundScope Scope, bool Certifies>
inline constexpr double underflow32<Bounded<T, Scope, Certifies>> = 0x1p-150 + float32_unit_of<Scope>.flushed;
template <class T, BoundScope Scope, bool Certifies>
inline constexpr double underflow32<Complex<Bounded<T, Scope, Certifies>>> = 0x1p-150 + float32_unit_of<Scope>.flushed;

//! |x| and its float32 bound, for a bounded field.
template <class T, BoundScope A, bool C>
double magnitude(const Bounded<T, A, C>& x) {
  return std::fabs(x.approx());
}
template <class T, BoundScope A, bool C>
double magnitude(const Complex<Bounded<T, A, C>>& x) {
  return norm_bound(x.re.approx(), x.im.approx());
}
template <class T, BoundScope A, bool C>
double error_bound(const Bounded<T, A, C>& x) {
  return x.bound();
}
template <class T, BoundScope A, bool C>
double error_bound(const Complex<Bounded<T, A, C>>& x) {
  return x.norm;
}

//! `x` with a float32 bound of at least `e`; its value and its working bound (the double evaluation's own
//! error, which follows scancheck's order) are unchanged. A complex value's components get the vector bound:
//! a component's own propagation describes the sequential order only.
template <class T, BoundScope A, bool C>
Bounded<T, A, C> widened(const Bounded<T, A, C>& x, double e) {
  return Bounded<T, A, C>::with_bound(x.value(), std::max(x.bound(), e), x.working_bound());
}
template <class T, BoundScope A, bool C>
Complex<Bounded<T, A, C>> widened(const Complex<Bounded<T, A, C>>& x, double e) {
  using B = Bounded<T, A, C>;
  Complex<Bounded<T, A, C>> z = x;
  z.norm = std::max(x.norm, e);
  z.re = B::with_bound(x.re.value(), std::max(x.re.bound(), z.norm), x.re.working_bound());
  z.im = B::with_bound(x.im.value(), std::max(x.im.bound(), z.norm), x.im.working_bound());
  return z;
}

//! The order-free rounding of a scan of `length` steps in field F, from one element's sums.
template <class F>
double scan_rounding(const TermSums& s, std::int64_t length) {
  return u32 * ((product_rounding<F> + 1) * s.chain + (1 + extra_additions(length)) * s.sum);
}

//! One step of the running sums: the element a * prev + b, whose previous state has magnitude
//! `prev_magnitude` (the exact h_{t-1}).
template <class F>
TermSums step_sums(const TermSums& prev, const F& a, const F& b, double prev_magnitude, std::int64_t length) {
  const double m = magnitude(a), e = error_bound(a);
  TermSums next;
  next.sum = m * prev.sum + magnitude(b);
  next.chain = m * (prev.chain + prev.sum);
  next.carried = m * prev.carried + prev_magnitude * e + e * prev.carried + error_bound(b) +
                 (product_rounding<F> + 2 + extra_additions(length)) * underflow32<F>;
  return next;
}

//! The sums of an element that is an input as it stands (a restart: h_t = b_t).
template <class F>
TermSums input_sums(const F& b) {
  return {magnitude(b), 0, error_bound(b)};
}

//! The order-free bound of the scan element with sums `s`.
template <class F>
double scan_bound(const TermSums& s, std::int64_t length) {
  return s.carried + scan_rounding<F>(s, length);
}

//! The order-free bound of G = g conj(h_prev), from the sums of the reverse-scan element g and of the
//! forward element h_prev it multiplies (see the file comment), plus what reading h_prev back from io
//! storage adds (`read_back_extra`, already times |g|).
template <class F>
double product_bound(const F& g, const TermSums& gs, const F& h_prev, const TermSums& hs, std::int64_t length,
                     double read_back_extra) {
  const double carried = magnitude(g) * hs.carried + magnitude(h_prev) * gs.carried + gs.carried * hs.carried;
  const double cross_chain = gs.chain * hs.sum + gs.sum * hs.chain + gs.sum * hs.sum;
  const double rounding =
      u32 * ((product_rounding<F> + 1) * cross_chain + (1 + 2 * extra_additions(length)) * gs.sum * hs.sum);
  const double underflow = (product_rounding<F> + 1 + 2 * extra_additions(length)) * underflow32<F>;
  return carried + rounding + underflow + read_back_extra;
}

}  // namespace scancheck::ref
