// SPDX-License-Identifier: Apache-2.0
#include "properties/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/architectures.hpp"
#include "properties/element_judgement.hpp"

namespace scancheck {
namespace {

//! The failing elements of one run, by kind of tensor.
struct Failures {
  std::set<std::string> tensors;
  std::set<Direction> directions;
  std::vector<std::array<std::int64_t, 3>> activations;  //!< (b, t, stored position)
  std::vector<std::array<std::int64_t, 2>> states;       //!< (b, stored position)
  std::set<std::int64_t> parameter_heads;
  std::vector<double> relative_errors;   //!< of the finite failing elements
  std::optional<std::string> nan_birth;  //!< the earliest element NaN where it should not be
  std::int64_t nan_birth_t = -1;
  double worst_ratio = 0;  //!< the largest error in bounds (inf: NaN/Inf)
  //! Forward activations of the plain scans (h): (b, t, stored position, relative error) of the finite ones.
  std::vector<std::pair<std::array<std::int64_t, 3>, double>> forward_errors;
};

//! The elements of output `s` of `got` as the policy judges them, or nothing where the run, the reference or
//! its bounds lack the tensor (or the run's is misshapen).
std::optional<ElementSource> elements_of(const TensorSpec& s, const Outputs& got, const ReferenceResult& reference) {
  const auto g = got.find(s.name);
  const auto e = reference.values.find(s.name);
  const auto b = reference.bounds.find(s.name);
  if (g == got.end() || e == reference.values.end() || b == reference.bounds.end()) return std::nullopt;
  if (g->second.dims() != s.dims) return std::nullopt;
  const auto covered = reference.covered.find(s.name);
  return ElementSource{&g->second, &e->second, &b->second,
                       covered == reference.covered.end() ? nullptr : &covered->second};
}

//! The head a parameter (gradient) element belongs to: [K] per channel, [H, K] and [H, K_in, K_out] by row.
std::int64_t parameter_head(const TensorSpec& s, std::int64_t i, std::int64_t head_channels) {
  if (s.dims.size() == 1) return i / head_channels;
  return i / (element_count(s.dims) / s.dims[0]);
}

Failures collect(const Case& c, const Outputs& got, const ReferenceResult& reference, const TolerancePolicy& policy) {
  Failures f;
  const Shape& shape = c.shape;
  const std::int64_t head_channels = scancheck::head_channels(c.architecture, shape);
  for (const TensorSpec& s : tensor_layout(c, TensorRole::output)) {
    const std::optional<ElementSource> elements = elements_of(s, got, reference);
    if (!elements) continue;
    for (std::int64_t i = 0; i < element_count(s.dims); ++i) {
      const ElementJudgement judged = (*elements)(i);
      if (!judged.fails(policy.bound_factor)) continue;  // unbounded elements are not judged
      const double got_i = (*elements->got)[i], exact = (*elements->exact)[i];
      const bool nonfinite = judged.kind == ElementKind::mismatch;
      f.tensors.insert(s.name);
      f.directions.insert(s.direction);
      f.worst_ratio = std::max(f.worst_ratio, judged.ratio);
      if (!nonfinite && exact != 0) f.relative_errors.push_back(judged.error / std::fabs(exact));
      if (s.parameter) {
        f.parameter_heads.insert(parameter_head(s, i, head_channels));
        continue;
      }
      const std::int64_t w = i % shape.width;
      if (s.dims.size() == 3) {
        const std::int64_t t = (i / shape.width) % shape.length, batch = i / (shape.width * shape.length);
        f.activations.push_back({batch, t, w});
        if (s.name == "h" && !nonfinite && exact != 0)
          f.forward_errors.push_back({{batch, t, w}, judged.error / std::fabs(exact)});
        if (std::isnan(got_i) && !std::isnan(exact) && (f.nan_birth_t < 0 || t < f.nan_birth_t)) {
          f.nan_birth_t = t;
          f.nan_birth = fmt::format("{}{}", s.name, index_string(s.dims, i));
        }
      } else {
        f.states.push_back({i / shape.width, w});
      }
    }
  }
  return f;
}

//! Whether (b, t) resets: segment_pos == 0 where the architecture has segment positions, otherwise a zero
//! decay of that stored position (the plain scans' resets).
bool resets_at(const Case& c, std::int64_t b, std::int64_t t, std::int64_t w) {
  const Shape& s = c.shape;
  if (describe(c.architecture).segment_positions) return c.segment_pos[b * s.length + t] == 0;
  if (c.decays == DecaySpace::log) return false;  // a = exp(log a) > 0
  const std::int64_t channels = state_channels(c.architecture, s), ch = w % channels;
  const float* row = c.at("a").data() + (b * s.length + t) * s.width;
  return row[ch] == 0 && (!describe(c.architecture).complex || row[channels + ch] == 0);
}

void time_statements(const Case& c, const Failures& f, const std::optional<Schedule>& schedule,
                     std::vector<std::string>& out) {
  if (f.activations.empty()) return;
  const std::int64_t L = c.shape.length;
  std::int64_t t_min = L, t_max = -1;
  for (const auto& [b, t, w] : f.activations) t_min = std::min(t_min, t), t_max = std::max(t_max, t);
  if (L > 1 && t_max == 0) out.push_back("only at t = 0");
  if (L > 1 && t_min == L - 1) out.push_back(fmt::format("only at t = L-1 = {}", L - 1));
  if (schedule && schedule->kind == Schedule::Kind::hierarchical) {
    const std::int64_t span = schedule->group * schedule->chunk;
    if (L % span != 0 && t_min >= L / span * span)
      out.push_back(
          L > span ? fmt::format("in the last, partial group (t >= {} of L = {}, G C = {})", L / span * span, L, span)
                   : fmt::format("in the last, partial group (the only one: L = {} < G C = {})", L, span));
  }
  if (schedule && schedule->kind != Schedule::Kind::sequential) {
    const std::int64_t C = schedule->chunk, span = schedule->group * C;
    if (L % C != 0 && t_min >= L / C * C)
      out.push_back(L > C ? fmt::format("in the last, partial chunk (t >= {} of L = {}, C = {})", L / C * C, L, C)
                          : fmt::format("in the last, partial chunk (the only one: L = {} < C = {})", L, C));
    else if (t_min > 0 && t_min % C == 0)
      out.push_back(span > 0 && t_min % span == 0 ? fmt::format("from t = {}, a group boundary (G C = {})", t_min, span)
                                                  : fmt::format("from t = {}, a chunk boundary (C = {})", t_min, C));
  }
  const auto at_reset = [&](std::int64_t b, std::int64_t t, std::int64_t w) { return resets_at(c, b, t, w); };
  const bool all_at = std::all_of(f.activations.begin(), f.activations.end(),
                                  [&](const auto& e) { return at_reset(e[0], e[1], e[2]); });
  const bool all_near = std::all_of(f.activations.begin(), f.activations.end(), [&](const auto& e) {
    return at_reset(e[0], e[1], e[2]) || (e[1] > 0 && at_reset(e[0], e[1] - 1, e[2])) ||
           (e[1] + 1 < L && at_reset(e[0], e[1] + 1, e[2]));
  });
  if (all_at) out.push_back("at reset positions");
  else if (all_near) out.push_back("next to reset positions");
}

//! |sum_{s <= t} log |a_s|| of a plain scan's channel (w a stored position), or nothing where a decay is zero.
std::optional<double> summed_log_decay(const Case& c, std::int64_t b, std::int64_t t, std::int64_t w) {
  const Shape& s = c.shape;
  const bool complex = describe(c.architecture).complex;
  const std::int64_t channels = state_channels(c.architecture, s), ch = w % channels;
  double sum = 0;
  for (std::int64_t k = 0; k <= t; ++k) {
    const float* row = c.at(std::string(decay_input(c.decays))).data() + (b * s.length + k) * s.width;
    if (c.decays == DecaySpace::log) {
      sum += row[ch];
      continue;
    }
    const double m = complex ? std::hypot(row[ch], row[channels + ch]) : std::fabs(row[ch]);
    if (m == 0) return std::nullopt;
    sum += std::log(m);
  }
  return std::fabs(sum);
}

//! h computed from cumulative sums of log a (exp(cumsum log a) products, logcumsumexp) rounds the sum to
//! float32, which costs about u |sum log a| relative in every term: an error that grows with the summed log
//! decay where every order of the products themselves keeps a few u. Said when the failing forward elements'
//! relative errors are, at the median, within [1/16, 8] u |sum log a| (and three quarters of them below 16; a
//! state that cancels has a larger relative error) and the sums reach 64.
void summed_log_decay_statement(const Case& c, const Failures& f, std::vector<std::string>& out) {
  if (describe(c.architecture).family != Family::affine_scan || f.forward_errors.empty()) return;
  constexpr double u = 0x1p-24;
  std::vector<double> multiples;
  double largest_sum = 0;
  for (const auto& [at, relative] : f.forward_errors) {
    const auto sum = summed_log_decay(c, at[0], at[1], at[2]);
    if (!sum || *sum == 0) return;
    multiples.push_back(relative / (u * *sum));
    largest_sum = std::max(largest_sum, *sum);
  }
  std::sort(multiples.begin(), multiples.end());
  const double median = multiples[multiples.size() / 2], upper = multiples[multiples.size() * 3 / 4];
  if (largest_sum < 64 || median < 1.0 / 16 || median > 8 || upper > 16) return;
  out.push_back(
      fmt::format("the error grows with the summed log decay: {:.2g} u |sum log a| at the median failing "
                  "element (|sum log a| up to {:.3g}), where every order of the products keeps a few u: the "
                  "signature of h from cumulative sums of log a (exp(cumsum), logcumsumexp), a formulation "
                  "scancheck rejects (docs/tolerance.md)",
                  median, largest_sum));
}

void place_statements(const Case& c, const Failures& f, std::vector<std::string>& out) {
  const Shape& s = c.shape;
  const std::int64_t channels = state_channels(c.architecture, s), per_head = head_channels(c.architecture, s);
  std::set<std::int64_t> batches, heads = f.parameter_heads, stored;
  for (const auto& [b, t, w] : f.activations) batches.insert(b), stored.insert(w);
  for (const auto& [b, w] : f.states) batches.insert(b), stored.insert(w);
  for (std::int64_t w : stored) heads.insert((w % channels) / per_head);
  if (s.batch > 1 && batches.size() == 1)
    out.push_back(fmt::format("one batch entry (b = {} of {})", *batches.begin(), s.batch));
  if (s.heads > 1 && heads.size() == 1) out.push_back(fmt::format("one head (h = {} of {})", *heads.begin(), s.heads));
  if (!stored.empty() && static_cast<std::int64_t>(stored.size()) < s.width && stored.size() <= 8)
    out.push_back(fmt::format("stored positions {} of W = {}", fmt::join(stored, ", "), s.width));
}

}  // namespace

std::vector<std::string> diagnose(const Case& c, const Outputs& got, const ReferenceResult& reference,
                                  const TolerancePolicy& policy, const std::optional<Schedule>& schedule) {
  const Failures f = collect(c, got, reference, policy);
  std::vector<std::string> out;
  if (f.tensors.empty()) return out;
  if (f.directions.size() == 1)
    out.push_back(fmt::format("{} only ({})", to_string(*f.directions.begin()), fmt::join(f.tensors, ", ")));
  if (f.activations.empty() && f.parameter_heads.empty())
    out.push_back(fmt::format("only in the end states: {}", fmt::join(f.tensors, ", ")));
  time_statements(c, f, schedule, out);
  place_statements(c, f, out);
  const bool bf16_sized = c.io_dtype == DType::float32 && !f.relative_errors.empty() &&
                          std::all_of(f.relative_errors.begin(), f.relative_errors.end(),
                                      [](double r) { return r >= 0x1p-11 && r <= 0x1p-6; });
  if (bf16_sized) out.push_back("the size of a bfloat16 rounding in a float32 run (a state carried in bf16?)");
  if (f.nan_birth) out.push_back(fmt::format("NaN born at {}", *f.nan_birth));
  summed_log_decay_statement(c, f, out);
  if (f.worst_ratio <= plausible_rounding_factor)
    out.push_back(
        fmt::format("every failing element is within {:g} times what float32 allows in any evaluation order: "
                    "more rounding than any order scancheck models, not the size of a bug (no bug class is "
                    "inferred from it)",
                    plausible_rounding_factor));
  return out;
}

double worst_bound_ratio(const Case& c, const Outputs& got, const ReferenceResult& reference,
                         const TolerancePolicy& policy) {
  return collect(c, got, reference, policy).worst_ratio;
}

namespace {

//! `c` with every step's decay that of t = 0: a plain scan's a, a gated layer's x (which its gates read).
Case constant_in_time(const Case& c) {
  Case d = c;
  Tensor<float>& driver =
      d.at(describe(c.architecture).family == Family::affine_scan ? std::string(decay_input(c.decays)) : "x");
  const Shape& s = c.shape;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t t = 1; t < s.length; ++t)
      std::copy_n(driver.data() + b * s.length * s.width, s.width, driver.data() + (b * s.length + t) * s.width);
  return d;
}

}  // namespace

