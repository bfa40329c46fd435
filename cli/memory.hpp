// SPDX-License-Identifier: Apache-2.0
//! @file
//! How the process takes memory from the kernel. At production shapes a report allocates and frees
//! reference blocks and host-executor buffers of hundreds of MB, case after case; faulting them in 4 KB
//! page by page was the largest single cost of the seed-shapes report (system time, not arithmetic).
#pragma once

namespace scancheck::cli {

//! First thing in main. Where glibc's malloc does not yet back its heap with transparent huge pages
//! (the tunable glibc.malloc.hugetlb=1, read only when a process starts), re-executes the program with it
//! set; the re-executed process gives the user's GLIBC_TUNABLES back to its environment, so worker
//! processes inherit exactly what the user set. Then keeps freed memory in the heap (no per-block mmap,
//! no trimming), so the next case reuses pages already faulted in. Never fails: without exec, or under
//! a sanitizer's allocator, the program runs as it is, only slower.
void tune_process_memory(char** argv);

}  // namespace scancheck::cli
