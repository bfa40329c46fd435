// SPDX-License-Identifier: Apache-2.0
#include "properties/generators.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "core/architectures.hpp"

namespace scancheck {
namespace {

//! The drawn choices behind a request. Every field shrinks towards the value listed first in
//! generators.hpp; to_request maps them to a CaseRequest.
struct Draw {
  std::int64_t batch = 1, length = 1, heads = 1, per_head = 1;
  std::size_t regime = 0;  // index into GeneratorOptions::regimes
  bool drop_h0 = false, drop_dh_last = false, exact_sqrt = false;
  std::uint64_t seed = 0;
};

//! Draws from one rc::Random by successive next() calls (never split: RapidCheck's rule for one state).
class Source {
 public:
  explicit Source(const rc::Random& random) : random_(random) {}
  std::uint64_t bits() { return random_.next(); }
  //! Uniform in [lo, hi] (the modulo bias is below 2^-40 for these ranges).
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(bits() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  //! True with probability num / den.
  bool chance(std::uint64_t num, std::uint64_t den) { return bits() % den < num; }

 private:
  rc::Random random_;
};

std::int64_t channel_factor(Architecture a) { return describe(a).channel_factor(); }

std::size_t draw_regime(Source& s, const std::vector<Regime>& allowed) {
  const auto weight = [](Regime r) { return r == Regime::default_ ? 3u : 2u; };
  std::uint64_t total = 0;
  for (Regime r : allowed) total += weight(r);
  std::uint64_t pick = s.bits() % total;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (pick < weight(allowed[i])) return i;
    pick -= weight(allowed[i]);
  }
  return 0;
}

// ---- a backend's constraints (foreign-backends.md): drawn inside them, shrunk inside them ----

//! State channels per head come in multiples of this, so that W = H c k is a multiple of width_multiple.
std::int64_t per_head_step(std::int64_t heads, std::int64_t c, const BackendConstraints& k) {
  const std::int64_t unit = heads * c;
  return std::lcm(unit, k.width_multiple) / unit;
}

//! The nearest length at or above `length` that `k` allows (min_length, length_multiple), or the largest
//! allowed one at or below `max_length` when that is exceeded.
std::int64_t fitted_length(std::int64_t length, const BackendConstraints& k, std::int64_t max_length) {
  const std::int64_t m = k.length_multiple;
  const std::int64_t up = (std::max(length, k.min_length) + m - 1) / m * m;
  return up <= max_length ? up : std::max(max_length / m * m, m);
}

bool length_allowed(std::int64_t length, const BackendConstraints& k) {
  return length >= k.min_length && length % k.length_multiple == 0;
}

bool heads_allowed(std::int64_t heads, const BackendConstraints& k) {
  return k.heads.empty() || std::find(k.heads.begin(), k.heads.end(), heads) != k.heads.end();
}

// ---- the bucketed shape plan ----

using Buckets = std::vector<Shape>;

std::int64_t elements_of(const Shape& s) { return s.batch * s.length * s.width; }

Shape shape_of(const Draw& d, std::int64_t c, const BackendConstraints& k) {
  return {d.batch, d.length, d.heads * d.per_head * per_head_step(d.heads, c, k) * c, d.heads};
}

//! `d` with the shape `s` of the set.
Draw with_shape(Draw d, const Shape& s, std::int64_t c, const BackendConstraints& k) {
  d.batch = s.batch, d.length = s.length, d.heads = s.heads;
  d.per_head = s.width / (s.heads * c * per_head_step(s.heads, c, k));
  return d;
}

//! One of `buckets` within the size's limits, uniformly; the one with the fewest elements when none is.
const Shape& draw_bucket(Source& s, const Buckets& buckets, const CaseLimits& lim) {
  std::vector<const Shape*> fit;
  for (const Shape& b : buckets)
    if (b.length <= lim.max_length && elements_of(b) <= lim.max_elements) fit.push_back(&b);
  if (fit.empty())
    return *std::min_element(buckets.begin(), buckets.end(),
                             [](const Shape& x, const Shape& y) { return elements_of(x) < elements_of(y); });
  return *fit[static_cast<std::size_t>(s.uniform(0, static_cast<std::int64_t>(fit.size()) - 1))];
}

//! The shapes of `buckets` no longer than `d`'s and with fewer elements, fewest first: every shrink of a
//! bucketed draw's shape stays in the set and strictly lowers its elements, so shrinking ends.
rc::Seq<Draw> bucket_shrinks(const Draw& d, const Buckets& buckets, std::int64_t c, const BackendConstraints& k) {
  const Shape now = shape_of(d, c, k);
  std::vector<Shape> smaller;
  for (const Shape& b : buckets)
    if (b.length <= now.length && elements_of(b) < elements_of(now)) smaller.push_back(b);
  std::stable_sort(smaller.begin(), smaller.end(),
                   [](const Shape& x, const Shape& y) { return elements_of(x) < elements_of(y); });
  return rc::seq::map(rc::seq::fromContainer(std::move(smaller)),
                      [d, c, k](const Shape& b) { return with_shape(d, b, c, k); });
}

//! The options with the constraints applied to the regimes: no resets regime for a backend without
//! resets (nor extreme where resets are segment positions: it resets too), no extreme for exact-only.
GeneratorOptions constrained(GeneratorOptions o, Architecture arch) {
  const BackendConstraints& k = o.constraints;
  const bool exact_only = k.sqrt_gradients == std::vector<SqrtGradient>{SqrtGradient::exact};
  std::erase_if(o.regimes, [&](Regime r) {
    if (!k.resets && (r == Regime::resets || (r == Regime::extreme && describe(arch).segment_positions))) return true;
    // A plain scan's resets are zero decays, and its extreme regime draws negative ones.
    const bool positive = k.positive_decays || k.decays == DecaySpace::log;
    if (positive && !describe(arch).segment_positions && (r == Regime::resets || r == Regime::extreme)) return true;
    return exact_only && r == Regime::extreme;  // float32 cannot evaluate D(q) there
  });
  if (o.regimes.empty()) o.regimes = {Regime::default_};
  if (k.max_batch) o.min_batch = std::min(o.min_batch, *k.max_batch);
  return o;
}

//! B, L, H and k as the file comment describes (the shape plan "any").
void draw_shape(Source& s, const CaseLimits& lim, std::int64_t c, const GeneratorOptions& o, Draw& d) {
  const BackendConstraints& k = o.constraints;
  // L first: the boundary lengths within reach, or any length.
  std::vector<std::int64_t> near;
  for (std::int64_t l : boundary_lengths())
    if (l <= lim.max_length) near.push_back(l);
  d.length = s.chance(3, 4) ? near[static_cast<std::size_t>(s.uniform(0, static_cast<std::int64_t>(near.size()) - 1))]
                            : s.uniform(1, lim.max_length);
  d.length = fitted_length(d.length, k, std::max(lim.max_length, k.min_length));
  d.batch = s.uniform(o.min_batch, std::max(o.min_batch, lim.max_batch));
  // Heads (and below, channels per head) also keep B L W within the element budget where they can.
  const std::int64_t heads_max =
      std::min(lim.max_heads, std::max<std::int64_t>(1, lim.max_elements / (d.batch * d.length * c)));
  d.heads = heads_max >= 2 && s.chance(1, 2) ? s.uniform(2, heads_max) : 1;
  // The size's head limit knows nothing of max_width or width_multiple: fewer heads where W would not fit.
  while (d.heads > 1 && d.heads * c * per_head_step(d.heads, c, k) > lim.max_width) --d.heads;
  if (!k.heads.empty()) {  // the allowed counts that fit the width, else the smallest allowed
    std::vector<std::int64_t> fit;
    for (std::int64_t h : k.heads)
      if (h * c * per_head_step(h, c, k) <= std::max(lim.max_width, c)) fit.push_back(h);
    d.heads = fit.empty() ? *std::min_element(k.heads.begin(), k.heads.end())
                          : fit[static_cast<std::size_t>(s.uniform(0, static_cast<std::int64_t>(fit.size()) - 1))];
  }
  const std::int64_t step = per_head_step(d.heads, c, k);
  std::int64_t k_max = std::max<std::int64_t>(1, lim.max_width / (d.heads * c * step));
  k_max = std::clamp<std::int64_t>(lim.max_elements / (d.batch * d.length * d.heads * c * step), 1, k_max);
  d.per_head = s.uniform(1, k_max);
}

Draw draw(Source& s, int size, Architecture arch, const GeneratorOptions& o, const Buckets& buckets) {
  const BackendConstraints& k = o.constraints;
  CaseLimits lim = limits_for_size(size, arch);
  if (k.max_length) lim.max_length = std::min(lim.max_length, *k.max_length);
  if (k.max_batch) lim.max_batch = std::min(lim.max_batch, *k.max_batch);
  if (k.max_width) lim.max_width = std::min(lim.max_width, *k.max_width);
  const std::int64_t c = channel_factor(arch);
  Draw d;
  if (k.shapes == ShapePlan::bucketed) {
    d = with_shape(d, draw_bucket(s, buckets, lim), c, k);
  } else {
    draw_shape(s, lim, c, o, d);
  }
  d.regime = draw_regime(s, o.regimes);
  d.drop_h0 = s.chance(1, 4) || !k.h0;
  d.drop_dh_last = s.chance(1, 4) || !k.dh_last;
  d.exact_sqrt = describe(arch).sqrt_gradient && s.chance(1, 4);
  if (k.sqrt_gradients.size() == 1) d.exact_sqrt = k.sqrt_gradients.front() == SqrtGradient::exact;
  d.seed = s.bits();
  return d;
}

//! One field's shrinks, each a copy of `d` with that field moved towards its target.
template <class T, class Set>
rc::Seq<Draw> field_shrinks(const Draw& d, T value, T target, Set set) {
  return rc::seq::map(rc::shrink::towards<T>(value, target), [d, set](T v) {
    Draw e = d;
    set(e, v);
    return e;
  });
}

rc::Seq<Draw> flag_shrink(const Draw& d, bool on, bool Draw::*flag) {
  if (!on) return rc::Seq<Draw>();
  Draw e = d;
  e.*flag = false;
  return rc::seq::just(e);
}

//! A bucketed draw's shrinks: its shape to smaller ones of the set, then the regime and the flags.
rc::Seq<Draw> bucketed_shrinks_of(const Draw& d, const Buckets& buckets, std::int64_t c, const BackendConstraints& k) {
  return rc::seq::concat(
      bucket_shrinks(d, buckets, c, k),
      field_shrinks<std::size_t>(d, d.regime, 0, [](Draw& e, std::size_t v) { e.regime = v; }),
      k.h0 ? flag_shrink(d, d.drop_h0, &Draw::drop_h0) : rc::Seq<Draw>(),
      k.dh_last ? flag_shrink(d, d.drop_dh_last, &Draw::drop_dh_last) : rc::Seq<Draw>(),
      k.sqrt_gradients.size() == 1 ? rc::Seq<Draw>() : flag_shrink(d, d.exact_sqrt, &Draw::exact_sqrt));
}

rc::Seq<Draw> shrinks_of(const Draw& d, std::int64_t min_batch, const BackendConstraints& k) {
  const rc::Seq<Draw> heads =
      rc::seq::filter(field_shrinks<std::int64_t>(d, d.heads, 1, [](Draw& e, std::int64_t v) { e.heads = v; }),
                      [k](const Draw& e) { return heads_allowed(e.heads, k); });
  return rc::seq::concat(
      field_shrinks<std::int64_t>(d, d.batch, min_batch, [](Draw& e, std::int64_t v) { e.batch = v; }),
      rc::seq::filter(field_shrinks<std::int64_t>(d, d.length, 1, [](Draw& e, std::int64_t v) { e.length = v; }),
                      [k](const Draw& e) { return length_allowed(e.length, k); }),
      heads, field_shrinks<std::size_t>(d, d.regime, 0, [](Draw& e, std::size_t v) { e.regime = v; }),
      k.h0 ? flag_shrink(d, d.drop_h0, &Draw::drop_h0) : rc::Seq<Draw>(),
      k.dh_last ? flag_shrink(d, d.drop_dh_last, &Draw::drop_dh_last) : rc::Seq<Draw>(),
      field_shrinks<std::int64_t>(d, d.per_head, 1, [](Draw& e, std::int64_t v) { e.per_head = v; }),
      k.sqrt_gradients.size() == 1 ? rc::Seq<Draw>() : flag_shrink(d, d.exact_sqrt, &Draw::exact_sqrt));
}

CaseRequest to_request(const Draw& d, Architecture arch, DType io, const GeneratorOptions& o) {
  const std::vector<Regime>& regimes = o.regimes;
  const std::int64_t c = channel_factor(arch);
  CaseRequest r;
  r.architecture = arch;
  r.shape = {d.batch, d.length, d.heads * d.per_head * per_head_step(d.heads, c, o.constraints) * c, d.heads};
  r.seed = d.seed;
  r.regime = regimes[d.regime];
  r.io_dtype = io;
  // Never exact with extreme: float32 rounds q to 0 there and D(q) = inf (docs/backends/gated.md).
  r.sqrt_gradient = d.exact_sqrt && r.regime != Regime::extreme ? SqrtGradient::exact : SqrtGradient::bounded;
  r.with_h0 = !d.drop_h0;
  r.with_dh_last = !d.drop_dh_last;
  r.decays = o.constraints.decays;
  r.resets_at_start = o.constraints.resets_at_start && describe(arch).segment_positions;
  return r;
}

}  // namespace

const std::vector<std::int64_t>& boundary_lengths() {
  static const std::vector<std::int64_t> lengths = [] {
    std::vector<std::int64_t> l{1, 2};
    for (const Schedule& s : builtin_schedules()) {
      if (s.chunk > 0) l.insert(l.end(), {s.chunk - 1, s.chunk, s.chunk + 1, 2 * s.chunk + 1});
      const std::int64_t span = s.chunk * s.group;  // a hierarchical schedule's group of chunks
      if (span > 0) l.insert(l.end(), {span - 1, span, span + 1});
    }
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    return l;
  }();
  return lengths;
}

const std::vector<std::int64_t>& bucketed_lengths() {
  static const std::vector<std::int64_t> lengths = [] {
    std::vector<std::int64_t> l = boundary_lengths();
    for (std::int64_t p = 4; p <= 2048; p *= 2) l.insert(l.end(), {p - 1, p, p + 1});
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    return l;
  }();
  return lengths;
}

std::vector<Shape> bucketed_shapes(Architecture arch, const BackendConstraints& k, std::int64_t min_batch) {
  const std::int64_t c = channel_factor(arch);
  const CaseLimits top = limits_for_size(100, arch);
  const std::int64_t max_length = std::min(k.max_length.value_or(top.max_length), top.max_length);
  const std::int64_t max_batch = std::max(min_batch, std::min(k.max_batch.value_or(top.max_batch), top.max_batch));
  const std::int64_t max_width = std::min(k.max_width.value_or(top.max_width), top.max_width);
  std::vector<std::int64_t> lengths;
  for (std::int64_t l : bucketed_lengths()) lengths.push_back(fitted_length(l, k, std::max(max_length, k.min_length)));
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());  // fitted lengths stay ascending
  std::vector<std::int64_t> heads = k.heads.empty() ? std::vector<std::int64_t>{1, 2, 3, 4} : k.heads;
  std::sort(heads.begin(), heads.end());
  constexpr std::array<std::int64_t, 5> channels{1, 2, 3, 5, 8};
  const auto unit = [&](std::int64_t h) { return h * c * per_head_step(h, c, k); };  // W per channel per head
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::int64_t batch = std::clamp<std::int64_t>(1 + static_cast<std::int64_t>(i % 3), min_batch, max_batch);
    std::int64_t h = heads[i % heads.size()], per_head = channels[i % channels.size()];
    // Narrowed to fit, as the generators narrow theirs: fewer heads, then channels, then batch entries.
    while (h > heads.front() && unit(h) > max_width) h = *std::prev(std::lower_bound(heads.begin(), heads.end(), h));
    per_head = std::clamp<std::int64_t>(max_width / unit(h), 1, per_head);
    while (per_head > 1 && batch * lengths[i] * unit(h) * per_head > top.max_elements) --per_head;
    while (batch > min_batch && batch * lengths[i] * unit(h) * per_head > top.max_elements) --batch;
    shapes.push_back({batch, lengths[i], unit(h) * per_head, h});
  }
  return shapes;
}

