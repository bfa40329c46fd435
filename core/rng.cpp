// SPDX-License-Identifier: Apache-2.0
#include "core/rng.hpp"

#include <bit>
#include <cmath>

namespace scancheck {
namespace {

// Philox-4x32 constants of Random123 (philox.h): round multipliers and the Weyl sequence of the key.
constexpr std::uint32_t philox_m0 = 0xD2511F53u, philox_m1 = 0xCD9E8D57u;
constexpr std::uint32_t philox_w0 = 0x9E3779B9u, philox_w1 = 0xBB67AE85u;

std::array<std::uint32_t, 4> philox_round(const std::array<std::uint32_t, 4>& c,
                                          const std::array<std::uint32_t, 2>& k) {
  const std::uint64_t p0 = std::uint64_t{philox_m0} * c[0], p1 = std::uint64_t{philox_m1} * c[2];
  const auto hi = [](std::uint64_t p) { return static_cast<std::uint32_t>(p >> 32); };
  const auto lo = [](std::uint64_t p) { return static_cast<std::uint32_t>(p); };
  return {hi(p1) ^ c[1] ^ k[0], lo(p1), hi(p0) ^ c[3] ^ k[1], lo(p0)};
}

// 53 bits from two words, as an integer that converts to double exactly.
std::uint64_t top53(std::uint32_t low, std::uint32_t high) { return ((std::uint64_t{high} << 32) | low) >> 11; }

// The normal variate must not depend on the platform's libm, so log and cos are computed here from
// +, -, *, / only (compiled with -ffp-contract=off, so nothing fuses). About 1e-16 relative accuracy.

// 1/n! for n <= 19, each the correctly rounded quotient of an exact factorial (exact up to 22!).
constexpr std::array<double, 20> inverse_factorial = [] {
  std::array<double, 20> table{};
  double f = 1;
  for (int n = 0; n < 20; ++n) {
    if (n > 1) f *= n;
    table[static_cast<std::size_t>(n)] = 1 / f;
  }
  return table;
}();

// log(x) for positive normal x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
// s = (m-1)/(m+1), |s| < 0.172, whose odd series needs 12 terms. ln 2 is split (fdlibm's ln2_hi has
// trailing zero bits) so e * ln2_hi is exact.
double log_positive(double x) {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double sqrt2 = 1.41421356237309504880;
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  int e = static_cast<int>(bits >> 52) - 1023;
  double m = std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  if (m > sqrt2) {
    m *= 0.5;  // exact
    ++e;
  }
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double series = 1.0 / 23;  // atanh(s)/s = sum s2^n / (2n + 1)
  for (int k = 21; k >= 1; k -= 2) series = series * s2 + 1.0 / k;
  return e * ln2_hi + (e * ln2_lo + 2 * s * series);
}

// Taylor series on [0, pi/4]: the 10th term is below 2e-18.
double cos_series(double x) {
  const double x2 = x * x;
  double p = inverse_factorial[18];
  for (std::size_t n = 9; n-- > 0;) p = p * -x2 + inverse_factorial[2 * n];
  return p;
}
double sin_series(double x) {
  const double x2 = x * x;
  double p = inverse_factorial[19];
  for (std::size_t n = 9; n-- > 0;) p = p * -x2 + inverse_factorial[2 * n + 1];
  return x * p;
}

// cos(2 pi v) for v in [0, 1). The symmetries reduce v to [0, 1/8] with exact subtractions (Sterbenz),
// so only the final series rounds.
double cos_two_pi(double v) {
  constexpr double two_pi = 6.28318530717958647693;
  if (v > 0.5) v = 1 - v;  // cos(2 pi v) = cos(2 pi (1 - v))
  double sign = 1;
  if (v > 0.25) {
    v = 0.5 - v;  // cos(2 pi v) = -cos(2 pi (1/2 - v))
    sign = -1;
  }
  if (v > 0.125) return sign * sin_series(two_pi * (0.25 - v));  // cos(y) = sin(pi/2 - y)
  return sign * cos_series(two_pi * v);
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key = {key[0] + philox_w0, key[1] + philox_w1};
    counter = philox_round(counter, key);
  }
  return counter;
}

std::array<std::uint32_t, 4> CounterRng::bits(std::uint64_t stream, std::uint64_t index) const {
  const auto low = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
  const auto high = [](std::uint64_t v) { return static_cast<std::uint32_t>(v >> 32); };
  return philox4x32_10({low(index), high(index), low(stream), high(stream)}, {low(seed_), high(seed_)});
}

double CounterRng::uniform(std::uint64_t stream, std::uint64_t index) const {
  const auto w = bits(stream, index);
  return static_cast<double>(top53(w[0], w[1])) * 0x1p-53;
}

double CounterRng::uniform(std::uint64_t stream, std::uint64_t index, double lo, double hi) const {
  const double x = lo + (hi - lo) * uniform(stream, index);
  return x < hi ? x : std::nextafter(hi, lo);  // rounding may reach hi; the interval is half-open
}

// Box-Muller with u1 in (0, 1] from words 0, 1 (so log u1 is finite) and u2 in [0, 1) from words 2, 3.
double CounterRng::normal(std::uint64_t stream, std::uint64_t index) const {
  const auto w = bits(stream, index);
  const double u1 = static_cast<double>(top53(w[0], w[1]) + 1) * 0x1p-53;
  const double u2 = static_cast<double>(top53(w[2], w[3])) * 0x1p-53;
  return std::sqrt(-2 * log_positive(u1)) * cos_two_pi(u2);
}

}  // namespace scancheck
