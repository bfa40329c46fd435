// SPDX-License-Identifier: Apache-2.0
// The process launcher (core/process.hpp) with real children (sh, printf, env, cat, sleep): arguments
// reach the program verbatim with no shell between, environment changes are seen, exit codes and signals
// are reported, a deadline kills a whole process group, stderr is captured, a program that cannot start is
// one clear InputError.
#include "core/process.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "tests/test_support.hpp"

namespace scancheck {
namespace {

using test::TempDir;

//! A shell command whose first line on stdout is the pid of a grandchild (a `sleep 60` in the background).
const std::vector<std::string> with_grandchild = {"sh", "-c", "sleep 60 & echo $!; wait"};

//! The first line the child writes on its stdout (Stdio::pipe).
std::string first_line(Process& p) {
  std::string text;
  while (text.find('\n') == std::string::npos && p.await_output(10) && p.read_output(text)) {
  }
  return text.substr(0, text.find('\n'));
}

//! Gone, or a zombie waiting for init: either way no longer running.
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t state = line.rfind(") ");
  return state != std::string::npos && (line[state + 2] == 'Z' || line[state + 2] == 'X');
}

bool ends_within(pid_t pid, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (!ended(pid)) {
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(seconds)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

//! A field of /proc/PID/status, e.g. "SigBlk".
std::string status_field(pid_t pid, const std::string& name) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with(name + ":")) return line.substr(line.find_first_not_of(" \t", name.size() + 1));
  return "";
}

TEST(Process, ArgumentsReachTheProgramVerbatimWithoutAShell) {
  const std::vector<std::string> words = {"two words", "'single'",    "\"double\"", "$HOME", "*",
                                          "a;b",       "back\\slash", "",           "`id`"};
  std::vector<std::string> argv = {"printf", "%s\\n"};
  argv.insert(argv.end(), words.begin(), words.end());
  const Finished f = run_to_end({.argv = argv});
  std::string expected;
  for (const std::string& w : words) expected += w + "\n";
  EXPECT_TRUE(f.status.success()) << f.status.describe();
  EXPECT_EQ(f.output, expected);
}

TEST(Process, TheChildSeesTheEnvironmentChanges) {
  ::setenv("SCANCHECK_PROCESS_TEST", "parent", 1);
  const Finished f = run_to_end(
      {.argv = {"env"}, .environment = {{"SCANCHECK_PROCESS_TEST", "child"}, {"SCANCHECK_PROCESS_ADDED", "a b"}}});
  ::unsetenv("SCANCHECK_PROCESS_TEST");
  EXPECT_NE(f.output.find("\nSCANCHECK_PROCESS_TEST=child\n"), std::string::npos) << f.output;
  EXPECT_NE(f.output.find("\nSCANCHECK_PROCESS_ADDED=a b\n"), std::string::npos) << f.output;
  EXPECT_EQ(f.output.find("=parent"), std::string::npos) << "replaced, not added twice";
  EXPECT_NE(f.output.find("PATH="), std::string::npos) << "the rest is ours";
}

TEST(Process, ExitCodesAndSignalsAreReported) {
  const ExitStatus three = run_to_end({.argv = {"sh", "-c", "exit 3"}}).status;
  EXPECT_EQ(three.code, 3);
  EXPECT_EQ(three.signal, 0);
  EXPECT_FALSE(three.success());
  EXPECT_EQ(three.describe(), "exited with code 3");
  const ExitStatus segv = run_to_end({.argv = {"sh", "-c", "kill -SEGV $$"}}).status;
  EXPECT_EQ(segv.signal, SIGSEGV);
  EXPECT_EQ(segv.shell_code(), 128 + SIGSEGV);
  EXPECT_EQ(segv.describe(), "killed by signal 11 (Segmentation fault)");
  EXPECT_TRUE(run_to_end({.argv = {"true"}}).status.success());
}

TEST(Process, TheDeadlineKillsTheChildAndItsGrandchild) {
  Process p({.argv = with_grandchild, .own_group = true, .out = Stdio::pipe});
  EXPECT_EQ(::getpgid(p.pid()), p.pid()) << "a group of its own";
  const pid_t grandchild = std::stoi(first_line(p));
  const auto start = std::chrono::steady_clock::now();
  const ExitStatus s = p.wait_or_kill(0.2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(s.timed_out);
  EXPECT_EQ(s.signal, SIGKILL) << s.describe();
  EXPECT_TRUE(ends_within(grandchild, 5)) << "the grandchild " << grandchild << " outlived its group";
}

TEST(Process, EndingAProcessEndsItsGroup) {
  pid_t grandchild = 0;
  {
    Process p({.argv = with_grandchild, .own_group = true, .out = Stdio::pipe});
    grandchild = std::stoi(first_line(p));
    EXPECT_FALSE(p.wait_for(0.05)) << "still running at the deadline of wait_for";
  }
  EXPECT_TRUE(ends_within(grandchild, 5));
}

TEST(Process, WithoutAGroupOfItsOwnItSharesOurs) {
  Process p({.argv = {"sleep", "60"}});
  EXPECT_EQ(::getpgid(p.pid()), ::getpgid(0));
  EXPECT_EQ(p.kill().signal, SIGKILL);
}

TEST(Process, TheChildStartsWithDefaultSignalsWhateverOursAre) {
  sigset_t interrupts, old;
  sigemptyset(&interrupts);
  sigaddset(&interrupts, SIGINT);
  sigaddset(&interrupts, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &interrupts, &old);  // as cli/interrupt.hpp does
  const auto old_pipe = ::signal(SIGPIPE, SIG_IGN);
  Process p({.argv = {"sleep", "60"}});
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::signal(SIGPIPE, old_pipe);
  EXPECT_EQ(status_field(p.pid(), "SigBlk"), "0000000000000000");
  const unsigned long long ignored = std::stoull(status_field(p.pid(), "SigIgn"), nullptr, 16);
  EXPECT_EQ(ignored & (1ULL << (SIGPIPE - 1)), 0U) << "SIGPIPE ignored in the child";
  p.signal(SIGTERM);
  const std::optional<ExitStatus> s = p.wait_for(10);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->signal, SIGTERM);
}

TEST(Process, StderrIsCaptured) {
  const std::vector<std::string> both = {"sh", "-c", "echo to-out; echo to-err >&2; exit 4"};
  const Finished f = run_to_end({.argv = both});
  EXPECT_EQ(f.output, "to-out\n");
  EXPECT_EQ(f.errors, "to-err\n");
  EXPECT_EQ(f.status.code, 4);
  Process p({.argv = {"sh", "-c", "printf 0123456789abcdef >&2"}, .err = Stdio::capture, .capture_bytes = 8});
  p.wait();
  EXPECT_EQ(p.captured_errors(), "89abcdef") << "the last capture_bytes";
}

TEST(Process, StderrGoesToAFile) {
  TempDir dir;
  Process p({.argv = {"sh", "-c", "echo to-err >&2"}, .err = Stdio::file, .err_file = dir / "err.txt"});
  EXPECT_TRUE(p.wait().success());
  EXPECT_EQ(test::read_file(dir / "err.txt"), "to-err\n");
  EXPECT_EQ(test::input_error([&] { Process({.argv = {"true"}, .err = Stdio::file, .err_file = dir / "no/such"}); }),
            "cannot open '" + (dir / "no/such").string() + "' for the stderr of 'true': No such file or directory");
}

TEST(Process, StdinAndStdoutArePipes) {
  Process p({.argv = {"cat"}, .in = Stdio::pipe, .out = Stdio::pipe});
  EXPECT_TRUE(p.write_input("hello\nworld\n"));
  p.close_input();
  std::string out;
  while (p.await_output(10) && p.read_output(out)) {
  }
  EXPECT_EQ(out, "hello\nworld\n");
  EXPECT_TRUE(p.wait().success());
  EXPECT_FALSE(p.write_input("late\n")) << "its stdin is closed";
}

TEST(Process, AProgramThatCannotStartIsOneClearError) {
  try {
    Process p({.argv = {"scancheck-no-such-program", "x"}});
    FAIL() << "started";
  } catch (const StartError& e) {
    EXPECT_EQ(e.program, "scancheck-no-such-program");
    EXPECT_STREQ(e.what(), "cannot start 'scancheck-no-such-program': No such file or directory");
  }
  TempDir dir;
  test::write_file(dir / "not executable", "#!/bin/sh\n");
  const std::string path = (dir / "not executable").string();
  EXPECT_EQ(test::input_error([&] { Process({.argv = {path}}); }), "cannot start '" + path + "': Permission denied");
}

// What a signal ending scancheck does (cli/interrupt.hpp), in a child of this test that ends like that.
TEST(ProcessDeathTest, EndingForExitKillsEveryGroup) {
  TempDir dir;
  EXPECT_EXIT(
      {
        Process p({.argv = with_grandchild, .own_group = true, .out = Stdio::pipe});
        test::write_file(dir / "pid", first_line(p));
        end_process_groups_for_exit();
        std::_Exit(0);
      },
      testing::ExitedWithCode(0), "");
  const pid_t grandchild = std::stoi(test::read_file(dir / "pid"));
  EXPECT_TRUE(ends_within(grandchild, 5));
}

}  // namespace
}  // namespace scancheck
