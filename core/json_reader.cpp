// SPDX-License-Identifier: Apache-2.0
#include "core/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace scancheck {

using json = nlohmann::json;

std::string JsonReader::join(std::string_view path, std::string_view key) {
  return path.empty() || path == "$" ? std::string(key) : fmt::format("{}.{}", path, key);
}

void JsonReader::fail(std::string_view path, std::string_view what) const {
  throw InputError(path.empty() || path == "$" ? fmt::format("{}: {}", source_, what)
                                               : fmt::format("{}: {}: {}", source_, path, what));
}

const json& JsonReader::object(const json& j, std::string_view path) const {
  if (!j.is_object()) fail(path, "expected a JSON object");
  return j;
}

const json& JsonReader::field(const json& j, std::string_view path, const char* key) const {
  const auto it = object(j, path).find(key);
  if (it == j.end()) fail(path, fmt::format("missing field '{}'", key));
  return *it;
}

std::string JsonReader::text(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  if (!v.is_string()) fail(join(path, key), "expected a string");
  return v.get<std::string>();
}

std::optional<std::string> JsonReader::optional_text(const json& j, std::string_view path, const char* key) const {
  if (field(j, path, key).is_null()) return std::nullopt;
  return text(j, path, key);
}

double JsonReader::real(const json& v, std::string_view path) const {
  if (v.is_number()) return v.get<double>();
  if (v == "inf") return std::numeric_limits<double>::infinity();
  if (v == "-inf") return -std::numeric_limits<double>::infinity();
  if (v == "nan") return std::numeric_limits<double>::quiet_NaN();
  fail(path, "expected a number");
}

double JsonReader::real(const json& j, std::string_view path, const char* key) const {
  return real(field(j, path, key), join(path, key));
}

std::optional<double> JsonReader::optional_real(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  if (v.is_null()) return std::nullopt;
  return real(v, join(path, key));
}

std::int64_t JsonReader::integer(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  const bool fits =
      v.is_number_integer() &&
      (!v.is_number_unsigned() || v.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()});
  if (!fits) fail(join(path, key), "expected an integer");
  return v.get<std::int64_t>();
}

std::int64_t JsonReader::count(const json& j, std::string_view path, const char* key) const {
  const std::int64_t n = integer(j, path, key);
  if (n < 0) fail(join(path, key), fmt::format("{} is negative", n));
  return n;
}

void JsonReader::only_keys(const json& j, std::string_view path, std::initializer_list<std::string_view> known) const {
  for (const auto& item : j.items())
    if (std::find(known.begin(), known.end(), item.key()) == known.end())
      fail(path, fmt::format("unknown field '{}' (expected one of: {})", item.key(), fmt::join(known, ", ")));
}

std::int64_t JsonReader::positive_integer(const json& j, std::string_view path, const char* key) const {
  const std::int64_t v = integer(j, path, key);
  if (v <= 0) fail(join(path, key), "expected a positive integer");
  return v;
}

std::uint64_t JsonReader::unsigned_integer(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    fail(join(path, key), "expected a non-negative integer");
  return v.get<std::uint64_t>();
}

bool JsonReader::boolean(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  if (!v.is_boolean()) fail(join(path, key), "expected true or false");
  return v.get<bool>();
}

const json& JsonReader::array(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  if (!v.is_array()) fail(join(path, key), "expected an array");
  return v;
}

std::vector<std::string> JsonReader::strings(const json& j, std::string_view path, const char* key) const {
  std::vector<std::string> out;
  for (const json& v : array(j, path, key)) {
    if (!v.is_string()) fail(join(path, key), "expected an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<std::int64_t> JsonReader::positive_integers(const json& j, std::string_view path, const char* key) const {
  const json& v = array(j, path, key);
  const auto positive = [](const json& x) {
    if (x.is_number_unsigned())
      return x.get<std::uint64_t>() > 0 &&
             x.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()};
    return x.is_number_integer() && x.get<std::int64_t>() > 0;
  };
  if (!std::all_of(v.begin(), v.end(), positive)) fail(join(path, key), "expected an array of positive integers");
  return v.get<std::vector<std::int64_t>>();
}

Shape JsonReader::shape(const json& j, std::string_view path, const char* key) const {
  const json& v = field(j, path, key);
  if (!v.is_array() || v.size() != 4)
    fail(join(path, key), "expected [batch, length, width, heads], positive integers");
  const std::vector<std::int64_t> d = positive_integers(j, path, key);
  return {d[0], d[1], d[2], d[3]};
}

json read_json_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read {}", path.string(), what));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), path.string());
}

json parse_json_text(std::string_view text, std::string_view source) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not JSON ({})", source, e.what()));
  }
}

json json_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

}  // namespace scancheck
