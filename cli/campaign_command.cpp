// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck campaign --shards N --out DIR [Slurm options] -- REPORT ARGS...` (cli/campaign.hpp): writes the
//! job array and the merge job and submits both with sbatch (`--no-submit` only writes them).
//! Exit codes: 0 submitted (or written), 2 bad input or sbatch refused.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/campaign.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "reports/model.hpp"

namespace scancheck::cli {
namespace {

struct Options {
  CampaignOptions campaign;
  std::string out, scancheck, sbatch = "sbatch";
  bool submit = true;
};

//! Runs `argv` (found on PATH) and returns its standard output; InputError with its standard error when it
//! cannot start or fails (sbatch says why it refused a job there).
std::string output_of(const std::vector<std::string>& argv) {
  Finished finished;
  try {
    finished = run_to_end({.argv = argv});
  } catch (const StartError& e) {
    throw InputError(fmt::format("cannot run '{}': {} (is Slurm installed here?)", e.program, e.reason));
  }
  if (!finished.status.success())
    throw InputError(fmt::format("'{}' failed (exit {}): {}", fmt::join(argv, " "), finished.status.shell_code(),
                                 finished.errors + finished.output));
  return finished.output;
}

std::filesystem::path this_executable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw InputError("cannot find this scancheck's path (/proc/self/exe): pass --scancheck PATH");
  return self;
}

//! A new (or empty) campaign directory: an old campaign's shard reports would be merged into the new one,
//! and a directory of other files is not the campaign's to replace.
void require_fresh(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return;
  if (std::filesystem::exists(dir / "campaign.json", ec) || std::filesystem::exists(dir / "shards", ec))
    throw InputError(
        fmt::format("--out '{}' already holds a campaign: choose another directory or remove it", dir.string()));
  if (!std::filesystem::is_directory(dir, ec) || !std::filesystem::is_empty(dir, ec))
    throw InputError(fmt::format("--out '{}' is not a new or empty directory", dir.string()));
}

int run_campaign(const Options& o) {
  CampaignOptions c = o.campaign;  // completed here from the parsed options
  c.label = check_report_arguments(c.report_args, c.shards);
  c.out = std::filesystem::absolute(o.out).lexically_normal();
  c.scancheck = o.scancheck.empty() ? this_executable() : std::filesystem::absolute(o.scancheck);
  require_fresh(c.out);
  const std::filesystem::path shard_job = c.out / "shard.sbatch", merge_job = c.out / "merge.sbatch";
  nlohmann::json record{{"shards", c.shards},
                        {"label", c.label},
                        {"report_args", c.report_args},
                        {"scancheck", c.scancheck.string()},
                        {"created_at", reports::utc_now()},
                        {"report", (c.out / "report").string()}};
  std::error_code ec;
  std::filesystem::create_directories(c.out.parent_path(), ec);
  if (ec) throw InputError(fmt::format("cannot create '{}': {}", c.out.parent_path().string(), ec.message()));
  // All of it or nothing: the scripts name their final paths, the directory appears once complete.
  write_directory_atomically(c.out, [&](const std::filesystem::path& tmp) {
    std::filesystem::create_directory(tmp / "logs");
    write_file(tmp / "shard.sbatch", {shard_job_script(c)});
    write_file(tmp / "merge.sbatch", {merge_job_script(c)});
    write_file(tmp / "campaign.json", {record.dump(2) + "\n"});
  });
  if (!o.submit) {
    std::printf("campaign: %lld shards written to %s (not submitted); submit with\n  %s\n",
                static_cast<long long>(c.shards), c.out.c_str(),
                fmt::format("merge=$({0} --parsable --dependency=afterany:$({0} --parsable {1} | cut -d';' -f1) {2})",
                            o.sbatch, shard_job.string(), merge_job.string())
                    .c_str());
    return 0;
  }
  std::string array;
  try {
    array = parsable_job_id(output_of({o.sbatch, "--parsable", shard_job.string()}));
  } catch (const InputError&) {  // nothing was queued: nothing is left
    std::filesystem::remove_all(c.out);
    throw;
  }
  std::string merge;
  try {
    merge = parsable_job_id(output_of({o.sbatch, "--parsable", "--dependency=afterany:" + array, merge_job.string()}));
  } catch (const InputError& e) {  // the array is queued and runs from the directory: it stays
    throw InputError(
        fmt::format("the shards were submitted as job array {} but the merge job was not ({}); merge "
                    "later with `sbatch {}` or cancel them with `scancel {}`",
                    array, e.what(), merge_job.string(), array));
  }
  record["jobs"] = {{"shards", array}, {"merge", merge}};
  write_file_atomically(c.out / "campaign.json", record.dump(2) + "\n");
  std::printf(
      "campaign: %lld shards as Slurm job array %s, merge job %s after it (afterany)\n"
      "report: %s/report/report.{json,md,html} once job %s ends\n",
      static_cast<long long>(c.shards), array.c_str(), merge.c_str(), c.out.c_str(), merge.c_str());
  return 0;
}

}  // namespace

void add_campaign(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "campaign",
                  "Submit a report split into shards as a Slurm job array, and a merge job after it", run_campaign);
  cmd->add_option("--shards", o->campaign.shards, "number of shards (array tasks)")
      ->required()
      ->check(positive_integer);
  cmd->add_option("--out", o->out, "the campaign directory: job scripts, logs, shard reports, merged report")
      ->required();
  cmd->add_option("--gpus-per-shard", o->campaign.gpus_per_shard, "GPUs each array task requests (--gres=gpu:G)")
      ->check(non_negative_integer);
  cmd->add_option("--partition", o->campaign.partition, "Slurm partition of both jobs");
  cmd->add_option("--account", o->campaign.account, "Slurm account of both jobs");
  cmd->add_option("--time-limit", o->campaign.time_limit,
                  "each shard's time limit, e.g. 02:00:00 (SIGTERM at the "
                  "limit: the shard writes what it finished)");
  cmd->add_option("--sbatch-option", o->campaign.sbatch_options, "a further #SBATCH line for both jobs (repeatable)");
  cmd->add_option("--scancheck", o->scancheck, "the scancheck the jobs run (default: this one)");
  cmd->add_option("--sbatch", o->sbatch, "the sbatch command (default: sbatch on PATH)");
  cmd->add_flag("--no-submit{false}", o->submit, "write the job scripts, do not submit them");
  cmd->add_option("REPORT_ARGS", o->campaign.report_args, "after --: the arguments of `scancheck report`")->required();
  cmd->footer(
      "Example: scancheck campaign --shards 16 --gpus-per-shard 1 --time-limit 04:00:00 --out /scratch/nightly "
      "-- --preset ci --executor cuda --label nightly");
}

}  // namespace scancheck::cli