CaseLimits limits_for_size(int size, Architecture arch) {
  const std::int64_t s = std::clamp(size, 0, 100);
  CaseLimits lim{};
  lim.max_length = 2 + 2047 * s * s / 10000;
  lim.max_batch = 1 + std::min<std::int64_t>(2, s / 8);
  lim.max_width = 4 + 60 * s / 100;
  lim.max_heads = std::max<std::int64_t>(1, std::min(1 + s / 10, lim.max_width / channel_factor(arch)));
  lim.max_elements = 512 + 40000 * s / 100;
  return lim;
}

rc::Gen<CaseRequest> gen_case_request(Architecture arch, DType io, const GeneratorOptions& given) {
  if (given.regimes.empty()) throw std::invalid_argument("gen_case_request: no regime allowed");
  const GeneratorOptions options = constrained(given, arch);
  if (options.min_batch < 1) throw std::invalid_argument("gen_case_request: min_batch must be at least 1");
  // Computed once per generator: every case of a fuzzing group draws from the same set.
  auto buckets = std::make_shared<const Buckets>(options.constraints.shapes == ShapePlan::bucketed
                                                     ? bucketed_shapes(arch, options.constraints, options.min_batch)
                                                     : Buckets{});
  return rc::Gen<CaseRequest>([arch, io, options, buckets](const rc::Random& random, int size) {
    Source source(random);
    const std::int64_t min_batch = options.min_batch, c = channel_factor(arch);
    rc::Shrinkable<Draw> drawn = rc::shrinkable::shrinkRecur(
        draw(source, size, arch, options, *buckets), [min_batch, c, buckets, k = options.constraints](const Draw& d) {
          return k.shapes == ShapePlan::bucketed ? bucketed_shrinks_of(d, *buckets, c, k) : shrinks_of(d, min_batch, k);
        });
    return rc::shrinkable::map(std::move(drawn),
                               [arch, io, options](const Draw& d) { return to_request(d, arch, io, options); });
  });
}

