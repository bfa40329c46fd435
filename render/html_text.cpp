// SPDX-License-Identifier: Apache-2.0
#include "render/html_text.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace scancheck::render::detail {

const std::string_view base_style = R"css(
:root{--pass:#1a7f37;--fail:#d1242f;--ink:#1f2328;--muted:#59636e;--rule:#d1d9e0;--panel:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--ink);font:14px/1.45 system-ui,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1360px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:26px;margin:0 0 12px;font-weight:650}
h1 small{font-weight:400;color:var(--muted);font-size:18px}
.banner{padding:12px 18px;border-radius:6px;color:#fff;font-size:18px;font-weight:600}
.banner.pass{background:var(--pass)}
.banner.fail{background:var(--fail)}
dt{color:var(--muted)}
.note{color:var(--muted);font-size:13px;max-width:1080px;margin:4px 0 10px}
.panels{display:flex;flex-wrap:wrap;gap:14px}
.scroll{overflow-x:auto}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;font-size:12px;color:var(--muted);margin:4px 0 14px}
.swatch{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:6px}
svg{display:block;font:11px system-ui,"DejaVu Sans",sans-serif;fill:var(--ink)}
svg .plot-area{fill:#fff;stroke:#afb8c1}
svg .grid{stroke:#d8dee4;stroke-width:1}
svg .minor{stroke:#f0f2f4;stroke-width:1}
svg .tick{fill:#57606a;font-size:10.5px}
svg .axis-label{fill:#424a53;font-size:12px}
svg .panel-title{font-size:13px;font-weight:600}
svg .roundoff-label{fill:#6e7781;font-size:10.5px}
table{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums}
th,td{padding:2px 10px;border-bottom:1px solid #eaeef2;text-align:right;white-space:nowrap}
th{background:var(--panel);font-weight:600;border-bottom:1px solid var(--rule)}
td.name,th.name{text-align:left}
td.name{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
tr.failed td{background:#ffebe9}
footer{margin-top:40px;color:var(--muted);font-size:12px}
)css";

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
  static constexpr std::array<std::string_view, 10> digits{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = k < 0 ? "⁻" : "";
  for (const char c : std::to_string(k < 0 ? -k : k)) out += digits[static_cast<std::size_t>(c - '0')];
  return out;
}

std::string power_of_ten(int k, int plain_below) {
  if (k >= 0 && k <= plain_below) return fmt::format("{}", static_cast<std::int64_t>(std::pow(10.0, k)));
  return "10" + superscript(k);
}

}  // namespace scancheck::render::detail
