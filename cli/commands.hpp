// SPDX-License-Identifier: Apache-2.0
//! @file
//! The subcommands of the `scancheck` executable. Each registers its options on the CLI11 app and returns
//! the action to run once parsing succeeded; actions only glue the libraries below cli/.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace scancheck::cli {

using Action = std::function<int()>;

//! A subcommand `name` of `parent` whose options fill one Options value and whose action is `run` on it,
//! the frame every add_* below shares. Returns the subcommand, to add the options to, and the value.
template <class Options>
std::pair<CLI::App*, std::shared_ptr<Options>> add_command(CLI::App& parent, Action& action, const std::string& name,
                                                           const std::string& description, int (*run)(const Options&)) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = parent.add_subcommand(name, description);
  cmd->callback([&action, options, run] { action = [options, run] { return run(*options); }; });
  return {cmd, options};
}

//! Registers `name` on `app`; `action` is set to the subcommand's action when it is the one invoked.
void add_make_case(CLI::App& app, Action& action);
void add_reference(CLI::App& app, Action& action);
void add_list(CLI::App& app, Action& action);
void add_run(CLI::App& app, Action& action);
void add_check(CLI::App& app, Action& action);
void add_verify(CLI::App& app, Action& action);
void add_fuzz(CLI::App& app, Action& action);
void add_property(CLI::App& app, Action& action);
void add_report(CLI::App& app, Action& action);
void add_render(CLI::App& app, Action& action);
void add_diff(CLI::App& app, Action& action);
void add_merge(CLI::App& app, Action& action);
void add_history(CLI::App& app, Action& action);
void add_calibrate(CLI::App& app, Action& action);
void add_plugin_host(CLI::App& app, Action& action);
void add_campaign(CLI::App& app, Action& action);
//! `gla reference` and `gla verify`: gated linear attention problem directories (cli/gla_command.cpp).
void add_gla(CLI::App& app, Action& action);

//! The process's own arguments (argv[1..]), kept by main for the commands that start copies of themselves
//! (`fuzz --devices`: one shard per GPU).
void remember_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();

//! Checks `scancheck report`'s arguments `args` (without --out and --shard) with the report's own parser and,
//! for built-in backends, that a run split into `shards` gives every shard a case; returns the report's label.
//! Throws InputError naming the problem.
std::string check_report_arguments(const std::vector<std::string>& args, std::int64_t shards);

}  // namespace scancheck::cli
