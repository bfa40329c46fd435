// SPDX-License-Identifier: Apache-2.0
//! @file
//! Benchmarks of whole backend runs allocate tens of MB per iteration; whether that comes from memory the
//! process holds or from fresh pages (a fault each) depends on glibc's trimming heuristics. Called first in
//! main(), this keeps freed blocks in the process and serves large blocks from the heap, so timings measure
//! the resident-heap steady state. A no-op outside glibc.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace scancheck::bench {

inline void keep_heap_resident() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
}

}  // namespace scancheck::bench
