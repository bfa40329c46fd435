// SPDX-License-Identifier: Apache-2.0
//! @file
//! The execution model (docs/architecture.md, "Backends and the execution model"). A kernel is a program body: a
//! functor whose `SC_HD void operator()(ProgramId) const` computes one program, reading and writing global
//! buffers through the pointers it holds. Executors run the body for every program of a Grid: the `cuda`
//! executor as a real CUDA kernel (one thread per program), the `host` executor in loops on the CPU.
//!
//! Rule that makes the host twin faithful: within one launch programs never communicate (no shared memory,
//! no barriers, no atomics); data crosses programs only through global buffers between launches, and every
//! reduction has a fixed order. Bodies never see grids' mapping to hardware, streams or allocation.
//! C++17 (nvcc compiles these headers too).
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace scancheck::kernels {

//! Program coordinates: x is the fastest-varying (channels), y the chunk or group, z the batch entry.
struct ProgramId {
  std::int64_t x, y, z;
};

struct Grid {
  std::int64_t x = 1, y = 1, z = 1;
  SC_HD std::int64_t size() const { return x * y * z; }
  SC_HD ProgramId at(std::int64_t linear) const { return {linear % x, (linear / x) % y, linear / (x * y)}; }
};

}  // namespace scancheck::kernels
