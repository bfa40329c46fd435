// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck check`: one case (a directory, or generated from a seed) against every backend matching one of
//! the names or globs of --backend (repeatable), judged by the tolerance policy. `scancheck verify`: outputs
//! produced anywhere (a PyTorch or JAX implementation, another kernel), as a directory of .npy files, judged
//! the same way.
//! Exit codes: 0 every judged run passes, 1 one fails, 2 bad input.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/case_dir.hpp"
#include "core/case_request.hpp"
#include "core/choices.hpp"
#include "core/error.hpp"
#include "properties/differential.hpp"

namespace scancheck::cli {
namespace {

struct CheckOptions {
  std::string case_dir, arch, shape, regime = "default", io_dtype, sqrt_gradient = "bounded", decays = "linear";
  std::vector<std::string> backends;  //!< names or globs: each must match a backend
  std::uint64_t seed = 0;
  bool no_h0 = false, no_dh_last = false, resets_at_start = false;
  JudgeOptions judge;
  ReferenceBudget budget;
  ExecutorOption executor;
  ForeignOptions foreign;
};

//! Every backend one of `names` matches, once, in the order of the names (a glob's in registry order). A name
//! that matches no backend is bad input, as for one --backend.
std::vector<const BackendInfo*> matched_backends(const std::vector<std::string>& names) {
  std::vector<const BackendInfo*> matched;
  for (const std::string& name : names)
    for (const BackendInfo* b : match_backends(name))
      if (std::find(matched.begin(), matched.end(), b) == matched.end()) matched.push_back(b);
  return matched;
}

//! The matched backends that fit `c` (architecture and io dtype).
std::vector<const BackendInfo*> fitting(const Case& c, const std::vector<const BackendInfo*>& matched) {
  std::vector<const BackendInfo*> out;
  for (const BackendInfo* b : matched)
    if (b->architecture == c.architecture && b->io_dtype == c.io_dtype) out.push_back(b);
  return out;
}

//! "provider numpy: runtime python 3.11.2, numpy 1.24.2; provenance package scancheck, version 0.1.0": what
//! the worker of each foreign provider among `backends` said of itself (hello "runtime" and "provenance"),
//! once per provider (`shown`), so that a verdict names the code it is about.
void print_providers(const std::vector<const BackendInfo*>& backends, std::vector<std::string>& shown) {
  for (const BackendInfo* b : backends) {
    if (b->provider.empty() || std::find(shown.begin(), shown.end(), b->provider) != shown.end()) continue;
    shown.push_back(b->provider);
    std::printf("provider %s: runtime %s; provenance %s\n", b->provider.c_str(),
                b->runtime.empty() ? "not said" : b->runtime.c_str(),
                b->provenance.empty() ? "not said" : to_string(b->provenance).c_str());
  }
}

//! The case directory's case, or one generated case per io dtype the matched backends take.
std::vector<std::pair<Case, std::string>> cases_to_check(const CheckOptions& o,
                                                         const std::vector<const BackendInfo*>& matched) {
  if (!o.case_dir.empty()) return {{load_case(o.case_dir), o.case_dir}};
  if (o.arch.empty() || o.shape.empty()) throw InputError("check needs --case DIR, or --arch, --shape and --seed");
  CaseRequest r;
  r.architecture = parse_architecture(o.arch);
  r.shape = parse_shape(o.shape);
  r.seed = o.seed;
  r.regime = parse_regime(o.regime);
  r.sqrt_gradient = parse_sqrt_gradient(o.sqrt_gradient);
  r.with_h0 = !o.no_h0;
  r.with_dh_last = !o.no_dh_last;
  r.decays = parse_decay_space(o.decays);
  r.resets_at_start = o.resets_at_start;
  std::vector<std::pair<Case, std::string>> cases;
  for (DType d : {DType::float32, DType::bfloat16}) {
    if (!o.io_dtype.empty() && parse_dtype(o.io_dtype) != d) continue;
    r.io_dtype = d;
    Case c = make_case(r);
    if (!fitting(c, matched).empty())
      cases.emplace_back(std::move(c), fmt::format("seed {} regime {}", r.seed, o.regime));
  }
  return cases;
}

int run_check(const CheckOptions& o) {
  o.foreign.load();
  const TolerancePolicy policy = o.judge.policy();
  const Executor executor = o.executor.executor();
  const std::vector<const BackendInfo*> matched = matched_backends(o.backends);
  int status = 0;
  bool any = false;
  std::vector<std::string> providers_shown;
  for (const auto& [c, source] : cases_to_check(o, matched)) {
    const std::vector<const BackendInfo*> backends = fitting(c, matched);
    if (backends.empty()) continue;
    any = true;
    o.budget.require(c, reference_options_with_bounds(o.judge.threads, /*strict=*/true));
    const ReferenceResult reference = reference_with_bounds(c, o.judge.threads, /*strict=*/true);  // notes
    const std::vector<BackendResult> results = check_backends(c, backends, executor, reference, policy, {}, true);
    print_providers(backends, providers_shown);
    std::printf("%s", format_check(c, source, results).c_str());
    for (const BackendResult& r : results) status = r.pass ? status : 1;
  }
  if (!any) throw InputError(fmt::format("no backend matching '{}' runs this case", fmt::join(o.backends, "', '")));
  return status;
}

struct VerifyOptions {
  std::string case_dir, candidate;
  JudgeOptions judge;
  ReferenceBudget budget;
};

int run_verify(const VerifyOptions& o) {
  const TolerancePolicy policy = o.judge.policy();
  const Case c = load_case(o.case_dir);
  o.budget.require(c, reference_options_with_bounds(o.judge.threads, /*strict=*/true));
  const BackendResult r = verify_outputs(o.candidate, c, load_outputs(c, o.candidate), policy, o.judge.threads);
  std::printf("%s", format_check(c, o.case_dir, {r}).c_str());
  return r.pass ? 0 : 1;
}

}  // namespace

void add_check(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "check", "Judge backends on one case against the exact reference", run_check);
  cmd->add_option("--case", o->case_dir, "case directory");
  cmd->add_option("--arch", o->arch, "or generate a case: " + architecture_choices());
  cmd->add_option("--shape", o->shape, "B,L,W[,H]");
  cmd->add_option("--seed", o->seed, "seed of the generated case");
  cmd->add_option("--regime", o->regime, regime_choices());
  cmd->add_option("--io-dtype", o->io_dtype, dtype_choices() + " (default: whichever the backends take)");
  cmd->add_option("--sqrt-gradient", o->sqrt_gradient, sqrt_gradient_choices() + " (generated cases)");
  cmd->add_flag("--no-h0", o->no_h0, "generated cases: without h0");
  cmd->add_flag("--no-dh-last", o->no_dh_last, "generated cases: without dh_last");
  cmd->add_option("--decays", o->decays, decay_space_choices() + " (generated scan cases: a, or log a)");
  cmd->add_flag("--resets-at-start", o->resets_at_start, "generated cases: every batch entry starts with a reset");
  cmd->add_option("--backend", o->backends,
                  "backend name or glob, e.g. 'rglru/fused_*@fp32'; repeat it (or give several) to check them all")
      ->required();
  o->executor.add_to(*cmd);
  o->judge.add_to(*cmd);
  o->budget.add_to(*cmd);
  o->foreign.add_to(*cmd);
}

void add_verify(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "verify", "Judge outputs produced elsewhere against the exact reference", run_verify);
  cmd->add_option("--case", o->case_dir, "case directory")->required();
  cmd->add_option("--candidate", o->candidate, "directory of output .npy files (float32 or float64)")->required();
  o->judge.add_to(*cmd);
  o->budget.add_to(*cmd);
}

}  // namespace scancheck::cli
