// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck check`: one case (a directory, or generated from a seed) against every backend matching a
//! glob, judged by the tolerance policy. `scancheck verify`: outputs produced anywhere (a PyTorch or JAX
//! implementation, another kernel), as a directory of .npy files, judged the same way.
//! Exit codes: 0 every judged run passes, 1 one fails, 2 bad input.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/case_dir.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "core/npy.hpp"
#include "properties/differential.hpp"

namespace scancheck::cli {
namespace {

TolerancePolicy policy_from(const std::string& path) { return path.empty() ? TolerancePolicy{} : TolerancePolicy::load(path); }

//! "B,L,W,H" (H optional, default 1).
Shape parse_shape(const std::string& text) {
  std::vector<std::int64_t> v;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    try {
      std::size_t used = 0;
      v.push_back(std::stoll(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw InputError(fmt::format("--shape '{}': expected B,L,W[,H] as integers", text));
    }
    at = comma + 1;
  }
  if (v.size() != 3 && v.size() != 4) throw InputError(fmt::format("--shape '{}': expected B,L,W[,H]", text));
  return {v[0], v[1], v[2], v.size() == 4 ? v[3] : 1};
}

int report(const Case& c, const std::string& source, const std::vector<BackendResult>& results) {
  int failed = 0;
  std::printf("%s: %s %s io=%s sqrt_gradient=%s\n", source.c_str(), std::string(to_string(c.architecture)).c_str(),
              to_string(c.shape).c_str(), std::string(to_string(c.io_dtype)).c_str(),
              std::string(to_string(c.sqrt_gradient)).c_str());
  for (const BackendResult& r : results) {
    std::printf("%s", format_result(r).c_str());
    failed += r.pass ? 0 : 1;
  }
  std::printf("verdict: %s (%zu checked, %d failed)\n", failed ? "FAIL" : "PASS", results.size(), failed);
  return failed ? 1 : 0;
}

struct CheckOptions {
  std::string case_dir, arch, shape, regime = "default", backends, executor = "host", policy, io_dtype,
      sqrt_gradient = "bounded";
  std::uint64_t seed = 0;
  int threads = 0;
};

//! The matched backends that fit `c` (architecture and io dtype).
std::vector<const BackendInfo*> fitting(const Case& c, const std::vector<const BackendInfo*>& matched) {
  std::vector<const BackendInfo*> out;
  for (const BackendInfo* b : matched)
    if (b->architecture == c.architecture && b->io_dtype == c.io_dtype) out.push_back(b);
  return out;
}

int run_check(const CheckOptions& o) {
  const TolerancePolicy policy = policy_from(o.policy);
  const Executor executor = parse_executor(o.executor);
  const std::vector<const BackendInfo*> matched = match_backends(o.backends);
  // One case per io dtype the matched backends need (a case directory has its own).
  std::vector<std::pair<Case, std::string>> cases;
  if (!o.case_dir.empty()) {
    cases.emplace_back(load_case(o.case_dir), o.case_dir);
  } else {
    if (o.arch.empty() || o.shape.empty())
      throw InputError("check needs --case DIR, or --arch, --shape and --seed");
    CaseRequest r;
    r.architecture = parse_architecture(o.arch);
    r.shape = parse_shape(o.shape);
    r.seed = o.seed;
    r.regime = parse_regime(o.regime);
    r.sqrt_gradient = parse_sqrt_gradient(o.sqrt_gradient);
    for (DType d : {DType::float32, DType::bfloat16}) {
      if (!o.io_dtype.empty() && parse_dtype(o.io_dtype) != d) continue;
      r.io_dtype = d;
      Case c = make_case(r);
      if (!fitting(c, matched).empty())
        cases.emplace_back(std::move(c), fmt::format("seed {} regime {}", r.seed, o.regime));
    }
  }
  int status = 0;
  bool any = false;
  for (const auto& [c, source] : cases) {
    const std::vector<const BackendInfo*> backends = fitting(c, matched);
    if (backends.empty()) continue;
    any = true;
    const ReferenceResult reference = reference_with_bounds(c, o.threads);
    status = std::max(status, report(c, source, check_backends(c, backends, executor, reference, policy)));
  }
  if (!any) throw InputError(fmt::format("no backend matching '{}' runs this case", o.backends));
  return status;
}

int run_verify(const std::string& case_dir, const std::string& candidate_dir, const std::string& policy_path,
               int threads) {
  const TolerancePolicy policy = policy_from(policy_path);
  const Case c = load_case(case_dir);
  if (!std::filesystem::is_directory(candidate_dir))
    throw InputError(fmt::format("{}: no such candidate directory", candidate_dir));
  Outputs candidate;
  for (const TensorSpec& spec : tensor_layout(c.architecture, c.shape, TensorRole::output)) {
    const std::filesystem::path file = std::filesystem::path(candidate_dir) / (spec.name + ".npy");
    if (std::filesystem::exists(file)) candidate.emplace(spec.name, read_npy_float(file, /*allow_rounding=*/true));
  }
  const ReferenceResult reference = reference_with_bounds(c, threads);
  const Outputs baseline = run_backend(baseline_backend(c), c, Executor::host);
  return report(c, case_dir, {judge_outputs(candidate_dir, c, candidate, reference, &baseline, policy)});
}

}  // namespace

void add_check(CLI::App& app, Action& action) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Judge backends on one case against the exact reference");
  cmd->add_option("--case", o->case_dir, "case directory");
  cmd->add_option("--arch", o->arch, "or generate a case: scan | complex_scan | rglru | complex_rglru");
  cmd->add_option("--shape", o->shape, "B,L,W[,H]");
  cmd->add_option("--seed", o->seed, "seed of the generated case");
  cmd->add_option("--regime", o->regime, "default | long_memory | resets | extreme | clip");
  cmd->add_option("--io-dtype", o->io_dtype, "float32 | bfloat16 (default: whichever the backends take)");
  cmd->add_option("--sqrt-gradient", o->sqrt_gradient, "bounded | exact (generated cases)");
  cmd->add_option("--backend", o->backends, "backend name or glob, e.g. 'rglru/fused_*@fp32'")->required();
  cmd->add_option("--executor", o->executor, "host (default) | cuda");
  cmd->add_option("--policy", o->policy, "tolerance policy JSON (default: the built-in policy)");
  cmd->add_option("--threads", o->threads, "reference threads (default: all cores)");
  cmd->callback([&action, o] { action = [o] { return run_check(*o); }; });
}

void add_verify(CLI::App& app, Action& action) {
  struct Options {
    std::string case_dir, candidate, policy;
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("verify", "Judge outputs produced elsewhere against the exact reference");
  cmd->add_option("--case", o->case_dir, "case directory")->required();
  cmd->add_option("--candidate", o->candidate, "directory of output .npy files (float32 or float64)")->required();
  cmd->add_option("--policy", o->policy, "tolerance policy JSON (default: the built-in policy)");
  cmd->add_option("--threads", o->threads, "reference threads (default: all cores)");
  cmd->callback([&action, o] { action = [o] { return run_verify(o->case_dir, o->candidate, o->policy, o->threads); }; });
}

}  // namespace scancheck::cli
