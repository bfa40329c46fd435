// SPDX-License-Identifier: Apache-2.0
//! @file
//! Double-double arithmetic: a value hi + lo held in two doubles, about 106 significant bits, built on the
//! error-free transformations TwoSum (Knuth) and TwoProd (an fma, or Dekker's product). The one source of
//! double-double code of the reference: the float128 gate projections (gate_projection.hpp) and the
//! elementary functions of the float128 reference's scalar (quad.hpp) use it. libquadmath's expq, expm1q
//! and sqrtq were half of the float128 reference's time; these are 3 to 8 times faster (exp 5x).
//!
//! Contract. The arithmetic is that of Joldes, Muller and Popescu, "Tight and rigorous error bounds for
//! basic building blocks of double-word arithmetic" (ACM TOMS 44, 2017); each operation quotes its relative
//! error bound in u = 2^-53. Each function holds on the domain stated at it (outside it the caller uses
//! another implementation: quad.hpp falls back to libquadmath); its argument is the exact value x.hi + x.lo
//! + tail, the tail being a third, lower part, so that a float128 (7 bits longer than a double-double) is
//! used whole where a function amplifies its argument's error (`Parts`). Relative error bounds, and the
//! worst seen against mpfr at 50 digits over thousands of arguments per range
//! (tests/reference/double_double_test.cpp):
//!
//!   exp, expm1, log1p, sqrt, sin, cos      double-double result   2^-100 (sin, cos: or 2^-110 absolute)  2^-103.2
//!   exp_float128, expm1_float128,          float128 result,       2^-109 (sin, cos: or 2^-140 absolute)  2^-110.4
//!   sqrt_float128, sin_float128, cos_...   rounded once
//!
//! Implementation. exp and expm1: x = (256 k + j) ln2/256 + r with |r| <= ln2/512 (ln2/256 in four pieces
//! whose multiples by m = 256 k + j are exact but the last, summed exactly by `sum_of`), e^x = 2^k 2^(j/256)
//! (1 + expm1(r)), expm1(r) - r a degree-10 polynomial (Estrin; orders 6-10 in double, below 2^-56 of it),
//! 2^(j/256) and 2^(j/256) - 1 from tables made once with libquadmath. log1p: one Newton step on expm1 from
//! the double log1p, after taking out the power of two. sqrt: one Newton step from the double sqrt. sin and
//! cos: x = k pi/128 + r with |r| <= pi/256 (pi/128 in five pieces, k < 2^26), sin and cos of k pi/128 from a
//! table of 65 sines made once with libquadmath, sin r - r and cos r - 1 as Taylor polynomials, combined by
//! the addition theorems. The float128-valued variants finish with one rounding of an exact sum
//! (`Float128Sum`) of the tables' whole values and the exact products with r, instead of in double-double.
//!
//! Needs: round to nearest, no x87 excess precision (x86-64 SSE2), and no contraction of a * b + c into an
//! fma (the project builds with -ffp-contract=off): TwoSum and TwoProd rely on it. The operations use no fma
//! beyond TwoProd's (which is exact either way), so every build computes the same values.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>

#include <quadmath.h>

#include "reference/scalar.hpp"

namespace scancheck::ref::dd {

//! A double-double: the value hi + lo, normalised: hi = round-to-nearest(hi + lo), so |lo| <= ulp(hi) / 2.
struct Number {
  double hi = 0, lo = 0;
};

// ---------------------------------------------------------------------------------------------------
// Error-free transformations

//! s + e == a + b exactly, s = round(a + b) (Knuth's TwoSum; any a, b).
inline Number two_sum(double a, double b) {
  const double s = a + b;
  const double bp = s - a;
  return {s, (a - (s - bp)) + (b - bp)};
}

//! s + e == a + b exactly, s = round(a + b), when |a| >= |b| or a == 0 (Dekker's Fast2Sum).
inline Number fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}

//! p + e == a * b exactly, p = round(a * b) (barring underflow of e, and for Dekker's |a|, |b| < 2^995).
//! With a hardware fma (-mfma) one std::fma; without, std::fma is a library call, and Dekker's product
//! (Veltkamp's split into 26-bit halves, whose products are exact) is faster. Both are exact, so the results
//! do not depend on which one a build uses.
inline Number two_prod(double a, double b) {
  const double p = a * b;
#if defined(__FMA__)
  return {p, std::fma(a, b, -p)};
#else
  constexpr double splitter = 134217729.0;  // 2^27 + 1
  const double ca = splitter * a, a1 = ca - (ca - a), a2 = a - a1;
  const double cb = splitter * b, b1 = cb - (cb - b), b2 = b - b1;
  return {p, ((a1 * b1 - p) + a1 * b2 + a2 * b1) + a2 * b2};
#endif
}

// ---------------------------------------------------------------------------------------------------
// Arithmetic

inline Number operator-(const Number& x) { return {-x.hi, -x.lo}; }

//! x + y (DWPlusFP): relative error <= 2u^2.
inline Number operator+(const Number& x, double y) {
  const Number s = two_sum(x.hi, y);
  return fast_two_sum(s.hi, x.lo + s.lo);
}
inline Number operator-(const Number& x, double y) { return x + (-y); }

