// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/worker_protocol.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/architectures.hpp"
#include "core/case.hpp"
#include "core/json_reader.hpp"

namespace scancheck::foreign {
namespace {

using nlohmann::json;

json parse_line(std::string_view line, const JsonReader& in) {
  try {
    return json::parse(line);
  } catch (const json::exception&) {
    const std::string shown(line.substr(0, 200));
    in.fail("$", fmt::format("not a JSON object: '{}'", shown));
  }
}

std::vector<Direction> passes_of(const JsonReader& in, const json& j, const std::string& path) {
  if (!in.has(j, "passes")) return {Direction::forward, Direction::backward};
  const std::vector<std::string> names = in.strings(j, path, "passes");
  if (names == std::vector<std::string>{"forward"}) return {Direction::forward};
  if (names == std::vector<std::string>{"forward", "backward"}) return {Direction::forward, Direction::backward};
  in.fail(JsonReader::join(path, "passes"), "expected [\"forward\"] or [\"forward\", \"backward\"]");
}

BackendConstraints constraints_of(const JsonReader& in, const json& j, const std::string& path) {
  BackendConstraints c;
  if (!in.has(j, "constraints")) return c;
  const json& k = in.object(in.field(j, path, "constraints"), path + ".constraints");
  const std::string p = path + ".constraints";
  static const std::set<std::string> known{
      "width_multiple",  "max_width",       "max_length",    "max_batch", "heads",   "min_length", "length_multiple",
      "positive_decays", "resets_at_start", "sqrt_gradient", "h0",        "dh_last", "resets",     "shapes"};
  for (const auto& [key, value] : k.items())
    if (!known.count(key)) in.fail(p, fmt::format("unknown constraint '{}'", key));
  if (in.has(k, "width_multiple")) c.width_multiple = in.positive_integer(k, p, "width_multiple");
  if (in.has(k, "max_width")) c.max_width = in.positive_integer(k, p, "max_width");
  if (in.has(k, "max_length")) c.max_length = in.positive_integer(k, p, "max_length");
  if (in.has(k, "max_batch")) c.max_batch = in.positive_integer(k, p, "max_batch");
  if (in.has(k, "heads")) {
    c.heads = in.positive_integers(k, p, "heads");
    if (c.heads.empty()) in.fail(p + ".heads", "allows no head count");
  }
  if (in.has(k, "sqrt_gradient")) {
    for (const std::string& name : in.strings(k, p, "sqrt_gradient")) {
      try {
        c.sqrt_gradients.push_back(parse_sqrt_gradient(name));
      } catch (const InputError& e) {
        in.fail(p + ".sqrt_gradient", e.what());
      }
    }
    if (c.sqrt_gradients.empty()) in.fail(p + ".sqrt_gradient", "allows no convention");
  }
  if (in.has(k, "h0")) c.h0 = in.boolean(k, p, "h0");
  if (in.has(k, "dh_last")) c.dh_last = in.boolean(k, p, "dh_last");
  if (in.has(k, "resets")) c.resets = in.boolean(k, p, "resets");
  if (in.has(k, "min_length")) c.min_length = in.positive_integer(k, p, "min_length");
  if (in.has(k, "length_multiple")) c.length_multiple = in.positive_integer(k, p, "length_multiple");
  if (in.has(k, "positive_decays")) c.positive_decays = in.boolean(k, p, "positive_decays");
  if (in.has(k, "resets_at_start")) c.resets_at_start = in.boolean(k, p, "resets_at_start");
  if (in.has(k, "shapes")) c.shapes = in.named(k, p, "shapes", parse_shape_plan);
  if (c.resets_at_start && !c.resets) in.fail(p, "resets_at_start asks for resets, and resets is false");
  if (c.max_length && c.max_length < c.min_length)
    in.fail(p, fmt::format("max_length {} is below min_length {}", *c.max_length, c.min_length));
  if (c.max_length && (c.min_length + c.length_multiple - 1) / c.length_multiple * c.length_multiple > *c.max_length)
    in.fail(p, "no length within min_length and max_length is a multiple of length_multiple");
  return c;
}

//! "decays" (optional): "log" for a plain scan whose kernel takes log a; only architectures with decays.
DecaySpace decay_space_of(const JsonReader& in, const json& j, const std::string& path, Architecture architecture) {
  const DecaySpace form = in.named(j, path, "decays", parse_decay_space);
  if (form != DecaySpace::linear && !describe(architecture).log_decays)
    in.fail(JsonReader::join(path, "decays"),
            fmt::format("{} has no decays a kernel can take in log space", to_string(architecture)));
  return form;
}

//! "omits" (optional): gradients of the architecture the backend does not compute, judged by no one.
std::vector<std::string> omitted_gradients(const JsonReader& in, const json& j, const std::string& path,
                                           Architecture architecture, const std::vector<Direction>& passes,
                                           DecaySpace decays) {
  if (!in.has(j, "omits")) return {};
  std::vector<std::string> names = in.strings(j, path, "omits");
  const std::vector<TensorSpec> outputs = tensor_layout(architecture, Shape{1, 1, 2, 1}, TensorRole::output, decays);
  for (const std::string& name : names) {
    const auto it = std::find_if(outputs.begin(), outputs.end(), [&](const TensorSpec& s) { return s.name == name; });
    if (it == outputs.end() || it->direction != Direction::backward)
      in.fail(JsonReader::join(path, "omits"),
              fmt::format("'{}' is not a gradient of {}", name, to_string(architecture)));
  }
  if (!names.empty() && passes.size() == 1)
    in.fail(JsonReader::join(path, "omits"), "a forward-only backend computes no gradient to omit");
  return names;
}

//! "provenance" (optional, protocol 1): where the kernels' code comes from. Strict like "constraints": a
//! misspelt field is an error, not silently nothing.
BackendProvenance provenance_of(const JsonReader& in, const json& j) {
  BackendProvenance p;
  if (!in.has(j, "provenance")) return p;
  const json& k = in.object(in.field(j, "$", "provenance"), "provenance");
  in.only_keys(k, "provenance", {"package", "version", "commit"});
  for (const auto& [key, field] : {std::pair{"package", &p.package}, {"version", &p.version}, {"commit", &p.commit}})
    if (in.has(k, key)) *field = in.text(k, "provenance", key);
  return p;
}

DeclaredBackend declared_backend(const JsonReader& in, const json& j, const std::string& path) {
  DeclaredBackend b;
  b.variant = in.text(j, path, "variant");
  if (!is_variant_token(b.variant)) in.fail(path + ".variant", "must be [A-Za-z0-9_.+-]+");
  b.architecture = in.named(j, path, "architecture", parse_architecture);
  b.io_dtype = in.named(j, path, "io_dtype", parse_dtype);
  b.passes = passes_of(in, j, path);
  if (in.has(j, "deterministic")) b.deterministic = in.boolean(j, path, "deterministic");
  b.constraints = constraints_of(in, j, path);
  if (in.has(j, "decays")) b.constraints.decays = decay_space_of(in, j, path, b.architecture);
  b.omits = omitted_gradients(in, j, path, b.architecture, b.passes, b.constraints.decays);
  return b;
}

}  // namespace

std::string DeclaredBackend::token() const { return variant_token(variant, io_dtype); }

BackendInfo DeclaredBackend::info(const std::string& provider, const std::string& loaded_by) const {
  BackendInfo b;
  b.provider = provider;
  b.architecture = architecture;
  b.variant = variant;
  b.io_dtype = io_dtype;
  b.passes = passes;
  b.deterministic = deterministic;
  b.omits = omits;
  b.constraints = constraints;
  b.loaded_by = loaded_by;
  return b;
}

void require_new_provider(const BackendRegistry& registry, const std::string& provider, const std::string& loaded_by) {
  const std::vector<std::string> taken = registry.providers();
  if (std::find(taken.begin(), taken.end(), provider) != taken.end())
    throw InputError(
        fmt::format("{} declares provider '{}', which another worker or plugin already has", loaded_by, provider));
}

std::string hello_request() { return json{{"op", "hello"}, {"protocol", protocol_version}}.dump(); }

std::string run_request(std::int64_t id, const std::string& backend, const std::filesystem::path& case_dir,
                        const std::filesystem::path& out) {
  return json{{"op", "run"}, {"id", id}, {"backend", backend}, {"case", case_dir.string()}, {"out", out.string()}}
      .dump();
}

std::string bye_request() { return json{{"op", "bye"}}.dump(); }

HelloAnswer parse_hello_answer(std::string_view line, const std::string& source) {
  const JsonReader in(source + ": hello");
  const json j = parse_line(line, in);
  in.object(j, "$");
  const std::int64_t protocol = in.integer(j, "$", "protocol");
  if (protocol != protocol_version)
    in.fail("protocol",
            fmt::format("protocol version {} is not one scancheck speaks (it speaks {})", protocol, protocol_version));
  HelloAnswer hello;
  hello.provider = in.text(j, "$", "provider");
  if (!is_provider_name(hello.provider)) in.fail("provider", fmt::format("'{}' is not [a-z0-9_-]+", hello.provider));
  if (in.has(j, "runtime")) hello.runtime = in.text(j, "$", "runtime");
  hello.provenance = provenance_of(in, j);
  const json& backends = in.array(j, "$", "backends");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < backends.size(); ++i) {
    const std::string path = fmt::format("backends[{}]", i);
    DeclaredBackend b = declared_backend(in, backends[i], path);
    const std::string name = to_string(BackendName{hello.provider, b.architecture, b.variant, b.io_dtype});
    if (!seen.insert(name).second) in.fail(path, fmt::format("{} is declared twice", name));
    hello.backends.push_back(std::move(b));
  }
  if (hello.backends.empty()) in.fail("backends", "declares no backend");
  return hello;
}

