// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck gla`: gated linear attention (docs/recurrences.md section 7) on problem directories in fla's
//! layout, ahead of the family's place in the registry, the case format and fuzzing.
//!   `gla reference --case DIR --out OUT`: the exact values (OUT/NAME.npy) and their bounds for the case's
//!   io (OUT/bounds/NAME.npy), tiered unless --precision says otherwise.
//!   `gla verify --case DIR --candidate OUT`: a kernel's outputs judged against them by the rules of
//!   docs/tolerance.md: the bound, the float32 recurrent order as the baseline, and the error distribution
//!   of the correct float32 orders (recurrent, and fla's chunked one at chunks of 16 and 64, with the case's
//!   io) as the ensemble.
//! A problem directory (tests/fixtures/fla_gla holds eight): q, k, v, g, do and optional h0, dht (float32
//! .npy), cu_seqlens (int32), and case.json {"architecture": "gla" | "simple_gla", "scale": null or a number,
//! optional "io_dtype": "float32" (the default) | "bfloat16" (q, k, v, do then bfloat16 values; o, dq,
//! dk, dv, dg stored in bfloat16, ht and dh0 in float32), and provenance "regime", "seed"}. Exit codes: 0 pass,
//! 1 a tensor fails, 2 bad input.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_reader.hpp"
#include "core/npy.hpp"
#include "properties/gla_judgement.hpp"
#include "reference/gla.hpp"

