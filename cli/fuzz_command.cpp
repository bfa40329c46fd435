// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck fuzz`: property runs over random cases (properties/fuzz.hpp) with a progress bar on a
//! terminal and plain lines otherwise. Ctrl-C stops after the current case and keeps every finding.
//! `--devices` runs one shard per GPU, as child processes.
//! Exit codes: 0 no finding, 1 findings, 2 bad input, 130 interrupted without findings.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "core/case_request.hpp"
#include "core/choices.hpp"
#include "core/error.hpp"
#include "core/process.hpp"
#include "properties/differential.hpp"
#include "properties/fuzz.hpp"

namespace scancheck::cli {
namespace {

//! "90", "90s", "5m", "2h" -> seconds.
double parse_duration(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    const std::string unit = text.substr(used);
    const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
    if (scale > 0 && value > 0) return value * scale;
  } catch (const std::exception&) {
  }
  throw InputError(fmt::format("--time '{}': expected a positive duration such as 90s, 5m or 2h", text));
}

struct Options {
  std::string backends, time, findings = "findings";
  ShardOption shard;
  std::string devices;  //!< --devices all | 0,2,...: one shard per GPU
  std::vector<std::string> regimes;
  std::int64_t cases = 0;
  std::uint64_t seed = 1;
  bool keep_going = false;
  JudgeOptions judge;
  ExecutorOption executor;
  ForeignOptions foreign;
};

//! "50 in each of 2 groups", "29 to 50 in each of 3 groups" (groups whose every backend failed stop early),
//! "1 group": the cases each group of architecture, io dtype and constraints ran.
std::string per_group(const FuzzProgress& p) {
  if (p.groups <= 1) return fmt::format("{} group", p.groups);
  const std::string each = p.fewest == p.most ? std::to_string(p.most) : fmt::format("{} to {}", p.fewest, p.most);
  return fmt::format("{} in each of {} groups", each, p.groups);
}

//! Backends with a finding, and with --keep-going the failed runs they had in all.
std::string failures(const FuzzOptions& f, const FuzzProgress& p) {
  if (!f.keep_going) return fmt::format("{} failures", p.findings.size());
  std::int64_t runs = 0;
  for (const BackendTally& t : p.tallies) runs += t.failed;
  return fmt::format("{} failing backends, {} failed runs", p.findings.size(), runs);
}

//! "cases 12/100 (6 in each of 2 groups) | 340 backend runs | 1.20 cases/s | 0 failures | ETA 73s"
std::string progress_line(const FuzzOptions& f, const FuzzProgress& p) {
  const double rate = p.elapsed > 0 ? static_cast<double>(p.cases) / p.elapsed : 0;
  std::string eta = "-";
  if (f.cases && rate > 0) eta = fmt::format("{:.0f}s", static_cast<double>(p.planned - p.cases) / rate);
  else if (f.seconds) eta = fmt::format("{:.0f}s", std::max(0.0, *f.seconds - p.elapsed));
  const std::string total = f.cases ? fmt::format("/{}", p.planned) : "";
  return fmt::format("cases {}{} ({}) | {} backend runs | {:.2f} cases/s | {} | ETA {}", p.cases, total, per_group(p),
                     p.checks, rate, failures(f, p), eta);
}

//! --keep-going: "fuzz: numpy:rglru/dh_last_ignored@fp32 failed 37 of 50 cases (74.0%)" per backend. Not
//! indented and before the FAIL blocks, so that readers of those blocks (python/src/scancheck/checking.py)
//! see them unchanged.
void print_failure_rates(const FuzzProgress& p) {
  for (const BackendTally& t : p.tallies) {
    const double percent = t.judged > 0 ? 100.0 * static_cast<double>(t.failed) / static_cast<double>(t.judged) : 0;
    std::printf("fuzz: %s failed %lld of %lld cases (%.1f%%)\n", t.backend.c_str(), static_cast<long long>(t.failed),
                static_cast<long long>(t.judged), percent);
  }
}

//! The GPUs of --devices: "all" (every visible one) or a list of ordinals.
std::vector<int> devices_of(const std::string& text) {
  const int count = cuda_device_count();
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < count; ++d) devices.push_back(d);
    if (devices.empty()) throw InputError("--devices all: no CUDA device is visible here");
    return devices;
  }
  for (const std::int64_t d : parse_integer_list(text, "--devices")) {
    if (d < 0 || d >= count)
      throw InputError(fmt::format("--devices {}: device {} is not one of the {} visible here", text, d, count));
    devices.push_back(static_cast<int>(d));
  }
  return devices;
}

