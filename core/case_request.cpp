// SPDX-License-Identifier: Apache-2.0
#include "core/case_request.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>

namespace scancheck {

std::string to_string(const CaseRequest& r) {
  const Shape& s = r.shape;
  return fmt::format("--arch {} --shape {},{},{},{} --seed {} --regime {} --io-dtype {} --sqrt-gradient {}{}{}{}{}",
                     to_string(r.architecture), s.batch, s.length, s.width, s.heads, r.seed, to_string(r.regime),
                     to_string(r.io_dtype), to_string(r.sqrt_gradient), r.with_h0 ? "" : " --no-h0",
                     r.with_dh_last ? "" : " --no-dh-last",
                     r.decays == DecaySpace::linear ? "" : fmt::format(" --decays {}", to_string(r.decays)),
                     r.resets_at_start ? " --resets-at-start" : "");
}

nlohmann::json to_json(const CaseRequest& r) {
  const Shape& s = r.shape;
  nlohmann::json j = {{"architecture", to_string(r.architecture)},
                      {"shape", {s.batch, s.length, s.width, s.heads}},
                      {"seed", r.seed},
                      {"regime", to_string(r.regime)},
                      {"io_dtype", to_string(r.io_dtype)},
                      {"sqrt_gradient", to_string(r.sqrt_gradient)},
                      {"h0", r.with_h0},
                      {"dh_last", r.with_dh_last}};
  if (r.decays != DecaySpace::linear) j["decays"] = to_string(r.decays);  // optional: absent means linear
  if (r.resets_at_start) j["resets_at_start"] = true;                     // optional: absent means false
  return j;
}

CaseRequest request_from_json(const JsonReader& in, const nlohmann::json& j, std::string_view path) {
  CaseRequest r;
  r.architecture = in.named(j, path, "architecture", parse_architecture);
  r.shape = in.shape(j, path);
  r.seed = in.unsigned_integer(j, path, "seed");
  r.regime = in.named(j, path, "regime", parse_regime);
  r.io_dtype = in.named(j, path, "io_dtype", parse_dtype);
  r.sqrt_gradient = in.named(j, path, "sqrt_gradient", parse_sqrt_gradient);
  r.with_h0 = in.boolean(j, path, "h0");
  r.with_dh_last = in.boolean(j, path, "dh_last");
  if (j.contains("decays")) r.decays = in.named(j, path, "decays", parse_decay_space);
  if (j.contains("resets_at_start")) r.resets_at_start = in.boolean(j, path, "resets_at_start");
  return r;
}

std::vector<std::int64_t> parse_integer_list(std::string_view text, std::string_view what) {
  std::vector<std::int64_t> values;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw InputError(fmt::format("{} '{}': expected comma-separated integers", what, text));
    values.push_back(v);
    at = comma + 1;
  }
  return values;
}

Shape parse_shape(std::string_view text) {
  const std::vector<std::int64_t> sizes = parse_integer_list(text, "--shape");
  if (sizes.size() != 3 && sizes.size() != 4) throw InputError(fmt::format("--shape '{}': expected B,L,W[,H]", text));
  return {sizes[0], sizes[1], sizes[2], sizes.size() == 4 ? sizes[3] : 1};
}

}  // namespace scancheck