//! x + y (AccurateDWPlusDW): relative error <= 3u^2 / (1 - 4u).
inline Number operator+(const Number& x, const Number& y) {
  const Number s = two_sum(x.hi, y.hi);
  const Number t = two_sum(x.lo, y.lo);
  const Number v = fast_two_sum(s.hi, s.lo + t.hi);
  return fast_two_sum(v.hi, t.lo + v.lo);
}
inline Number operator-(const Number& x, const Number& y) { return x + (-y); }

//! x * y (DWTimesFP1, no fma beyond TwoProd's, so that every build rounds alike): relative error
//! <= 3/2 u^2 + 4u^3.
inline Number operator*(const Number& x, double y) {
  const Number c = two_prod(x.hi, y);
  const Number t = fast_two_sum(c.hi, x.lo * y);
  return fast_two_sum(t.hi, t.lo + c.lo);
}

//! x * y (DWTimesDW1, no fma beyond TwoProd's): relative error <= 7u^2.
inline Number operator*(const Number& x, const Number& y) {
  const Number c = two_prod(x.hi, y.hi);
  return fast_two_sum(c.hi, c.lo + (x.hi * y.lo + x.lo * y.hi));
}

//! x / y (DWDivDW2): relative error <= 15u^2 + 56u^3.
inline Number operator/(const Number& x, const Number& y) {
  const double th = x.hi / y.hi;
  const Number r = y * th;
  const double delta = (x.hi - r.hi) + (x.lo - r.lo);  // x.hi - r.hi is exact
  return fast_two_sum(th, delta / y.hi);
}

//! acc += p in place (DWPlusFP): the accumulation step of the gate projections.
inline void add(Number& acc, double p) { acc = acc + p; }

