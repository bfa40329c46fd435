// SPDX-License-Identifier: Apache-2.0
#include "core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace scancheck {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

//! The process groups of the Processes alive, for end_process_groups_for_exit (a signal ends scancheck).
struct LiveGroups {
  std::mutex mutex;
  std::set<pid_t> pids;
};
LiveGroups& live_groups() {
  static LiveGroups* groups = new LiveGroups;  // never destroyed: a signal may end the process at any time
  return *groups;
}

//! A write to a child that has exited must fail with EPIPE, not kill scancheck.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

//! A file descriptor, closed when it goes.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() { close(); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

//! One standard stream of the child: the end the child gets (none: it inherits ours) and the one we keep.
struct Stream {
  Fd child, parent;
};

Stream pipe_stream(bool child_reads) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  Fd read(fds[0]), write(fds[1]);
  if (child_reads) return {std::move(read), std::move(write)};
  ::fcntl(read.get(), F_SETFL, O_NONBLOCK);  // we read what is there, and wait with poll
  return {std::move(write), std::move(read)};
}

Stream file_stream(const std::filesystem::path& file, const std::string& program) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw InputError(
        fmt::format("cannot open '{}' for the stderr of '{}': {}", file.string(), program, std::strerror(errno)));
  return {Fd(fd), Fd()};
}

Stream open_stream(Stdio how, bool child_reads, const ProcessSpec& spec) {
  switch (how) {
    case Stdio::inherit: return {};
    case Stdio::pipe:
    case Stdio::capture: return pipe_stream(child_reads);
    case Stdio::file: return file_stream(spec.err_file, spec.argv[0]);
  }
  return {};
}

void check_spec(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) throw std::invalid_argument("Process: no program to start");
  if (spec.in == Stdio::capture || spec.in == Stdio::file)
    throw std::invalid_argument("Process: stdin is inherited or a pipe");
  if (spec.out == Stdio::file) throw std::invalid_argument("Process: only stderr goes to a file");
  if (spec.err == Stdio::pipe) throw std::invalid_argument("Process: stderr is inherited, captured or a file");
  for (const auto& [name, value] : spec.environment)
    if (name.empty() || name.find('=') != std::string::npos)
      throw std::invalid_argument(fmt::format("Process: '{}' is not an environment variable's name", name));
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (std::string& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

//! Ours, less the variables `changes` names, then `changes`.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& changes) {
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    if (std::none_of(changes.begin(), changes.end(), [&](const auto& c) { return c.first == name; }))
      entries.emplace_back(entry);
  }
  for (const auto& [name, value] : changes) entries.push_back(name + "=" + value);
  return entries;
}

//! posix_spawn's two option sets, for one child.
struct SpawnOptions {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;

  SpawnOptions(const Stream (&streams)[3], bool own_group) {
    posix_spawn_file_actions_init(&actions);
    for (int fd = 0; fd < 3; ++fd)
      if (streams[fd].child.open()) posix_spawn_file_actions_adddup2(&actions, streams[fd].child.get(), fd);
    posix_spawnattr_init(&attributes);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    for (const int s : {SIGINT, SIGTERM, SIGPIPE}) sigaddset(&defaults, s);
    sigemptyset(&none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (own_group) flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setflags(&attributes, flags);
    posix_spawnattr_setpgroup(&attributes, 0);  // a group whose id is the child's pid
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
  }
  ~SpawnOptions() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnOptions(const SpawnOptions&) = delete;
  SpawnOptions& operator=(const SpawnOptions&) = delete;
};

pid_t spawn(const ProcessSpec& spec, const Stream (&streams)[3]) {
  const SpawnOptions options(streams, spec.own_group);
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> environment;
  if (!spec.environment.empty()) environment = child_environment(spec.environment);
  std::vector<char*> args = pointers(argv), envp = pointers(environment);
  pid_t pid = -1;
  const int failed = ::posix_spawnp(&pid, args[0], &options.actions, &options.attributes, args.data(),
                                    spec.environment.empty() ? environ : envp.data());
  if (failed != 0) throw StartError(spec.argv[0], std::strerror(failed));
  return pid;
}

ExitStatus status_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) return {.code = 0, .signal = WTERMSIG(wait_status)};
  return {.code = WEXITSTATUS(wait_status)};
}

//! Blocks until `pid` ends.
ExitStatus reap(pid_t pid) {
  int status = 0;
  pid_t done;
  while ((done = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  return done == pid ? status_of(status) : ExitStatus{.code = -1};
}

//! A stream the Process keeps: the read end and its last `limit` bytes.
struct Capture {
  Fd fd;
  std::string kept;

  //! Reads what the pipe holds now; closes it at end of file.
  void drain(std::size_t limit) {
    char buffer[4096];
    while (fd.open()) {
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (n < 0 && errno != EAGAIN)) fd.close();
      if (n <= 0) return;
      kept.append(buffer, static_cast<std::size_t>(n));
      if (kept.size() > limit) kept.erase(0, kept.size() - limit);
    }
  }
};

int poll_milliseconds(double seconds) { return static_cast<int>(std::min(std::ceil(seconds * 1000), 1e9)); }

}  // namespace

std::string ExitStatus::describe() const {
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, ::strsignal(signal));
  if (code < 0) return "ended";
  return fmt::format("exited with code {}", code);
}

StartError::StartError(std::string program_, std::string reason_)
    : InputError(fmt::format("cannot start '{}': {}", program_, reason_)),
      program(std::move(program_)),
      reason(std::move(reason_)) {}

struct Process::State {
  std::string program;
  pid_t pid = -1;
  bool own_group = false;
  bool group_killed = false;  // once: after its leader is reaped, the group id may in time be another's
  std::optional<ExitStatus> ended;
  Fd input, output;     // Stdio::pipe of stdin and stdout
  Capture captures[2];  // Stdio::capture of stdout and stderr
  std::size_t capture_bytes = 0;

