// SPDX-License-Identifier: Apache-2.0
//! @file
//! A worker (foreign-backends.md, "Worker protocol"): a process that declares backends in its hello answer
//! and runs them on case directories. scancheck registers each declared backend as
//! provider:architecture/variant@dtype in the open registry (backends/backend.hpp), so it is fuzzed,
//! shrunk, judged and reported like a built-in.
//!
//! Fault isolation: a worker that exits, crashes or answers outside the protocol gives its run the verdict
//! `fault`; one that does not answer within the timeout, `timeout`. Either way its process group is ended
//! and the next run starts a fresh worker, which must declare the same provider and backends. After
//! `max_consecutive_faults` faults or timeouts in a row the worker is given up: its remaining runs fail at
//! once with one message saying so, and it is not started again.
//! Faults are counted per backend (a backend that crashes on long cases does not stop its worker's other
//! backends), and a success resets the count, so shrinking a crash (which alternates faulting and passing
//! cases) is not cut short; a worker that cannot be restarted twice in a row is given up as a whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/foreign/worker_process.hpp"
#include "backends/foreign/worker_protocol.hpp"

namespace scancheck::foreign {

struct WorkerOptions {
  std::optional<double> timeout;   //!< seconds per run; default: default_timeout(case)
  double hello_timeout = 120;      //!< a Python worker importing PyTorch takes seconds
  int max_consecutive_faults = 5;  //!< per backend, then it is given up
};

//! Where workers' case and output directories are written: $SCANCHECK_SCRATCH, else /dev/shm (memory: a
//! run of a small case costs a tenth of a disk round trip there), else the temporary directory.
std::filesystem::path scratch_root();

//! The default deadline of one run: 60 s, plus 1 s per million elements of the case's tensors (inputs and
//! outputs), so a production shape on a slow worker is not cut short.
double default_timeout(const Case&);

class Worker {
 public:
  //! Starts `command` and says hello. Throws InputError when it cannot start or its hello breaks the protocol.
  //! `loaded_by` names it in messages and repro lines (default "--worker 'COMMAND'"; a plugin host is
  //! "--plugin 'PATH'").
  Worker(std::string command, WorkerOptions options, std::string loaded_by = {});
  ~Worker();  //!< says bye, waits briefly, ends its group; removes its scratch directory

  const std::string& command() const { return command_; }
  const HelloAnswer& hello() const { return hello_; }
  //! The options that load this worker's backends again.
  const std::string& loaded_by() const { return loaded_by_; }
  //! How messages name it: "worker 'COMMAND'", "plugin 'PATH'".
  std::string label() const;

  //! Runs `backend` on `c`: writes the case directory, asks, reads the outputs of its declared passes.
  //! Throws BackendError with the run's failure kind and the worker's last stderr lines.
  Outputs run(const DeclaredBackend& backend, const Case& c);

 private:
  void start();
  [[noreturn]] void lost(const DeclaredBackend& backend, RunFailure kind, const std::string& what);

  std::string command_;
  std::vector<std::string> argv_;
  WorkerOptions options_;
  HelloAnswer hello_;
  std::unique_ptr<WorkerProcess> process_;
  std::filesystem::path scratch_;
  std::int64_t next_id_ = 1;
  std::map<std::string, int> consecutive_faults_;  //!< per backend token
  std::map<std::string, std::string> given_up_;    //!< backend token -> the message its later runs fail with
  int failed_restarts_ = 0;
  std::string worker_given_up_;  //!< set when the worker itself cannot be restarted
  std::string last_log_;
  std::string loaded_by_;
  std::mutex mutex_;
};

//! Starts every worker and registers its backends in `registry`. The workers live until the process
//! exits. Throws InputError for a worker that cannot start or fails hello, and for a provider name that
//! another loaded provider has.
void load_workers(const std::vector<std::string>& commands, BackendRegistry& registry, const WorkerOptions& options);
//! One worker; `loaded_by` replaces "--worker 'COMMAND'" in its backends' repro lines (a plugin host says
//! "--plugin PATH").
void load_worker(const std::string& command, BackendRegistry& registry, const WorkerOptions& options,
                 const std::string& loaded_by = {});

//! Registers the backends a hello declared, running them on `worker`.
void register_worker_backends(Worker& worker, BackendRegistry& registry);

}  // namespace scancheck::foreign
