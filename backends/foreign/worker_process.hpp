// SPDX-License-Identifier: Apache-2.0
//! @file
//! One worker process (foreign-backends.md, "Worker protocol"): started without a shell in a process
//! group of its own, one line at a time on its stdin and stdout, its stderr kept as a log whose last lines
//! go into failing rows and findings. Every wait has a deadline; ending the worker ends its whole group,
//! so a worker's own children (a Python interpreter's helpers, a CUDA MPS client) go with it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scancheck::foreign {

class WorkerProcess {
 public:
  //! Starts argv[0] (searched on PATH) with `argv`. Throws InputError when it cannot be started.
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();  //!< ends the process group if it is still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

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
  pid_t pid() const { return pid_; }

  static constexpr std::size_t max_line_bytes = 1 << 20;

 private:
  void drain_stderr();
  void close_fds();

  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1, child_errors_ = -1;
  std::string pending_;  //!< stdout bytes after the last full line
  std::string log_;      //!< stderr, its last 64 KiB
  std::string ended_;    //!< how it ended, once reaped
};

//! Kills every worker's process group (SIGKILL) and lets no new one start: the last thing a process
//! ending on a signal does (cli/interrupt.hpp), so no worker outlives scancheck.
void end_workers_for_exit();

}  // namespace scancheck::foreign
