// SPDX-License-Identifier: Apache-2.0
//! @file
//! The affine scan h_t = a_t h_{t-1} + b_t and its reverse (backward) scan, over one channel, sequentially.
//! Contract: recurrences.md §1. F is a reference scalar or Complex<S>; the backward takes conj(a), which is
//! the identity for real F. Written once for the plain scans and the gated layers (whose decay is `at`).
//!
//! Resets are selections, not multiplications by zero: where `reset[t]` holds, h_t = b_t and the previous
//! state is ignored (recurrences.md §5), so a NaN before a reset does not cross it. With no h0 the scan
//! starts at h_0 = b_0 (the state is absent, not zero) and the gradient dh0 is the one at a zero state.
//!
//! Over a bounded field (reference/bounded.hpp) the values are computed in this sequential order, and each
//! element's float32 bound is then widened to the bound that holds for every evaluation order
//! (reference/order_free_bound.hpp); `sums`, when given, receives each element's TermSums at its index.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/complex.hpp"
#include "reference/order_free_bound.hpp"

namespace scancheck::ref {

//! One channel of a scan, elements t*stride apart. h0 == nullptr: no initial state.
template <class F>
struct ChannelScan {
  std::int64_t length;
  std::int64_t stride;
  const F* a;                  // [L] decays
  const std::uint8_t* reset;   // [L] or nullptr: a_t is treated as 0 where reset[t]
  const F* h0;                 // initial state or nullptr
};

//! Whether step t starts afresh: a reset, or t = 0 without an initial state.
template <class F>
bool restarts(const ChannelScan<F>& s, std::int64_t t) {
  return (s.reset && s.reset[t]) || (t == 0 && !s.h0);
}

//! The order-free bounds of a forward scan already evaluated in `h` (order_free_bound.hpp).
template <class F>
void bound_every_order_forward(const ChannelScan<F>& s, const F* b, F* h, TermSums* sums) {
  TermSums prev = s.h0 ? input_sums(*s.h0) : TermSums{};
  for (std::int64_t t = 0; t < s.length; ++t) {
    const std::int64_t i = t * s.stride;
    const TermSums here = restarts(s, t) ? input_sums(b[i])
                                         : step_sums(prev, s.a[i], b[i],
                                                     magnitude(t == 0 ? *s.h0 : h[i - s.stride]), s.length);
    h[i] = widened(h[i], scan_bound<F>(here, s.length));
    if (sums) sums[i] = here;
    prev = here;
  }
}

//! h[t*stride] = h_t for t = 0..L-1.
template <class F>
void scan_forward(const ChannelScan<F>& s, const F* b, F* h, TermSums* sums = nullptr) {
  for (std::int64_t t = 0; t < s.length; ++t) {
    const std::int64_t i = t * s.stride;
    if (restarts(s, t)) {
      h[i] = b[i];
    } else {
      const F& prev = t == 0 ? *s.h0 : h[i - s.stride];
      h[i] = s.a[i] * prev + b[i];
    }
  }
  if constexpr (admits_every_order_v<F>) bound_every_order_forward(s, b, h, sums);
}

//! The order-free bounds of a reverse scan already evaluated in `g`. dh_last enters like an initial state
//! (g_{L-1} = dh_{L-1} + 1 * dh_last, as kernels scan it).
template <class F>
void bound_every_order_backward(const ChannelScan<F>& s, const F* dh, const F* dh_last, F* g, TermSums* sums) {
  TermSums next = dh_last ? input_sums(*dh_last) : TermSums{};
  for (std::int64_t t = s.length - 1; t >= 0; --t) {
    const std::int64_t i = t * s.stride;
    const bool last = t == s.length - 1;
    TermSums here;
    if ((last && !dh_last) || (!last && s.reset && s.reset[t + 1]))
      here = input_sums(dh[i]);
    else
      here = step_sums(next, last ? F(1) : conj(s.a[i + s.stride]), dh[i],
                       magnitude(last ? *dh_last : g[i + s.stride]), s.length);
    g[i] = widened(g[i], scan_bound<F>(here, s.length));
    if (sums) sums[i] = here;
    next = here;
  }
}

//! The reverse scan: g_{L-1} = dh_{L-1} + dh_last, g_t = dh_t + conj(a_{t+1}) g_{t+1}. Also returns the
//! cotangent of h_{-1}: dh0 = conj(a_0) g_0 (zero after a reset at t = 0).
template <class F>
F scan_backward(const ChannelScan<F>& s, const F* dh, const F* dh_last, F* g, TermSums* sums = nullptr) {
  for (std::int64_t t = s.length - 1; t >= 0; --t) {
    const std::int64_t i = t * s.stride;
    if (t == s.length - 1) {
      g[i] = dh_last ? dh[i] + *dh_last : dh[i];
    } else if (s.reset && s.reset[t + 1]) {
      g[i] = dh[i];
    } else {
      g[i] = dh[i] + conj(s.a[i + s.stride]) * g[i + s.stride];
    }
  }
  if constexpr (admits_every_order_v<F>) bound_every_order_backward(s, dh, dh_last, g, sums);
  if (s.reset && s.reset[0]) return F(0);
  return conj(s.a[0]) * g[0];
}

}  // namespace scancheck::ref
