// SPDX-License-Identifier: Apache-2.0
#include "reference/reference.hpp"

#include <string>

#include "core/error.hpp"
#include "reference/evaluators.hpp"

namespace scancheck {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::float128: return "float128";
    case Precision::mpfr50: return "mpfr50";
    case Precision::tiered: return "tiered";
    case Precision::float64: return "float64";
    case Precision::float32: return "float32";
  }
  return "?";
}

Precision parse_precision(std::string_view name) {
  for (Precision p :
       {Precision::float128, Precision::mpfr50, Precision::tiered, Precision::float64, Precision::float32})
    if (name == to_string(p)) return p;
  throw InputError("unknown precision '" + std::string(name) + "' (expected one of: float128, mpfr50, tiered)");
}

std::vector<Block> all_blocks(const Shape& s) {
  std::vector<Block> blocks;
  blocks.reserve(static_cast<std::size_t>(s.batch * s.heads));
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads; ++h) blocks.push_back({b, h});
  return blocks;
}

namespace {

ReferenceResult evaluate_values(const Case& c, const ReferenceOptions& options) {
  switch (options.precision) {
    case Precision::float128: return ref::evaluate_float128(c, options);
    case Precision::mpfr50: return ref::evaluate_mpfr50(c, options);
    case Precision::tiered: break;  // compute_reference's own
    case Precision::float64: return ref::evaluate_float64(c, options);
    case Precision::float32: return ref::evaluate_float32(c, options);
  }
  throw InputError("unknown precision");
}

//! Double values certified element by element; the blocks of the rest again in float128, whose values
//! replace the double ones wherever that pass covered them (whole blocks, so every uncertified element).
ReferenceResult tiered_reference(const Case& c, const ReferenceOptions& options) {
  ReferenceOptions double_pass = options;
  double_pass.precision = Precision::float64;
  std::map<std::string, Tensor<double>> strict;
  if (options.bounds && options.strict_bounds) strict = std::move(ref::evaluate_float64_strict(c, double_pass).bounds);
  ReferenceResult result = ref::evaluate_certified_float64(c, double_pass, strict.empty() ? nullptr : &strict);
  result.strict_bounds = std::move(strict);
  if (!options.bounds) result.bounds.clear();
  const std::vector<Block>& recompute = result.tiers->float128_blocks;
  if (recompute.empty()) return result;
  ReferenceOptions float128_pass = options;
  float128_pass.precision = Precision::float128;
  float128_pass.bounds = false;
  float128_pass.sample = recompute;
  const ReferenceResult exact = ref::evaluate_float128(c, float128_pass);
  for (auto& [name, values] : result.values) {
    const Tensor<double>& better = exact.values.at(name);
    const Tensor<std::uint8_t>& covered = exact.covered.at(name);
    for (std::int64_t i = 0; i < values.size(); ++i)
      if (covered[i]) values[i] = better[i];
  }
  return result;
}

}  // namespace

// Values and bounds come from two passes over the same templated code. The bounds need a few correct
// digits only, so they are propagated alongside a float64 evaluation (Bounded<double>); the values come
// from the high-precision pass, whose arithmetic then stays free of the bookkeeping.
ReferenceResult compute_reference(const Case& c, const ReferenceOptions& options) {
  validate(c);
  if (options.precision == Precision::tiered && !options.bounds_every_order)
    throw InputError(
        "the tiered reference's bounds hold for every evaluation order; sequential-order bounds need "
        "the float128, mpfr50 or float64 precision");
  if (options.precision == Precision::tiered) return tiered_reference(c, options);
  ReferenceOptions values_only = options;
  values_only.bounds = false;
  ReferenceResult result = evaluate_values(c, values_only);
  if (options.bounds && options.precision != Precision::float32) {
    ReferenceOptions bounds_pass = options;
    bounds_pass.precision = Precision::float64;
    result.bounds = std::move((options.bounds_every_order ? ref::evaluate_float64(c, bounds_pass)
                                                          : ref::evaluate_float64_sequential_order(c, bounds_pass))
                                  .bounds);
    if (options.strict_bounds) result.strict_bounds = std::move(ref::evaluate_float64_strict(c, bounds_pass).bounds);
  }
  return result;
}

}  // namespace scancheck
