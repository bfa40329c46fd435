// SPDX-License-Identifier: Apache-2.0
#include "cli/options.hpp"

#include "backends/foreign/plugin.hpp"
#include "backends/foreign/plugin_host.hpp"
#include "backends/foreign/shell_words.hpp"
#include "backends/foreign/worker.hpp"

namespace scancheck::cli {

void JudgeOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--policy", policy_file, "tolerance policy JSON (default: the built-in policy)");
  cmd.add_option("--threads", threads, "reference threads (default: all cores)");
  cmd.add_flag("--strict", strict, "notes (accuracy a better formulation keeps) fail the run too");
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
      ->check(CLI::NonNegativeNumber);
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
