// SPDX-License-Identifier: Apache-2.0
#include "core/case_dir.hpp"

#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/architectures.hpp"
#include "core/error.hpp"
#include "core/json_reader.hpp"
#include "core/npy.hpp"

namespace scancheck {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

[[noreturn]] void fail_dir(const fs::path& dir, std::string_view what) {
  throw InputError(fmt::format("case directory '{}': {}", dir.string(), what));
}
//! case.json, read strictly: every error names the file and the field.
struct CaseJson {
  JsonReader in;
  json j;

  explicit CaseJson(const fs::path& dir) : in((dir / "case.json").string()) {
    if (!fs::exists(dir / "case.json")) fail_dir(dir, "missing case.json");
    j = read_json_file(dir / "case.json", "case.json");
    in.object(j, "$");
  }

  template <class Parse>
  auto named(const char* key, Parse parse) const {
    return in.named(j, "$", key, parse);
  }

  // Heads only shape the gate projections; without gates a case defaults to one block.
  std::int64_t heads(Architecture arch) const {
    if (!in.has(j, "heads")) {
      if (describe(arch).gate_heads) in.fail("$", fmt::format("no \"heads\" (required for {})", to_string(arch)));
      return 1;
    }
    return in.integer(j, "$", "heads");
  }

  Provenance provenance() const {
    Provenance p;
    if (in.has(j, "seed")) p.seed = in.unsigned_integer(j, "$", "seed");
    if (in.has(j, "regime")) p.regime = in.text(j, "$", "regime");
    return p;
  }
};

// B, L and W are not stored in case.json: the main activation's [B, L, W] defines them.
Shape shape_from(const Case& c, const fs::path& dir, std::int64_t heads) {
  const std::string name = main_input(c);
  const Tensor<float>& main = c.at(name);
  if (main.rank() != 3)
    fail_dir(dir, fmt::format("{}.npy has shape {}; expected [B, L, W]", name, to_string(main.dims())));
  return {main.dim(0), main.dim(1), main.dim(2), heads};
}

void read_tensors(Case& c, const fs::path& dir) {
  for (const TensorRole role : {TensorRole::input, TensorRole::cotangent}) {
    for (const TensorSpec& spec : tensor_layout(c, role)) {
      if (c.has(spec.name)) continue;
      const fs::path path = dir / (spec.name + ".npy");
      if (!fs::exists(path)) {
        if (spec.optional) continue;
        fail_dir(dir, fmt::format("missing {}.npy", spec.name));
      }
      if (spec.integer) c.segment_pos = read_npy_int32(path);
      else c.tensors.emplace(spec.name, read_npy_float(path));
    }
  }
}

std::string case_json(const Case& c) {
  nlohmann::ordered_json j;
  j["architecture"] = to_string(c.architecture);
  j["heads"] = c.shape.heads;
  j["io_dtype"] = to_string(c.io_dtype);
  j["sqrt_gradient"] = to_string(c.sqrt_gradient);
  if (c.decays != DecaySpace::linear) j["decays"] = to_string(c.decays);  // absent: the decays a themselves
  if (c.provenance.seed) j["seed"] = *c.provenance.seed;
  if (!c.provenance.regime.empty()) j["regime"] = c.provenance.regime;
  return j.dump(2) + "\n";
}

void write_case_files(const Case& c, const fs::path& dir) {
  write_file(dir / "case.json", {case_json(c)});
  for (const auto& [name, tensor] : c.tensors) write_npy(dir / (name + ".npy"), tensor);
  if (describe(c.architecture).segment_positions) write_npy(dir / "segment_pos.npy", c.segment_pos);
}

// Shape and consistency errors name tensors, not files: add the directory.
template <class Check>
void check_in(const fs::path& dir, Check check) {
  try {
    check();
  } catch (const InputError& e) {
    fail_dir(dir, e.what());
  }
}

}  // namespace

Case load_case(const fs::path& dir) {
  if (!fs::is_directory(dir)) fail_dir(dir, fs::exists(dir) ? "not a directory" : "does not exist");
  const CaseJson j(dir);
  Case c;
  c.architecture = j.named("architecture", parse_architecture);
  c.io_dtype = j.named("io_dtype", parse_dtype);
  c.sqrt_gradient = j.named("sqrt_gradient", parse_sqrt_gradient);
  if (j.in.has(j.j, "decays")) c.decays = j.named("decays", parse_decay_space);
  c.provenance = j.provenance();
  const std::int64_t heads = j.heads(c.architecture);
  check_in(dir, [&] { main_input(c); });  // a decay form the architecture has not is named here

  const std::string main = main_input(c);
  if (!fs::exists(dir / (main + ".npy"))) fail_dir(dir, fmt::format("missing {}.npy", main));
  c.tensors.emplace(main, read_npy_float(dir / (main + ".npy")));
  c.shape = shape_from(c, dir, heads);
  check_in(dir, [&] { validate(c.architecture, c.shape); });
  read_tensors(c, dir);
  check_in(dir, [&] { validate(c); });
  return c;
}

std::map<std::string, Tensor<float>> load_outputs(const Case& c, const fs::path& dir) {
  if (!fs::is_directory(dir)) throw InputError(fmt::format("{}: no such output directory", dir.string()));
  std::map<std::string, Tensor<float>> out;
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) {
    const fs::path file = dir / (spec.name + ".npy");
    if (fs::exists(file)) out.emplace(spec.name, read_npy_float(file, /*allow_rounding=*/true));
  }
  return out;
}

void save_case(const Case& c, const fs::path& dir) {
  validate(c);
  write_directory_atomically(dir, [&c](const fs::path& tmp) { write_case_files(c, tmp); });
}

}  // namespace scancheck