//! 2^k for k in [-1022, 1023], exactly.
inline double pow2(int k) { return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

//! x * 2^k, exact while both parts stay normal.
inline Number scaled(const Number& x, int k) {
  const double f = pow2(k);
  return {x.hi * f, x.lo * f};
}

// ---------------------------------------------------------------------------------------------------
// float128 <-> double-double
//
// On the bits (binary128: sign, 15-bit exponent biased by 16383, 112 fraction bits; binary64: sign, 11-bit
// exponent biased by 1023, 52 fraction bits): a libgcc conversion or addition costs 10-25 ns, and the
// elementary functions and projections convert several times per element. Values outside the fast paths'
// ranges (zero, subnormal, inf, nan, far exponents) take libgcc's conversions.

namespace detail {

using u128 = unsigned __int128;
inline constexpr std::uint64_t mask52 = (std::uint64_t{1} << 52) - 1;
inline constexpr u128 mask112 = (u128{1} << 112) - 1;

inline u128 bits_of(const __float128& v) { return std::bit_cast<u128>(v); }
inline __float128 float128_of(u128 bits) { return std::bit_cast<__float128>(bits); }

//! The 113-bit significand M and exponent E of a normal binary128 v = (-1)^sign M 2^(E - 112).
struct Unpacked {
  bool negative;
  int exponent;
  u128 significand;
};
inline Unpacked unpack(u128 bits) {
  return {static_cast<bool>(bits >> 127), static_cast<int>((bits >> 112) & 0x7fff) - 16383,
          (bits & mask112) | (u128{1} << 112)};
}

}  // namespace detail

//! A float128 v cut into three doubles, v == hi + lo + tail exactly for 2^-900 <= |v| <= 2^1000: head is the
//! double-double nearest to v within 2^-105 |v| (hi + lo normalised), tail the rest (v's last 7 bits).
struct Parts {
  Number head;
  double tail = 0;
};

inline Parts parts_of(const float128& value) {
  const __float128 v = value.backend().value();
  const detail::Unpacked u = detail::unpack(detail::bits_of(v));
  if (u.exponent >= -900 && u.exponent <= 1000) {  // normal, and the tail's bits (>= 2^(E - 112)) too
    const std::uint64_t top = static_cast<std::uint64_t>(u.significand >> 60);  // 53 bits: M's first
    const std::uint64_t middle = static_cast<std::uint64_t>(u.significand >> 7) & ((detail::mask52 << 1) | 1);
    const std::uint64_t last = static_cast<std::uint64_t>(u.significand) & 0x7f;  // 7 bits
    const double sign = u.negative ? -1.0 : 1.0;
    const double hi =
        sign * std::bit_cast<double>((static_cast<std::uint64_t>(u.exponent + 1023) << 52) | (top & detail::mask52));
    const double mid = sign * static_cast<double>(middle) * pow2(u.exponent - 105);
    const double tail = sign * static_cast<double>(last) * pow2(u.exponent - 112);
    return {fast_two_sum(hi, mid), tail};  // exact: |mid| < ulp(hi)
  }
  const double hi = static_cast<double>(v);
  const __float128 rest = v - hi;
  const double lo = static_cast<double>(rest);
  return {{hi, lo}, static_cast<double>(rest - lo)};
}

//! Whether parts_of(v) is exact, from its head's hi: v normal with room below for the tail.
inline bool splits_exactly(double hi) {
  const double magnitude = std::fabs(hi);
  return magnitude >= 0x1p-900 && magnitude <= 0x1p1000;
}

//! v rounded to nearest (ties to even) in double; on the bits for |v| in [2^-1022, 2^1023].
inline double nearest_double(const float128& value) {
  const __float128 v = value.backend().value();
  const detail::Unpacked u = detail::unpack(detail::bits_of(v));
  if (u.exponent < -1022 || u.exponent > 1022) return static_cast<double>(v);
  std::uint64_t m = static_cast<std::uint64_t>(u.significand >> 60);  // 53 bits
  const std::uint64_t rest = static_cast<std::uint64_t>(u.significand) & ((std::uint64_t{1} << 60) - 1);
  const std::uint64_t half = std::uint64_t{1} << 59;
  if (rest > half || (rest == half && (m & 1))) ++m;  // m = 2^53 carries into the exponent field
  const std::uint64_t bits = (static_cast<std::uint64_t>(u.exponent + 1023) << 52) + (m - (std::uint64_t{1} << 52));
  return std::bit_cast<double>(bits | (static_cast<std::uint64_t>(u.negative) << 63));
}

//! The double-double nearest v, within 2^-107 |v| for 2^-900 <= |v| <= 2^1000.
inline Number to_number(const float128& v) {
  const Parts p = parts_of(v);
  return fast_two_sum(p.head.hi, p.head.lo + p.tail);
}

namespace detail {

//! hi + lo for hi normal and 0 < |lo| < 2^-49 |hi|: the sum formed on a 128-bit integer with 8 guard bits
//! and a sticky bit, rounded to nearest (ties to even).
inline float128 to_float128_rounded(std::uint64_t hb, std::uint64_t lb) {
  const int he = static_cast<int>((hb >> 52) & 0x7ff), le = static_cast<int>((lb >> 52) & 0x7ff);
  const u128 sign = static_cast<u128>(hb >> 63) << 127;
  int exponent = he - 1023;
  constexpr int guard = 8;
  // hi = Mh 2^(eh - 52); in units of 2^(eh - 112 - guard), hi is Mh 2^(60 + guard) and lo is Ml 2^shift.
  const u128 a = static_cast<u128>((hb & detail::mask52) | (std::uint64_t{1} << 52)) << (60 + guard);
  const std::uint64_t ml = le == 0 ? (lb & detail::mask52) : ((lb & detail::mask52) | (std::uint64_t{1} << 52));
  const int shift = (le == 0 ? -1022 : le - 1023) - exponent + 60 + guard;  // <= 10 + guard
  u128 b;
  bool sticky = false;
  if (shift >= 0) {
    b = static_cast<u128>(ml) << shift;
  } else if (shift > -64) {
    b = ml >> -shift;
    sticky = (ml & ((std::uint64_t{1} << -shift) - 1)) != 0;
  } else {
    b = 0;
    sticky = true;
  }
  u128 s;
  if ((hb >> 63) == (lb >> 63)) {
    s = a + b;  // the sticky fraction adds to it
  } else {
    s = a - b - (sticky ? 1 : 0);  // a - (b + f) = (a - b - 1) + (1 - f), 0 < f < 1
  }
  // Normalise to s in [2^(112 + guard), 2^(113 + guard)): at most one bit either way.
  if (s >> (113 + guard)) {
    sticky = sticky || (s & 1);
    s >>= 1;
    ++exponent;
  } else if (!(s >> (112 + guard))) {
    s <<= 1;  // the bit shifted in is below the rounding bit: the sticky bit covers it
    --exponent;
  }
  u128 m = s >> guard;
  const unsigned rest = static_cast<unsigned>(s) & ((1u << guard) - 1), half = 1u << (guard - 1);
  if (rest > half || (rest == half && (sticky || (m & 1)))) ++m;
  if (m >> 113) {
    m >>= 1;
    ++exponent;
  }
  return float128(detail::float128_of(sign | (static_cast<u128>(exponent + 16383) << 112) | (m & detail::mask112)));
}

}  // namespace detail

//! hi + lo rounded to nearest (ties to even) in float128, on the bits when hi is normal and |lo| < 2^-49 |hi|
//! (any normalised double-double), exactly when lo = 0 (a double, hence every double converts exactly).
inline float128 to_float128(const Number& n) {
  using detail::u128;
  const std::uint64_t hb = std::bit_cast<std::uint64_t>(n.hi), lb = std::bit_cast<std::uint64_t>(n.lo);
  const int he = static_cast<int>((hb >> 52) & 0x7ff), le = static_cast<int>((lb >> 52) & 0x7ff);
  const bool lo_zero = (lb << 1) == 0;
  if (he == 0 || he == 0x7ff || le == 0x7ff || (!lo_zero && le > he - 50))
    return float128(lo_zero ? static_cast<__float128>(n.hi)  // keeps -0
                            : static_cast<__float128>(n.hi) + static_cast<__float128>(n.lo));
  if (lo_zero)
    return float128(detail::float128_of((static_cast<u128>(hb >> 63) << 127) |
                                        (static_cast<u128>(he - 1023 + 16383) << 112) |
                                        (static_cast<u128>(hb & detail::mask52) << 60)));
  return detail::to_float128_rounded(hb, lb);
}

// ---------------------------------------------------------------------------------------------------
// The gate projections' products (gate_projection.hpp)
//
// Sums of products of float32 values (exact in double), and of float32 values with a float128 split into two
// 26-bit halves (Veltkamp) and a low part, accumulated in double-double. The accumulators are separate hi and
// lo arrays so that the loops vectorise; every element goes through the same operations in the same order
// whatever the vector width, so the results do not depend on it.

//! Whether v is a float32 value (then exactly a double, and products of two such are exact in double): on
//! the bits for zero and float32's normal range (the low 89 fraction bits zero), otherwise by conversion.
inline bool float_exact(const float128& value) {
  const __float128 v = value.backend().value();
  const detail::u128 bits = detail::bits_of(v);
  if ((bits << 1) == 0) return true;
  const int exponent = static_cast<int>((bits >> 112) & 0x7fff) - 16383;
  if (exponent >= -126 && exponent <= 127) return (bits & ((detail::u128{1} << 89) - 1)) == 0;
  const double d = static_cast<double>(v);
  return static_cast<__float128>(d) == v && static_cast<double>(static_cast<float>(d)) == d;
}

//! A float128 as h1 + h2 + lo: hi = round(v) cut into h1, h2 of at most 26 significant bits (Veltkamp), so
//! that a float32 value times h1 or h2 is exact in double; lo = the rest, to 2^-107 |v|.
struct Split {
  double h1 = 0, h2 = 0, lo = 0;
};

inline Split split(const float128& v) {
  const auto [hi, lo] = to_number(v);
  const double c = 134217729.0 * hi;  // 2^27 + 1
  const double h1 = c - (c - hi);
  return {h1, hi - h1, lo};
}

//! acc += x * v for a float-exact x: x (h1 + h2) = p + e exactly (Dekker's product, x having at most 24 and
//! h1, h2 at most 26 significant bits), p added as by DWPlusFP and e with x v.lo (2^-53 smaller) to the low part.
inline void add_product(Number& acc, double x, const Split& v) {
  const double p = x * (v.h1 + v.h2);  // v.h1 + v.h2 is round(v), exactly
  const double e = (x * v.h1 - p) + x * v.h2;
  const Number s = two_sum(acc.hi, p);
  acc = fast_two_sum(s.hi, (acc.lo + s.lo) + (e + x * v.lo));
}

//! (hi[j], lo[j]) += x w[j] for j < n, products of float-exact values (exact).
inline void add_products(double* __restrict hi, double* __restrict lo, double x, const double* __restrict w,
                         std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    Number acc{hi[j], lo[j]};
    add(acc, x * w[j]);
    hi[j] = acc.hi;
    lo[j] = acc.lo;
  }
}

