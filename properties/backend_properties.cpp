// SPDX-License-Identifier: Apache-2.0
#include "properties/backend_properties.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidcheck.h>

#include "backends/backend.hpp"
#include "core/architectures.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "properties/differential.hpp"

namespace scancheck {
namespace {

// ---- drawing backends and positions ----

//! 64 random bits that do not shrink (a shrunk case keeps what was drawn beside it).
std::uint64_t draw_bits() {
  return *rc::gen::noShrink(rc::Gen<std::uint64_t>(
      [](const rc::Random& random, int) { return rc::shrinkable::just(rc::Random(random).next()); }));
}

//! The sequential baseline, every foreign backend of the case's kind whose constraints take the case (what
//! a user loaded a worker or plugin for), and `others` distinct random built-ins of the kind (or all of
//! them). `deterministic_only` leaves out backends declared nondeterministic.
std::vector<const BackendInfo*> sample_backends(const Case& c, std::size_t others, bool deterministic_only = false) {
  const BackendInfo* base = &baseline_backend(c);
  std::vector<const BackendInfo*> foreign, builtin;
  for (const BackendInfo& b : registry()) {
    if (b.architecture != c.architecture || b.io_dtype != c.io_dtype || &b == base) continue;
    if ((deterministic_only && !b.deterministic) || !b.constraints.violated_by(c).empty()) continue;
    (b.builtin ? builtin : foreign).push_back(&b);
  }
  std::mt19937_64 rng(draw_bits());
  std::shuffle(builtin.begin(), builtin.end(), rng);
  builtin.resize(std::min(others, builtin.size()));
  builtin.insert(builtin.begin(), base);
  builtin.insert(builtin.end(), foreign.begin(), foreign.end());
  return builtin;
}

//! The outputs `b` computes on `c`: those of its declared passes.
std::vector<TensorSpec> outputs_of(const Case& c, const BackendInfo& b) {
  std::vector<TensorSpec> out = tensor_layout(c, TensorRole::output);
  std::erase_if(out, [&](const TensorSpec& s) {
    return !b.computes(s.direction) || std::find(b.omits.begin(), b.omits.end(), s.name) != b.omits.end();
  });
  return out;
}

// ---- geometry of outputs ----

//! Which state channel and which head every stored position belongs to.
struct Geometry {
  Family family;
  bool complex;
  std::int64_t batch, length, width, heads;
  std::int64_t channels;  // state channels: W, or W/2 complex ones at c and W/2 + c
  std::int64_t k_in;      // gate inputs per head (gated kinds)
  std::int64_t k_out;     // state channels per head

  explicit Geometry(const Case& c)
      : family(describe(c.architecture).family),
        complex(describe(c.architecture).complex),
        batch(c.shape.batch),
        length(c.shape.length),
        width(c.shape.width),
        heads(c.shape.heads),
        channels(state_channels(c.architecture, c.shape)),
        k_in(head_inputs(c.architecture, c.shape)),
        k_out(head_channels(c.architecture, c.shape)) {}

