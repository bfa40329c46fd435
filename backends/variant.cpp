// SPDX-License-Identifier: Apache-2.0
#include "backends/variant.hpp"

#include <array>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace scancheck {
namespace {

//! The flags in the order names carry them.
constexpr std::array<std::pair<std::string_view, bool VariantFlags::*>, 4> flag_tokens{{
    {"fused", &VariantFlags::fused},
    {"fused_output", &VariantFlags::fused_output},
    {"fused_write", &VariantFlags::fused_write},
    {"shared_sfu", &VariantFlags::shared_sfu},
}};

//! A positive decimal integer without sign or leading zeros, the whole of `text`.
std::optional<std::int64_t> parse_size(std::string_view text) {
  if (text.empty() || text.front() == '0') return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

//! The schedules with one chunk size C, "<token>chunk{C}": chunk{C}, local_chunk{C}, tree_chunk{C}, ...
struct ChunkSchedule {
  std::string_view token;
  Schedule schedule;  // chunk left 0
};
constexpr std::array<ChunkSchedule, 5> chunk_schedules{{
    {"", {Schedule::Kind::chunked}},
    {"local_", {Schedule::Kind::local}},
    {"tree_", {Schedule::Kind::tree}},
    {"blelloch_", {Schedule::Kind::tree, 0, 0, Schedule::Tree::blelloch}},
    {"tree_prefix_tree_", {Schedule::Kind::tree, 0, 0, Schedule::Tree::kogge_stone, true}},
}};

bool same_kind(const Schedule& a, const Schedule& b) {
  return a.kind == b.kind && a.tree == b.tree && a.tree_prefix == b.tree_prefix;
}

std::optional<Schedule> parse_schedule(std::string_view text) {
  using Kind = Schedule::Kind;
  if (text == "sequential") return Schedule{Kind::sequential, 0, 0};
  for (const ChunkSchedule& k : chunk_schedules) {
    const std::string prefix = fmt::format("{}chunk", k.token);
    if (!text.starts_with(prefix)) continue;
    if (const auto c = parse_size(text.substr(prefix.size()))) {
      Schedule s = k.schedule;
      s.chunk = *c;
      return s;
    }
  }
  constexpr std::string_view group = "grouped_prefix", chunk = "_hierarchical_chunk";
  if (!text.starts_with(group)) return std::nullopt;
  const std::size_t split = text.find(chunk);
  if (split == std::string_view::npos) return std::nullopt;
  const auto g = parse_size(text.substr(group.size(), split - group.size()));
  const auto c = parse_size(text.substr(split + chunk.size()));
  if (!g || !c) return std::nullopt;
  return Schedule{Kind::hierarchical, *c, *g};
}

bool all_of_chars(std::string_view text, bool (*allowed)(char)) {
  if (text.empty()) return false;
  for (char ch : text)
    if (!allowed(ch)) return false;
  return true;
}

bool lower_or_digit(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'); }

}  // namespace

std::vector<std::string> flag_names(const VariantFlags& flags) {
  std::vector<std::string> out;
  for (const auto& [token, flag] : flag_tokens)
    if (flags.*flag) out.emplace_back(token);
  return out;
}

std::string to_string(const Schedule& s) {
  if (s.kind == Schedule::Kind::sequential) return "sequential";
  if (s.kind == Schedule::Kind::hierarchical)
    return fmt::format("grouped_prefix{}_hierarchical_chunk{}", s.group, s.chunk);
  for (const ChunkSchedule& k : chunk_schedules)
    if (same_kind(k.schedule, s)) return fmt::format("{}chunk{}", k.token, s.chunk);
  return "invalid";
}

std::string to_string(const Variant& v) {
  std::string out;
  for (const std::string& token : flag_names(v.flags)) out += token + "_";
  return out + to_string(v.schedule);
}

std::optional<Variant> parse_variant(std::string_view text) {
  // Flags are a prefix in canonical order; each of the 16 subsets names one prefix, at most one of which
  // leaves a schedule behind ("fused_output_chunk16" is not "fused" + "output_chunk16").
  for (unsigned subset = 0; subset < (1u << flag_tokens.size()); ++subset) {
    Variant v{};
    std::string prefix;
    for (std::size_t i = 0; i < flag_tokens.size(); ++i) {
      if (!(subset & (1u << i))) continue;
      v.flags.*flag_tokens[i].second = true;
      prefix += fmt::format("{}_", flag_tokens[i].first);
    }
    if (!text.starts_with(prefix)) continue;
    if (const auto schedule = parse_schedule(text.substr(prefix.size()))) {
      v.schedule = *schedule;
      return v;
    }
  }
  return std::nullopt;
}

std::string to_string(const BackendName& n) { return variant_token(name_without_dtype(n), n.io_dtype); }

std::string name_without_dtype(const BackendName& n) {
  const std::string qualified = n.provider.empty() ? std::string() : n.provider + ":";
  return fmt::format("{}{}/{}", qualified, to_string(n.architecture), n.variant);
}

// The one place a name's "@dtype" is written: after a whole name (to_string) or a variant (run requests).
std::string variant_token(std::string_view variant, DType io_dtype) {
  return fmt::format("{}@{}", variant, dtype_token(io_dtype));
}

BackendName parse_backend_name(std::string_view name) {
  const auto fail = [name](std::string_view why) -> BackendName {
    throw InputError(fmt::format("backend name '{}': {} (expected [provider:]architecture/variant@dtype)", name, why));
  };
  BackendName n;
  std::string_view rest = name;
  if (const std::size_t colon = rest.find(':'); colon != std::string_view::npos) {
    n.provider = std::string(rest.substr(0, colon));
    if (!is_provider_name(n.provider)) return fail("the provider must be [a-z0-9_-]+");
    rest.remove_prefix(colon + 1);
  }
  const std::size_t slash = rest.find('/'), at = rest.rfind('@');
  if (slash == std::string_view::npos) return fail("no '/' after the architecture");
  if (at == std::string_view::npos || at < slash) return fail("no '@dtype' after the variant");
  try {
    n.architecture = parse_architecture(rest.substr(0, slash));
    n.io_dtype = parse_dtype_token(rest.substr(at + 1));
  } catch (const InputError& e) {
    return fail(e.what());
  }
  n.variant = std::string(rest.substr(slash + 1, at - slash - 1));
  if (!is_variant_token(n.variant)) return fail("the variant must be [A-Za-z0-9_.+-]+");
  return n;
}

ProviderVariant parse_provider_variant(std::string_view text) {
  const auto fail = [text](std::string_view why) -> ProviderVariant {
    throw InputError(fmt::format("'{}': {}", text, why));
  };
  if (text.find_first_of("/@") != std::string_view::npos)
    return fail(
        "expected the variant alone, without 'architecture/' and '@dtype' (e.g. fused_chunk16, or "
        "mykernels:triton_chunk64 for a foreign backend)");
  ProviderVariant p;
  const std::size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    p.provider = std::string(text.substr(0, colon));
    if (!is_provider_name(p.provider)) return fail("the provider must be [a-z0-9_-]+");
  }
  p.variant = std::string(colon == std::string_view::npos ? text : text.substr(colon + 1));
  if (!is_variant_token(p.variant)) return fail("the variant must be [A-Za-z0-9_.+-]+");
  return p;
}

std::string_view dtype_token(DType d) { return d == DType::float32 ? "fp32" : "bf16"; }

DType parse_dtype_token(std::string_view token) {
  if (token == "fp32") return DType::float32;
  if (token == "bf16") return DType::bfloat16;
  throw InputError(fmt::format("unknown dtype '{}' (expected one of: fp32, bf16)", token));
}

bool is_provider_name(std::string_view text) {
  return all_of_chars(text, [](char ch) { return lower_or_digit(ch) || ch == '_' || ch == '-'; });
}

bool is_variant_token(std::string_view text) {
  return all_of_chars(text, [](char ch) {
    return lower_or_digit(ch) || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '.' || ch == '+' || ch == '-';
  });
}

BackendName baseline_of(Architecture architecture, DType io_dtype) {
  return {"", architecture, to_string(Variant{Schedule{Schedule::Kind::sequential, 0, 0}, {}}), io_dtype};
}

}  // namespace scancheck