//! (hi[i], lo[i]) += w[i] v for i < n, float-exact w[i].
inline void add_products(double* __restrict hi, double* __restrict lo, const double* __restrict w, const Split& v,
                         std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    Number acc{hi[i], lo[i]};
    add_product(acc, w[i], v);
    hi[i] = acc.hi;
    lo[i] = acc.lo;
  }
}

//! (hi[j], lo[j]) += x v[j] for j < n, float-exact x, v[j] = h1[j] + h2[j] + v_lo[j] (Splits as arrays).
inline void add_products(double* __restrict hi, double* __restrict lo, double x, const double* __restrict h1,
                         const double* __restrict h2, const double* __restrict v_lo, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    Number acc{hi[j], lo[j]};
    add_product(acc, x, Split{h1[j], h2[j], v_lo[j]});
    hi[j] = acc.hi;
    lo[j] = acc.lo;
  }
}

// ---------------------------------------------------------------------------------------------------
// An exact sum rounded once to float128

//! Floor of log2 |d| for a normal double d (-1023 for zero and subnormals).
inline int exponent_of(double d) { return static_cast<int>((std::bit_cast<std::uint64_t>(d) >> 52) & 0x7ff) - 1023; }

//! The float128 nearest a sum of doubles (each times a power of two): the finishing step of the
//! float128-valued functions below, whose results need more than a double-double's 106 bits. Fixed point on a
//! signed 128-bit integer in units of 2^(top - 120): every term must be below 2^(top + 1) in magnitude, at
//! most 32 of them; each term's bits below the unit are dropped (under one unit per term, so 2^-114 of a
//! result above 2^(top - 2) for 12 terms), then the sum is rounded to nearest.
class Float128Sum {
 public:
  explicit Float128Sum(int top) : top_(top) {}

  //! Adds d 2^scale.
  void add(double d, int scale = 0) {
    const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
    const int biased = static_cast<int>((b >> 52) & 0x7ff);
    std::uint64_t m = b & detail::mask52;
    if (biased != 0) m |= std::uint64_t{1} << 52;
    if (m == 0) return;
    // d = +-m 2^(e - 52) with e = biased - 1023 (-1022 for subnormals); in units: m 2^shift.
    const int shift = (biased == 0 ? -1022 : biased - 1023) - 52 + scale - (top_ - 120);  // <= 68
    detail::u128 magnitude;
    if (shift >= 0) {
      magnitude = static_cast<detail::u128>(m) << shift;
    } else if (shift > -64) {
      magnitude = m >> -shift;
    } else {
      return;
    }
    sum_ += (b >> 63) ? -static_cast<__int128>(magnitude) : static_cast<__int128>(magnitude);
  }
  void add(const Number& n, int scale = 0) {
    add(n.hi, scale);
    add(n.lo, scale);
  }

  float128 value() const {
    using detail::u128;
    if (sum_ == 0) return float128(0);
    const u128 sign = sum_ < 0 ? u128{1} << 127 : 0;
    const u128 magnitude = sum_ < 0 ? -static_cast<u128>(sum_) : static_cast<u128>(sum_);
    const std::uint64_t high = static_cast<std::uint64_t>(magnitude >> 64);
    const int lead = high ? 127 - __builtin_clzll(high) : 63 - __builtin_clzll(static_cast<std::uint64_t>(magnitude));
    int exponent = lead + top_ - 120;
    u128 m;
    if (lead > 112) {
      const int drop = lead - 112;
      m = magnitude >> drop;
      const u128 rest = magnitude & ((u128{1} << drop) - 1), half = u128{1} << (drop - 1);
      if (rest > half || (rest == half && (m & 1))) ++m;
      if (m >> 113) {
        m >>= 1;
        ++exponent;
      }
    } else {
      m = magnitude << (112 - lead);
    }
    return float128(detail::float128_of(sign | (static_cast<u128>(exponent + 16383) << 112) | (m & detail::mask112)));
  }

