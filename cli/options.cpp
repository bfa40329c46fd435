// SPDX-License-Identifier: Apache-2.0
#include "cli/options.hpp"
#include "cli/commands.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "backends/foreign/plugin.hpp"
#include "backends/foreign/plugin_host.hpp"
#include "backends/foreign/shell_words.hpp"
#include "backends/foreign/worker.hpp"
#include "core/error.hpp"
#include "reference/budget.hpp"

namespace scancheck::cli {
namespace {

CLI::Validator number_check(const char* name, bool integer, double least, const char* expected) {
  return CLI::Validator(
      [=](std::string& text) {
        double value = 0;
        const bool parsed = integer ? [&] {
          long long n = 0;
          const bool ok = CLI::detail::lexical_cast(text, n);
          value = static_cast<double>(n);
          return ok;
        }() : CLI::detail::lexical_cast(text, value);
        return parsed && std::isfinite(value) && value >= least ? std::string() : "'" + text + "' is not " + expected;
      },
      name);
}

}  // namespace

const CLI::Validator positive_integer = number_check("INT>0", true, 1, "a positive integer");
const CLI::Validator non_negative_integer = number_check("INT>=0", true, 0, "an integer >= 0");
const CLI::Validator non_negative_seconds = number_check("SECONDS", false, 0, "a finite number of seconds >= 0");

namespace {
std::vector<std::string>& remembered_arguments() {
  static std::vector<std::string> arguments;
  return arguments;
}
}  // namespace

void remember_command_line(int argc, char** argv) { remembered_arguments().assign(argv + 1, argv + argc); }
const std::vector<std::string>& command_line() { return remembered_arguments(); }

void JudgeOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--policy", policy_file, "tolerance policy JSON (default: the built-in policy)");
  cmd.add_option("--threads", threads, "reference threads (default: all cores)")->check(non_negative_integer);
  cmd.add_flag("--strict", strict, "notes (accuracy a better formulation keeps) fail the run too");
}

void ShardOption::add_to(CLI::App& cmd) {
  cmd.add_option("--shard", text,
                 "i/n: run the i-th of n disjoint parts (default: from SLURM_ARRAY_TASK_ID/_COUNT or "
                 "JOB_COMPLETION_INDEX with SCANCHECK_SHARD_COUNT, else 0/1)");
}

namespace {

//! An environment variable's value as an integer >= `least`; nullopt when unset.
std::optional<std::int64_t> environment_integer(const char* name, std::int64_t least) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  long long v = 0;
  char tail = 0;
  if (std::sscanf(value, "%lld%c", &v, &tail) != 1 || v < least)
    throw InputError(fmt::format("{}='{}': expected an integer >= {}", name, value, least));
  return v;
}

ShardOption::Choice slurm_array_task() {
  const auto id = environment_integer("SLURM_ARRAY_TASK_ID", 0);
  if (!id) return {};
  const auto count = environment_integer("SLURM_ARRAY_TASK_COUNT", 1);
  if (!count) throw InputError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: pass --shard i/n");
  const std::int64_t first = environment_integer("SLURM_ARRAY_TASK_MIN", 0).value_or(0);
  const std::int64_t step = environment_integer("SLURM_ARRAY_TASK_STEP", 1).value_or(1);
  const std::int64_t index = (*id - first) / step;
  if (*id < first || (*id - first) % step != 0 || index >= *count)
    throw InputError(
        fmt::format("SLURM_ARRAY_TASK_ID={} is not one of the {} tasks from {} in steps of {}: pass "
                    "--shard i/n",
                    *id, *count, first, step));
  return {index, *count, "SLURM_ARRAY_TASK_ID"};
}

ShardOption::Choice kubernetes_completion() {
  const auto index = environment_integer("JOB_COMPLETION_INDEX", 0);
  if (!index) return {};
  const auto count = environment_integer("SCANCHECK_SHARD_COUNT", 1);
  if (!count)
    throw InputError(
        "JOB_COMPLETION_INDEX is set but SCANCHECK_SHARD_COUNT is not: set it to the Job's "
        "completions (or pass --shard i/n)");
  if (*index >= *count)
    throw InputError(fmt::format("JOB_COMPLETION_INDEX={} is not below SCANCHECK_SHARD_COUNT={}", *index, *count));
  return {*index, *count, "JOB_COMPLETION_INDEX"};
}

}  // namespace

