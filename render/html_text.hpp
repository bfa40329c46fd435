// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the text of the HTML page and its SVG: appending formatted text, escaping, and how
//! numbers are written (three significant digits, percentages, powers of ten with superscripts).
//! Generic: nothing here knows the report.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace scancheck::render::detail {

//! Appends to `out`: the page is built by appending, and this saves a temporary per fragment.
template <class... Args>
void put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

//! Every text taken from the report goes through here, the page's one escaping function: & < > " ' become
//! entities, so it is text in element content (SVG <title> and <text> too) and in quoted attribute values.
//! The page has no other context: no script, no inline JSON, no URL, no style built from report text.
std::string escape(std::string_view text);

//! The style both pages share (the tolerance report's and the history's): colours, type, the banner, plot
//! frames, tables. Each page's <style> is this, then its own rules.
extern const std::string_view base_style;

//! A number for reading: three significant digits; an absent one is "–".
std::string num(double x);
std::string num(const std::optional<double>& x);
//! A fraction as a percentage, three significant digits.
std::string percent(double fraction);

//! k in superscript digits, with a superscript minus: "⁻⁸".
std::string superscript(int k);
//! "1", "10", "10²", "10⁻⁸"; with `plain_below` the powers up to it are written out ("100", "1000").
std::string power_of_ten(int k, int plain_below = 1);

}  // namespace scancheck::render::detail