 private:
  int top_;
  __int128 sum_ = 0;
};

// ---------------------------------------------------------------------------------------------------
// Elementary functions

namespace detail {

//! ln2/256 = ln2_256[0] + ... + ln2_256[3] to 2^-155; the first three have 34 significant bits, so that
//! their products with an integer below 2^19 are exact.
inline constexpr double ln2_256[4] = {0x1.62e42fef80000p-9, 0x1.1cf79abc80000p-44, 0x1.e3b3980400000p-80,
                                      -0x1.a12a17e1979b3p-117};
inline constexpr double inv_ln2_256 = 0x1.71547652b82fep+8;  // 256 / ln2
//! pi/128 = pi_128[0] + ... + pi_128[4] to 2^-172; the first four have 27 significant bits (exact products
//! with an integer below 2^26).
inline constexpr double pi_128[5] = {0x1.921fb54000000p-6, 0x1.10b4610000000p-36, 0x1.a626330000000p-64,
                                     0x1.45c06e0000000p-92, 0x1.cd129024e088ap-121};
inline constexpr double inv_pi_128 = 0x1.45f306dc9c883p+5;  // 128 / pi

//! 1/n! as double-doubles (n = 3..7) and doubles (n >= 8), from mpmath at 400 bits.
inline constexpr Number inv_fact3{0x1.5555555555555p-3, 0x1.5555555555555p-57};
inline constexpr Number inv_fact4{0x1.5555555555555p-5, 0x1.5555555555555p-59};
inline constexpr Number inv_fact5{0x1.1111111111111p-7, 0x1.1111111111111p-63};
inline constexpr Number inv_fact6{0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65};
inline constexpr Number inv_fact7{0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73};
inline constexpr double inv_fact[14] = {1,
                                        1,
                                        0.5,
                                        0x1.5555555555555p-3,
                                        0x1.5555555555555p-5,
                                        0x1.1111111111111p-7,
                                        0x1.6c16c16c16c17p-10,
                                        0x1.a01a01a01a01ap-13,
                                        0x1.a01a01a01a01ap-16,
                                        0x1.71de3a556c734p-19,
                                        0x1.27e4fb7789f5cp-22,
                                        0x1.ae64567f544e4p-26,
                                        0x1.1eed8eff8d898p-29,
                                        0x1.6124613a86d09p-33};

//! The tables, made once from libquadmath (within an ulp of float128) and kept whole: head and tail.
struct Tables {
  std::array<Parts, 256> exp2;         // 2^(j/256), j = -128..127 at index j + 128
  std::array<Parts, 256> exp2_minus1;  // 2^(j/256) - 1
  std::array<Parts, 65> sin;           // sin(j pi/128), j = 0..64 (0 and 1 exact at the ends)
};

inline const Tables& tables() {
  static const Tables t = [] {
    Tables m;
    for (int j = -128; j < 128; ++j) {
      m.exp2[j + 128] = parts_of(float128(exp2q(static_cast<__float128>(j) / 256)));
      m.exp2_minus1[j + 128] = parts_of(float128(expm1q(static_cast<__float128>(j) * M_LN2q / 256)));
    }
    for (int j = 1; j < 64; ++j) m.sin[j] = parts_of(float128(sinq(static_cast<__float128>(j) * M_PIq / 128)));
    m.sin[0] = {{0, 0}, 0};
    m.sin[64] = {{1, 0}, 0};
    return m;
  }();
  return t;
}

//! The sum of at most 8 doubles as a double-double head and a third part, within u^3 n^3 of the largest
//! partial sum (Ogita, Rump and Oishi's SumK with K = 3: a TwoSum cascade over the terms, another over their
//! errors, the last errors summed in double).
inline Parts sum_of(std::initializer_list<double> terms) {
  double s = 0, errors[8];
  int n = 0;
  for (const double t : terms) {
    const Number p = two_sum(s, t);
    s = p.hi;
    errors[n++] = p.lo;
  }
  double s2 = 0, rest = 0;
  for (int i = 0; i < n; ++i) {
    const Number p = two_sum(s2, errors[i]);
    s2 = p.hi;
    rest += p.lo;
  }
  return {two_sum(s, s2), rest};
}

//! x + tail - m ln2/256 for an integer m, |m| < 2^19, as a double-double head and a third part: absolute
//! error below 2^-140. The first difference is exact (m ln2_256[0] is, and x.hi is within a factor 2 of it),
//! and so are the next multiples but the last.
inline Parts reduce_ln2_256(const Number& x, double tail, double m) {
  return sum_of({x.hi - m * ln2_256[0], -m * ln2_256[1], x.lo, -m * ln2_256[2], tail, -m * ln2_256[3]});
}

//! expm1(r) - r = r^2/2! + ... + r^10/10! for |r| <= 0.0014 (truncation below 2^-120 of expm1 r), relative
//! error about 2^-104. r^2 (1/2! + r/3! + r^2 (1/4! + r/5! + r^2 t)), t = orders 6-10 (below 2^-56 of the
//! sum) in double from r.hi: Estrin's scheme, whose independent products overlap (the dependent chain of a
//! double-double Horner scheme was the cost).
inline Number expm1_excess(const Number& r) {
  const double x = r.hi;
  const double t = inv_fact[6] + x * (inv_fact[7] + x * (inv_fact[8] + x * (inv_fact[9] + x * inv_fact[10])));
  const Number r2 = r * r;
  const Number low = Number{0.5, 0} + r * inv_fact3;
  const Number high = (inv_fact4 + r * inv_fact5) + r2 * t;
  return r2 * (low + r2 * high);
}

//! x = (256 k + j) ln2/256 + r: the reduced argument of exp and expm1.
struct ExpReduction {
  int k, j;  // j in [-128, 127]
  Parts r;   // |r| <= ln2/512 plus rounding
};

inline ExpReduction reduce_exp(const Number& x, double tail) {
  const double m = std::nearbyint(x.hi * inv_ln2_256);
  const long n = static_cast<long>(m);
  const int k = static_cast<int>((n + 128) >> 8);  // floor((m + 128) / 256)
  return {k, static_cast<int>(n - 256L * k), reduce_ln2_256(x, tail, m)};
}

}  // namespace detail