ShardOption::Choice ShardOption::choice() const {
  if (!text.empty()) {
    long long i = -1, n = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
      throw InputError(fmt::format("--shard '{}': expected i/n with 0 <= i < n", text));
    return {i, n, "--shard"};
  }
  if (Choice slurm = slurm_array_task(); !slurm.from.empty()) return slurm;
  return kubernetes_completion();
}

void TimingsOptions::add_to(CLI::App& cmd) {
  CLI::Option* timings = cmd.add_option(
      "--timings", profile,
      "a speed profile of your kernels (JSON, schema_version 1) to show beside the accuracy of the backward rows");
  cmd.add_option("--timings-alias", aliases,
                 "FROM=TO (repeatable): read the profile's architecture or provider name FROM as TO, "
                 "e.g. samu=complex_rglru")
      ->needs(timings);
}

void ReferenceBudget::add_to(CLI::App& cmd) {
  cmd.add_option("--max-reference-seconds", seconds,
                 "refuse a case whose reference would take longer than this (estimated before it starts)")
      ->check(non_negative_seconds);
}

void ReferenceBudget::require(const Case& c, const ReferenceOptions& options) const {
  if (seconds > 0) require_reference_within(c, options, seconds);
}

TolerancePolicy JudgeOptions::policy() const {
  TolerancePolicy p = policy_file.empty() ? TolerancePolicy{} : TolerancePolicy::load(policy_file);
  p.strict = p.strict || strict;
  return p;
}

void GrowthOption::add_to(CLI::App& cmd) {
  cmd.add_option("--max-growth", max_growth,
                 "largest allowed growth of a backend x tensor's error, at least 1 (default 2)");
}

void ExecutorOption::add_to(CLI::App& cmd, bool allow_auto) {
  if (allow_auto) {
    name = "auto";
    cmd.add_option("--executor", name, "host | cuda | auto (default: cuda for seed-shapes when a device exists)");
  } else {
    cmd.add_option("--executor", name, "host (default) | cuda");
  }
  cmd.add_option("--device", device, "the cuda executor's GPU: the N-th visible device (default 0)")
      ->check(non_negative_integer);
}

void ExecutorOption::select_device() const {
  static bool selected = false;  // CUDA_VISIBLE_DEVICES narrows once: a second call would narrow it again
  if (device < 0 || selected) return;
  if (name == "host") throw InputError(fmt::format("--device {} applies to the cuda executor, not host", device));
  use_cuda_device(device);
  selected = true;
}

Executor ExecutorOption::executor() const {
  const Executor e = parse_executor(name);
  select_device();
  return e;
}

void ForeignOptions::add_to(CLI::App& cmd) {
  // One value per occurrence, every occurrence kept: `--worker A --worker B NAME` leaves NAME positional.
  cmd.add_option("--worker", workers, "a worker process of foreign backends (repeatable): its command line")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--plugin", plugins, "a C ABI plugin of foreign backends (repeatable): its .so, run in a plugin host")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--plugin-in-process", in_process_plugins,
                 "a C ABI plugin loaded into scancheck itself (repeatable): faster, no isolation from crashes")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--timeout", timeout, "seconds a foreign backend may take per run (default: 60 + 1 per M elements)")
      ->check(non_negative_seconds);
}

void ForeignOptions::load() const {
  foreign::WorkerOptions options;
  if (timeout > 0) options.timeout = timeout;
  foreign::load_workers(workers, registry(), options);
  for (const std::string& plugin : plugins)
    foreign::load_worker(foreign::plugin_host_command(plugin), registry(), options,
                         "--plugin " + foreign::quoted_word(plugin));
  foreign::load_plugins_in_process(in_process_plugins, registry());
}

}  // namespace scancheck::cli
