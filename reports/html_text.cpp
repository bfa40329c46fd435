// SPDX-License-Identifier: Apache-2.0
#include "reports/html_text.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace scancheck::reports::detail {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double x) { return fmt::format("{:.3g}", x); }
std::string num(const std::optional<double>& x) { return x ? num(*x) : "–"; }
std::string percent(double fraction) { return fmt::format("{:.3g}%", 100 * fraction); }

std::string superscript(int k) {
  static constexpr std::array<std::string_view, 10> digits{
      "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = k < 0 ? "⁻" : "";
  for (const char c : std::to_string(k < 0 ? -k : k)) out += digits[static_cast<std::size_t>(c - '0')];
  return out;
}

std::string power_of_ten(int k, int plain_below) {
  if (k >= 0 && k <= plain_below) return fmt::format("{}", static_cast<std::int64_t>(std::pow(10.0, k)));
  return "10" + superscript(k);
}

}  // namespace scancheck::reports::detail