//! exp is computed for x in [exp_argument_min, exp_argument_max]: there e^x lies in [2^-966, 2^1023], so both
//! parts of the result are normal doubles; beyond, it under- or overflows double (or loses bits in lo).
inline constexpr double exp_argument_min = -670;
inline constexpr double exp_argument_max = 709;

//! e^(x + tail) for x.hi in [exp_argument_min, exp_argument_max]; relative error below 2^-103.
inline Number exp(const Number& x, double tail = 0) {
  const detail::ExpReduction a = detail::reduce_exp(x, tail);
  const Number r = a.r.head + a.r.tail;
  const Number& t = detail::tables().exp2[a.j + 128].head;
  return scaled(t + t * (r + detail::expm1_excess(r)), a.k);
}

//! e^(x + tail) - 1 for x.hi <= exp_argument_max (below exp_argument_min it is -1 to 2^-966); relative error
//! below 2^-101. Near 0 from the table of 2^(j/256) - 1, so nothing cancels; elsewhere e^x - 1 loses at most
//! a factor 3.5 (|x| >= 0.34).
inline Number expm1(const Number& x, double tail = 0) {
  if (x.hi < exp_argument_min) return {-1, 0};
  const detail::ExpReduction a = detail::reduce_exp(x, tail);
  const detail::Tables& tab = detail::tables();
  const Number& t = tab.exp2[a.j + 128].head;
  const Number r = a.r.head + a.r.tail;
  const Number p = r + detail::expm1_excess(r);
  if (a.k == 0) return tab.exp2_minus1[a.j + 128].head + t * p;
  return scaled(t + t * p, a.k) - 1.0;
}

namespace detail {

//! log1p(d + tail) for d.hi in [-0.3, 0.42]: one Newton step y = y0 + (d - expm1(y0)) / (1 + expm1(y0))
//! from the double log1p y0 (error ~2^-53, so the step's quadratic error is ~2^-106); |y0| <= 0.35 keeps
//! expm1 on its table path.
inline Number log1p_near_zero(const Number& d, double tail) {
  const double y0 = std::log1p(d.hi);
  const Number e = expm1(Number{y0, 0});
  const Number num = (d - e) + tail;
  const Number den = e + 1.0;
  return fast_two_sum(y0, num.hi / den.hi);
}

//! log(x) for a normal x > 0: e ln2 + log1p(m - 1) with m = x 2^-e in [sqrt(1/2), sqrt(2)).
inline Number log_positive(const Number& x) {
  int e;
  const double f = std::frexp(x.hi, &e);  // x.hi = f 2^e, f in [1/2, 1)
  if (f < 0x1.6a09e667f3bcdp-1) --e;
  const Number m = scaled(x, -e);
  const Number d = two_sum(m.hi - 1, m.lo);  // m.hi - 1 is exact
  const Number y = log1p_near_zero(d, 0);
  if (e == 0) return y;
  const Parts minus_e_ln2 = reduce_ln2_256(Number{0, 0}, 0, 256.0 * e);
  return y - (minus_e_ln2.head + minus_e_ln2.tail);
}

}  // namespace detail

//! log1p(x + tail) for x > -1 with 1 + x a normal double-double (x.hi up to 2^1000); relative error below
//! 2^-101. Near 0 a Newton step on expm1; elsewhere log(1 + x), with 1 + x exact below 0.
inline Number log1p(const Number& x, double tail = 0) {
  if (x.hi >= -0.29 && x.hi <= 0.41) return detail::log1p_near_zero(x, tail);
  return detail::log_positive((two_sum(1, x.hi) + x.lo) + tail);
}

//! sqrt(x + tail) for x.hi in [2^-900, 2^1000] (so that y0^2's low part is exact): one Newton step from the
//! double sqrt, relative error below 2^-104 (Joldes-Muller-Popescu's 25/8 u^2).
inline Number sqrt(const Number& x, double tail = 0) {
  const double y0 = std::sqrt(x.hi);
  const Number sq = two_prod(y0, y0);
  const double residual = (((x.hi - sq.hi) - sq.lo) + x.lo) + tail;  // x.hi - sq.hi is exact
  return fast_two_sum(y0, residual / (2 * y0));
}

