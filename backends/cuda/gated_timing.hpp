// SPDX-License-Identifier: Apache-2.0
//! @file
//! Device timings of a gated backend (`rglru`, `complex_rglru`) for tests/bench/gated_gpu_timing, from per-launch CUDA
//! events (CudaExecutor::record_launches) on device-resident data after warm-up runs, and the bytes the
//! backward's kernels outside the GEMMs must move, for a byte roofline.
//!
//! What the times mean. Each repetition runs the forward and the backward of gated_run.hpp once (inputs
//! uploaded once before the repetitions, outputs never downloaded, so no copy is inside any time). Every
//! kernel launch and cuBLAS GEMM is bracketed by its own pair of events, and a phase's times are sums of
//! its launches' device times: gaps between launches (host launch overhead) are not counted.
//!   forward   every launch of the forward: gate GEMMs, softplus(a_param), relayouts, gates, the scan
//!   backward  every launch after the forward's last (interleave dy, the fused_write replay, the reverse
//!             scan, gate gradients, the weight-gradient and back-projection GEMMs, column sums, store dx)
//!   gemm      the phase's cuBLAS GEMMs;  scan  its scan kernels (names "affine ..." and "reverse ...");
//!   outside_gemm = total - gemm: the scan kernels plus every elementwise and reduction kernel.
//! Each is summarised over the repeats (median, min, max of the per-repetition sums, each apart).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backends/cuda/scan_timing.hpp"
#include "backends/gated_run.hpp"

namespace scancheck::backends {

struct GatedPhaseTiming {
  PhaseTiming total;         //!< sum of the phase's kernel and GEMM times
  PhaseTiming gemm;          //!< its cuBLAS GEMMs
  PhaseTiming scan;          //!< its scan kernels
  PhaseTiming outside_gemm;  //!< total - gemm
};

//! One non-GEMM kernel of the backward: its minimum bytes (gated_minimum_bytes) and measured time.
struct KernelCost {
  std::string name;
  double bytes = 0;
  double median_ms = 0;
};

struct GatedTiming {
  GatedPhaseTiming forward, backward;
  //! Sum of gated_minimum_bytes over the backward's non-GEMM kernels: divided by the device's copy rate
  //! (device_copy_rate) it is the roofline time of backward.outside_gemm.
  double backward_outside_gemm_bytes = 0;
  std::vector<KernelCost> backward_kernels;  //!< the backward's non-GEMM kernels in launch order
  std::vector<std::string> unmodelled;       //!< backward kernels gated_minimum_bytes does not know (0 counted)
};

//! Times `repeats` runs after `warmup` runs. `io` supplies the inputs; its outputs may be nullptr (nothing is
//! copied back).
GatedTiming time_gated_cuda(const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule,
                            int warmup, int repeats);

//! The bytes a kernel of the gated backward must move at the least: each tensor it reads read once, each
//! tensor it writes written once, nothing else (no re-reads, no spills, perfect caching of what one
//! program reuses). Per-channel vectors [Wc] (biases, softplus(a_param), a_imag_param) and the last column
//! sums' inputs of Wc floats are left out: under 20 Wc bytes per kernel, and cache-resident.
//! Returns -1 for a kernel name it does not know.
//!
//! Symbols: N = B L rows; Wc state channels; W stored width (Wc real, 2 Wc complex); A = N W activation
//! elements; E = N Wc state elements; s = sizeof(io) (4 fp32, 2 bf16); f = sizeof(F), the field (4 float,
//! 8 cfloat: E f = 4 A for complex); Q = B ceil(L/C) Wc chunk summaries or entry states (F); R = B
//! ceil(ceil(L/C)/G) Wc group summaries (F); S = B W floats ([B, W] h0, dh_last, dh0; S' = S if present
//! else 0); P = ceil(N/256) Wc column-sum partials (float32). Decay source D = 4E (za) + 4N (segment_pos)
//! when fused, E f (the stored at) otherwise. Gradient element terms, computed per element by the fused
//! reverse scan's emitting kernel or by `gate gradients`:
//!   Gin  = 4E zx + A s x + (fused_write ? E f states : A s y) + S' h0          (za counted in D)
//!   Gout = 4A dx_acc + 4E dzx + 4E dza + 4E a_param_term [+ 4E a_imag_term complex] + S dh0
//!
//!   kernel                                   reads                          writes
//!   interleave dy                            A s                            A s
//!   affine chunk replay from saved states    Q f + (fused ? 8E zx, za + 4N  E f (float32 states)
//!                                            + A s x : 2 E f at, u)
//!   reverse chunk summary                    D + A s dy                     2 Q f  (A, B)
//!   reverse chunk prefix                     2 Q f + S' dh_last             Q f
//!   reverse group local                      2 Q f                          2 Q f + 2 R f
//!   reverse group outer                      2 R f + S' dh_last             R f
//!   reverse group correct                    2 Q f + R f                    Q f
//!   reverse chunk replay                     Q f + D + A s dy [+ Gin]       fused ? Gout : E f (g)
//!   reverse sequential scan                  D + A s dy + S' dh_last [+ Gin] fused ? Gout : E f (g)
//!   gate gradients                           E f g + 4E za + 4N + Gin       Gout
//!   ... block sums (each column sum)         4E                             4P
//!   ... totals                               4P                             (4 Wc)
//!   store dx                                 4A                             A s
//! Example, rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32 at (B, L, W) = (4, 2048, 2048), h0 and
//! dh_last present: E = A = 2^24, s = f = 4, Q = E/16, R = E/512, P = E/256:
//!   reverse chunk summary 142.6 MB (8E + 8Q), group local 17.0, group outer 0.4, group correct 12.7,
//!   reverse chunk replay 608.3 MB (36E + 4Q: reads state_in, za, zx, dy, x, y; writes dx_acc, dzx, dza,
//!   a_param_term), three column sums 67.4 MB each (4E + 4P, totals 0.3 MB each), store dx 134.2 MB (8E);
//!   sum 1118 MB = 66.65 E. With bf16 io (s = 2) 950 MB. At 4 TB/s that is 280 us (238 us bf16).
double gated_minimum_bytes(std::string_view kernel, const GatedArrays& io, const VariantFlags& flags,
                           const kernels::Schedule& schedule);

}  // namespace scancheck::backends
