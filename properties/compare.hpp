// SPDX-License-Identifier: Apache-2.0
//! @file
//! Comparison of a backend's outputs with the exact reference (docs/architecture.md, "Comparison and tolerance"):
//! per output tensor, the error metrics a tolerance policy (policy.hpp) turns into a verdict.
//!
//!   abs / rel        max |got - exact|, and max |got - exact| / |exact| over elements with exact != 0
//!   ulp              |got - rn(exact)| in ulps of rn(exact)'s binade in the tensor's dtype, where rn is
//!                    round-to-nearest-even to that dtype: a correctly rounded output scores 0; p50, p90,
//!                    p99 and max over the compared elements
//!   bound ratio      max |got - exact| / bound, the reference's first-order bound on a float32 sequential
//!                    evaluation. Elements with an infinite bound (float32 cannot be trusted there, e.g.
//!                    q underflowing under the exact sqrt convention) are counted apart and not compared.
//!   baseline ratio   max |got - exact| / max |baseline - exact|, the baseline being the same-precision
//!                    `sequential` backend on the same case (FlashAttention's rule)
//!   non-finite       elements where got and exact disagree on being NaN, +Inf or -Inf
//! and the worst element: the one with the largest bound ratio (largest ulp error without bounds), with
//! its index (b, t, w) and both values. Elements a sampled reference did not compute are skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/case.hpp"
#include "core/dtype.hpp"
#include "core/tensor.hpp"

namespace scancheck {

struct WorstElement {
  std::int64_t index = -1;  //!< flat index, -1 when nothing was compared
  std::string at;           //!< "[b, t, w]"
  double got = 0, exact = 0, bound = 0, ulp = 0;
};

//! Buckets of the ulp histogram: 0 holds the correctly rounded elements (error 0), bucket k >= 1 the errors
//! in (2^(k-2), 2^(k-1)] ulps with bucket 1 = (0, 1], and the last everything above 2^(ulp_buckets-3).
inline constexpr int ulp_buckets = 24;
int ulp_bucket(double ulp);

//! How a run's error is distributed over a tensor's judged elements, in units of each element's bound (the
//! elements with a finite, nonzero bound and a finite error, and, where the strict bounds are given, none
//! whose bound an accepted formulation widens: widened_bound_factor): the typical element (p50), the tail
//! (p90) and the RMS. Unlike the largest ratio, it sees accuracy lost a little on every element.
//! An element whose bound exceeds this times its strict bound (scancheck's own formulation alone) is one where
//! an accepted formulation may lose what scancheck's own keeps (a saturated gate's sigma', a tiny decay's
//! 1 + expm1, a flushed subnormal): its error is the worst-case bound's to judge, not the profile's, since
//! the correct orders it is compared with all use scancheck's own formulation.
inline constexpr double widened_bound_factor = 1.0625;

struct ErrorProfile {
  std::int64_t elements = 0;
  double p50 = 0, p90 = 0, rms = 0;
};

//! What one bound is worth at a tensor's typical element (p50 over the covered elements with a finite bound and a
//! finite exact value): in ulps of the stored dtype at the correctly rounded exact value, and relative to |exact|
//! (elements with exact != 0). A rule's factor of bounds times this is the error it detects there (policy.hpp,
//! detection_threshold). A property of the reference alone, the same for every backend judged on the case.
struct BoundScale {
  double ulps = 0, relative = 0;
};

struct TensorMetrics {
  std::string name;
  DType dtype = DType::float32;  //!< the dtype the tensor is stored in (io dtype or float32)
  std::int64_t compared = 0;     //!< elements compared (covered by the reference)
  double max_abs = 0, max_rel = 0;
  double ulp_p50 = 0, ulp_p90 = 0, ulp_p99 = 0, ulp_max = 0;
  double max_exact = 0;                  //!< max |exact|: the tensor's scale
  std::optional<double> bound_ratio;     //!< absent without bounds
  double max_bound = 0;                  //!< largest finite bound of the compared elements
  std::int64_t unbounded = 0;            //!< elements whose bound is infinite (not compared)
  std::optional<double> baseline_abs;    //!< max |baseline - exact|, absent without a baseline
  std::optional<double> baseline_ratio;  //!< max_abs / baseline_abs (absent when both are 0)
  std::optional<ErrorProfile> profile;   //!< absent without bounds
  //! Each statistic's largest value over the ensemble of correct float32 orders on the same case (absent
  //! without an ensemble): what the ensemble rule (policy.hpp) compares `profile` with.
  std::optional<ErrorProfile> ensemble_profile;
  std::int64_t ensemble_orders = 0;       //!< how many orders ensemble_profile is the largest of (1: sequential)
  std::optional<BoundScale> bound_scale;  //!< absent without bounds or without a judged element
  std::int64_t nonfinite_mismatches = 0;
  std::int64_t first_nonfinite = -1;  //!< flat index of the first one
  WorstElement worst;
  //! Compared elements per ulp-error bucket (ulp_bucket); ulp_buckets entries.
  std::vector<std::int64_t> ulp_histogram = std::vector<std::int64_t>(ulp_buckets, 0);
};

//! Distance of `got` from the correctly rounded `exact` in ulps of the dtype at rn(exact) (NaN when either
//! is not finite).
double ulp_error(double got, double exact, DType dtype);

//! Inputs of one tensor's comparison; pointers are optional (nullptr: not available).
struct TensorComparison {
  std::string name;
  DType dtype = DType::float32;
  const Tensor<float>* got = nullptr;
  const Tensor<double>* exact = nullptr;
  const Tensor<double>* bound = nullptr;
  const Tensor<std::uint8_t>* covered = nullptr;
  const Tensor<float>* baseline = nullptr;
  //! The reference's strict bounds (ReferenceResult::strict_bounds): which elements the profile leaves out.
  const Tensor<double>* strict_bound = nullptr;
  //! The largest error profile of the correct orders (differential.hpp, CorrectOrders), copied to the metrics,
  //! and how many orders it is the largest of.
  std::optional<ErrorProfile> ensemble_profile;
  std::int64_t ensemble_orders = 0;
  //! bound_scale(*this), computed once per case and tensor where many backends are judged on it (CorrectOrders);
  //! nullptr: compare_tensor computes it.
  const std::optional<BoundScale>* bound_scale = nullptr;
};

TensorMetrics compare_tensor(const TensorComparison&);

//! The error profile `values` (in place of `got`) would have under the comparison `in`; empty without bounds.
ErrorProfile error_profile(const TensorComparison& in, const Tensor<float>& values);
//! What one bound of `in` is worth at its typical element (BoundScale); empty without bounds or such an element.
std::optional<BoundScale> bound_scale(const TensorComparison& in);
//! Each statistic's larger value.
ErrorProfile worst_of(const ErrorProfile&, const ErrorProfile&);

//! The dtype each output of `c` is stored in (tensor_layout: io tensors in the case's io dtype).
DType stored_dtype(const Case& c, const std::string& output);

}  // namespace scancheck
