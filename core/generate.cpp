// SPDX-License-Identifier: Apache-2.0
#include "core/generate.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/architectures.hpp"
#include "core/case_generation.hpp"
#include "core/choices.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"

namespace scancheck {
namespace {

constexpr detail::NameTable<Regime, 5> regime_names{{
    {Regime::default_, "default"},
    {Regime::long_memory, "long_memory"},
    {Regime::resets, "resets"},
    {Regime::extreme, "extreme"},
    {Regime::clip, "clip"},
}};

// Every draw has its own stream, id * 8 + purpose, fixed forever: renumbering changes every generated case.
// Elements are indexed by their flat position, so no value depends on the order or thread that draws it.
constexpr std::pair<std::string_view, std::uint64_t> stream_ids[] = {
    {"a", 1},
    {"b", 2},
    {"h0", 3},
    {"dh", 4},
    {"dh_last", 5},  // the plain scans (h0, dh_last shared)
    {"x", 6},
    {"a_param", 7},
    {"input_gate_w", 8},
    {"input_gate_b", 9},
    {"a_gate_w", 10},
    {"a_gate_b", 11},
    {"a_imag_param", 12},
    {"dy", 13},
    {"segment_pos", 14},  // the gated kinds
    {"resets", 15},
    {"clip", 16},  // draws that shape several tensors
};
std::uint64_t stream_of(std::string_view name, Purpose purpose) {
  for (const auto& [n, id] : stream_ids)
    if (n == name) return id * 8 + static_cast<std::uint64_t>(purpose);
  throw std::logic_error(fmt::format("no RNG stream for '{}'", name));
}

// Runs body(i) for every i in [0, n), on several threads for large n. Every value is a function of i alone,
// so the result does not depend on the number of threads.
void parallel_for(std::int64_t n, const std::function<void(std::int64_t)>& body) {
  constexpr std::int64_t grain = 1 << 16;
  const std::int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t threads = std::clamp<std::int64_t>(n / grain, 1, cores);
  const auto run = [&](std::int64_t k) {
    // The bounds are hoisted: body is opaque, so a bound in the loop condition is divided anew every step.
    const std::int64_t first = n * k / threads, end = n * (k + 1) / threads;
    for (std::int64_t i = first; i < end; ++i) body(i);
  };
  std::vector<std::jthread> pool;
  for (std::int64_t k = 1; k < threads; ++k) pool.emplace_back(run, k);
  run(0);
}

// Values are computed in double and rounded once to float32 here; bf16 rounding comes last, by layout.
void add(Case& c, const GenerationContext& ctx, const std::string& name,
         const std::function<double(std::int64_t)>& value) {
  Tensor<float> t(ctx.dims(name));
  parallel_for(t.size(), [&](std::int64_t i) { t[i] = static_cast<float>(value(i)); });
  c.tensors.emplace(name, std::move(t));
}

void add_normal(Case& c, const GenerationContext& ctx, const std::string& name, double scale = 1) {
  const Draw d = ctx.draw(name);
  add(c, ctx, name, [&](std::int64_t i) { return scale * d.normal(i); });
}

void add_states_and_cotangents(Case& c, const GenerationContext& ctx, const std::string& cotangent) {
  if (ctx.req.with_h0) add_normal(c, ctx, "h0");
  add_normal(c, ctx, cotangent);
  if (ctx.req.with_dh_last) add_normal(c, ctx, "dh_last");
}

// N(0, 1) times 10^U(-3, 3): magnitudes over six decades, clipped to |v| <= 1000.
double wide(const GenerationContext& ctx, const std::string& name, std::int64_t i) {
  const double v = ctx.draw(name).normal(i) * std::pow(10.0, ctx.draw(name, Purpose::scale).uniform(i, -3, 3));
  return std::clamp(v, -1000.0, 1000.0);
}

// Batch entry 0 resets at t = 0, the others half the time; every other step resets with probability 0.1,
// and for L >= 3 each entry gets a pair of consecutive resets after t = 0 (a reset right after a reset).
std::vector<bool> reset_schedule(const GenerationContext& ctx) {
  const std::int64_t batch = ctx.req.shape.batch, length = ctx.req.shape.length;
  const Draw step = ctx.draw("resets"), pair = ctx.draw("resets", Purpose::pair);
  std::vector<bool> reset(static_cast<std::size_t>(batch * length));
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto at = [&](std::int64_t t) { return reset.begin() + b * length + t; };
    for (std::int64_t t = 0; t < length; ++t) *at(t) = step.chance(b * length + t, t > 0 ? 0.1 : b == 0 ? 1.0 : 0.5);
    if (length < 3) continue;
    const std::int64_t p = 1 + pair.below(b, length - 2);
    *at(p) = *at(p + 1) = true;
  }
  return reset;
}

bool clip_channel(const GenerationContext& ctx, std::int64_t channel) { return channel % 4 == ctx.clip_start; }

// ---- gated kinds (rglru, complex_rglru) ----

// segment_pos counts t + offset_b (offset in [1, 100]) until the first reset, then t - (last reset).
// The extreme regime makes about 5% of the non-reset positions negative, which still means "no reset".
Tensor<std::int32_t> segment_positions(const GenerationContext& ctx) {
  const std::int64_t batch = ctx.req.shape.batch, length = ctx.req.shape.length;
  const Draw offset = ctx.draw("segment_pos"), negative = ctx.draw("segment_pos", Purpose::sign);
  const Draw magnitude = ctx.draw("segment_pos", Purpose::scale);
  Tensor<std::int32_t> pos({batch, length});
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t start = 1 + offset.below(b, 100);
    std::int64_t last_reset = -1;
    for (std::int64_t t = 0; t < length; ++t) {
      const std::int64_t i = b * length + t;
      if (!ctx.resets.empty() && ctx.resets[static_cast<std::size_t>(i)]) last_reset = t;
      std::int64_t p = last_reset < 0 ? t + start : t - last_reset;
      if (ctx.regime() == Regime::extreme && p != 0 && negative.chance(i, 0.05)) p = -1 - magnitude.below(i, 1000);
      pos[i] = static_cast<std::int32_t>(p);
    }
  }
  return pos;
}

