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
    case Precision::float64: return "float64";
    case Precision::float32: return "float32";
  }
  return "?";
}

Precision parse_precision(std::string_view name) {
  for (Precision p : {Precision::float128, Precision::mpfr50, Precision::float64, Precision::float32})
    if (name == to_string(p)) return p;
  throw InputError("unknown precision '" + std::string(name) + "' (expected one of: float128, mpfr50)");
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
    case Precision::float64: return ref::evaluate_float64(c, options);
    case Precision::float32: return ref::evaluate_float32(c, options);
  }
  throw InputError("unknown precision");
}

}  // namespace

// Values and bounds come from two passes over the same templated code. The bounds need a few correct
// digits only, so they are propagated alongside a float64 evaluation (Bounded<double>); the values come
// from the high-precision pass, whose arithmetic then stays free of the bookkeeping.
ReferenceResult compute_reference(const Case& c, const ReferenceOptions& options) {
  validate(c);
  ReferenceOptions values_only = options;
  values_only.bounds = false;
  ReferenceResult result = evaluate_values(c, values_only);
  if (options.bounds && options.precision != Precision::float32) {
    ReferenceOptions bounds_pass = options;
    bounds_pass.precision = Precision::float64;
    result.bounds = std::move(ref::evaluate_float64(c, bounds_pass).bounds);
    if (options.strict_bounds) result.strict_bounds = std::move(ref::evaluate_float64_strict(c, bounds_pass).bounds);
  }
  return result;
}

}  // namespace scancheck
