// SPDX-License-Identifier: Apache-2.0
//! @file
//! The options several subcommands share, registered by one function each so that their names, help
//! texts and parsing are the same everywhere: how runs are judged (--policy, --threads) and where they
//! run (--executor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "backends/backend.hpp"
#include "properties/policy.hpp"
#include "reference/reference.hpp"

namespace scancheck::cli {

//! Option checks whose one-line messages name the value (CLI11's range checks print DBL_MAX in full).
extern const CLI::Validator positive_integer;      //!< 1, 2, ...
extern const CLI::Validator non_negative_integer;  //!< 0, 1, ...
extern const CLI::Validator non_negative_seconds;  //!< a finite number >= 0 ("nan" and "inf" never fire)

//! --policy FILE, --strict and --threads N: the tolerance policy, notes as failures, the reference's threads.
struct JudgeOptions {
  std::string policy_file;
  int threads = 0;
  bool strict = false;  //!< --strict: notes fail the run

  void add_to(CLI::App& cmd);
  //! The policy file's policy, or the built-in policy without one (InputError for a bad file).
  TolerancePolicy policy() const;
};

//! --max-reference-seconds S: refuse, before computing anything, a case whose reference would take longer
//! (reference/budget.hpp estimates it); 0, the default, sets no budget.
struct ReferenceBudget {
  double seconds = 0;

  void add_to(CLI::App& cmd);
  //! Throws InputError naming the case and the estimate when it is over the budget.
  void require(const Case&, const ReferenceOptions&) const;
};

//! --executor host | cuda (| auto where `allow_auto`) and --device N: which GPU the cuda executor uses (the
//! N-th visible one; it becomes the only one the process sees).
struct ExecutorOption {
  std::string name = "host";
  int device = -1;  //!< -1: the default device

  void add_to(CLI::App& cmd, bool allow_auto = false);
  //! The executor, its device selected first (InputError: --device with the host executor, no such device).
  Executor executor() const;
  bool automatic() const { return name == "auto"; }
  //! Selects --device, once per process, before anything touches CUDA.
  void select_device() const;
};

//! --shard i/n: this run's part of a run split across machines (disjoint parts that together are the whole).
//! Without the flag, the part a scheduler assigned, so one command line serves every task of a job:
//!   - a Slurm job array: SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT (index (ID - MIN) / STEP);
//!   - a Kubernetes indexed Job: JOB_COMPLETION_INDEX, and SCANCHECK_SHARD_COUNT set to the Job's completions
//!     (Kubernetes does not tell a pod how many completions there are);
//! otherwise the whole run (0/1). `--shard 0/1` opts out inside such a job.
struct ShardOption {
  std::string text;

  struct Choice {
    std::int64_t index = 0, count = 1;
    std::string from;  //!< "--shard", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX" or "" (the whole run)
  };

  void add_to(CLI::App& cmd);
  //! Throws InputError for a malformed --shard or an inconsistent environment, naming the variable.
  Choice choice() const;
};

//! --max-growth F: the largest error growth a diff allows (diff, history check; reports/diff.hpp).
struct GrowthOption {
  double max_growth = 2;

  void add_to(CLI::App& cmd);
};

//! --timings PROFILE.json [--timings-alias FROM=TO]...: a speed profile of the user's own kernels
//! (reports/profile.hpp) joined to a report's backward rows (report, render, history add).
struct TimingsOptions {
  std::string profile;
  std::vector<std::string> aliases;

  void add_to(CLI::App& cmd);
  bool given() const { return !profile.empty(); }
};

//! --worker 'COMMAND' and --plugin PATH.so (both repeatable) and --timeout SECONDS: the foreign backends
//! (foreign-backends.md) a subcommand takes beside the built-ins, loaded into the registry before it runs.
//! --plugin-in-process PATH.so (repeatable) loads a plugin into scancheck itself: no process between them,
//! so no isolation (a crash ends scancheck, a hang hangs it, --timeout does not apply).
struct ForeignOptions {
  std::vector<std::string> workers, plugins, in_process_plugins;
  double timeout = 0;  //!< seconds per run; 0: the default, which scales with the case's size

  void add_to(CLI::App& cmd);
  //! Starts the workers (a plugin runs in a plugin-host worker), loads the in-process plugins and
  //! registers their backends. Throws InputError for one that cannot start, cannot be loaded or breaks the
  //! protocol at hello.
  void load() const;
};

}  // namespace scancheck::cli
