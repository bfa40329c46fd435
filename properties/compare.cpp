// SPDX-License-Identifier: Apache-2.0
#include "properties/compare.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "properties/element_judgement.hpp"

namespace scancheck {
namespace {

//! Binary floating-point formats by significand bits p (with the hidden bit) and minimum normal exponent.
struct Format {
  int p, emin, emax;
};
constexpr Format format_of(DType d) { return d == DType::float32 ? Format{24, -126, 127} : Format{8, -126, 127}; }

//! 2^e for the exponents of these formats' spacings (well inside double's normal range), from the bits: ldexp
//! is a libm call, and every compared element of every run takes two.
double power_of_two(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52); }

//! The spacing of the format at x's binade (the subnormal spacing below the normal range). x is finite.
double ulp_at(double x, Format f) {
  const int e = x == 0 ? f.emin : std::max(std::ilogb(x), f.emin);
  return power_of_two(e - (f.p - 1));
}

//! Round-to-nearest-even of x to the format (infinity beyond its largest finite value).
double round_to_format(double x, Format f) {
  if (!std::isfinite(x) || x == 0) return x;
  const double q = ulp_at(x, f);
  const double r = std::nearbyint(x / q) * q;  // x / q and the product are exact scalings by powers of two
  const double largest = (2.0 - power_of_two(1 - f.p)) * power_of_two(f.emax);
  return std::abs(r) > largest ? std::copysign(std::numeric_limits<double>::infinity(), r) : r;
}

//! The percentiles `ps` (ascending) of v, reordering v: each selection searches only above the previous one,
//! so p50, p90 and p99 together cost about 1.6 passes instead of 3 (the comparisons of every report row).
template <std::size_t N>
std::array<double, N> percentiles(std::vector<double>& v, const std::array<double, N>& ps) {
  std::array<double, N> out{};
  if (v.empty()) return out;
  auto from = v.begin();
  for (std::size_t j = 0; j < N; ++j) {
    const auto k = static_cast<std::ptrdiff_t>(std::ceil(ps[j] * static_cast<double>(v.size()))) - 1;
    const auto at = v.begin() + std::clamp<std::ptrdiff_t>(k, from - v.begin(), std::ssize(v) - 1);
    std::nth_element(from, at, v.end());
    out[j] = *at;
    from = at;
  }
  return out;
}

//! An error profile accumulated one judged element at a time: the elements with a finite ratio to a nonzero
//! bound and, where the strict bounds are given, none whose bound an accepted formulation widens by more
//! than widened_bound_factor. A judged run (`beyond_admitted`) is profiled by each element's error beyond
//! what accepted formulations may add there (bound - strict bound, at most 1/16 of the strict bound on a
//! profiled element): a kernel with an accepted formulation loses up to that on every element it touches
//! (RecurrentGemma's JAX layer, sigma' as sigma (1 - sigma) on 128 saturated gates summed into each dx),
//! which is no evidence against it. The correct orders use scancheck's own formulation and are profiled by
//! their whole error.
class ProfileBuilder {
 public:
  explicit ProfileBuilder(std::int64_t capacity, bool beyond_admitted = false) : beyond_admitted_(beyond_admitted) {
    ratios_.clear();  // one allocation per thread, not per tensor of every row
    ratios_.reserve(static_cast<std::size_t>(capacity));
  }
  void add(const ElementJudgement& e, double bound, const Tensor<double>* strict, std::int64_t i) {
    if (strict && !(bound <= widened_bound_factor * (*strict)[i])) return;
    if (e.kind != ElementKind::finite || !std::isfinite(e.ratio)) return;  // a zero bound is rule 2's alone
    const double ratio = beyond_admitted_ && strict ? std::max(0.0, e.ratio - (bound - (*strict)[i]) / bound) : e.ratio;
    ratios_.push_back(ratio);
    squares_ += ratio * ratio;
  }
  ErrorProfile profile() {  // reorders the ratios
    ErrorProfile p;
    p.elements = std::ssize(ratios_);
    if (ratios_.empty()) return p;
    p.rms = std::sqrt(squares_ / static_cast<double>(ratios_.size()));
    const auto [p50, p90] = percentiles(ratios_, std::array{0.50, 0.90});
    p.p50 = p50, p.p90 = p90;
    return p;
  }

 private:
  bool beyond_admitted_;
  double squares_ = 0;
  static inline thread_local std::vector<double> ratios_;
};

//! The error profile of `values` judged element by element against `elements`' reference and bounds.
ErrorProfile error_profile(const ElementSource& elements, const Tensor<float>& values, const Tensor<double>* strict) {
  ProfileBuilder profile(values.size());
  for (std::int64_t i = 0; i < values.size(); ++i)
    profile.add(elements.judge(values[i], i), (*elements.bound)[i], strict, i);
  return profile.profile();
}

}  // namespace

ErrorProfile error_profile(const TensorComparison& in, const Tensor<float>& values) {
  if (!in.bound) return {};
  return error_profile(ElementSource{&values, in.exact, in.bound, in.covered}, values, in.strict_bound);
}

