// SPDX-License-Identifier: Apache-2.0
#include "cli/campaign.hpp"

#include <cctype>

#include <fmt/format.h>

#include "backends/foreign/shell_words.hpp"
#include "core/error.hpp"

namespace scancheck::cli {
namespace {

using foreign::quoted_word;

std::string quoted(const std::filesystem::path& p) { return quoted_word(p.string()); }

//! The `#SBATCH` lines both jobs share: where they run and whose account pays.
std::string placement(const CampaignOptions& o) {
  std::string s;
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.account.empty()) s += fmt::format("#SBATCH --account={}\n", o.account);
  for (const std::string& option : o.sbatch_options) s += fmt::format("#SBATCH {}\n", option);
  return s;
}

//! A job name Slurm shows in squeue: the label's letters, digits, '-', '_' and '.'.
std::string job_name(const CampaignOptions& o, std::string_view suffix) {
  std::string label = o.label;
  for (char& c : label)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return fmt::format("scancheck-{}{}", label, suffix);
}

}  // namespace

std::string shard_job_script(const CampaignOptions& o) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# scancheck campaign: {} shards of `scancheck report`, one per array task.\n", o.shards);
  s += fmt::format("#SBATCH --job-name={}\n", job_name(o, ""));
  s += fmt::format("#SBATCH --array=0-{}\n", o.shards - 1);
  s += fmt::format("#SBATCH --output={}\n", (o.out / "logs" / "shard-%a.out").string());
  if (o.gpus_per_shard > 0) s += fmt::format("#SBATCH --gres=gpu:{}\n", o.gpus_per_shard);
  if (!o.time_limit.empty()) s += fmt::format("#SBATCH --time={}\n", o.time_limit);
  s += placement(o);
  // exec: the time limit's SIGTERM reaches scancheck itself, which then writes what it finished.
  s += "# The shard is SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT (scancheck reads both).\n";
  s += fmt::format("exec {} report", quoted(o.scancheck));
  for (const std::string& arg : o.report_args) s += fmt::format(" {}", quoted_word(arg));
  s += fmt::format(" --out {}\"/shard-$SLURM_ARRAY_TASK_ID\"\n", quoted(o.out / "shards"));
  return s;
}

std::string merge_job_script(const CampaignOptions& o) {
  std::string s = "#!/bin/bash\n";
  s += "# scancheck campaign: merges the shard reports that exist (afterany: also after failed or preempted\n"
       "# shards, which the merge names in its coverage), then renders report.md and report.html.\n";
  s += fmt::format("#SBATCH --job-name={}\n", job_name(o, "-merge"));
  s += fmt::format("#SBATCH --output={}\n", (o.out / "logs" / "merge.out").string());
  s += placement(o);
  s += "set -euo pipefail\nshopt -s nullglob\n";
  s += fmt::format("reports=({}/shard-*/report.json)\n", quoted(o.out / "shards"));
  s += fmt::format("{} merge \"${{reports[@]}}\" --shards {} --out {}\n", quoted(o.scancheck), o.shards,
                   quoted(o.out / "merged.json"));
  s += fmt::format("{} render {} --out {}\n", quoted(o.scancheck), quoted(o.out / "merged.json"),
                   quoted(o.out / "report"));
  return s;
}

std::string parsable_job_id(const std::string& answer) {
  std::string id;
  for (const char c : answer) {
    if (c == ';' || c == '\n') break;
    id += c;
  }
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(fmt::format("sbatch answered '{}', not a job id", answer.substr(0, 200)));
  return id;
}

}  // namespace scancheck::cli
