// SPDX-License-Identifier: Apache-2.0
//! @file
//! Strict reading of the JSON files scancheck takes from outside (case.json, policy files, report.json,
//! finding.json, worker messages): every access names its path, so an error says which field of which
//! file is wrong ("report.json: rows[3].tensors[0].max_abs: expected a number"), and every error is one
//! InputError (exit code 2). Non-finite numbers travel as the strings "inf", "-inf" and "nan"
//! (json_number writes them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/shape.hpp"

namespace scancheck {

class JsonReader {
 public:
  using json = nlohmann::json;

  //! `source` names the document in every message (a path, "policy", "worker 'cmd'").
  explicit JsonReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  [[noreturn]] void fail(std::string_view path, std::string_view what) const;

  const json& object(const json& j, std::string_view path) const;  //!< `j` itself, which must be an object
  //! Fails naming the first key of object `j` not in `known`: a misspelt field is an error, not a default.
  void only_keys(const json& j, std::string_view path, std::initializer_list<std::string_view> known) const;
  const json& field(const json& j, std::string_view path, const char* key) const;
  bool has(const json& j, const char* key) const { return j.is_object() && j.contains(key); }

  std::string text(const json& j, std::string_view path, const char* key) const;
  std::optional<std::string> optional_text(const json& j, std::string_view path, const char* key) const;  //!< null
  double real(const json& v, std::string_view path) const;  //!< a number, "inf", "-inf" or "nan"
  double real(const json& j, std::string_view path, const char* key) const;
  std::optional<double> optional_real(const json& j, std::string_view path, const char* key) const;  //!< null
  std::int64_t integer(const json& j, std::string_view path, const char* key) const;
  std::int64_t positive_integer(const json& j, std::string_view path, const char* key) const;
  std::int64_t count(const json& j, std::string_view path, const char* key) const;  //!< an integer >= 0
  std::uint64_t unsigned_integer(const json& j, std::string_view path, const char* key) const;
  bool boolean(const json& j, std::string_view path, const char* key) const;
  const json& array(const json& j, std::string_view path, const char* key) const;
  std::vector<std::string> strings(const json& j, std::string_view path, const char* key) const;
  std::vector<std::int64_t> positive_integers(const json& j, std::string_view path, const char* key) const;
  //! [batch, length, width, heads], positive integers.
  Shape shape(const json& j, std::string_view path, const char* key = "shape") const;

  //! A name converted by `parse` (which throws InputError for unknown names), the message naming the field.
  template <class Parse>
  auto named(const json& j, std::string_view path, const char* key, Parse parse) const {
    const std::string name = text(j, path, key);
    try {
      return parse(name);
    } catch (const InputError& e) {
      fail(join(path, key), e.what());
    }
  }

  //! "path.key" (or "key" at the root "$").
  static std::string join(std::string_view path, std::string_view key);

 private:
  std::string source_;
};

//! Parses `path` as JSON; InputError "PATH: cannot read WHAT" or "PATH: not JSON (...)".
nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what);
//! JSON text already in memory; InputError "<source>: not JSON (...)".
nlohmann::json parse_json_text(std::string_view text, std::string_view source);

//! A double as JSON: finite numbers as numbers, the others as "inf", "-inf", "nan".
nlohmann::json json_number(double x);
inline nlohmann::json json_number(const std::optional<double>& x) {
  return x ? json_number(*x) : nlohmann::json(nullptr);
}

}  // namespace scancheck
