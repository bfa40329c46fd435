// SPDX-License-Identifier: Apache-2.0
#include "cli/interrupt.hpp"

#include <csignal>

namespace scancheck::cli {
namespace {

std::atomic<bool> stop_requested{false};
extern "C" void request_stop(int) { stop_requested.store(true); }

}  // namespace

const std::atomic<bool>& stop_on_interrupt() {
  static const bool installed = [] {
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    return true;
  }();
  (void)installed;
  return stop_requested;
}

}  // namespace scancheck::cli
