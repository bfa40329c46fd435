// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

extern char** environ;

namespace scancheck::foreign {
namespace {

//! The process groups of the workers alive, for end_workers_for_exit (a signal ends scancheck).
struct LiveGroups {
  std::mutex mutex;
  std::set<pid_t> pids;
};
LiveGroups& live_groups() {
  static LiveGroups* groups = new LiveGroups;  // never destroyed: a signal may end the process at any time
  return *groups;
}

using Clock = std::chrono::steady_clock;

constexpr std::size_t max_log_bytes = 64 * 1024;

//! A write to a worker that has exited must fail with EPIPE, not kill scancheck.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    read = fds[0];
    write = fds[1];
  }
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
  return "ended";
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv) {
  ignore_sigpipe_once();
  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own (ended as a whole), default signal dispositions (SIGPIPE is ignored here).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = ::posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in.read);
  ::close(out.write);
  ::close(err.write);
  to_child_ = in.write;
  from_child_ = out.read;
  child_errors_ = err.read;
  if (rc != 0) {
    close_fds();
    pid_ = -1;
    throw InputError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(rc)));
  }
  ::fcntl(from_child_, F_SETFL, O_NONBLOCK);
  ::fcntl(child_errors_, F_SETFL, O_NONBLOCK);
  std::lock_guard lock(live_groups().mutex);
  live_groups().pids.insert(pid_);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && ended_.empty()) kill();
  close_fds();
  std::lock_guard lock(live_groups().mutex);
  live_groups().pids.erase(pid_);
}

void end_workers_for_exit() {
  live_groups().mutex.lock();  // held until the process ends: no worker starts after this
  for (const pid_t group : live_groups().pids) ::killpg(group, SIGKILL);
}

void WorkerProcess::close_fds() {
  close_fd(to_child_);
  close_fd(from_child_);
  close_fd(child_errors_);
}

bool WorkerProcess::send(std::string_view line) {
  std::string text(line);
  text += '\n';
  for (std::size_t done = 0; done < text.size();) {
    if (to_child_ < 0) return false;
    const ssize_t n = ::write(to_child_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: it no longer reads
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void WorkerProcess::drain_stderr() {
  char buffer[4096];
  while (child_errors_ >= 0) {
    const ssize_t n = ::read(child_errors_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) close_fd(child_errors_);
    if (n <= 0) return;
    log_.append(buffer, static_cast<std::size_t>(n));
    if (log_.size() > 2 * max_log_bytes) log_.erase(0, log_.size() - max_log_bytes);
  }
}

WorkerProcess::Received WorkerProcess::receive(std::string& line, double seconds) {
  const auto start = Clock::now();
  for (;;) {
    if (const std::size_t nl = pending_.find('\n'); nl != std::string::npos) {
      line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Received::line;
    }
    if (pending_.size() > max_line_bytes) return Received::overlong;
    if (from_child_ < 0) return Received::closed;
    const double left = seconds - seconds_since(start);
    if (left <= 0) return Received::timeout;
    pollfd fds[2] = {{from_child_, POLLIN, 0}, {child_errors_, POLLIN, 0}};
    const int ready = ::poll(fds, child_errors_ >= 0 ? 2 : 1, static_cast<int>(std::min(left * 1000 + 1, 1e9)));
    if (ready < 0 && errno != EINTR) return Received::closed;
    if (child_errors_ >= 0 && fds[1].revents) drain_stderr();
    if (!(fds[0].revents)) continue;
    char buffer[65536];
    const ssize_t n = ::read(from_child_, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      close_fd(from_child_);
      drain_stderr();
      continue;
    }
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string WorkerProcess::exit_status() {
  if (!ended_.empty() || pid_ <= 0) return ended_;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) ended_ = describe_wait_status(status);
  else if (done < 0) ended_ = "ended";
  return ended_;
}

std::string WorkerProcess::finish(double seconds) {
  close_fd(to_child_);
  const auto start = Clock::now();
  while (exit_status().empty() && seconds_since(start) < seconds) {
    drain_stderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return exit_status().empty() ? kill() : ended_;
}

std::string WorkerProcess::kill() {
  if (pid_ > 0 && exit_status().empty()) {
    ::killpg(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    ended_ = describe_wait_status(status);
  }
  ::killpg(pid_, SIGKILL);  // its children, if the worker itself had already exited
  drain_stderr();
  close_fds();
  return ended_;
}

std::string WorkerProcess::stderr_tail(std::size_t lines) {
  drain_stderr();
  std::size_t begin = log_.size();
  if (begin > 0 && log_.back() == '\n') --begin;
  for (std::size_t found = 0; begin > 0 && found < lines; --begin)
    if (log_[begin - 1] == '\n' && ++found == lines) break;
  std::string tail = log_.substr(begin);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail;
}

}  // namespace scancheck::foreign