  void drain_captures() {
    for (Capture& c : captures) c.drain(capture_bytes);
  }
  bool pump(double seconds, bool watch_output);
  void send(int number) const {
    if (own_group) ::killpg(pid, number);
    else if (!ended) ::kill(pid, number);
  }
};

//! Waits up to `seconds` for a captured stream (and stdout, when watched) to be readable, reading the
//! captured ones. True when stdout is.
bool Process::State::pump(double seconds, bool watch_output) {
  pollfd fds[3];
  nfds_t count = 0;
  if (watch_output) fds[count++] = {output.get(), POLLIN, 0};
  for (const Capture& c : captures)
    if (c.fd.open()) fds[count++] = {c.fd.get(), POLLIN, 0};
  if (count == 0) {  // nothing to read while it runs: only its end is awaited
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return false;
  }
  if (::poll(fds, count, poll_milliseconds(seconds)) <= 0) return false;
  drain_captures();
  return watch_output && fds[0].revents != 0;
}

Process::Process(const ProcessSpec& spec) : state_(std::make_unique<State>()) {
  check_spec(spec);
  if (spec.in == Stdio::pipe) ignore_sigpipe_once();
  Stream streams[3] = {open_stream(spec.in, true, spec), open_stream(spec.out, false, spec),
                       open_stream(spec.err, false, spec)};
  State& s = *state_;
  s.program = spec.argv[0];
  s.own_group = spec.own_group;
  s.capture_bytes = spec.capture_bytes;
  {
    // Held across the start, so that no group starts after end_process_groups_for_exit.
    std::unique_lock lock(live_groups().mutex, std::defer_lock);
    if (spec.own_group) lock.lock();
    s.pid = spawn(spec, streams);
    if (spec.own_group) live_groups().pids.insert(s.pid);
  }
  s.input = std::move(streams[0].parent);
  (spec.out == Stdio::pipe ? s.output : s.captures[0].fd) = std::move(streams[1].parent);
  s.captures[1].fd = std::move(streams[2].parent);
}

Process::~Process() { end(); }

void Process::end() noexcept {
  if (!state_ || state_->pid <= 0) return;
  kill();
  if (state_->own_group) {
    std::lock_guard lock(live_groups().mutex);
    live_groups().pids.erase(state_->pid);
  }
  state_.reset();
}

Process::Process(Process&&) noexcept = default;

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    end();
    state_ = std::move(other.state_);
  }
  return *this;
}

pid_t Process::pid() const { return state_->pid; }
const std::string& Process::program() const { return state_->program; }

bool Process::write_input(std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    if (!state_->input.open()) return false;
    const ssize_t n = ::write(state_->input.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: it no longer reads
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void Process::close_input() { state_->input.close(); }

bool Process::await_output(double seconds) {
  const auto start = Clock::now();
  for (;;) {
    if (!state_->output.open()) return true;
    const double left = seconds - seconds_since(start);
    if (left <= 0) return false;
    if (state_->pump(left, true)) return true;
  }
}

bool Process::read_output(std::string& into) {
  char buffer[65536];
  for (;;) {
    if (!state_->output.open()) return false;
    const ssize_t n = ::read(state_->output.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) {  // it closed its stdout: what it said on stderr last is there too
      state_->output.close();
      state_->drain_captures();
      return false;
    }
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
}

const std::string& Process::captured_output() {
  state_->captures[0].drain(state_->capture_bytes);
  return state_->captures[0].kept;
}

const std::string& Process::captured_errors() {
  state_->captures[1].drain(state_->capture_bytes);
  return state_->captures[1].kept;
}

std::optional<ExitStatus> Process::poll() {
  State& s = *state_;
  if (s.ended || s.pid <= 0) return s.ended;
  int status = 0;
  pid_t done;
  while ((done = ::waitpid(s.pid, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (done == s.pid) s.ended = status_of(status);
  else if (done < 0) s.ended = ExitStatus{.code = -1};  // collected elsewhere
  return s.ended;
}

std::optional<ExitStatus> Process::wait_for(double seconds) {
  const auto start = Clock::now();
  while (!poll()) {
    const double left = seconds - seconds_since(start);
    if (left <= 0) return std::nullopt;
    state_->pump(std::min(left, 0.002), false);  // its end wakes no poll: look again every 2 ms
  }
  state_->drain_captures();
  return state_->ended;
}

ExitStatus Process::wait_or_kill(double seconds) {
  if (const std::optional<ExitStatus> ended = wait_for(seconds)) return *ended;
  ExitStatus killed = kill();
  killed.timed_out = true;
  return killed;
}

void Process::signal(int number) {
  if (!poll()) state_->send(number);
}

ExitStatus Process::kill() {
  State& s = *state_;
  if (s.own_group ? !s.group_killed : !poll()) s.send(SIGKILL);  // a group also when its leader has ended
  s.group_killed = s.own_group;
  if (!s.ended) s.ended = reap(s.pid);
  s.drain_captures();
  s.input.close();
  s.output.close();
  for (Capture& c : s.captures) c.fd.close();
  return *s.ended;
}

Finished run_to_end(ProcessSpec spec, double seconds) {
  spec.out = spec.err = Stdio::capture;
  Process process(spec);
  Finished finished;
  finished.status = process.wait_or_kill(seconds);
  finished.output = process.captured_output();
  finished.errors = process.captured_errors();
  return finished;
}

void end_process_groups_for_exit() {
  live_groups().mutex.lock();  // held until the process ends: no group starts after this
  for (const pid_t group : live_groups().pids) ::killpg(group, SIGKILL);
}

}  // namespace scancheck
