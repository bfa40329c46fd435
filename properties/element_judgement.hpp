// SPDX-License-Identifier: Apache-2.0
//! @file
//! One output element judged against the reference: the single place that decides whether an element is
//! judged at all, whether it disagrees with the exact value on being NaN or infinite, and its error in units
//! of its bound. compare_tensor (compare.hpp), the notes of judge_outputs (differential.hpp) and the
//! diagnosis (diagnosis.hpp) all read elements through it, so that a verdict, the pattern it is explained by
//! and the strip report.html draws can never judge the same element differently.
//!
//!   uncovered    a sampled reference did not compute it: not compared
//!   unbounded    its bound is infinite (float32 cannot be trusted there): compared, not judged
//!   mismatch     got and exact differ in being NaN, +Inf or -Inf: fails, at +inf bounds
//!   nonfinite    the same NaN or infinity on both sides: agrees, nothing to measure
//!   finite       |got - exact| and that error in bounds (0 for no error; +inf for an error where the
//!                bound is zero, an element no rounding reaches)
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/tensor.hpp"

namespace scancheck {

enum class ElementKind { uncovered, unbounded, mismatch, nonfinite, finite };

struct ElementJudgement {
  ElementKind kind = ElementKind::uncovered;
  double error = 0;  //!< |got - exact| (finite)
  double ratio = 0;  //!< error / bound (finite), +inf (mismatch); 0 without a bound

  //! Counted among the compared elements (covered by the reference).
  bool compared() const { return kind != ElementKind::uncovered; }
  //! Fails on its own at `factor` bounds: a NaN/Inf disagreement, or an error beyond factor times its bound.
  bool fails(double factor) const {
    return kind == ElementKind::mismatch || (kind == ElementKind::finite && ratio > factor);
  }
};

//! Whether got and exact differ in being NaN, +Inf or -Inf.
inline bool disagrees_on_nonfinite(double got, double exact) {
  if (std::isfinite(got) && std::isfinite(exact)) return false;
  if (std::isnan(got) && std::isnan(exact)) return false;
  return !(std::isinf(got) && std::isinf(exact) && (got > 0) == (exact > 0));
}

//! The tensors one output is judged from; `bound` and `covered` are optional (nullptr: no bounds, a
//! reference that computed every element).
struct ElementSource {
  const Tensor<float>* got = nullptr;
  const Tensor<double>* exact = nullptr;
  const Tensor<double>* bound = nullptr;
  const Tensor<std::uint8_t>* covered = nullptr;

  ElementJudgement operator()(std::int64_t i) const { return judge(static_cast<double>((*got)[i]), i); }

  //! Element i of the reference judged with another value than `got`'s (an ensemble member's, say).
  ElementJudgement judge(double value, std::int64_t i) const {
    ElementJudgement j;
    if (covered && (*covered)[i] == 0) return j;
    const double exact_i = (*exact)[i];
    const double bound_i = bound ? (*bound)[i] : 0;
    if (bound && !std::isfinite(bound_i)) {
      j.kind = ElementKind::unbounded;
    } else if (disagrees_on_nonfinite(value, exact_i)) {
      j.kind = ElementKind::mismatch;
      j.ratio = std::numeric_limits<double>::infinity();
    } else if (!std::isfinite(exact_i)) {
      j.kind = ElementKind::nonfinite;
    } else {
      j.kind = ElementKind::finite;
      j.error = std::fabs(value - exact_i);
      if (bound)
        j.ratio = j.error == 0 ? 0 : bound_i == 0 ? std::numeric_limits<double>::infinity() : j.error / bound_i;
    }
    return j;
  }
};

}  // namespace scancheck