  std::int64_t channel_of(std::int64_t p) const { return p % channels; }
  std::int64_t head_of_channel(std::int64_t ch) const { return ch / k_out; }
  std::int64_t head_of_input(std::int64_t p) const { return p / k_in; }  // the gate block reading position p
  //! The stored positions of channel ch: ch, and channels + ch for the complex kinds.
  std::vector<std::int64_t> positions(std::int64_t ch) const {
    if (complex) return {ch, channels + ch};
    return {ch};
  }
};

//! Per-batch tensors ([B, L, W] activations and [B, W] states); the others are parameters and their
//! gradients, shared by every batch entry.
bool per_batch(const Case& c, const std::string& name) {
  for (const TensorSpec& s : tensor_layout(c))
    if (s.name == name) return !s.parameter;
  return true;
}

std::uint32_t bits_of(float v) {
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

std::string element(const TensorSpec& s, std::int64_t i) { return s.name + index_string(s.dims, i); }

std::string value_change(const Tensor<float>& before, const Tensor<float>& after, std::int64_t i) {
  return fmt::format("{:.9g} (0x{:08x}) -> {:.9g} (0x{:08x})", before[i], bits_of(before[i]), after[i],
                     bits_of(after[i]));
}

//! The first element whose bits differ, or -1.
std::int64_t first_difference(const Tensor<float>& x, const Tensor<float>& y) {
  for (std::int64_t i = 0; i < x.size(); ++i)
    if (bits_of(x[i]) != bits_of(y[i])) return i;
  return -1;
}

//! Checks that `got` has exactly the outputs of the layout that `b` computes, with their dims.
std::optional<std::string> layout_problem(const Case& c, const BackendInfo& b, const Outputs& got) {
  const std::vector<TensorSpec> outputs = outputs_of(c, b);
  if (got.size() != outputs.size()) return fmt::format("{} outputs instead of {}", got.size(), outputs.size());
  for (const TensorSpec& s : outputs) {
    const auto it = got.find(s.name);
    if (it == got.end()) return fmt::format("output {} missing", s.name);
    if (it->second.dims() != s.dims)
      return fmt::format("output {} has dims {} instead of {}", s.name, to_string(it->second.dims()),
                         to_string(s.dims));
  }
  return std::nullopt;
}

// ---- the properties ----

std::optional<PropertyFailure> agrees_with_reference(const Case& c) {
  const std::vector<const BackendInfo*> backends = sample_backends(c, 4);
  const ReferenceResult reference = reference_with_bounds(c, 1);
  for (const BackendResult& r : check_backends(c, backends, Executor::host, reference, TolerancePolicy{}))
    if (!r.pass) return PropertyFailure(format_result(r), r.backend);
  return std::nullopt;
}

std::optional<PropertyFailure> deterministic(const Case& c) {
  for (const BackendInfo* b : sample_backends(c, 4, /*deterministic_only=*/true)) {
    const Outputs first = run_backend(*b, c, Executor::host), second = run_backend(*b, c, Executor::host);
    for (const TensorSpec& s : outputs_of(c, *b))
      if (const std::int64_t i = first_difference(first.at(s.name), second.at(s.name)); i >= 0)
        return PropertyFailure(fmt::format("{}: {} differs between two runs of the same case: {}", b->name,
                                           element(s, i), value_change(first.at(s.name), second.at(s.name), i)),
                               b->name);
  }
  return std::nullopt;
}

std::optional<PropertyFailure> writes_every_output(const Case& c) {
  for (const BackendInfo* b : sample_backends(c, 8)) {
    try {
      if (const auto problem = layout_problem(c, *b, run_backend(*b, c, Executor::host)))
        return PropertyFailure(fmt::format("{}: {}", b->name, *problem), b->name);
    } catch (const BackendError& e) {
      return PropertyFailure(fmt::format("{} threw BackendError on a valid case: {}", b->name, e.what()), b->name);
    }
  }
  return std::nullopt;
}

//! One input element: tensor name, batch entry, time step, stored position.
struct Site {
  std::string tensor;
  std::int64_t b, t, p;
  std::string describe() const { return fmt::format("{}[{}, {}, {}]", tensor, b, t, p); }
  std::int64_t flat(const Geometry& g) const { return (b * g.length + t) * g.width + p; }
};

Site draw_site(const Case& c, std::string tensor) {
  Site s{std::move(tensor), 0, 0, 0};
  s.b = *gen_index(c.shape.batch);
  s.t = *gen_index(c.shape.length);
  s.p = *gen_index(c.shape.width);
  return s;
}

//! Whether output element i of `s` may change when input `site` (b of a scan, x of a gated layer) changes.
//! Scan kinds, channel ch = channel_of(p): h at t >= site.t, h_last, and da at t > site.t, all in
//! (site.b, ch) only; db and dh0 never (they do not depend on b). Gated kinds, heads T = {the gate block
//! reading site.p, the head of its state channel}: in batch entry site.b only, y at t >= site.t of
//! channels in T, h_last and dh0 of channels in T, dx at every t in positions that a head in T reads or
//! whose channel is in T; parameter gradients of heads in T (they sum over every b and t).
bool affine_scan_may_change(const Geometry& g, const Site& site, const TensorSpec& s, std::int64_t i) {
  if (s.name == "db" || s.name == "dh0") return false;
  const std::int64_t ch = g.channel_of(site.p);
  if (s.dims.size() == 2) return i / g.width == site.b && g.channel_of(i % g.width) == ch;  // h_last
  const std::int64_t p = i % g.width, t = (i / g.width) % g.length, b = i / (g.width * g.length);
  if (b != site.b || g.channel_of(p) != ch) return false;
  return s.name == "h" ? t >= site.t : t > site.t;  // da_t = g_t conj(h_{t-1})
}

bool gated_layer_may_change(const Geometry& g, const Site& site, const TensorSpec& s, std::int64_t i) {
  const std::set<std::int64_t> touched{g.head_of_input(site.p), g.head_of_channel(g.channel_of(site.p))};
  const auto in = [&](std::int64_t head) { return touched.count(head) != 0; };
  if (!s.parameter) {
    const std::int64_t p = i % g.width;
    const std::int64_t b = s.dims.size() == 3 ? i / (g.width * g.length) : i / g.width;
    if (b != site.b) return false;
    const bool channel_touched = in(g.head_of_channel(g.channel_of(p)));
    if (s.name == "dx") return channel_touched || in(g.head_of_input(p));
    if (s.name == "y") return channel_touched && (i / g.width) % g.length >= site.t;
    return channel_touched;  // h_last, dh0
  }
  if (s.name == "d_a_param" || s.name == "d_a_imag_param") return in(g.head_of_channel(i));
  return in(i / (element_count(s.dims) / s.dims[0]));  // weights [H, K_in, K_out], biases [H, K_out]
}

bool may_change(const Geometry& g, const Site& site, const TensorSpec& s, std::int64_t i) {
  switch (g.family) {
    case Family::affine_scan: return affine_scan_may_change(g, site, s, i);
    case Family::gated_layer: return gated_layer_may_change(g, site, s, i);
  }
  return true;
}

//! The input whose elements drive the recurrence additively: b of a scan, x of a gated layer.
std::string driving_input(const Geometry& g) { return g.family == Family::affine_scan ? "b" : "x"; }

std::optional<PropertyFailure> causal_and_local(const Case& c) {
  const Geometry g(c);
  const Site site = draw_site(c, driving_input(g));
  Case changed = c;
  float& v = changed.at(site.tensor)[site.flat(g)];
  v = v != 0 ? -2 * v : 1;  // exact in bf16 too
  for (const BackendInfo* b : sample_backends(c, 3)) {
    const Outputs before = run_backend(*b, c, Executor::host), after = run_backend(*b, changed, Executor::host);
    for (const TensorSpec& s : outputs_of(c, *b)) {
      const Tensor<float>& x = before.at(s.name);
      const Tensor<float>& y = after.at(s.name);
      for (std::int64_t i = 0; i < x.size(); ++i)
        if (bits_of(x[i]) != bits_of(y[i]) && !may_change(g, site, s, i)) {
          PropertyFailure f(fmt::format("{}: changing {} from {} to {} changed {}: {}", b->name, site.describe(),
                                        c.at(site.tensor)[site.flat(g)], v, element(s, i), value_change(x, y, i)),
                            b->name);
          f.related.emplace_back("changed_case", changed);
          return f;
        }
    }
  }
  return std::nullopt;
}

//! All permutations of 0..n-1 but the identity.
std::vector<std::vector<std::int64_t>> permutations(std::int64_t n) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<std::int64_t>> all;
  while (std::next_permutation(p.begin(), p.end())) all.push_back(p);
  return all;
}

//! Entry j of the result is entry perm[j] of `t` (leading axis).
template <class T>
Tensor<T> permuted(const Tensor<T>& t, const std::vector<std::int64_t>& perm) {
  Tensor<T> out(t.dims());
  const std::int64_t block = t.size() / t.dim(0);
  for (std::size_t j = 0; j < perm.size(); ++j)
    std::copy_n(t.data() + perm[j] * block, block, out.data() + static_cast<std::int64_t>(j) * block);
  return out;
}

//! Parameter gradients sum over (b, t), so a permutation reorders their sums: both results are within
//! bound_factor times the reference's per-element bound of the exact value when the backend passes the
//! policy (agrees_with_reference), so they may differ by twice that. Elements with an infinite bound are
//! not compared (the policy does not judge them either).
std::optional<PropertyFailure> batch_permutation(const Case& c) {
  const std::vector<std::vector<std::int64_t>> all = permutations(c.shape.batch);
  const std::int64_t pick = *gen_index(static_cast<std::int64_t>(all.size()));
  const std::vector<std::int64_t>& perm = all[static_cast<std::size_t>(pick)];
  Case moved = c;
  for (auto& [name, t] : moved.tensors)
    if (per_batch(c, name)) t = permuted(t, perm);
  if (describe(c.architecture).segment_positions) moved.segment_pos = permuted(c.segment_pos, perm);
  const std::string how = fmt::format("batch entries permuted to [{}]", fmt::join(perm, ", "));
  const std::vector<TensorSpec> layout = tensor_layout(c);
  const bool has_parameters =
      std::any_of(layout.begin(), layout.end(), [](const TensorSpec& s) { return s.parameter; });
  const ReferenceResult reference = has_parameters ? reference_with_bounds(c, 1) : ReferenceResult{};
  const double factor = 2 * TolerancePolicy{}.bound_factor;
  // Bitwise comparisons: a backend declared nondeterministic (atomics) is not held to them.
  for (const BackendInfo* b : sample_backends(c, 3, /*deterministic_only=*/true)) {
    const Outputs before = run_backend(*b, c, Executor::host), after = run_backend(*b, moved, Executor::host);
    const auto fail = [&](std::string message) {
      PropertyFailure f(fmt::format("{}: {}: {}", b->name, how, message), b->name);
      f.related.emplace_back("permuted_case", moved);
      return f;
    };
    for (const TensorSpec& s : outputs_of(c, *b)) {
      const Tensor<float>& x = before.at(s.name);
      const Tensor<float>& y = after.at(s.name);
      if (!s.parameter) {
        const Tensor<float> expected = permuted(x, perm);
        if (const std::int64_t i = first_difference(expected, y); i >= 0)
          return fail(fmt::format("{} is not the permuted original: {}", element(s, i), value_change(expected, y, i)));
        continue;
      }
      const Tensor<double>& bound = reference.bounds.at(s.name);
      for (std::int64_t i = 0; i < x.size(); ++i) {
        const double diff = std::abs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
        if (!std::isfinite(bound[i]) || !(diff > factor * bound[i])) continue;
        return fail(fmt::format("{} moved by {:.3g} > {} x its bound {:.3g}: {}", element(s, i), diff, factor, bound[i],
                                value_change(x, y, i)));
      }
    }
  }
  return std::nullopt;
}

//! The outputs a NaN at `site` reaches: IEEE propagation through the formulas of recurrences.md as the
//! backends evaluate them (0 * NaN = NaN, so only a selection could stop it; the cases have no resets and
//! no zero decays: nan_reaches_dependents draws the default, long_memory and clip regimes only).
//!   scan, NaN in b_t (channel ch, stored at p): h_t at p; h_{t'>t} and da_{t'>t} in both parts of ch
//!     (a complex product mixes the parts); h_last at p if t = L-1, else both parts; db, dh0 none.
//!   scan, NaN in a_t: h_{t'>=t}, h_last, db_{t'<t} (g_{t'<t} = dh + conj(a_{t'+1}) g_{t'+1}), da_{t'!=t}
//!     (da_t = g_t conj(h_{t-1}) involves neither), dh0 = conj(a_0) g_0; both parts of ch.
//!   gated, NaN in x_t at merged position p: G = the channels of head hg = p / K_in (its gates), c = p mod Wc
//!     (the state channel x_t[p] feeds directly), hc = its head. Forward: y_{t'>=t} of G; y_t at p and
//!     y_{t'>t} of c; h_last of G and of c (only p if t = L-1). Backward: g_{t'<t} of G is NaN (their decay
//!     at t is), so dh0 of G; dzx of G at t' <= t and of c at t; dza of G at every t' (G_t' = g conj(h_{t'-1})
//!     is NaN before and after t, a at t) and of c at t' >= t; hence dx at every t' in block hg, at t' >= t
//!     in block hc, and the direct part at t' <= t in the positions of G; d_a_param of G and c,
//!     d_a_imag_param of G and of c if t < L-1 (dphi of c is NaN only after t); weights and biases of
//!     head hg entirely and column c of head hc. For rglru, c is in G and hc = hg.
//! Output name -> element flags, all false, and setters of activation and state elements of the site's batch.
struct DependentMask {
  DependentMask(const Case& c, const Geometry& g, const Site& site) : g(g), site(site) {
    for (const TensorSpec& s : tensor_layout(c, TensorRole::output))
      mask[s.name].assign(static_cast<std::size_t>(element_count(s.dims)), false);
  }
  void act(const char* name, std::int64_t t, std::int64_t p) {
    mask.at(name)[static_cast<std::size_t>((site.b * g.length + t) * g.width + p)] = true;
  }
  void state(const char* name, std::int64_t p) { mask.at(name)[static_cast<std::size_t>(site.b * g.width + p)] = true; }
  const Geometry& g;
  const Site& site;
  std::map<std::string, std::vector<bool>> mask;
};

std::map<std::string, std::vector<bool>> affine_scan_nan_dependents(DependentMask m) {
  const Geometry& g = m.g;
  const Site& site = m.site;
  const std::int64_t L = g.length, ch = g.channel_of(site.p);
  const std::vector<std::int64_t> both = g.positions(ch);
  if (site.tensor == "b") {
    m.act("h", site.t, site.p);
    for (std::int64_t t = site.t + 1; t < L; ++t)
      for (std::int64_t p : both) m.act("h", t, p), m.act("da", t, p);
    if (site.t == L - 1) m.state("h_last", site.p);
    else
      for (std::int64_t p : both) m.state("h_last", p);
    return std::move(m.mask);
  }
  for (std::int64_t p : both) {
    for (std::int64_t t = 0; t < L; ++t) {
      if (t >= site.t) m.act("h", t, p);
      if (t < site.t) m.act("db", t, p);
      if (t != site.t) m.act("da", t, p);
    }
    m.state("h_last", p);
    m.state("dh0", p);
  }
  return std::move(m.mask);
}

std::map<std::string, std::vector<bool>> gated_layer_nan_dependents(DependentMask m) {
  const Geometry& g = m.g;
  const Site& site = m.site;
  const std::int64_t L = g.length, ch = g.channel_of(site.p);
  const std::int64_t hg = g.head_of_input(site.p), hc = g.head_of_channel(ch);
  const bool in_g = hc == hg;
  for (std::int64_t j = 0; j < g.k_out; ++j) {  // the channels G of head hg
    const std::int64_t cg = hg * g.k_out + j;
    for (std::int64_t p : g.positions(cg)) {
      for (std::int64_t t = 0; t < L; ++t) {
        if (t >= site.t) m.act("y", t, p);
        if (t <= site.t) m.act("dx", t, p);
      }
      m.state("h_last", p);
      m.state("dh0", p);
    }
    m.mask.at("d_a_param")[static_cast<std::size_t>(cg)] = true;
    if (g.complex) m.mask.at("d_a_imag_param")[static_cast<std::size_t>(cg)] = true;
  }
  if (!in_g) {  // the directly fed channel c of another head
    m.act("y", site.t, site.p);
    for (std::int64_t t = site.t + 1; t < L; ++t)
      for (std::int64_t p : g.positions(ch)) m.act("y", t, p);
    if (site.t == L - 1) m.state("h_last", site.p);
    else
      for (std::int64_t p : g.positions(ch)) m.state("h_last", p);
    m.mask.at("d_a_param")[static_cast<std::size_t>(ch)] = true;
    if (site.t < L - 1) m.mask.at("d_a_imag_param")[static_cast<std::size_t>(ch)] = true;
  }
  for (std::int64_t t = 0; t < L; ++t)
    for (std::int64_t p = 0; p < g.width; ++p)
      if (g.head_of_input(p) == hg || (g.head_of_input(p) == hc && t >= site.t)) m.act("dx", t, p);
  const std::int64_t column = ch - hc * g.k_out;
  for (const char* gate : {"input_gate", "a_gate"}) {
    std::vector<bool>& w = m.mask.at(fmt::format("d_{}_w", gate));     // [H, K_in, K_out]
    std::vector<bool>& bias = m.mask.at(fmt::format("d_{}_b", gate));  // [H, K_out]
    for (std::int64_t i = 0; i < g.k_in; ++i)
      for (std::int64_t j = 0; j < g.k_out; ++j) {
        w[static_cast<std::size_t>((hg * g.k_in + i) * g.k_out + j)] = true;
        w[static_cast<std::size_t>((hc * g.k_in + i) * g.k_out + column)] = true;
      }
    for (std::int64_t j = 0; j < g.k_out; ++j) bias[static_cast<std::size_t>(hg * g.k_out + j)] = true;
    bias[static_cast<std::size_t>(hc * g.k_out + column)] = true;
  }
  return std::move(m.mask);
}

std::map<std::string, std::vector<bool>> nan_dependents(const Case& c, const Site& site) {
  const Geometry g(c);
  switch (g.family) {
    case Family::affine_scan: return affine_scan_nan_dependents(DependentMask(c, g, site));
    case Family::gated_layer: return gated_layer_nan_dependents(DependentMask(c, g, site));
  }
  return {};
}

std::optional<PropertyFailure> nan_reaches_dependents(const Case& c) {
  const Geometry g(c);
  std::string tensor = driving_input(g);
  if (g.family == Family::affine_scan && *gen_index(2) == 1) tensor = "a";  // a scan's decays are inputs too
  Site site = draw_site(c, tensor);
  // Without h0, h_{-1} = 0 and a_0 * 0 is NaN in IEEE arithmetic while the reference selects b_0: the spec
  // does not say which, so a NaN in a_0 is only placed where h0 exists.
  if (site.tensor == "a" && site.t == 0 && !c.has("h0")) site.tensor = "b";
  Case poisoned = c;
  poisoned.at(site.tensor)[site.flat(g)] = std::numeric_limits<float>::quiet_NaN();
  const std::map<std::string, std::vector<bool>> expected = nan_dependents(c, site);
  for (const BackendInfo* b : sample_backends(c, 3)) {
    const Outputs clean = run_backend(*b, c, Executor::host), dirty = run_backend(*b, poisoned, Executor::host);
    const auto fail = [&](std::string message) {
      PropertyFailure f(fmt::format("{}: NaN at {}: {}", b->name, site.describe(), message), b->name);
      f.related.emplace_back("nan_case", poisoned);
      return f;
    };
    for (const TensorSpec& s : outputs_of(c, *b)) {
      const Tensor<float>& x = clean.at(s.name);
      const Tensor<float>& y = dirty.at(s.name);
      const std::vector<bool>& nan = expected.at(s.name);
      for (std::int64_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i]))
          return fail(
              fmt::format("the clean run already has {} = {} (no NaN expected in this regime)", element(s, i), x[i]));
        if (nan[static_cast<std::size_t>(i)] && !std::isnan(y[i]))
          return fail(fmt::format("{} depends on it but is {}", element(s, i), y[i]));
        if (!nan[static_cast<std::size_t>(i)] && bits_of(x[i]) != bits_of(y[i]))
          return fail(fmt::format("{} does not depend on it but changed: {}", element(s, i), value_change(x, y, i)));
      }
    }
  }
  return std::nullopt;
}

}  // namespace

