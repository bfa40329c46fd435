// SPDX-License-Identifier: Apache-2.0
#include "cli/options.hpp"

#include <cmath>

#include "backends/foreign/plugin.hpp"
#include "backends/foreign/plugin_host.hpp"
#include "backends/foreign/shell_words.hpp"
#include "backends/foreign/worker.hpp"
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
        return parsed && std::isfinite(value) && value >= least ? std::string()
                                                                : "'" + text + "' is not " + expected;
      },
      name);
}

}  // namespace

const CLI::Validator positive_integer = number_check("INT>0", true, 1, "a positive integer");
const CLI::Validator non_negative_integer = number_check("INT>=0", true, 0, "an integer >= 0");
const CLI::Validator non_negative_seconds = number_check("SECONDS", false, 0, "a finite number of seconds >= 0");

void JudgeOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--policy", policy_file, "tolerance policy JSON (default: the built-in policy)");
  cmd.add_option("--threads", threads, "reference threads (default: all cores)")->check(non_negative_integer);
  cmd.add_flag("--strict", strict, "notes (accuracy a better formulation keeps) fail the run too");
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

void ExecutorOption::add_to(CLI::App& cmd, bool allow_auto) {
  if (allow_auto) {
    name = "auto";
    cmd.add_option("--executor", name, "host | cuda | auto (default: cuda for seed-shapes when a device exists)");
  } else {
    cmd.add_option("--executor", name, "host (default) | cuda");
  }
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
