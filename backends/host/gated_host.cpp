// SPDX-License-Identifier: Apache-2.0
#include "backends/gated_run.hpp"
#include "backends/host/host_executor.hpp"

namespace scancheck::backends {

void run_gated_host(const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule, int threads,
                    GemmOrder gemm_order) {
  HostExecutor ex(threads, gemm_order);
  run_gated(ex, io, flags, schedule);
}

}  // namespace scancheck::backends
