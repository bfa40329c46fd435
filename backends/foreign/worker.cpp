// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/worker.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include <fmt/format.h>

#include "backends/foreign/shell_words.hpp"
#include "core/case_dir.hpp"
#include "core/error.hpp"

namespace scancheck::foreign {
namespace fs = std::filesystem;
namespace {

fs::path make_scratch_directory() {
  std::string pattern = (scratch_root() / "scancheck-worker-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw InputError(fmt::format("cannot create a scratch directory in {}", scratch_root().string()));
  return pattern;
}

std::int64_t element_count_of(const Case& c) {
  std::int64_t n = 0;
  for (const TensorSpec& spec : tensor_layout(c)) n += element_count(spec.dims);
  return n;
}

//! The declared outputs of `backend`'s passes found in `dir`; a file that cannot be read is the
//! backend's failure, not bad input.
Outputs read_outputs(const DeclaredBackend& backend, const Case& c, const fs::path& dir) {
  Outputs out;
  try {
    out = load_outputs(c, dir);
  } catch (const InputError& e) {
    throw BackendError(fmt::format("unreadable output: {}", e.what()));
  }
  std::erase_if(out, [&](const auto& named) {
    const Direction d = direction_of(c.architecture, named.first);
    return std::find(backend.passes.begin(), backend.passes.end(), d) == backend.passes.end();
  });
  return out;
}

}  // namespace

fs::path scratch_root() {
  if (const char* chosen = std::getenv("SCANCHECK_SCRATCH"); chosen && *chosen) return chosen;
  if (fs::is_directory("/dev/shm") && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

std::string Worker::label() const {
  // "--worker 'python3 w.py'" -> "worker 'python3 w.py'", "--plugin 'x.so'" -> "plugin 'x.so'"
  return loaded_by_.starts_with("--") ? loaded_by_.substr(2) : loaded_by_;
}

double default_timeout(const Case& c) { return 60 + 1e-6 * static_cast<double>(element_count_of(c)); }

Worker::Worker(std::string command, WorkerOptions options, std::string loaded_by)
    : command_(std::move(command)),
      argv_(split_shell_words(command_)),
      options_(options),
      scratch_(make_scratch_directory()),
      loaded_by_(loaded_by.empty() ? "--worker " + quoted_word(command_) : std::move(loaded_by)) {
  try {
    start();
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
    throw;
  }
}

Worker::~Worker() {
  if (process_) {
    process_->send(bye_request());
    process_->finish(2.0);
  }
  std::error_code ignored;
  fs::remove_all(scratch_, ignored);
}

void Worker::start() {
  process_ = std::make_unique<WorkerProcess>(argv_);
  const std::string source = label();
  const auto failed = [&](const std::string& what) {
    const std::string log = process_->stderr_tail(5);
    const std::string ended = process_->kill();
    process_.reset();
    throw InputError(fmt::format("{} {} ({}){}", source, what, ended, log.empty() ? "" : "; its stderr: " + log));
  };
  if (!process_->send(hello_request())) failed("did not read hello");
  std::string line;
  switch (process_->receive(line, options_.hello_timeout)) {
    case WorkerProcess::Received::line: break;
    case WorkerProcess::Received::closed: failed("exited before answering hello"); break;
    case WorkerProcess::Received::timeout:
      failed(fmt::format("did not answer hello within {} s", options_.hello_timeout));
      break;
    case WorkerProcess::Received::overlong: failed("answered hello with an endless line"); break;
  }
  HelloAnswer hello;
  try {
    hello = parse_hello_answer(line, source);
  } catch (const InputError&) {
    process_->kill();
    process_.reset();
    throw;
  }
  if (!hello_.provider.empty() &&
      (hello.provider != hello_.provider || hello.backends.size() != hello_.backends.size()))
    failed(fmt::format("declared provider '{}' with {} backends after a restart, not '{}' with {}", hello.provider,
                       hello.backends.size(), hello_.provider, hello_.backends.size()));
  hello_ = std::move(hello);
}

void Worker::lost(const DeclaredBackend& backend, RunFailure kind, const std::string& what) {
  last_log_ = process_ ? process_->stderr_tail() : last_log_;
  const std::string ended = process_ ? process_->kill() : std::string("not running");
  process_.reset();
  std::string message = fmt::format("{} {} ({})", label(), what, ended);
  const std::string token = backend.token();
  if (++consecutive_faults_[token] >= options_.max_consecutive_faults) {
    given_up_[token] = fmt::format(
        "{} was given up after {} faults or timeouts in a row; its remaining runs "
        "were not attempted",
        to_string(BackendName{hello_.provider, backend.architecture, backend.variant, backend.io_dtype}),
        consecutive_faults_[token]);
    message += "; " + given_up_[token];
  }
  throw BackendError(message, kind, last_log_);
}

Outputs Worker::run(const DeclaredBackend& backend, const Case& c) {
  const std::lock_guard lock(mutex_);
  const std::string token = backend.token();
  if (!worker_given_up_.empty()) throw BackendError(worker_given_up_, RunFailure::fault, last_log_, false);
  if (const auto it = given_up_.find(token); it != given_up_.end())
    throw BackendError(it->second, RunFailure::fault, last_log_, false);
  if (!process_) {
    try {
      start();
      failed_restarts_ = 0;
    } catch (const InputError& e) {
      if (++failed_restarts_ >= 2)
        worker_given_up_ = fmt::format(
            "{} could not be restarted twice in a row and was given up; its "
            "remaining runs were not attempted",
            label());
      throw BackendError(fmt::format("{} could not be restarted: {}", label(), e.what()), RunFailure::fault, last_log_);
    }
  }
  const std::int64_t id = next_id_++;
  const fs::path dir = scratch_ / fmt::format("run-{}", id), case_dir = dir / "case", out = dir / "out";
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{dir};
  save_case(c, case_dir);
  fs::create_directories(out);
  if (!process_->send(run_request(id, token, fs::absolute(case_dir), fs::absolute(out))))
    lost(backend, RunFailure::fault, "stopped reading its requests");
  const double timeout = options_.timeout.value_or(default_timeout(c));
  std::string line;
  switch (process_->receive(line, timeout)) {
    case WorkerProcess::Received::line: break;
    case WorkerProcess::Received::closed: lost(backend, RunFailure::fault, fmt::format("exited during run {}", id));
    case WorkerProcess::Received::timeout:
      lost(backend, RunFailure::timeout, fmt::format("did not answer run {} within {:.3g} s", id, timeout));
    case WorkerProcess::Received::overlong: lost(backend, RunFailure::fault, "answered with an endless line");
  }
  RunAnswer answer;
  try {
    answer = parse_run_answer(line, id);
  } catch (const ProtocolError& e) {
    lost(backend, RunFailure::fault, fmt::format("broke the protocol: {}", e.what()));
  }
  consecutive_faults_[token] = 0;
  if (!answer.ok) throw BackendError(answer.error, RunFailure::error, process_->stderr_tail());
  return read_outputs(backend, c, out);
}

void register_worker_backends(Worker& worker, BackendRegistry& registry) {
  for (const DeclaredBackend& declared : worker.hello().backends) {
    BackendInfo b = declared.info(worker.hello().provider, worker.loaded_by());
    b.runtime = worker.hello().runtime;
    b.provenance = worker.hello().provenance;
    b.run = [&worker, declared](const Case& c, Executor) { return worker.run(declared, c); };
    registry.add(std::move(b));
  }
}

void load_worker(const std::string& command, BackendRegistry& registry, const WorkerOptions& options,
                 const std::string& loaded_by) {
  static std::vector<std::unique_ptr<Worker>> workers;  // for the process's life: the registry points at them
  auto worker = std::make_unique<Worker>(command, options, loaded_by);
  require_new_provider(registry, worker->hello().provider, worker->loaded_by());
  register_worker_backends(*worker, registry);
  workers.push_back(std::move(worker));
}

void load_workers(const std::vector<std::string>& commands, BackendRegistry& registry, const WorkerOptions& options) {
  for (const std::string& command : commands) load_worker(command, registry, options);
}

}  // namespace scancheck::foreign
