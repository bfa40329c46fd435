// SPDX-License-Identifier: Apache-2.0
#include "cli/options.hpp"

namespace scancheck::cli {

void JudgeOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--policy", policy_file, "tolerance policy JSON (default: the built-in policy)");
  cmd.add_option("--threads", threads, "reference threads (default: all cores)");
}

TolerancePolicy JudgeOptions::policy() const {
  return policy_file.empty() ? TolerancePolicy{} : TolerancePolicy::load(policy_file);
}

void ExecutorOption::add_to(CLI::App& cmd, bool allow_auto) {
  if (allow_auto) {
    name = "auto";
    cmd.add_option("--executor", name, "host | cuda | auto (default: cuda for seed-shapes when a device exists)");
  } else {
    cmd.add_option("--executor", name, "host (default) | cuda");
  }
}

}  // namespace scancheck::cli
