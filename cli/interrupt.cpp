// SPDX-License-Identifier: Apache-2.0
#include "cli/interrupt.hpp"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/files.hpp"
#include "core/process.hpp"

namespace scancheck::cli {
namespace {

std::atomic<bool> stop_requested{false};
std::atomic<bool> cooperative{false};

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

const char* signal_name(int signal) { return signal == SIGINT ? "SIGINT" : "SIGTERM"; }

[[noreturn]] void end_now(int signal) {
  end_process_groups_for_exit();  // the workers and their children
  discard_temporaries_for_exit();
  // On a terminal the progress line may be live: end it first.
  std::fprintf(stderr, "%sscancheck: interrupted by %s: stopped without writing a partial output\n",
               ::isatty(STDERR_FILENO) ? "\n" : "", signal_name(signal));
  std::fflush(stderr);
  std::_Exit(130);
}

void watch(sigset_t set) {
  for (;;) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (cooperative.load() && !stop_requested.exchange(true)) {  // the work loop stops itself
      // Said at once, so a user (or a test waiting on it) knows the signal was taken.
      std::fprintf(stderr,
                   "%sscancheck: %s: stopping after the work in progress, then writing what finished "
                   "(a second signal stops at once)\n",
                   ::isatty(STDERR_FILENO) ? "\n" : "", signal_name(signal));
      std::fflush(stderr);
      continue;
    }
    end_now(signal);
  }
}

}  // namespace

void watch_interrupts() {
  const sigset_t set = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(watch, set).detach();
}

const std::atomic<bool>& stop_on_interrupt() {
  cooperative.store(true);
  return stop_requested;
}

}  // namespace scancheck::cli
