// SPDX-License-Identifier: Apache-2.0
#include "backends/host/host_executor.hpp"
#include "backends/scan_run.hpp"

namespace scancheck::backends {

void run_scan_host(const ScanArrays& io, const kernels::Schedule& schedule, int threads) {
  HostExecutor ex(threads);
  run_scan(ex, io, schedule);
}

}  // namespace scancheck::backends