// softplus^-1(s) = log(expm1(s)), accurate for tiny s too.
double inverse_softplus(double s) { return std::log(std::expm1(s)); }

// RecurrentGemma's rnn_param_init: decay exp(-s) with exp(-2s) ~ U[0.81, 0.998], i.e. exp(-s) in [0.9, 0.999].
double a_param_value(const GenerationContext& ctx, std::int64_t channel) {
  const Draw d = ctx.draw("a_param");
  switch (ctx.regime()) {
    case Regime::long_memory: return inverse_softplus(-std::log(d.uniform(channel, 0.999, 0.99999)));
    case Regime::extreme: return d.uniform(channel, -40, 40);  // both tails of softplus
    case Regime::clip:
      // s = softplus(a_param) ~ 1e-9: q = 1 - exp(-16 ga s) ~ 1e-8, so 2 sqrt(q) < 1/1000 and the bound clips.
      if (clip_channel(ctx, channel)) return inverse_softplus(std::pow(10.0, d.uniform(channel, -9.5, -8.5)));
      [[fallthrough]];
    default: return inverse_softplus(-0.5 * std::log(d.uniform(channel, 0.81, 0.998)));
  }
}

void add_gate(Case& c, const GenerationContext& ctx, const std::string& weight, const std::string& bias) {
  const double k_in = static_cast<double>(head_inputs(ctx.req.architecture, ctx.req.shape));
  add_normal(c, ctx, weight, 1 / std::sqrt(k_in));
  // extreme: pre-activations far into either sigmoid tail.
  const Draw magnitude = ctx.draw(bias), sign = ctx.draw(bias, Purpose::sign);
  const bool extreme = ctx.regime() == Regime::extreme;
  add(c, ctx, bias, [&](std::int64_t i) { return extreme ? sign.sign(i) * magnitude.uniform(i, 10, 40) : 0.0; });
}

}  // namespace

void generate_gated_layer_tensors(Case& c, const GenerationContext& ctx) {
  if (ctx.regime() == Regime::extreme) add(c, ctx, "x", [&](std::int64_t i) { return wide(ctx, "x", i); });
  else add_normal(c, ctx, "x");
  c.segment_pos = segment_positions(ctx);
  add(c, ctx, "a_param", [&](std::int64_t ch) { return a_param_value(ctx, ch); });
  add_gate(c, ctx, "input_gate_w", "input_gate_b");
  add_gate(c, ctx, "a_gate_w", "a_gate_b");
  if (describe(ctx.req.architecture).complex) {
    const Draw d = ctx.draw("a_imag_param");
    add(c, ctx, "a_imag_param", [&](std::int64_t ch) { return d.uniform(ch, 0, std::numbers::pi); });
  }
  add_states_and_cotangents(c, ctx, "dy");
}

// ---- plain scans (scan, complex_scan) ----