RunAnswer parse_run_answer(std::string_view line, std::int64_t expected_id) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception&) {
    throw ProtocolError(fmt::format("answered '{}', not a JSON object", line.substr(0, 200)));
  }
  const auto fail = [](std::string_view why) -> RunAnswer { throw ProtocolError(std::string(why)); };
  if (!j.is_object()) return fail(fmt::format("answered {}, not a JSON object", j.dump().substr(0, 200)));
  RunAnswer a;
  if (!j.contains("id") || !j["id"].is_number_integer()) return fail("a run answer without an integer \"id\"");
  a.id = j["id"].get<std::int64_t>();
  if (a.id != expected_id) return fail(fmt::format("answered id {} to run {}", a.id, expected_id));
  if (!j.contains("ok") || !j["ok"].is_boolean()) return fail("a run answer without \"ok\": true or false");
  a.ok = j["ok"].get<bool>();
  if (!a.ok) {
    a.error = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>() : "no message";
    return a;
  }
  if (j.contains("device_ms")) {
    const json& ms = j["device_ms"];
    if (!ms.is_object()) return fail("\"device_ms\" is not an object");
    for (const auto& [key, value] : ms.items()) {
      if (!value.is_number() || value.get<double>() < 0) return fail("\"device_ms\" values must be numbers >= 0");
      if (key == "forward") a.forward_ms = value.get<double>();
      else if (key == "backward") a.backward_ms = value.get<double>();
    }
  }
  return a;
}

}  // namespace scancheck::foreign
