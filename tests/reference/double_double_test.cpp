// SPDX-License-Identifier: Apache-2.0
//! @file
//! reference/double_double.hpp and reference/quad.hpp against mpfr at 50 digits (166 bits, ref::mpfr50): the
//! error-free transformations and the float128 conversions exactly; the arithmetic within its published
//! bounds; exp, expm1, log1p, sqrt, sin and cos within 2^-100 relative (sin and cos: or 2^-110 absolute,
//! which only matters near their zeros) and the float128-valued variants within 2^-109, on thousands of
//! random arguments per range the reference can use; Quad's functions (float128 arguments, libquadmath
//! fallbacks) within 2^-109 on random float128 values, its arithmetic bitwise libgcc's, and edge inputs.
//! Each range prints its worst agreement in bits (the accuracy table of double_double.hpp).
//!
//! Arguments are random double-doubles with a random low part, and a random tail below it where the
//! function takes one; mt19937_64 with a fixed seed per range, so a failure names its argument (hex) and
//! reproduces. A negative control shows the check failing functions known to be worse than 2^-100.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <boost/math/constants/constants.hpp>

#include "reference/double_double.hpp"
#include "reference/quad.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {
namespace {

using dd::Number;

//! The error allowed: |got - exact| <= relative |exact| + absolute.
struct Tolerance {
  double relative = 0x1p-100;
  double absolute = 0;
};
constexpr Tolerance relative_100{};
//! sin and cos: near their zeros the reduced argument's absolute error (~2^-112 for |x| <= 1.6e6) decides.
constexpr Tolerance trig{0x1p-100, 0x1p-110};

//! An argument x.hi + x.lo + tail.
struct Argument {
  Number x;
  double tail = 0;
};

mpfr50 exact_value(const Argument& a) { return mpfr50(a.x.hi) + mpfr50(a.x.lo) + mpfr50(a.tail); }
mpfr50 exact_value(const Number& n) { return mpfr50(n.hi) + mpfr50(n.lo); }

std::string describe(const Argument& a) {
  std::ostringstream s;
  s << std::hexfloat << "{" << a.x.hi << ", " << a.x.lo << "} + " << a.tail << std::defaultfloat << " ("
    << std::setprecision(17) << a.x.hi << ")";
  return s.str();
}

//! Random arguments: uniform, log-uniform magnitudes (random sign), a random low part (|lo| <= ulp(hi)/2)
//! and optionally a tail below it.
class Arguments {
 public:
  explicit Arguments(std::uint64_t seed) : rng_(seed) {}

  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  //! |v| log-uniform in [lowest, highest], sign random unless positive.
  double log_uniform(double lowest, double highest, bool positive = false) {
    const double v = std::exp2(uniform(std::log2(lowest), std::log2(highest)));
    return positive || uniform(0, 1) < 0.5 ? v : -v;
  }
  //! hi with a random low part, and a random tail when asked.
  Argument around(double hi, bool with_tail = true) {
    const Number x = dd::fast_two_sum(hi, hi * 0x1p-53 * uniform(-0.5, 0.5));
    return {x, with_tail ? x.hi * 0x1p-106 * uniform(-0.5, 0.5) : 0.0};
  }
  template <class Draw>
  std::vector<Argument> many(int n, Draw draw, bool with_tail = true) {
    std::vector<Argument> out;
    for (int i = 0; i < n; ++i) out.push_back(around(draw(), with_tail));
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

//! The worst argument of a check: its score |err| / (relative |exact| + absolute) (<= 1 passes) and the
//! agreement in bits relative to |exact|.
struct Worst {
  double score = 0;
  double bits = 200;
  std::string where;
};

//! float128 -> mpfr50 exactly: v = f 2^e with f in [1/2, 1) cut into three doubles (exact float128
//! subtractions and conversions), which mpfr50 adds exactly.
mpfr50 to_mpfr(const float128& v) {
  int e;
  const float128 f = frexp(v, &e);
  const double a = static_cast<double>(f);
  const float128 r = f - float128(a);
  const double b = static_cast<double>(r);
  const double c = static_cast<double>(r - float128(b));
  return ldexp(mpfr50(a) + mpfr50(b) + mpfr50(c), e);
}

//! A function of an argument, as an mpfr50 value: a computed result (exactly: a double-double or a
//! float128), or the exact function of the argument's value (which mpfr50 holds exactly: hi, lo and tail
//! span at most ~160 bits), or given otherwise (log1p near -1, where 1 + x is exact but x is not in mpfr50).
using Function = std::function<mpfr50(const Argument&)>;
using Exact = Function;
Exact of_value(mpfr50 (*f)(const mpfr50&)) {
  return [f](const Argument& a) { return f(exact_value(a)); };
}
Function computed(Number (*f)(const Number&, double)) {
  return [f](const Argument& a) { return exact_value(f(a.x, a.tail)); };
}
Function computed(float128 (*f)(const Number&, double)) {
  return [f](const Argument& a) { return to_mpfr(f(a.x, a.tail)); };
}

Worst measure(const std::vector<Argument>& args, const Function& got, const Exact& exact, Tolerance tol) {
  Worst w;
  for (const Argument& a : args) {
    const mpfr50 want = exact(a);
    const mpfr50 err = abs(got(a) - want);
    const double score = static_cast<double>(err / (tol.relative * abs(want) + tol.absolute));
    if (score > w.score || std::isnan(score)) {
      w.score = std::isnan(score) ? std::numeric_limits<double>::infinity() : score;
      w.bits = err == 0 ? 200.0 : -static_cast<double>(log2(err / abs(want)));
      w.where = describe(a);
    }
  }
  return w;
}

//! Checks one function on one range and prints its worst agreement (the accuracy table of the header).
void check(const char* function, const char* range, const std::vector<Argument>& args, const Function& got,
           const Exact& exact, Tolerance tol = relative_100) {
  const Worst w = measure(args, got, exact, tol);
  std::cout << "[ accuracy ] " << std::left << std::setw(8) << function << std::setw(34) << range << std::right
            << std::fixed << std::setprecision(1) << w.bits << " bits (worst of " << args.size() << ")\n"
            << std::defaultfloat;
  EXPECT_LE(w.score, 1.0) << function << " on " << range << ": " << w.bits << " bits at " << w.where;
}

mpfr50 pi() { return boost::math::constants::pi<mpfr50>(); }

// ---------------------------------------------------------------------------------------------------
// Error-free transformations, arithmetic, conversions

// Proves: TwoSum, Fast2Sum and TwoProd are exact; +, *, / of double-doubles are within Joldes-Muller-Popescu's
// bounds (3u^2, 7u^2, 15u^2 + 56u^3 relative, u = 2^-53), including sums that cancel.
TEST(DoubleDouble, ArithmeticWithinItsBounds) {
  Arguments gen(11);
  const double u = 0x1p-53;
  double worst_add = 0, worst_mul = 0, worst_div = 0;
  for (int i = 0; i < 20000; ++i) {
    const double a = gen.log_uniform(0x1p-300, 0x1p300), b = gen.log_uniform(0x1p-300, 0x1p300);
    const Number s = dd::two_sum(a, b), p = dd::two_prod(a, b);
    ASSERT_EQ(mpfr50(s.hi) + mpfr50(s.lo), mpfr50(a) + mpfr50(b)) << std::hexfloat << a << " " << b;
    ASSERT_EQ(mpfr50(p.hi) + mpfr50(p.lo), mpfr50(a) * mpfr50(b)) << std::hexfloat << a << " " << b;
    const double big = std::fabs(a) >= std::fabs(b) ? a : b, small = big == a ? b : a;
    const Number f = dd::fast_two_sum(big, small);
    ASSERT_EQ(mpfr50(f.hi) + mpfr50(f.lo), mpfr50(a) + mpfr50(b)) << std::hexfloat << a << " " << b;

    const Number x = gen.around(gen.log_uniform(0x1p-100, 0x1p100), false).x;
    // y: unrelated, or within a few ulps of -x (cancellation).
    Number y = gen.around(gen.log_uniform(0x1p-100, 0x1p100), false).x;
    if (i % 2) y = -(x + gen.around(x.hi * gen.log_uniform(0x1p-60, 0x1p-1), false).x);
    const auto relative = [](const Number& got, const mpfr50& want) {
      return want == 0 ? 0.0 : static_cast<double>(abs(exact_value(got) - want) / abs(want));
    };
    worst_add = std::max(worst_add, relative(x + y, exact_value(x) + exact_value(y)));
    worst_mul = std::max(worst_mul, relative(x * y, exact_value(x) * exact_value(y)));
    worst_div = std::max(worst_div, relative(x / y, exact_value(x) / exact_value(y)));
  }
  EXPECT_LE(worst_add, 3 * u * u / (1 - 4 * u));
  EXPECT_LE(worst_mul, 7 * u * u);
  EXPECT_LE(worst_div, 15 * u * u + 56 * u * u * u);
  std::cout << "[ accuracy ] +, *, /: worst " << worst_add / (u * u) << ", " << worst_mul / (u * u) << ", "
            << worst_div / (u * u) << " u^2\n";
}

//! x == y in value (both finite) or both nan.
bool same_float128(const float128& x, const float128& y) {
  return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

// Proves: parts_of cuts a float128 into hi + lo + tail exactly on [2^-900, 2^1000] (hi + lo normalised);
// to_float128 rounds hi + lo to nearest, ties to even, exactly as libgcc's float128 addition does, also
// for opposite signs, ties, a lo far below hi or subnormal; nearest_double rounds as libgcc's conversion
// (ties included); float_exact agrees with its definition.
TEST(DoubleDouble, Float128ConversionsAreExact) {
  Arguments gen(12);
  for (int i = 0; i < 20000; ++i) {
    // A float128 with a random 113-bit significand.
    const double a = gen.log_uniform(0x1p-900, 0x1p1000);
    const float128 v =
        float128(a) + float128(a * 0x1p-53 * gen.uniform(-1, 1)) + float128(a * 0x1p-106 * gen.uniform(-1, 1));
    const dd::Parts p = dd::parts_of(v);
    ASSERT_TRUE(dd::splits_exactly(p.head.hi));
    ASSERT_EQ(float128(p.head.hi) + float128(p.head.lo) + float128(p.tail), v) << v;
    ASSERT_EQ(p.head.hi + p.head.lo, p.head.hi) << v;  // normalised
    const Number n = dd::to_number(v);
    ASSERT_LE(abs(float128(n.hi) + float128(n.lo) - v), abs(v) * float128(0x1p-107)) << v;
    // A double-rounding tie (v exactly between two doubles) every 8th, else v itself, then either sign.
    const float128 tie = float128(p.head.hi) + float128(std::ldexp(1.0, std::ilogb(p.head.hi) - 53));
    for (const float128& w : {v, -v, i % 8 == 0 ? tie : v, i % 8 == 0 ? -tie : -v})
      ASSERT_EQ(dd::nearest_double(w), static_cast<double>(w)) << w;

    // hi + lo with lo anywhere from just below ulp(hi)/2 to far below, either sign; every 16th a tie.
    const double hi = gen.log_uniform(0x1p-1000, 0x1p1000);
    double lo = hi * gen.log_uniform(0x1p-200, 0x1p-54);
    if (i % 16 == 0) {
      int e;
      std::frexp(hi, &e);
      lo = std::ldexp(gen.uniform(0, 1) < 0.5 ? 1.0 : -1.0, e - 1 - 113);  // half a float128 ulp of hi
      if (i % 32 == 0) lo += std::ldexp(lo, -40);
    }
    const Number m = dd::fast_two_sum(hi, lo);
    const float128 want = float128(static_cast<__float128>(m.hi) + static_cast<__float128>(m.lo));
    ASSERT_TRUE(same_float128(dd::to_float128(m), want))
        << std::hexfloat << m.hi << " + " << m.lo << ": " << dd::to_float128(m) << " vs " << want;
  }
  // Subnormal lo, zero lo, negative zero (kept: a double converts exactly), inf, nan.
  for (const Number m : {Number{1.0, 0x1p-1074}, Number{0x1p-970, -0x1p-1070}, Number{3.0, 0.0}, Number{-0.0, 0.0},
                         Number{std::numeric_limits<double>::infinity(), 0}, Number{std::nan(""), 0}}) {
    const float128 want = m.lo == 0 ? float128(m.hi) : float128(static_cast<__float128>(m.hi) + m.lo);
    EXPECT_TRUE(same_float128(dd::to_float128(m), want)) << std::hexfloat << m.hi << " + " << m.lo;
  }
  for (int i = 0; i < 20000; ++i) {
    const float f = static_cast<float>(gen.log_uniform(0x1p-149, 0x1p127));
    const float128 exact_float = float128(f);
    const float128 not_float = exact_float + float128(std::fabs(f) * 0x1p-60);
    EXPECT_TRUE(dd::float_exact(exact_float)) << f;
    EXPECT_FALSE(dd::float_exact(not_float)) << f;
  }
  for (const float128& w : {float128(0), float128(-0.0), float128(0x1p-1074), float128(1e-320), float128(0x1p1023) * 3,
                            std::numeric_limits<float128>::infinity(), std::numeric_limits<float128>::quiet_NaN()}) {
    const double want = static_cast<double>(w);
    EXPECT_TRUE(std::bit_cast<std::uint64_t>(dd::nearest_double(w)) == std::bit_cast<std::uint64_t>(want) ||
                (std::isnan(want) && std::isnan(dd::nearest_double(w))))
        << w;
  }
  EXPECT_TRUE(dd::float_exact(float128(0)));
  EXPECT_TRUE(dd::float_exact(float128(-0.0)));
  EXPECT_FALSE(dd::float_exact(float128(0x1p-150)));
  EXPECT_FALSE(dd::float_exact(float128(0x1p200)));
}

// ---------------------------------------------------------------------------------------------------
// The elementary functions on double-double arguments

const Function dd_exp = computed(dd::exp), dd_expm1 = computed(dd::expm1), dd_log1p = computed(dd::log1p),
               dd_sqrt = computed(dd::sqrt), dd_sin = computed(dd::sin), dd_cos = computed(dd::cos);
const Function exp_q = computed(dd::exp_float128), expm1_q = computed(dd::expm1_float128),
               sqrt_q = computed(dd::sqrt_float128), sin_q = computed(dd::sin_float128),
               cos_q = computed(dd::cos_float128);
//! The float128-valued functions and Quad's: 2^-109 (float128 itself rounds at 2^-113); sin and cos plus
//! 2^-140 absolute (the reduced argument's error).
constexpr Tolerance relative_109{0x1p-109, 0};
constexpr Tolerance trig_109{0x1p-109, 0x1p-140};
mpfr50 mpfr_exp(const mpfr50& v) { return exp(v); }
mpfr50 mpfr_expm1(const mpfr50& v) { return expm1(v); }
mpfr50 mpfr_log1p(const mpfr50& v) { return log1p(v); }
mpfr50 mpfr_sqrt(const mpfr50& v) { return sqrt(v); }
mpfr50 mpfr_sin(const mpfr50& v) { return sin(v); }
mpfr50 mpfr_cos(const mpfr50& v) { return cos(v); }
const Exact mp_exp = of_value(mpfr_exp), mp_expm1 = of_value(mpfr_expm1), mp_log1p = of_value(mpfr_log1p),
            mp_sqrt = of_value(mpfr_sqrt), mp_sin = of_value(mpfr_sin), mp_cos = of_value(mpfr_cos);

// Proves: exp within 2^-100 on its whole domain [-670, 709] (results 2^-966 .. 2^1023), near 0 and at the
// ends; exp(0) = 1 exactly. The float128-valued exp_float128 within 2^-109 on [-1400, 1400] and near 0.
TEST(DoubleDouble, Exp) {
  Arguments gen(21);
  check("exp", "[-670, 709]", gen.many(20000, [&] { return gen.uniform(dd::exp_argument_min, dd::exp_argument_max); }),
        dd_exp, mp_exp);
  check("exp", "|x| in [2^-60, 1]", gen.many(5000, [&] { return gen.log_uniform(0x1p-60, 1); }), dd_exp, mp_exp);
  check("exp", "ends [-670, -660], [700, 709]",
        gen.many(4000, [&] { return gen.uniform(0, 1) < 0.5 ? gen.uniform(-670, -660) : gen.uniform(700, 709); }),
        dd_exp, mp_exp);
  check("exp_q", "[-1400, 1400]", gen.many(20000, [&] { return gen.uniform(-1400, 1400); }), exp_q, mp_exp,
        relative_109);
  check("exp_q", "|x| in [2^-60, 1]", gen.many(5000, [&] { return gen.log_uniform(0x1p-60, 1); }), exp_q, mp_exp,
        relative_109);
  const Number one = dd::exp(Number{0, 0});
  EXPECT_EQ(one.hi, 1.0);
  EXPECT_EQ(one.lo, 0.0);
}

// Proves: expm1 within 2^-100 near 0 (no cancellation: tiny arguments keep their relative accuracy), on
// [-1, 1], on its whole domain up to 709, and -1 below -670; expm1_float128 within 2^-109 on the same
// ranges (up to 1400).
TEST(DoubleDouble, Expm1) {
  Arguments gen(22);
  check("expm1", "|x| in [2^-900, 2^-10]", gen.many(5000, [&] { return gen.log_uniform(0x1p-900, 0x1p-10); }), dd_expm1,
        mp_expm1);
  check("expm1", "[-1, 1]", gen.many(10000, [&] { return gen.uniform(-1, 1); }), dd_expm1, mp_expm1);
  check("expm1", "[-745, 709]", gen.many(10000, [&] { return gen.uniform(-745, dd::exp_argument_max); }), dd_expm1,
        mp_expm1);
  check("expm1", "[-2000, -670]", gen.many(1000, [&] { return gen.uniform(-2000, -670); }), dd_expm1, mp_expm1);
  check("expm1_q", "|x| in [2^-900, 2^-10]", gen.many(5000, [&] { return gen.log_uniform(0x1p-900, 0x1p-10); }),
        expm1_q, mp_expm1, relative_109);
  check("expm1_q", "[-1, 1]", gen.many(20000, [&] { return gen.uniform(-1, 1); }), expm1_q, mp_expm1, relative_109);
  check("expm1_q", "[-2000, 1400]", gen.many(10000, [&] { return gen.uniform(-2000, 1400); }), expm1_q, mp_expm1,
        relative_109);
}

// Proves: log1p within 2^-100 near -1 (1 + x down to 2^-900, exactly as given), near 0 (tiny arguments),
// across [-0.5, 1] and for large x up to 2^1000.
TEST(DoubleDouble, Log1p) {
  Arguments gen(23);
  std::vector<Argument> near_minus_one;
  for (int i = 0; i < 5000; ++i) {
    const double eps = gen.log_uniform(0x1p-900, 0.71, true);
    const Number x = dd::two_sum(-1.0, eps);  // exactly -1 + eps
    near_minus_one.push_back({x, eps * 0x1p-60 * gen.uniform(-1, 1)});
  }
  // 1 + x = (1 + x.hi) + x.lo + tail, exact in mpfr50 (1 + x.hi has at most 54 bits; x.lo is 0 or the
  // rounding error of -1 + eps).
  check("log1p", "1 + x in [2^-900, 0.71]", near_minus_one, dd_log1p,
        [](const Argument& a) { return log((mpfr50(1) + mpfr50(a.x.hi)) + mpfr50(a.x.lo) + mpfr50(a.tail)); });
  check("log1p", "|x| in [2^-900, 0.3]", gen.many(5000, [&] { return gen.log_uniform(0x1p-900, 0.3); }), dd_log1p,
        mp_log1p);
  check("log1p", "[-0.5, 1]", gen.many(10000, [&] { return gen.uniform(-0.5, 1); }), dd_log1p, mp_log1p);
  check("log1p", "[1, 2^1000]", gen.many(5000, [&] { return gen.log_uniform(1, 0x1p1000, true); }), dd_log1p, mp_log1p);
  const Number zero = dd::log1p(Number{0, 0});
  EXPECT_EQ(zero.hi, 0.0);
}

// Proves: sqrt within 2^-100 over [2^-900, 2^1000], and exact on squares; sqrt_float128 within 2^-109.
TEST(DoubleDouble, Sqrt) {
  Arguments gen(24);
  check("sqrt", "[2^-900, 2^1000]", gen.many(20000, [&] { return gen.log_uniform(0x1p-900, 0x1p1000, true); }), dd_sqrt,
        mp_sqrt);
  check("sqrt", "[0.25, 4]", gen.many(5000, [&] { return gen.uniform(0.25, 4); }), dd_sqrt, mp_sqrt);
  check("sqrt_q", "[2^-900, 2^1000]", gen.many(20000, [&] { return gen.log_uniform(0x1p-900, 0x1p1000, true); }),
        sqrt_q, mp_sqrt, relative_109);
  const Number three = dd::sqrt(Number{9, 0});
  EXPECT_EQ(three.hi, 3.0);
  EXPECT_EQ(three.lo, 0.0);
}

//! k pi/2 + delta rounded to a double-double: arguments next to the zeros of sin (k even) or cos (k odd).
std::vector<Argument> near_multiples_of_half_pi(Arguments& gen, int n, int k_max) {
  std::vector<Argument> out;
  for (int i = 0; i < n; ++i) {
    const int k = static_cast<int>(gen.uniform(-k_max, k_max));
    const mpfr50 v = mpfr50(k) * pi() / 2 + mpfr50(gen.log_uniform(0x1p-60, 0x1p-5));
    const double hi = static_cast<double>(v);
    out.push_back({dd::fast_two_sum(hi, static_cast<double>(v - mpfr50(hi))), 0});
  }
  return out;
}

// Proves: sin and cos within 2^-100 relative plus 2^-110 absolute on [-100, 100], next to their zeros
// (k pi/2 + delta, delta down to 2^-60), on the whole domain |x| <= 1.6e6 and for tiny x (where sin x = x
// relatively); sin(+-0) = +-0 and cos(0) = 1.
TEST(DoubleDouble, SinCos) {
  Arguments gen(25);
  const auto hundred = gen.many(20000, [&] { return gen.uniform(-100, 100); });
  check("sin", "[-100, 100]", hundred, dd_sin, mp_sin, trig);
  check("cos", "[-100, 100]", hundred, dd_cos, mp_cos, trig);
  const auto near_zeros = near_multiples_of_half_pi(gen, 5000, 2000);
  check("sin", "k pi/2 + delta, |k| < 2000", near_zeros, dd_sin, mp_sin, trig);
  check("cos", "k pi/2 + delta, |k| < 2000", near_zeros, dd_cos, mp_cos, trig);
  const auto far = gen.many(5000, [&] { return gen.uniform(-dd::trig_argument_max, dd::trig_argument_max); });
  check("sin", "[-1.6e6, 1.6e6]", far, dd_sin, mp_sin, trig);
  check("cos", "[-1.6e6, 1.6e6]", far, dd_cos, mp_cos, trig);
  const auto far_zeros = near_multiples_of_half_pi(gen, 2000, 1000000);
  check("sin", "k pi/2 + delta, |k| < 1e6", far_zeros, dd_sin, mp_sin, trig);
  check("cos", "k pi/2 + delta, |k| < 1e6", far_zeros, dd_cos, mp_cos, trig);
  const auto tiny = gen.many(3000, [&] { return gen.log_uniform(0x1p-900, 0x1p-10); });
  check("sin", "|x| in [2^-900, 2^-10] (relative)", tiny, dd_sin, mp_sin);
  check("cos", "|x| in [2^-900, 2^-10]", tiny, dd_cos, mp_cos);
  check("sin_q", "[-100, 100]", hundred, sin_q, mp_sin, trig_109);
  check("cos_q", "[-100, 100]", hundred, cos_q, mp_cos, trig_109);
  check("sin_q", "k pi/2 + delta, |k| < 2000", near_zeros, sin_q, mp_sin, trig_109);
  check("cos_q", "k pi/2 + delta, |k| < 2000", near_zeros, cos_q, mp_cos, trig_109);
  check("sin_q", "[-1.6e6, 1.6e6]", far, sin_q, mp_sin, trig_109);
  check("cos_q", "[-1.6e6, 1.6e6]", far, cos_q, mp_cos, trig_109);
  check("sin_q", "k pi/2 + delta, |k| < 1e6", far_zeros, sin_q, mp_sin, trig_109);
  check("cos_q", "k pi/2 + delta, |k| < 1e6", far_zeros, cos_q, mp_cos, trig_109);
  check("sin_q", "|x| in [2^-900, 2^-10] (relative)", tiny, sin_q, mp_sin, relative_109);
  EXPECT_TRUE(std::signbit(dd::sin(Number{-0.0, 0}).hi));
  EXPECT_EQ(dd::sin(Number{0.0, 0}).hi, 0.0);
  EXPECT_EQ(dd::cos(Number{0.0, 0}).hi, 1.0);
}

// Proves the check can fail: functions known to be worse than 2^-100 are caught, namely expm1 as exp(x) - 1
// near 0 (cancellation) and exp ignoring the tail of its argument near 700 (2^-106 of 700 is 2^-96.5).
TEST(DoubleDouble, CheckCatchesAWorseFunction) {
  Arguments gen(26);
  const auto small = gen.many(200, [&] { return gen.log_uniform(0x1p-30, 0x1p-10); });
  const Worst cancelled = measure(
      small, [](const Argument& a) { return exact_value(dd::exp(a.x, a.tail) - 1.0); }, mp_expm1, relative_100);
  EXPECT_GT(cancelled.score, 1.0) << "exp(x) - 1 passed as expm1 near 0";
  std::vector<Argument> large = gen.many(200, [&] { return gen.uniform(690, 709); });
  for (Argument& a : large) a.tail = a.x.hi * 0x1p-106;
  const Worst no_tail = measure(
      large, [](const Argument& a) { return exact_value(dd::exp(a.x)); }, mp_exp, relative_100);
  EXPECT_GT(no_tail.score, 1.0) << "exp without its argument's tail passed near 700";
}

// ---------------------------------------------------------------------------------------------------
// Quad: float128 arguments, fallbacks

//! The worst relative error of a Quad function over float128 arguments: at most 2^-100 from the function
//! and 2^-113 from the final rounding to float128.
void check_quad(const char* function, const char* range, const std::vector<float128>& args,
                const std::function<Quad(const Quad&)>& got, mpfr50 (*exact)(const mpfr50&),
                Tolerance tol = relative_100) {
  double worst = 0, worst_bits = 200;
  float128 worst_at = 0;
  for (const float128& v : args) {
    const mpfr50 want = exact(to_mpfr(v));
    const mpfr50 err = abs(to_mpfr(got(Quad(v)).value()) - want);
    const double score = static_cast<double>(err / ((tol.relative + 0x1p-113) * abs(want) + tol.absolute));
    if (score > worst || std::isnan(score)) {
      worst = std::isnan(score) ? std::numeric_limits<double>::infinity() : score;
      worst_bits = err == 0 ? 200.0 : -static_cast<double>(log2(err / abs(want)));
      worst_at = v;
    }
  }
  std::cout << "[ accuracy ] Quad " << std::left << std::setw(6) << function << std::setw(30) << range << std::right
            << std::fixed << std::setprecision(1) << worst_bits << " bits\n"
            << std::defaultfloat;
  EXPECT_LE(worst, 1.0) << "Quad " << function << " on " << range << ": " << worst_bits << " bits at "
                        << worst_at.str(40, std::ios_base::scientific);
}

//! Random float128 values with all 113 significand bits in use, |v| log-uniform in [lowest, highest].
std::vector<float128> float128_values(Arguments& gen, int n, double lowest, double highest, bool positive = false) {
  std::vector<float128> out;
  for (int i = 0; i < n; ++i) {
    const double a = gen.log_uniform(lowest, highest, positive);
    out.push_back(float128(a) + float128(a * 0x1p-53 * gen.uniform(-1, 1)) +
                  float128(a * 0x1p-106 * gen.uniform(-1, 1)));
  }
  return out;
}

// Proves: Quad's exp, expm1, log1p and sqrt are within 2^-109 (plus float128's rounding), sin and cos within
// 2^-100, of the exact function of the whole float128 argument, on the double-double ranges and beyond them
// (libquadmath's fallback): exp down to -11000, log1p of huge arguments, sqrt of float128 values outside
// double's range, sin beyond 1.6e6.
TEST(Quad, FunctionsOnFloat128Arguments) {
  Arguments gen(31);
  const auto q_exp = [](const Quad& x) { return exp(x); };
  const auto q_expm1 = [](const Quad& x) { return expm1(x); };
  const auto q_log1p = [](const Quad& x) { return log1p(x); };
  const auto q_sqrt = [](const Quad& x) { return sqrt(x); };
  const auto q_sin = [](const Quad& x) { return sin(x); };
  const auto q_cos = [](const Quad& x) { return cos(x); };
  const auto negated = [](std::vector<float128> v) {
    for (float128& x : v) x = -x;
    return v;
  };
  const auto powers = [](int from, int to, int step) {
    std::vector<float128> v;
    for (int e = from; e < to; e += step) v.push_back(ldexp(float128(1.2345), e));
    return v;
  };
  check_quad("exp", "|x| in [2^-20, 1400]", float128_values(gen, 5000, 0x1p-20, 1400), q_exp, mpfr_exp, relative_109);
  check_quad("exp", "[-11000, -1400] (fallback)", negated(float128_values(gen, 300, 1400, 11000, true)), q_exp,
             mpfr_exp, relative_109);
  check_quad("expm1", "|x| in [2^-900, 1400]", float128_values(gen, 5000, 0x1p-900, 1400), q_expm1, mpfr_expm1,
             relative_109);
  check_quad("log1p", "[2^-900, 2^1000]", float128_values(gen, 5000, 0x1p-900, 0x1p1000, true), q_log1p, mpfr_log1p,
             relative_109);
  check_quad("log1p", "[-0.99, -2^-900]", negated(float128_values(gen, 3000, 0x1p-900, 0.99, true)), q_log1p,
             mpfr_log1p, relative_109);
  std::vector<float128> near_minus_one;  // -1 + eps, eps on float128's grid at 1 (2^-113)
  for (int i = 0; i < 3000; ++i)
    near_minus_one.push_back(float128(-1) + float128(gen.log_uniform(0x1p-112, 0.5, true)));
  check_quad("log1p", "1 + x in [2^-112, 0.5]", near_minus_one, q_log1p, mpfr_log1p, relative_109);
  check_quad("log1p", "[2^1000, 2^16000] (fallback)", powers(1000, 16000, 150), q_log1p, mpfr_log1p, relative_109);
  check_quad("sqrt", "[2^-900, 2^1000]", float128_values(gen, 5000, 0x1p-900, 0x1p1000, true), q_sqrt, mpfr_sqrt,
             relative_109);
  check_quad("sqrt", "[2^-16000, 2^16000] (fallback)", powers(-16000, 16000, 97), q_sqrt, mpfr_sqrt, relative_109);
  check_quad("sin", "|x| in [2^-900, 100]", float128_values(gen, 5000, 0x1p-900, 100), q_sin, mpfr_sin, trig_109);
  check_quad("cos", "|x| in [2^-900, 100]", float128_values(gen, 5000, 0x1p-900, 100), q_cos, mpfr_cos, trig_109);
  check_quad("sin", "|x| in [1.6e6, 1e9] (fallback)", float128_values(gen, 300, 1.6e6, 1e9), q_sin, mpfr_sin, trig_109);
}

// Proves: Quad's conversions and arithmetic are float128's, bitwise: from int, float and double (its
// own bit-level conversion), to double, and + - * / (libgcc's, through the raw __float128).
TEST(Quad, ArithmeticIsFloat128s) {
  Arguments gen(32);
  for (int i = 0; i < 20000; ++i) {
    const double d = gen.log_uniform(0x1p-1074, 0x1p1023);
    const int n = static_cast<int>(gen.uniform(-2e9, 2e9));
    const float f = static_cast<float>(gen.log_uniform(0x1p-149, 0x1p127));
    EXPECT_TRUE(same_float128(Quad(d).value(), float128(d))) << std::hexfloat << d;
    EXPECT_TRUE(same_float128(Quad(n).value(), float128(n))) << n;
    EXPECT_TRUE(same_float128(Quad(f).value(), float128(f))) << std::hexfloat << f;
    const float128 x = float128(d) + float128(d * 0x1p-60), y = float128(gen.log_uniform(0x1p-100, 0x1p100));
    EXPECT_EQ(static_cast<double>(Quad(x)), static_cast<double>(x));
    EXPECT_TRUE(same_float128((Quad(x) + Quad(y)).value(), x + y));
    EXPECT_TRUE(same_float128((Quad(x) - Quad(y)).value(), x - y));
    EXPECT_TRUE(same_float128((Quad(x) * Quad(y)).value(), x * y));
    EXPECT_TRUE(same_float128((Quad(x) / Quad(y)).value(), x / y));
    EXPECT_EQ(Quad(x) < Quad(y), x < y);
  }
  for (const double d : {0.0, -0.0, 0x1p-1074, -0x1p-1060, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_TRUE(same_float128(Quad(d).value(), float128(d))) << d;
}

// Proves: on edge arguments Quad agrees with libquadmath: bitwise where the answer is 0 (with its sign), inf
// or nan, else within 2^-99 (both within 2^-100 of the exact value): zeros, infinities, nan, float128
// subnormals, arguments beyond double's range and results beyond it (exp near 11356, exp(-12000)).
TEST(Quad, EdgeArguments) {
  const float128 inf = std::numeric_limits<float128>::infinity();
  const float128 nan = std::numeric_limits<float128>::quiet_NaN();
  const float128 denorm = std::numeric_limits<float128>::denorm_min();
  const auto agrees = [](const Quad& got, const float128& want) {
    if (isnan(want) || isinf(want) || want == 0) return same_float128(got.value(), want);
    return abs(got.value() - want) <= float128(0x1p-99) * abs(want);
  };
  for (const float128& v :
       {float128(0), float128(-0.0), inf, -inf, nan, denorm, -denorm, float128(0x1p-1074), float128(-800),
        float128(709.5), float128(11356), float128(11357), float128(-12000), float128(1e7), float128(0x1p-1000),
        float128(0x1p1020), float128(-1), float128(-2), float128(-1) + float128(0x1p-112)}) {
    SCOPED_TRACE(v.str(40, std::ios_base::scientific));
    const Quad q(v);
    EXPECT_TRUE(agrees(exp(q), exp(v))) << exp(q);
    EXPECT_TRUE(agrees(expm1(q), expm1(v))) << expm1(q);
    EXPECT_TRUE(agrees(log1p(q), log1p(v))) << log1p(q);
    EXPECT_TRUE(agrees(sqrt(q), sqrt(v))) << sqrt(q);
    EXPECT_TRUE(agrees(sin(q), sin(v))) << sin(q);
    EXPECT_TRUE(agrees(cos(q), cos(v))) << cos(q);
  }
}

}  // namespace
}  // namespace scancheck::ref
