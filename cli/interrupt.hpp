// SPDX-License-Identifier: Apache-2.0
//! @file
//! SIGINT and SIGTERM (Ctrl-C; what a cluster sends at a job's time limit) for every subcommand. The
//! signals are taken by a watcher thread, not a handler, so no write is ever cut half way:
//!  - a subcommand that stops cooperatively (fuzz, report) asks for stop_on_interrupt(): the first signal
//!    sets the flag, the work loop abandons its current case within a reference block and still writes what
//!    finished, marked interrupted;
//!  - every other subcommand, and any subcommand at a second signal, ends at once with exit code 130 and
//!    one line on stderr, after the temporaries in flight are removed (core/files.hpp): nothing partial,
//!    no temporary directory, is left.
#pragma once

#include <atomic>

namespace scancheck::cli {

//! Blocks SIGINT and SIGTERM in every thread and starts the watcher. First thing in main, before any
//! other thread exists (threads inherit the mask; child processes get a clean one, see core/process.hpp).
void watch_interrupts();

//! Declares the caller cooperative and returns the flag the first signal sets.
const std::atomic<bool>& stop_on_interrupt();

}  // namespace scancheck::cli
