// SPDX-License-Identifier: Apache-2.0
//! @file
//! One worker process (foreign-backends.md, "Worker protocol"): started by core/process.hpp without a shell
//! in a process group of its own, one line at a time on its stdin and stdout, its stderr kept as a log whose
//! last lines go into failing rows and findings. Every wait has a deadline; ending the worker ends its whole
//! group, so a worker's own children (a Python interpreter's helpers, a CUDA MPS client) go with it, and so
//! does a signal that ends scancheck (end_process_groups_for_exit).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.hpp"

namespace scancheck::foreign {

class WorkerProcess {
 public:
  //! Starts argv[0] (searched on PATH) with `argv`. Throws InputError when it cannot be started.
  explicit WorkerProcess(const std::vector<std::string>& argv);

  //! Writes `line` and a newline. False when the worker no longer reads (it exited).
  bool send(std::string_view line);

  enum class Received {
    line,      //!< `line` holds one line, without its newline
    closed,    //!< the worker closed its stdout (it exited or crashed)
    timeout,   //!< nothing within the deadline
    overlong,  //!< more than max_line_bytes without a newline: not this protocol
  };
  Received receive(std::string& line, double seconds);

  //! Closes its stdin (end of file means bye), waits up to `seconds` for it to exit, then ends the group.
  //! Returns how it ended (exit_status()).
  std::string finish(double seconds);
  //! Ends the whole process group now (SIGKILL) and reaps the worker. Returns how it ended.
  std::string kill();
  //! "exited with code 3", "killed by signal 11 (Segmentation fault)"; empty while it runs.
  std::string exit_status();
  bool running() { return exit_status().empty(); }

  //! The last `lines` lines of its stderr (the log), oldest first.
  std::string stderr_tail(std::size_t lines = 20);
  pid_t pid() const { return process_.pid(); }

  static constexpr std::size_t max_line_bytes = 1 << 20;

 private:
  Process process_;      //!< ends the process group when the worker goes
  std::string pending_;  //!< stdout bytes after the last full line
};

}  // namespace scancheck::foreign
