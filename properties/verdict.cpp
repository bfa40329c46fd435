// SPDX-License-Identifier: Apache-2.0
#include "properties/verdict.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace scancheck {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 5> names{{
    {Verdict::pass, "pass"},
    {Verdict::fail, "fail"},
    {Verdict::error, "error"},
    {Verdict::fault, "fault"},
    {Verdict::timeout, "timeout"},
}};

}  // namespace

std::string_view to_string(Verdict v) {
  for (const auto& [value, name] : names)
    if (value == v) return name;
  return "fail";
}

Verdict parse_verdict(std::string_view name) {
  for (const auto& [value, n] : names)
    if (n == name) return value;
  throw InputError(fmt::format("unknown verdict '{}' (expected one of: pass, fail, error, fault, timeout)", name));
}

Verdict verdict_of(RunFailure f) {
  switch (f) {
    case RunFailure::error: return Verdict::error;
    case RunFailure::fault: return Verdict::fault;
    case RunFailure::timeout: return Verdict::timeout;
  }
  return Verdict::error;
}

}  // namespace scancheck
