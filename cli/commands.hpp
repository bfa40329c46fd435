// SPDX-License-Identifier: Apache-2.0
//! @file
//! The subcommands of the `scancheck` executable. Each registers its options on the CLI11 app and returns
//! the action to run once parsing succeeded; actions only glue the libraries below cli/.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace scancheck::cli {

using Action = std::function<int()>;

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
void add_calibrate(CLI::App& app, Action& action);
void add_plugin_host(CLI::App& app, Action& action);

}  // namespace scancheck::cli