//! sin and cos are computed for |x| <= trig_argument_max (k = round(x 128/pi) < 2^26).
inline constexpr double trig_argument_max = 1.6e6;

namespace detail {

//! x = k pi/128 + r, |r| <= pi/256: sin and cos of k pi/128 from the quarter-wave table (j = k mod 256 =
//! 64 q + i), and of r: sin r - r and cos r - 1 (which stay relatively accurate for tiny r).
struct TrigReduction {
  Parts sin_a, cos_a;
  Parts r;
  Number r_rounded;      // r's head + tail
  Number sin_r_minus_r;  // |.| <= r^3/6
  Number cos_r_minus_1;  // |.| <= r^2/2
};

inline Parts negated(const Parts& p) { return {-p.head, -p.tail}; }

inline TrigReduction reduce_trig(const Number& x, double tail) {
  TrigReduction t;
  const double k = std::nearbyint(x.hi * inv_pi_128);
  // r = x - k pi/128: each k pi_128[i] (i < 4) is exact, and x.hi - k pi_128[0] too (Sterbenz).
  t.r = sum_of({x.hi - k * pi_128[0], -k * pi_128[1], x.lo, -k * pi_128[2], -k * pi_128[3], tail, -k * pi_128[4]});
  const Number r = t.r_rounded = t.r.head + t.r.tail;
  // sin r - r = r^3 (-1/3! + r^2/5! - r^4/7! + r^6 s8), s8 = 1/9! - r^2/11! + r^4/13! in double (r^8/9! < 2^-65).
  const Number r2 = r * r;
  const double z = r2.hi;
  const double s8 = inv_fact[9] - z * (inv_fact[11] - z * inv_fact[13]);
  Number s = r2 * s8 - inv_fact7;
  s = inv_fact5 + r2 * s;
  s = r2 * s - inv_fact3;
  t.sin_r_minus_r = r * (r2 * s);
  // cos r - 1 = r^2 (-1/2 + r^2/4! - r^4/6! + r^6 c6), c6 = 1/8! - r^2/10! + r^4/12! in double.
  const double c6 = inv_fact[8] - z * (inv_fact[10] - z * inv_fact[12]);
  Number c = r2 * c6 - inv_fact6;
  c = inv_fact4 + r2 * c;
  c = r2 * c - 0.5;
  t.cos_r_minus_1 = r2 * c;
  const int j = static_cast<int>(static_cast<long>(k) & 255), q = j >> 6, i = j & 63;
  const std::array<Parts, 65>& table = tables().sin;
  switch (q) {
    case 0:
      t.sin_a = table[i];
      t.cos_a = table[64 - i];
      break;
    case 1:
      t.sin_a = table[64 - i];
      t.cos_a = negated(table[i]);
      break;
    case 2:
      t.sin_a = negated(table[i]);
      t.cos_a = negated(table[64 - i]);
      break;
    default:
      t.sin_a = negated(table[64 - i]);
      t.cos_a = table[i];
      break;
  }
  return t;
}

//! a (1 + (cos r - 1)) + b (r + (sin r - r)): sin(x) with a = sin a, b = cos a; cos(x) with a = cos a,
//! b = -sin a.
inline Number rotated(const Parts& a, const Parts& b, const TrigReduction& t) {
  return a.head + (a.head * t.cos_r_minus_1 + b.head * (t.r_rounded + t.sin_r_minus_r));
}

}  // namespace detail

//! sin(x + tail) for |x.hi| <= trig_argument_max. Relative error below 2^-100, or 2^-110 absolute near its
//! zeros k pi. sin(+-0) = +-0.
inline Number sin(const Number& x, double tail = 0) {
  if (x.hi == 0 && tail == 0) return x;
  const detail::TrigReduction t = detail::reduce_trig(x, tail);
  return detail::rotated(t.sin_a, t.cos_a, t);
}

//! cos(x + tail) for |x.hi| <= trig_argument_max; accuracy as for sin (absolute near the zeros (k + 1/2) pi).
inline Number cos(const Number& x, double tail = 0) {
  const detail::TrigReduction t = detail::reduce_trig(x, tail);
  return detail::rotated(t.cos_a, detail::negated(t.sin_a), t);
}

// ---------------------------------------------------------------------------------------------------
// Results rounded once to float128
//
// exp, expm1, sqrt, sin and cos evaluated as above but finished by one rounding of an exact sum
// (Float128Sum) of the tables' whole values and the exact products with the reduced argument, instead of in
// double-double: their error is below 2^-109, about 2^-111 (float128 rounds at 2^-113). The float128 reference's scalar
// uses them (quad.hpp): a sigmoid's e = exp(-|z|) enters gradients that cancel by 2^10, where 2^-104 would
// cost the reference a digit (tests/reference/reference_precision_test.cpp).

//! The float128-valued exp and expm1 take |x| up to 1400 (|m| < 2^19); the results stay normal in float128.
inline constexpr double exp_float128_argument_max = 1400;