//! This command's arguments for the shard on `device`: --devices gone, --device and --shard added.
std::vector<std::string> shard_arguments(int device, std::size_t index, std::size_t count) {
  std::vector<std::string> args{"/proc/self/exe"};
  const std::vector<std::string>& mine = command_line();
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (mine[i] == "--devices") ++i;  // and its value
    else if (!mine[i].starts_with("--devices=")) args.push_back(mine[i]);
  }
  for (const std::string& a :
       {std::string("--device"), std::to_string(device), std::string("--shard"), fmt::format("{}/{}", index, count)})
    args.push_back(a);
  return args;
}

//! One shard of `fuzz --devices`.
struct Shard {
  Process process;
  int device;
};

//! In scancheck's process group, so that a Ctrl-C at the terminal reaches the shards as well.
Shard start_shard(int device, std::size_t index, std::size_t count) {
  try {
    return {Process({.argv = shard_arguments(device, index, count)}), device};
  } catch (const StartError& e) {
    throw InputError(fmt::format("cannot start a fuzz shard: {}", e.reason));
  }
}

//! Bad input outranks failures, failures outrank an interruption.
int worse_exit(int a, int b) {
  const auto rank = [](int c) { return c == 2 ? 4 : c == 1 ? 3 : c == 130 ? 2 : c == 0 ? 0 : 1; };
  return rank(b) > rank(a) ? b : a;
}