namespace {

// |a| of complex element e = (b * L + t) * channels + channel.
double scan_magnitude(const GenerationContext& ctx, std::int64_t e) {
  const Draw d = ctx.draw("a"), special = ctx.draw("a", Purpose::special);
  const std::int64_t channels = ctx.channels();
  if (!ctx.resets.empty() && ctx.resets[static_cast<std::size_t>(e / channels)]) return 0;
  switch (ctx.regime()) {
    case Regime::long_memory: return d.uniform(e, 0.999, 0.99999);
    case Regime::extreme: {
      const double u = special.uniform(e);
      return u < 0.1 ? 0.0 : u < 0.2 ? 1.0 : d.uniform(e);
    }
    case Regime::clip:
      // 1 - 1e-9 rounds to 1.0f: the scan becomes a prefix sum on these channels.
      if (clip_channel(ctx, e % channels)) return 1 - std::pow(10.0, d.uniform(e, -9.5, -8.5));
      [[fallthrough]];
    default: return d.uniform(e, 0.9, 0.999);
  }
}

void add_scan_decays(Case& c, const GenerationContext& ctx) {
  const std::int64_t channels = ctx.channels(), width = ctx.req.shape.width;
  const Draw sign = ctx.draw("a", Purpose::sign), phase = ctx.draw("a", Purpose::phase);
  const bool complex = describe(ctx.req.architecture).complex;
  Tensor<float> a(ctx.dims("a"));
  parallel_for(a.size() / (complex ? 2 : 1), [&](std::int64_t e) {
    const std::int64_t row = e / channels, channel = e % channels;
    const double r = scan_magnitude(ctx, e);
    if (!complex) {
      // Only the extreme regime has negative decays; the others model gates in (0, 1). In log form the
      // case holds log r itself, rounded once: the clip regime's 1 - 1e-9 is then -1e-9, not 0.
      if (ctx.req.decays == DecaySpace::log) a[row * width + channel] = static_cast<float>(std::log(r));
      else a[row * width + channel] = static_cast<float>(ctx.regime() == Regime::extreme ? sign.sign(e) * r : r);
      return;
    }
    const double theta = clip_channel(ctx, channel) ? 0.0 : phase.uniform(e, -std::numbers::pi, std::numbers::pi);
    a[row * width + channel] = static_cast<float>(r * std::cos(theta));
    a[row * width + channels + channel] = static_cast<float>(r * std::sin(theta));
  });
  c.tensors.emplace(decay_input(ctx.req.decays), std::move(a));
}

}  // namespace

void generate_affine_scan_tensors(Case& c, const GenerationContext& ctx) {
  add_scan_decays(c, ctx);
  if (ctx.regime() == Regime::extreme) add(c, ctx, "b", [&](std::int64_t i) { return wide(ctx, "b", i); });
  else add_normal(c, ctx, "b");
  add_states_and_cotangents(c, ctx, "dh");
}

namespace {

void round_io_tensors(Case& c, const std::vector<TensorSpec>& layout) {
  if (c.io_dtype == DType::float32) return;
  for (const TensorSpec& spec : layout) {
    if (spec.precision != TensorPrecision::io || !c.has(spec.name)) continue;
    for (float& v : c.at(spec.name).values()) v = round_to(c.io_dtype, v);
  }
}

}  // namespace

Draw GenerationContext::draw(std::string_view name, Purpose purpose) const { return {rng, stream_of(name, purpose)}; }

const Dims& GenerationContext::dims(std::string_view name) const {
  for (const TensorSpec& s : layout)
    if (s.name == name) return s.dims;
  throw std::logic_error(fmt::format("no tensor '{}'", name));
}

std::int64_t GenerationContext::channels() const { return state_channels(req.architecture, req.shape); }

std::string_view to_string(Regime r) { return detail::name_of(regime_names, r); }
Regime parse_regime(std::string_view name) { return detail::parse_name(regime_names, "regime", name); }
std::string regime_choices() { return detail::choices(regime_names); }

Case make_case(const CaseRequest& req) {
  validate(req.architecture, req.shape);
  const ArchitectureDescriptor& arch = describe(req.architecture);
  if (arch.segment_positions && req.shape.length > std::numeric_limits<std::int32_t>::max() - 100)
    throw InputError(fmt::format("L = {} is too long for int32 segment positions", req.shape.length));
  GenerationContext ctx{req, CounterRng(req.seed), tensor_layout(req.architecture, req.shape), {}, -1};
  // The extreme regime also resets where resets are positions (segment_pos), not zero decays.
  if (req.regime == Regime::resets || (req.regime == Regime::extreme && arch.segment_positions))
    ctx.resets = reset_schedule(ctx);
  if (req.decays == DecaySpace::log && (req.regime == Regime::resets || req.regime == Regime::extreme))
    throw InputError(
        fmt::format("decays log: the {} regime draws decays a <= 0, which have no logarithm", to_string(req.regime)));
  tensor_layout(req.architecture, req.shape, req.decays);  // InputError where there is no log form
  if (req.resets_at_start && !arch.segment_positions)
    throw InputError(fmt::format("resets at start: {} has no segment positions", to_string(req.architecture)));
  // Every 4th channel from a random start: a quarter of them, and at least one.
  if (req.regime == Regime::clip) ctx.clip_start = ctx.draw("clip").below(0, std::min<std::int64_t>(4, ctx.channels()));

  Case c;
  c.architecture = req.architecture;
  c.shape = req.shape;
  c.io_dtype = req.io_dtype;
  c.sqrt_gradient = req.sqrt_gradient;
  c.decays = req.decays;
  c.provenance = {req.seed, std::string(to_string(req.regime))};
  arch.generate(c, ctx);
  if (req.resets_at_start)
    for (std::int64_t b = 0; b < req.shape.batch; ++b) c.segment_pos[b * req.shape.length] = 0;
  round_io_tensors(c, tensor_layout(c));
  return c;
}

}  // namespace scancheck