namespace scancheck::cli {
namespace {

namespace fs = std::filesystem;

//! A float32 input as the reference takes it; a NaN or infinity is bad input naming where.
Tensor<double> load_input(const fs::path& file) {
  const Tensor<float> t = read_npy_float(file);
  for (std::int64_t i = 0; i < t.size(); ++i)
    if (!std::isfinite(t[i]))
      throw InputError(fmt::format("{}: not finite at {}", file.string(), index_string(t.dims(), i)));
  return Tensor<double>(t.dims(), std::vector<double>(t.values().begin(), t.values().end()));
}

//! A problem directory: the problem and its io dtype (case.json "io_dtype", float32 when absent).
struct GlaCase {
  GlaProblem problem;
  DType io = DType::float32;
};

//! With bfloat16 io q, k, v and do are bfloat16 values (stored as float32 in the .npy), as a kernel takes
//! them; g, h0 and dht may be any float32 (recurrences.md section 7: fla often keeps gates and states in it).
void require_io_values(const GlaProblem& p, DType io, const fs::path& dir) {
  if (io == DType::float32) return;
  const auto check = [&](const Tensor<double>& t, const char* name) {
    for (std::int64_t i = 0; i < t.size(); ++i)
      if (round_to_bf16(static_cast<float>(t[i])) != t[i])
        throw InputError(fmt::format("{}/{}.npy: {} at {} is not a bfloat16 value (case.json io_dtype bfloat16)",
                                     dir.string(), name, t[i], index_string(t.dims(), i)));
  };
  check(p.q, "q"), check(p.k, "k"), check(p.v, "v"), check(p.d_o, "do");
}

GlaCase load_problem(const fs::path& dir) {
  const fs::path meta = dir / "case.json";
  if (!fs::exists(meta)) throw InputError(meta.string() + ": no such file (a gla problem directory has one)");
  const JsonReader reader(meta.string());
  const nlohmann::json json = read_json_file(meta, "gla problem");
  reader.object(json, "$");
  reader.only_keys(json, "$", {"architecture", "scale", "io_dtype", "regime", "seed"});
  const std::string architecture = reader.text(json, "$", "architecture");
  if (architecture != "gla" && architecture != "simple_gla")
    reader.fail("$.architecture", "expected gla or simple_gla, got '" + architecture + "'");
  GlaCase c;
  if (json.contains("io_dtype")) c.io = parse_dtype(reader.text(json, "$", "io_dtype"));
  GlaProblem& p = c.problem;
  p.gates = architecture == "gla" ? GateForm::vector : GateForm::scalar;
  p.scale = reader.optional_real(json, "$", "scale");
  p.q = load_input(dir / "q.npy");
  p.k = load_input(dir / "k.npy");
  p.v = load_input(dir / "v.npy");
  p.g = load_input(dir / "g.npy");
  p.d_o = load_input(dir / "do.npy");
  if (fs::exists(dir / "h0.npy")) p.h0 = load_input(dir / "h0.npy");
  if (fs::exists(dir / "dht.npy")) p.dht = load_input(dir / "dht.npy");
  if (fs::exists(dir / "cu_seqlens.npy")) {
    const Tensor<std::int32_t> offsets = read_npy_int32(dir / "cu_seqlens.npy");
    p.cu_seqlens.assign(offsets.values().begin(), offsets.values().end());
  }
  gla_sequences(p);  // every shape and offset checked before anything is computed
  require_io_values(p, c.io, dir);
  return c;
}

Precision gla_precision(const std::string& name) {
  const Precision p = parse_precision(name);
  if (p != Precision::tiered && p != Precision::float128 && p != Precision::mpfr50)
    throw InputError("gla: --precision must be tiered, float128 or mpfr50, got '" + name + "'");
  return p;
}

struct GlaReferenceOptions {
  std::string case_dir, out, precision = "tiered";
  std::int64_t chunk = 64;
  int threads = 0;
};

int run_gla_reference(const GlaReferenceOptions& o) {
  const GlaCase c = load_problem(o.case_dir);
  require_output_apart(o.case_dir, o.out, "--out");
  const GlaEvaluation e =
      gla_evaluate(c.problem, gla_precision(o.precision), {.chunk = o.chunk, .io = c.io}, o.threads);
  write_directory_atomically(o.out, [&](const fs::path& tmp) {
    fs::create_directories(tmp / "bounds");
    for (const auto& [name, values] : e.values) write_npy(tmp / (name + ".npy"), values);
    for (const auto& [name, bounds] : e.bounds) write_npy(tmp / "bounds" / (name + ".npy"), bounds);
  });
  std::printf("wrote %s: %s values and %s-io bounds (%lld not certified in double, %zu blocks in float128)\n",
              o.out.c_str(), o.precision.c_str(), std::string(to_string(c.io)).c_str(),
              static_cast<long long>(e.uncertified_elements), e.float128_blocks.size());
  return 0;
}

struct GlaVerifyOptions {
  std::string case_dir, candidate;
  std::int64_t chunk = 64;
  JudgeOptions judge;
};

int run_gla_verify(const GlaVerifyOptions& o) {
  const GlaCase c = load_problem(o.case_dir);
  const GlaProblem& p = c.problem;
  const TolerancePolicy policy = o.judge.policy();
  std::map<std::string, Tensor<float>> got;
  for (const auto& entry : fs::directory_iterator(o.candidate)) {
    if (entry.path().extension() != ".npy") continue;
    const std::string name = entry.path().stem().string();
    if (std::find(std::begin(gla_output_names), std::end(gla_output_names), name) == std::end(gla_output_names))
      throw InputError(fmt::format("{}: not an output of gla (o, ht, dq, dk, dv, dg, dh0)", entry.path().string()));
    got.emplace(name, read_npy_float(entry.path(), /*allow_rounding=*/true));
  }
  if (got.empty()) throw InputError(o.candidate + ": no output .npy files (o, ht, dq, dk, dv, dg, dh0)");
  for (const auto& [name, tensor] : got)  // named by file before anything is computed
    if (tensor.dims() != gla_output_dims(p, name))
      throw InputError(fmt::format("{}/{}.npy is {}, expected {}", o.candidate, name, to_string(tensor.dims()),
                                   to_string(gla_output_dims(p, name))));
  const GlaJudgement j = judge_gla(p, got, policy, {.chunk = o.chunk, .io = c.io}, o.judge.threads);
  std::printf("%-6s %10s %10s %10s %10s  verdict\n", "tensor", "err/bound", "max abs", "ulp p50", "ulp max");
  for (const GlaTensorJudgement& t : j.tensors) {
    const TensorMetrics& m = t.metrics;
    std::printf("%-6s %10.3g %10.3g %10.3g %10.3g  %s\n", m.name.c_str(), m.bound_ratio.value_or(0), m.max_abs,
                m.ulp_p50, m.ulp_max, t.verdict.pass ? "pass" : "FAIL");
    for (const std::string& reason : t.verdict.reasons) std::printf("  %s\n", reason.c_str());
  }
  std::printf("verdict: %s\n", j.pass ? "PASS" : "FAIL");
  return j.pass ? 0 : 1;
}

}  // namespace

void add_gla(CLI::App& app, Action& action) {
  CLI::App* gla = app.add_subcommand(
      "gla", "Gated linear attention (gla, simple_gla) on problem directories in fla's layout: reference, verify");
  gla->require_subcommand(1);
  {
    auto [cmd, o] =
        add_command(*gla, action, "reference", "Exact values and float32 bounds of a gla problem", run_gla_reference);
    cmd->add_option("--case", o->case_dir, "problem directory (q, k, v, g, do .npy; case.json)")->required();
    cmd->add_option("--out", o->out, "output directory: NAME.npy and bounds/NAME.npy (replaced atomically)")
        ->required();
    cmd->add_option("--precision", o->precision, "tiered (default) | float128 | mpfr50");
    cmd->add_option("--chunk", o->chunk, "the longest run of log gates a kernel sums into one (default 64)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--threads", o->threads, "reference threads (default: all cores)")->check(CLI::NonNegativeNumber);
  }
  {
    auto [cmd, o] =
        add_command(*gla, action, "verify", "Judge a kernel's gla outputs against the exact reference", run_gla_verify);
    cmd->add_option("--case", o->case_dir, "problem directory")->required();
    cmd->add_option("--candidate", o->candidate, "directory of output .npy files (o ht dq dk dv dg dh0, any of them)")
        ->required();
    cmd->add_option("--chunk", o->chunk, "the longest run of log gates a kernel sums into one (default 64)")
        ->check(CLI::PositiveNumber);
    o->judge.add_to(*cmd);
  }
}

}  // namespace scancheck::cli
