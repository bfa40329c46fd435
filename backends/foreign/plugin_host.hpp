// SPDX-License-Identifier: Apache-2.0
//! @file
//! C ABI plugins (include/scancheck/plugin.h) behind the worker protocol: `scancheck plugin-host PATH.so`
//! is a worker that loads the plugin (backends/foreign/plugin.hpp) and answers hello and run requests with
//! it, so a plugin that segfaults, aborts or hangs takes down its host process only (a fault or timeout
//! row), never scancheck. The hello answer is the plugin's table; a run loads the case directory, runs the
//! backend and writes its outputs as float32 .npy files, or answers ok: false with the plugin's one-line
//! message. A CUDA error after a device backend's run exits the host (the context may be lost: a fault
//! row, and the next run gets a fresh host). File descriptor 1 is pointed at stderr while it serves, so a
//! plugin's own prints go to the log, not into the protocol.
#pragma once

#include <string>

namespace scancheck::foreign {

//! The worker command that hosts `plugin_path`: this very executable's plugin-host subcommand.
std::string plugin_host_command(const std::string& plugin_path);

//! The plugin host's main loop on stdin and stdout: loads the plugin, then serves the protocol until bye
//! or end of file. Returns the process exit code (2 when the plugin cannot be loaded: one line on stderr).
int serve_plugin(const std::string& plugin_path);

}  // namespace scancheck::foreign
