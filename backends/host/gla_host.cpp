// SPDX-License-Identifier: Apache-2.0
#include "backends/gla_run.hpp"
#include "backends/host/host_executor.hpp"

namespace scancheck::backends {

void run_gla_host(const GlaArrays& io, const GlaSchedule& schedule, int threads) {
  HostExecutor ex(threads);
  run_gla(ex, io, schedule);
}

}  // namespace scancheck::backends
