// SPDX-License-Identifier: Apache-2.0
//! @file
//! The order zoo: correct float32 evaluations of the recurrences in every evaluation order real kernels use,
//! judged by the tolerance policy like any backend (docs/tolerance.md, "Every evaluation order"). Test-only.
//!
//!   zoo:ARCH/local_chunk16, tree_chunk16, blelloch_chunk16, tree_prefix_tree_chunk16
//!                          chunk-local scans plus carries; Kogge-Stone and Blelloch trees in chunks of 16
//!                          with sequential carries; Kogge-Stone in chunks and over the chunks' summaries
//!   zoo:ARCH/tree_chunk4096, blelloch_chunk4096
//!                          one tree over the whole sequence (L <= 4096)
//!     every architecture and io dtype: the built-in program bodies under schedules outside the registered
//!     matrix, so the RG-LRU layers run on each order too (backends/kernels/affine_scan/schedules.hpp);
//!   zoo:ARCH/autograd_tree, autograd_blelloch     (scan, complex_scan)
//!                          the forward as one Kogge-Stone or Blelloch tree of combines, the backward by
//!                          reverse-mode differentiation through it, as autograd or jax.grad of an
//!                          associative scan computes it: da is summed over the tree's nodes, never formed
//!                          as g conj(h_{t-1});
//!   zoo:ARCH/sequential_fma                       (scan, complex_scan)
//!                          the sequential order with every a h + b contracted to fused multiply-adds.
//! Together with the registered sequential, chunk{C} (carry replayed), hierarchical, local_chunk64 and
//! tree_chunk32 backends, these are the orders the order-free bound covers.
#pragma once

#include <vector>

#include "backends/backend.hpp"

namespace scancheck::zoo {

//! Every zoo backend, provider "zoo".
std::vector<BackendInfo> order_zoo();

//! Formulations that lose accuracy no careful kernel needs, which the policy must fail (docs/tolerance.md,
//! "Accepted formulations"):
//!   zoo:scan/log_space@fp32   h_t = sum_s b_s exp(c_t - c_s), c the float32 cumulative sum of log |a| (the
//!                             sign apart), and likewise the reverse scan: the rounding of c costs about
//!                             u |c_t| relative in every term. Needs nonzero decays (throws otherwise).
std::vector<BackendInfo> rejected_formulations();

}  // namespace scancheck::zoo