std::optional<ErrorStrip> error_strip(const Case& c, const Outputs& got, const ReferenceResult& reference,
                                      const TolerancePolicy& policy, const std::optional<Schedule>& schedule) {
  // The activation tensor with the largest failing ratio, and the batch entry of that element.
  const Shape& s = c.shape;
  std::string tensor;
  std::optional<ElementSource> strip_elements;
  std::int64_t batch = 0;
  double worst = policy.bound_factor;
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) {
    if (spec.dims.size() != 3 || spec.parameter) continue;
    const std::optional<ElementSource> elements = elements_of(spec, got, reference);
    if (!elements) continue;
    for (std::int64_t i = 0; i < element_count(spec.dims); ++i) {
      const ElementJudgement judged = (*elements)(i);
      if (judged.fails(worst)) {
        worst = judged.ratio;
        tensor = spec.name;
        strip_elements = elements;
        batch = i / (s.length * s.width);
      }
    }
  }
  if (tensor.empty()) return std::nullopt;
  ErrorStrip strip;
  strip.tensor = tensor;
  strip.batch = batch;
  strip.length = s.length;
  strip.width = s.width;
  strip.t_bins = std::min<std::int64_t>(s.length, 64);
  strip.w_bins = std::min<std::int64_t>(s.width, 32);
  strip.ratios.assign(static_cast<std::size_t>(strip.t_bins * strip.w_bins), 0.0);
  for (std::int64_t t = 0; t < s.length; ++t)
    for (std::int64_t w = 0; w < s.width; ++w) {
      const ElementJudgement judged = (*strip_elements)((batch * s.length + t) * s.width + w);
      if (judged.kind != ElementKind::finite && judged.kind != ElementKind::mismatch) continue;
      double& cell = strip.ratios[static_cast<std::size_t>((t * strip.t_bins / s.length) * strip.w_bins +
                                                           w * strip.w_bins / s.width)];
      cell = std::max(cell, judged.ratio);
    }
  if (schedule && schedule->kind != Schedule::Kind::sequential) {
    strip.chunk = schedule->chunk;
    strip.group_span = schedule->group * schedule->chunk;
  }
  for (std::int64_t t = 0; t < s.length; ++t)
    if (resets_at(c, batch, t, 0)) strip.resets.push_back(t);
  return strip;
}

std::vector<std::string> counterfactual_diagnosis(const Case& c, const std::function<bool(const Case&)>& passes) {
  std::vector<std::string> out;
  if (c.shape.length > 1 && passes(constant_in_time(c)))
    out.push_back(
        "a shift in t: the run passes when every step has the decay of t = 0 (a decay read at the "
        "wrong step?)");
  for (const char* input : {"dh_last", "h0"}) {
    if (!c.has(input)) continue;
    Case without = c;
    without.tensors.erase(input);
    if (passes(without)) out.push_back(fmt::format("only where {} matters: the run passes without it", input));
  }
  return out;
}

}  // namespace scancheck
