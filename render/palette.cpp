// SPDX-License-Identifier: Apache-2.0
#include "render/palette.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>

#include <fmt/format.h>

#include "backends/variant.hpp"
#include "core/error.hpp"

namespace scancheck::render::detail {

using namespace reports;  // the model rendered here

namespace {

//! The name's parts, or nothing for a name outside the grammar (a hand-edited report): drawn as itself.
std::optional<BackendName> parsed(const std::string& backend) {
  try {
    return parse_backend_name(backend);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

struct Rgb {
  double r, g, b;
};

}  // namespace

bool is_baseline(const std::string& backend) {
  const std::optional<BackendName> n = parsed(backend);
  return n && *n == baseline_of(n->architecture, n->io_dtype);
}

std::string schedule_of(const std::string& backend) {
  const std::optional<BackendName> n = parsed(backend);
  if (!n) return backend;
  if (!n->provider.empty()) return n->provider + ":";
  const std::optional<Variant> v = parse_variant(n->variant);
  return v ? to_string(v->schedule) : n->variant;
}

Palette make_palette(const Report& r) {
  // Tableau-like, red left out: red means failing.
  static constexpr std::array<std::string_view, 9> colours{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                                           "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  Palette p;
  for (const Row& row : r.rows) {
    if (!row.ok()) p.failing.insert(row.backend);
    const std::string schedule = schedule_of(row.backend);
    if (p.schedule_colour.count(schedule)) continue;
    p.schedule_colour[schedule] = colours[p.schedules.size() % colours.size()];
    p.schedules.push_back(schedule);
  }
  return p;
}

double heat_position(double ratio, double bound_factor) {
  if (std::isnan(ratio)) return 1;
  const double factor = std::max(bound_factor, 0.02);
  const double lo = -2, hi = std::log10(factor), mid = std::log10(factor / 4);
  const double e = ratio > 0 ? std::log10(ratio) : lo;
  if (e >= hi) return 1;
  if (e <= lo) return 0;
  // A bound factor of 0.04 or less puts its quarter at or under the floor: one log segment, no amber knee.
  if (mid <= lo) return (e - lo) / (hi - lo);
  return e <= mid ? 0.5 * (e - lo) / (mid - lo) : 0.5 + 0.5 * (e - mid) / (hi - mid);
}

std::string heat_colour(double position) {
  static constexpr std::array<Rgb, 5> stops{
      {{255, 252, 235}, {254, 227, 145}, {254, 166, 60}, {240, 82, 40}, {190, 10, 35}}};
  const double s = std::clamp(position, 0.0, 1.0) * (stops.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(s), stops.size() - 2);
  const double t = s - static_cast<double>(i);
  const auto mix = [&](double a, double b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g),
                     mix(stops[i].b, stops[i + 1].b));
}

}  // namespace scancheck::render::detail