rc::Gen<CaseRequest> gen_case_request(DType io, const GeneratorOptions& options) {
  return rc::gen::mapcat(rc::gen::elementOf(all_architectures),
                         [io, options](Architecture a) { return gen_case_request(a, io, options); });
}

rc::Gen<CaseRequest> gen_case_request(const GeneratorOptions& options) {
  return rc::gen::mapcat(rc::gen::element(DType::float32, DType::bfloat16),
                         [options](DType io) { return gen_case_request(io, options); });
}

CaseRequest fit_into(CaseRequest r, const BackendConstraints& k) {
  Shape& s = r.shape;
  const std::int64_t c = channel_factor(r.architecture);
  if (k.max_length) s.length = std::min(s.length, *k.max_length);
  s.length = fitted_length(s.length, k, k.max_length.value_or(std::max(s.length, k.min_length) + k.length_multiple));
  if (k.max_batch) s.batch = std::min(s.batch, *k.max_batch);
  if (!heads_allowed(s.heads, k)) s.heads = *std::min_element(k.heads.begin(), k.heads.end());
  const std::int64_t unit = s.heads * c * per_head_step(s.heads, c, k);
  s.width = std::max(unit, s.width / unit * unit);
  if (k.max_width) s.width = std::max(unit, std::min(s.width, *k.max_width / unit * unit));
  r.with_h0 = r.with_h0 && k.h0;
  r.with_dh_last = r.with_dh_last && k.dh_last;
  r.decays = k.decays;
  r.resets_at_start = k.resets_at_start && describe(r.architecture).segment_positions;
  if (!k.sqrt_gradients.empty() &&
      std::find(k.sqrt_gradients.begin(), k.sqrt_gradients.end(), r.sqrt_gradient) == k.sqrt_gradients.end())
    r.sqrt_gradient = k.sqrt_gradients.front();
  GeneratorOptions only{{r.regime}, 1, k};
  if (constrained(only, r.architecture).regimes.front() != r.regime) r.regime = Regime::default_;
  return r;
}

rc::Gen<std::int64_t> gen_index(std::int64_t n) {
  if (n < 1) throw std::invalid_argument("gen_index: empty range");
  return rc::Gen<std::int64_t>([n](const rc::Random& random, int) {
    const auto value = static_cast<std::int64_t>(rc::Random(random).next() % static_cast<std::uint64_t>(n));
    return rc::shrinkable::shrinkRecur(value, [](std::int64_t v) { return rc::shrink::towards<std::int64_t>(v, 0); });
  });
}

}  // namespace scancheck
