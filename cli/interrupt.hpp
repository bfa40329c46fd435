// SPDX-License-Identifier: Apache-2.0
//! @file
//! Ctrl-C for long subcommands (fuzz, report): the first SIGINT or SIGTERM sets a flag the work loop polls,
//! so the command stops after its current case and still writes what it measured.
#pragma once

#include <atomic>

namespace scancheck::cli {

//! Installs the SIGINT and SIGTERM handlers (once) and returns the flag they set.
const std::atomic<bool>& stop_on_interrupt();

}  // namespace scancheck::cli
