// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck campaign`: a report split into shards that a Slurm cluster runs as one job array, and a merge
//! job that depends on it. A subcommand rather than scripts under ci/ because it is a user's tool, not
//! CI's: it checks the report's arguments with the report's own parser (and, for the built-in backends,
//! that every shard has a case) before anything is queued, quotes every word it writes into the job
//! scripts, and keeps the names of the shard directories, the merge and the report in one place.
//!
//! What it writes into --out DIR (absolute paths throughout, so any node of a shared file system can run it):
//!   shard.sbatch     the job array, one task per shard: `scancheck report ARGS --out DIR/shards/shard-<id>`;
//!                    the report takes its shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT
//!                    (cli/options.hpp), and a task stopped at its time limit (SIGTERM) writes what it
//!                    finished, marked interrupted;
//!   merge.sbatch     `scancheck merge` of every shard report that exists, `--shards N`, then `render`
//!                    into DIR/report: submitted with --dependency=afterany on the array, so failed,
//!                    preempted and cut-short shards are merged too and named in the merge's coverage;
//!   campaign.json    the shards, the job ids and the commands, for whoever looks later;
//!   logs/            the jobs' standard output and error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace scancheck::cli {

struct CampaignOptions {
  std::int64_t shards = 0;
  std::filesystem::path out;             //!< the campaign directory (made absolute)
  std::filesystem::path scancheck;       //!< the executable the jobs run (default: this one)
  std::vector<std::string> report_args;  //!< the arguments of `scancheck report`, without --out and --shard
  std::string label;                     //!< the report's label (its --label, else its preset)
  std::int64_t gpus_per_shard = 0;       //!< `#SBATCH --gres=gpu:G` on each array task when > 0
  std::string partition, time_limit, account;
  std::vector<std::string> sbatch_options;  //!< further `#SBATCH` lines, e.g. "--qos=long"
};

//! The two job scripts' text.
std::string shard_job_script(const CampaignOptions&);
std::string merge_job_script(const CampaignOptions&);

//! The job id in `sbatch --parsable`'s answer ("123" or "123;cluster"); InputError when there is none.
std::string parsable_job_id(const std::string& answer);

}  // namespace scancheck::cli
