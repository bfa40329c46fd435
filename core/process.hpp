// SPDX-License-Identifier: Apache-2.0
//! @file
//! The one way scancheck starts another program: foreign workers (backends/foreign/worker_process.hpp), the
//! shards of `fuzz --devices` and `campaign`'s sbatch.
//!  - An argument vector, never a shell: a path with spaces or quotes reaches the program as it was given.
//!  - The parent's environment, with named variables added or replaced.
//!  - Default dispositions of SIGINT, SIGTERM and SIGPIPE and an empty signal mask: scancheck blocks the
//!    first two in every thread (cli/interrupt.hpp) and may ignore the third, and a child must receive
//!    them itself.
//!  - Optionally a process group of its own, so that ending it ends its children too (a Python
//!    interpreter's helpers, a CUDA MPS client), and a signal that ends scancheck ends the group
//!    (end_process_groups_for_exit).
//!  - Each standard stream inherited, piped, or captured into a bounded log the Process fills while waiting
//!    (stderr also into a file).
//!  - Every wait can have a deadline, at which the process (its group) is killed.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace scancheck {

//! Where one of a child's standard streams goes.
enum class Stdio {
  inherit,  //!< scancheck's own
  pipe,     //!< stdin, stdout: a pipe whose other end the caller uses (write_input, await_output, read_output)
  capture,  //!< stdout, stderr: kept by the Process, its last capture_bytes (captured_output, captured_errors)
  file,     //!< stderr: written to ProcessSpec::err_file, created or truncated
};

struct ProcessSpec {
  std::vector<std::string> argv{};  //!< argv[0] is the program, searched on this process's PATH unless it has a '/'
  std::vector<std::pair<std::string, std::string>> environment{};  //!< variables added to or replaced in ours
  bool own_group = false;                                          //!< a process group of its own, killed as a whole
  Stdio in = Stdio::inherit;                                       //!< inherit or pipe
  Stdio out = Stdio::inherit;                                      //!< inherit, pipe or capture
  Stdio err = Stdio::inherit;                                      //!< inherit, capture or file
  std::filesystem::path err_file{};                                //!< for err = Stdio::file
  std::size_t capture_bytes = 64 * 1024;
};

//! How a process ended.
struct ExitStatus {
  int code = 0;            //!< its exit code when it exited; -1 when its status was collected elsewhere
  int signal = 0;          //!< the signal that ended it, 0 when it exited
  bool timed_out = false;  //!< killed at the deadline of wait_or_kill
  bool success() const { return signal == 0 && code == 0; }
  //! As a shell reports it: the exit code, or 128 + the signal.
  int shell_code() const { return signal != 0 ? 128 + signal : code; }
  //! "exited with code 3", "killed by signal 11 (Segmentation fault)".
  std::string describe() const;
};

//! A program that could not be started: what() is "cannot start 'PROGRAM': REASON" (strerror of the
//! failed exec: "No such file or directory", "Permission denied").
struct StartError : InputError {
  StartError(std::string program, std::string reason);
  std::string program, reason;
};

//! One child process, ended (its group killed) and reaped when destroyed. Not thread-safe: one owner.
class Process {
 public:
  //! Starts spec.argv. Throws StartError when the program cannot be started, InputError when a pipe or
  //! err_file cannot be opened, std::invalid_argument for a spec that is not one (empty argv, a stream
  //! where it cannot go).
  explicit Process(const ProcessSpec& spec);
  //! Kills it (its group) if it runs; a group of its own is killed even when its leader has ended, so no
  //! child of it outlives the Process.
  ~Process();
  Process(Process&&) noexcept;
  Process& operator=(Process&&) noexcept;

  pid_t pid() const;
  const std::string& program() const;

  //! Writes all of `bytes` to its stdin (Stdio::pipe). False when it no longer reads (EPIPE, never SIGPIPE).
  bool write_input(std::string_view bytes);
  void close_input();  //!< end of file on its stdin
  //! Waits up to `seconds` for its stdout (Stdio::pipe) to be readable or closed, capturing meanwhile.
  //! False at the deadline.
  bool await_output(double seconds);
  //! Appends what its stdout holds now, without waiting. False once it has reached end of file.
  bool read_output(std::string& into);

  //! The captured streams so far (their last capture_bytes), read up to now without waiting.
  const std::string& captured_output();
  const std::string& captured_errors();

  //! How it ended, once it has; never waits.
  std::optional<ExitStatus> poll();
  //! Waits up to `seconds` (capturing meanwhile) for it to end; nullopt at the deadline, still running.
  std::optional<ExitStatus> wait_for(double seconds);
  ExitStatus wait() { return *wait_for(std::numeric_limits<double>::infinity()); }
  //! Waits up to `seconds` for it to end, then kills it (timed_out is set then).
  ExitStatus wait_or_kill(double seconds);

  //! Sends `number` to its group (own_group) or to it, while it runs.
  void signal(int number);
  //! SIGKILL to its group (own_group) or to it, then reaps it and closes its pipes. How it ended, also
  //! when it had ended before.
  ExitStatus kill();

 private:
  void end() noexcept;  //!< what the destructor does

  struct State;
  std::unique_ptr<State> state_;
};

//! What a program run to its end said.
struct Finished {
  ExitStatus status;
  std::string output, errors;
};
//! Runs `spec` with stdout and stderr captured (whatever spec.out and spec.err say), killed after
//! `seconds`. The same errors as Process.
Finished run_to_end(ProcessSpec spec, double seconds = std::numeric_limits<double>::infinity());

//! Kills every process group a Process started (own_group) and lets no new one start: the last thing a
//! process ending on a signal does (cli/interrupt.hpp), so no worker outlives scancheck.
void end_process_groups_for_exit();

}  // namespace scancheck