std::optional<BoundScale> bound_scale(const TensorComparison& in) {
  if (!in.bound) return std::nullopt;
  const Format f = format_of(in.dtype);
  // One allocation per thread, as error_profile's.
  thread_local std::vector<double> ulps, relative;
  ulps.clear();
  relative.clear();
  const Tensor<double>& exact = *in.exact;
  const Tensor<double>& bound = *in.bound;
  for (std::int64_t i = 0; i < exact.size(); ++i) {
    if ((in.covered && (*in.covered)[i] == 0) || !std::isfinite(bound[i]) || !std::isfinite(exact[i])) continue;
    const double r = round_to_format(exact[i], f);
    if (std::isfinite(r)) ulps.push_back(bound[i] / ulp_at(r, f));
    if (exact[i] != 0) relative.push_back(bound[i] / std::abs(exact[i]));
  }
  if (ulps.empty()) return std::nullopt;
  BoundScale s;
  s.ulps = percentiles(ulps, std::array{0.50})[0];
  if (!relative.empty()) s.relative = percentiles(relative, std::array{0.50})[0];
  return s;
}

ErrorProfile worst_of(const ErrorProfile& a, const ErrorProfile& b) {
  return {std::max(a.elements, b.elements), std::max(a.p50, b.p50), std::max(a.p90, b.p90), std::max(a.rms, b.rms)};
}

double ulp_error(double got, double exact, DType dtype) {
  if (!std::isfinite(got) || !std::isfinite(exact)) return std::numeric_limits<double>::quiet_NaN();
  const Format f = format_of(dtype);
  const double r = round_to_format(exact, f);
  if (!std::isfinite(r)) return got == r ? 0 : std::numeric_limits<double>::infinity();
  return std::abs(got - r) / ulp_at(r, f);
}

int ulp_bucket(double ulp) {
  if (!(ulp > 0)) return 0;
  if (ulp <= 1) return 1;
  const int k = 1 + static_cast<int>(std::ceil(std::log2(ulp)));
  return std::min(k, ulp_buckets - 1);
}

TensorMetrics compare_tensor(const TensorComparison& in) {
  const Tensor<float>& got = *in.got;
  const Tensor<double>& exact = *in.exact;
  if (got.dims() != exact.dims())
    throw InputError(fmt::format("{}: shape {} does not match the reference's {}", in.name, to_string(got.dims()),
                                 to_string(exact.dims())));
  TensorMetrics m;
  m.name = in.name;
  m.dtype = in.dtype;
  std::vector<double> ulps;
  ulps.reserve(static_cast<std::size_t>(got.size()));
  double worst_key = -1, baseline_abs = 0;
  bool any_bounded = false;
  const ElementSource elements{in.got, in.exact, in.bound, in.covered};
  ProfileBuilder profile(in.bound ? got.size() : 0, /*beyond_admitted=*/true);
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const ElementJudgement e = elements(i);
    if (!e.compared()) continue;
    ++m.compared;
    if (e.kind == ElementKind::unbounded) {
      ++m.unbounded;  // float32 evaluation is not bounded here: not judged, whatever it gave
      continue;
    }
    if (e.kind == ElementKind::mismatch) {
      if (m.nonfinite_mismatches++ == 0) m.first_nonfinite = i;
      continue;
    }
    if (e.kind != ElementKind::finite) continue;  // the same NaN or infinity on both sides
    const double g = got[i], x = exact[i];
    m.max_exact = std::max(m.max_exact, std::abs(x));
    m.max_abs = std::max(m.max_abs, e.error);
    if (x != 0) m.max_rel = std::max(m.max_rel, e.error / std::abs(x));
    const double ulp = ulp_error(g, x, in.dtype);
    ulps.push_back(ulp);
    ++m.ulp_histogram[static_cast<std::size_t>(ulp_bucket(ulp))];
    double key = ulp;
    const double bound = in.bound ? (*in.bound)[i] : 0;
    if (in.bound) {
      profile.add(e, bound, in.strict_bound, i);
      m.max_bound = std::max(m.max_bound, bound);
      m.bound_ratio = std::max(m.bound_ratio.value_or(0), e.ratio);
      any_bounded = true;
      key = e.ratio;
    }
    if (in.baseline && std::isfinite((*in.baseline)[i]))
      baseline_abs = std::max(baseline_abs, std::abs(static_cast<double>((*in.baseline)[i]) - x));
    if (key > worst_key) {
      worst_key = key;
      m.worst = {i, index_string(got.dims(), i), g, x, bound, ulp};
    }
  }
  if (in.bound && !any_bounded) m.bound_ratio.reset();
  if (in.bound) {
    m.profile = profile.profile();
    m.ensemble_profile = in.ensemble_profile;
    m.ensemble_orders = in.ensemble_profile ? in.ensemble_orders : 0;
    m.bound_scale = in.bound_scale ? *in.bound_scale : bound_scale(in);
  }
  const auto [p50, p90, p99] = percentiles(ulps, std::array{0.50, 0.90, 0.99});
  m.ulp_p50 = p50, m.ulp_p90 = p90, m.ulp_p99 = p99;
  m.ulp_max = ulps.empty() ? 0 : *std::max_element(ulps.begin(), ulps.end());
  if (in.baseline) {
    m.baseline_abs = baseline_abs;
    if (baseline_abs > 0) m.baseline_ratio = m.max_abs / baseline_abs;
    else if (m.max_abs > 0) m.baseline_ratio = std::numeric_limits<double>::infinity();
  }
  return m;
}

DType stored_dtype(const Case& c, const std::string& output) {
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output))
    if (spec.name == output) return spec.precision == TensorPrecision::io ? c.io_dtype : DType::float32;
  throw InputError(fmt::format("'{}' is not an output of {}", output, to_string(c.architecture)));
}

}  // namespace scancheck