//! e^(x + tail) for |x.hi| <= exp_float128_argument_max, within 2^-111 relative.
inline float128 exp_float128(const Number& x, double tail = 0) {
  const detail::ExpReduction a = detail::reduce_exp(x, tail);
  const Parts& t = detail::tables().exp2[a.j + 128];
  const Number r = a.r.head + a.r.tail;                      // absolute error below 2^-115
  const Number tp = t.head * (r + detail::expm1_excess(r));  // |tp| <= 2^-9.5 |t|
  Float128Sum sum(a.k);
  sum.add(t.head, a.k);
  sum.add(t.tail, a.k);
  sum.add(tp, a.k);
  return sum.value();
}

//! e^(x + tail) - 1 for x.hi <= exp_float128_argument_max, within 2^-110 relative. Near 0 (k = 0) the table's
//! 2^(j/256) - 1 plus 2^(j/256) (r + e(r)): the products of the table's parts with r's three parts are kept
//! exact (TwoProd) wherever they reach 2^-115 of the result, since r need not be small relative to it.
inline float128 expm1_float128(const Number& x, double tail = 0) {
  if (x.hi < -79) return float128(-1);  // e^x < 2^-114: -1 is the nearest float128
  const detail::ExpReduction a = detail::reduce_exp(x, tail);
  const detail::Tables& tab = detail::tables();
  const Parts& t = tab.exp2[a.j + 128];
  const Number r_rounded = a.r.head + a.r.tail;      // absolute error below 2^-115
  const Number e = detail::expm1_excess(r_rounded);  // |e| <= 2^-10 |r|
  if (a.k != 0) {  // 2^k t (1 + r + e) - 1, |result| > 0.29 (at most a factor 3.5 cancels)
    Float128Sum sum(a.k > 0 ? a.k : 0);
    sum.add(-1.0);
    sum.add(t.head, a.k);
    sum.add(t.tail, a.k);
    sum.add(t.head * (r_rounded + e), a.k);
    return sum.value();
  }
  const Number& r = a.r.head;
  const Parts& u = tab.exp2_minus1[a.j + 128];
  const Number p00 = two_prod(t.head.hi, r.hi), p01 = two_prod(t.head.hi, r.lo), p10 = two_prod(t.head.lo, r.hi);
  Float128Sum sum(exponent_of(u.head.hi) > exponent_of(p00.hi) ? exponent_of(u.head.hi) : exponent_of(p00.hi));
  sum.add(u.head);
  sum.add(u.tail);
  sum.add(p00);
  sum.add(p01);
  sum.add(p10);
  sum.add(t.head.lo * r.lo + t.head.hi * a.r.tail + t.tail * r.hi);  // ~2^-106 of t r: rounding negligible
  sum.add(t.head * e);
  return sum.value();
}

//! sqrt(x + tail) for x.hi in [2^-900, 2^1000], within 2^-112 relative: y0 sqrt(1 + R/y0^2) to second order,
//! y0 + c - c^2/(2 y0) with c = R/(2 y0), R = x - y0^2 as a double-double (y0 = the double sqrt, so
//! R/y0^2 < 2^-51 and the third-order term is below 2^-155).
inline float128 sqrt_float128(const Number& x, double tail = 0) {
  const double y0 = std::sqrt(x.hi);
  const Number sq = two_prod(y0, y0);
  const Number residual = (two_sum(x.hi - sq.hi, -sq.lo) + x.lo) + tail;  // x.hi - sq.hi is exact
  const double d = 2 * y0;
  const double c = residual.hi / d;
  const Number back = two_prod(c, d);
  const double c_lo = (((residual.hi - back.hi) - back.lo) + residual.lo) / d;
  Float128Sum sum(exponent_of(y0));
  sum.add(y0);
  sum.add(c);
  sum.add(c_lo);
  sum.add(-c * c / d);
  return sum.value();
}

namespace detail {

//! a (1 + (cos r - 1)) + b (r + (sin r - r)) rounded once: the products of b's parts with r's that reach
//! 2^-115 of the result are exact (TwoProd), since r need not be small relative to it (a = 0 near zeros).
inline float128 rotated_float128(const Parts& a, const Parts& b, const TrigReduction& t) {
  const Number& r = t.r.head;
  const Number p00 = two_prod(b.head.hi, r.hi), p01 = two_prod(b.head.hi, r.lo), p10 = two_prod(b.head.lo, r.hi);
  const int top_a = exponent_of(a.head.hi), top_b = exponent_of(p00.hi);
  Float128Sum sum(top_a > top_b ? top_a : top_b);
  sum.add(a.head);
  sum.add(a.tail);
  sum.add(a.head * t.cos_r_minus_1);
  sum.add(p00);
  sum.add(p01);
  sum.add(p10);
  sum.add(b.head.lo * r.lo + b.head.hi * t.r.tail + b.tail * r.hi);  // ~2^-106 of b r: rounding negligible
  sum.add(b.head * t.sin_r_minus_r);
  return sum.value();
}

}  // namespace detail

//! sin(x + tail) for |x.hi| <= trig_argument_max, within 2^-109 relative (plus 2^-140 absolute, the reduced
//! argument's).
inline float128 sin_float128(const Number& x, double tail = 0) {
  const detail::TrigReduction t = detail::reduce_trig(x, tail);
  return detail::rotated_float128(t.sin_a, t.cos_a, t);
}

//! cos(x + tail) for |x.hi| <= trig_argument_max, as sin_float128.
inline float128 cos_float128(const Number& x, double tail = 0) {
  const detail::TrigReduction t = detail::reduce_trig(x, tail);
  return detail::rotated_float128(t.cos_a, detail::negated(t.sin_a), t);
}

}  // namespace scancheck::ref::dd