//! Waits for every shard, passing a signal here on to each (SIGTERM: it stops after its current case).
//! Returns the worst exit code.
int wait_for_shards(std::vector<Shard> shards) {
  int worst = 0;
  bool passed_on = false;
  while (!shards.empty()) {
    if (stop_on_interrupt().load() && !passed_on) {
      for (Shard& s : shards) s.process.signal(SIGTERM);
      passed_on = true;
    }
    const auto ended =
        std::find_if(shards.begin(), shards.end(), [](Shard& s) { return s.process.poll().has_value(); });
    if (ended == shards.end()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const int code = ended->process.poll()->shell_code();
    if (code != 0) std::printf("fuzz: the shard on device %d ended with exit code %d\n", ended->device, code);
    worst = worse_exit(worst, code);
    shards.erase(ended);
  }
  return worst;
}

//! `fuzz --devices`: one shard per GPU, each a copy of this command on its own device, all saving into the
//! one findings directory (the shards draw disjoint seed streams, so their findings never collide). A
//! signal here is passed on to every shard, which stops after its current case. Exit: the worst shard's.
int fuzz_on_devices(const Options& o) {
  if (o.executor.name != "cuda") throw InputError("--devices needs --executor cuda");
  if (!o.shard.text.empty() || o.executor.device >= 0)
    throw InputError("--devices chooses each shard's --device and --shard itself: drop those");
  const std::vector<int> devices = devices_of(o.devices);
  std::vector<Shard> shards;
  for (std::size_t i = 0; i < devices.size(); ++i) shards.push_back(start_shard(devices[i], i, devices.size()));
  std::printf("fuzz: %zu shards, one per device (%s), findings in %s\n", devices.size(),
              fmt::format("{}", fmt::join(devices, ", ")).c_str(), o.findings.c_str());
  return wait_for_shards(std::move(shards));
}

int run_fuzz(const Options& o) {
  if (!o.devices.empty()) return fuzz_on_devices(o);
  o.foreign.load();
  FuzzOptions f;
  f.backends = match_backends(o.backends);
  f.seed = o.seed;
  const ShardOption::Choice shard = o.shard.choice();
  f.shard = shard.index;
  f.shards = shard.count;
  if (o.cases < 0) throw InputError("--cases must be positive");
  if (o.cases > 0) f.cases = o.cases;
  if (!o.time.empty()) f.seconds = parse_duration(o.time);
  if (!f.cases && !f.seconds) f.cases = 100;
  f.keep_going = o.keep_going;
  f.executor = o.executor.executor();
  f.policy = o.judge.policy();
  f.reference_threads = o.judge.threads;
  f.findings = o.findings;
  if (!o.regimes.empty()) {
    f.regimes.clear();
    for (const std::string& name : o.regimes) f.regimes.push_back(parse_regime(name));
  }
  f.stop = &stop_on_interrupt();

  FuzzProgress p;
  {
    ProgressLine progress;
    p = fuzz(f,
             [&](const FuzzProgress& now) { progress.show(progress_line(f, now), now.elapsed, now.cases % 50 == 0); });
  }
  const std::string shard_text =
      fmt::format("{}/{}{}", shard.index, shard.count,
                  shard.from.empty() || shard.from == "--shard" ? "" : " (" + shard.from + ")");
  std::printf("fuzz: %lld cases (%s), %lld backend runs in %.1f s, shard %s, seed %llu%s\n",
              static_cast<long long>(p.cases), per_group(p).c_str(), static_cast<long long>(p.checks), p.elapsed,
              shard_text.c_str(), static_cast<unsigned long long>(o.seed), p.interrupted ? " (interrupted)" : "");
  if (p.cases > 0 && p.elapsed > 0)
    std::printf("fuzz: %.2f cases/s, %.0f%% of the time in the reference (%s)\n",
                static_cast<double>(p.cases) / p.elapsed, 100 * p.reference_seconds / p.elapsed,
                std::string(to_string(f.reference_precision)).c_str());
  if (f.keep_going) print_failure_rates(p);
  for (std::size_t i = 0; i < p.findings.size(); ++i) {
    const Finding& finding = p.findings[i];
    std::printf("FAIL %s after %lld cases, shrunk in %d steps to %s\n  %s\n", finding.backend.c_str(),
                static_cast<long long>(finding.cases_until_failure), finding.shrink_steps,
                to_string(finding.request).c_str(), finding.message.c_str());
    for (const std::string& where : finding.diagnosis) std::printf("  where: %s\n", where.c_str());
    if (!p.saved[i].empty())
      for (const std::string& line : repro_lines(finding, p.saved[i] / "case"))
        std::printf("  repro: %s\n", line.c_str());
  }
  if (!p.findings.empty()) return 1;
  return p.interrupted ? 130 : 0;
}

}  // namespace

void add_fuzz(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "fuzz", "Property runs over random cases, shrinking and saving every failure", run_fuzz);
  cmd->add_option("--backends", o->backends, "backend name or glob, e.g. 'complex_rglru/*@bf16'")->required();
  cmd->add_option("--cases", o->cases,
                  "cases per group of backends with one architecture, io dtype and constraints: every backend is "
                  "judged on this many unless --time runs out first (default 100 without --time)")
      ->check(positive_integer);
  cmd->add_option("--time", o->time, "run for this long: 90s, 5m, 2h (the groups take turns)");
  cmd->add_flag("--keep-going", o->keep_going,
                "judge a failing backend on every case of its group too: the first failure is shrunk and saved, "
                "later ones counted, and each backend's failure rate printed ('failed K of N cases')");
  cmd->add_option("--seed", o->seed, "seed of the case stream (default 1)");
  o->shard.add_to(*cmd);
  cmd->add_option("--devices", o->devices,
                  "all | 0,1,...: one shard per GPU (the cuda executor), each on its own device; findings together");
  cmd->add_option("--findings", o->findings, "directory for shrunk failing cases (default ./findings)");
  cmd->add_option("--regimes", o->regimes,
                  "only these regimes, comma-separated, of: " + regime_choices() + " (default: all)")
      ->delimiter(',');
  o->executor.add_to(*cmd);
  o->judge.add_to(*cmd);
  o->foreign.add_to(*cmd);
}

}  // namespace scancheck::cli
