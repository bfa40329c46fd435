// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/worker_process.hpp"

#include <chrono>

namespace scancheck::foreign {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

ProcessSpec worker_spec(const std::vector<std::string>& argv) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.own_group = true;
  spec.in = spec.out = Stdio::pipe;
  spec.err = Stdio::capture;
  return spec;
}

}  // namespace

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv) : process_(worker_spec(argv)) {}

bool WorkerProcess::send(std::string_view line) {
  std::string text(line);
  text += '\n';
  return process_.write_input(text);
}

WorkerProcess::Received WorkerProcess::receive(std::string& line, double seconds) {
  const auto start = Clock::now();
  for (bool open = true;;) {
    if (const std::size_t nl = pending_.find('\n'); nl != std::string::npos) {
      line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Received::line;
    }
    if (pending_.size() > max_line_bytes) return Received::overlong;
    if (!open) return Received::closed;
    const double left = seconds - seconds_since(start);
    if (left <= 0) return Received::timeout;
    if (process_.await_output(left)) open = process_.read_output(pending_);
  }
}

std::string WorkerProcess::exit_status() {
  const std::optional<ExitStatus> ended = process_.poll();
  return ended ? ended->describe() : std::string();
}

std::string WorkerProcess::finish(double seconds) {
  process_.close_input();
  return process_.wait_or_kill(seconds).describe();
}

std::string WorkerProcess::kill() { return process_.kill().describe(); }

std::string WorkerProcess::stderr_tail(std::size_t lines) {
  const std::string& log = process_.captured_errors();
  std::size_t begin = log.size();
  if (begin > 0 && log.back() == '\n') --begin;
  for (std::size_t found = 0; begin > 0 && found < lines; --begin)
    if (log[begin - 1] == '\n' && ++found == lines) break;
  std::string tail = log.substr(begin);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail;
}

}  // namespace scancheck::foreign