const std::vector<BackendProperty>& backend_properties() {
  // The predicates read the architecture and dtype from the case; `make` ignores them.
  const auto fixed = [](FailureOf f) { return [f](Architecture, DType) { return f; }; };
  GeneratorOptions two_or_more;
  two_or_more.min_batch = 2;
  GeneratorOptions no_resets;  // no resets and no zero decays (nan_dependents)
  no_resets.regimes = {Regime::default_, Regime::long_memory, Regime::clip};
  static const std::vector<BackendProperty> properties{
      {"agrees_with_reference",
       "the baseline and 4 random backends pass the default tolerance policy against the reference",
       {},
       40,
       100,
       fixed(agrees_with_reference)},
      {"deterministic",
       "the baseline and 4 random backends give bitwise equal outputs on two runs of one case",
       {},
       60,
       100,
       fixed(deterministic)},
      {"writes_every_output",
       "the baseline and 8 random backends write every output element, touch no guard region and return "
       "exactly the layout's outputs",
       {},
       60,
       100,
       fixed(writes_every_output)},
      {"causal_and_local",
       "changing one element of b (scan) or x (gated) changes no output at an earlier t in the forward, in "
       "another batch entry, or in another channel (scan) or head (gated)",
       {},
       60,
       100,
       fixed(causal_and_local)},
      {"batch_permutation",
       "permuting the batch entries (B >= 2) permutes every per-batch output bitwise; parameter gradients "
       "move by at most 2 x bound_factor x their bound",
       two_or_more, 60, 100, fixed(batch_permutation)},
      {"nan_reaches_dependents",
       "a NaN in b or a (scan) or x (gated) makes exactly its dependent outputs NaN and leaves every other "
       "output bit unchanged (default, long_memory and clip regimes)",
       no_resets, 60, 100, fixed(nan_reaches_dependents)},
  };
  return properties;
}

const BackendProperty& find_property(std::string_view name) {
  std::vector<std::string> known;
  for (const BackendProperty& p : backend_properties()) {
    if (p.name == name) return p;
    known.push_back(p.name);
  }
  throw InputError(fmt::format("unknown property '{}' (expected one of: {})", name, fmt::join(known, ", ")));
}

std::string property_id(const BackendProperty& property, Architecture architecture, DType io) {
  return fmt::format("backend_properties/{}/{}@{}", property.name, to_string(architecture), dtype_token(io));
}

}  // namespace scancheck
