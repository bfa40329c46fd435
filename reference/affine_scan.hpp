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
  const F* a;                 // [L] decays
  const std::uint8_t* reset;  // [L] or nullptr: a_t is treated as 0 where reset[t]
  const F* h0;                // initial state or nullptr
};

//! Whether step t starts afresh: a reset, or t = 0 without an initial state.
template <class F>
bool restarts(const ChannelScan<F>& s, std::int64_t t) {
  return (s.reset && s.reset[t]) || (t == 0 && !s.h0);
}

//! h[t*stride] = h_t for t = 0..L-1. Over a bounded field the recurrence carries the sequential order's
//! values and bounds, and each stored element is widened to its order-free bound as it is written: one pass.
template <class F>
void scan_forward(const ChannelScan<F>& s, const F* b, F* h, TermSums* sums = nullptr) {
  if (s.length == 0) return;
  F state = b[0];  // h_{t-1} as the recurrence carries it (unwidened)
  TermSums state_sums{};
  if constexpr (admits_every_order_v<F>)
    if (s.h0) state_sums = input_sums(*s.h0);
  for (std::int64_t t = 0; t < s.length; ++t) {
    const std::int64_t i = t * s.stride;
    const bool fresh = restarts(s, t);
    if constexpr (admits_every_order_v<F>) {
      const double prev_magnitude = fresh ? 0.0 : magnitude(t == 0 ? *s.h0 : state);
      state_sums = fresh ? input_sums(b[i]) : step_sums(state_sums, s.a[i], b[i], prev_magnitude, s.length);
    }
    state = fresh ? b[i] : s.a[i] * (t == 0 ? *s.h0 : state) + b[i];
    if constexpr (admits_every_order_v<F>) {
      h[i] = widened(state, scan_bound<F>(state_sums, s.length));
      if (sums) sums[i] = state_sums;
    } else {
      h[i] = state;
    }
  }
}

//! The reverse scan: g_{L-1} = dh_{L-1} + dh_last, g_t = dh_t + conj(a_{t+1}) g_{t+1}. Also returns the
//! cotangent of h_{-1}: dh0 = conj(a_0) g_0 (zero after a reset at t = 0). Bounds as in scan_forward;
//! dh_last enters like an initial state (g_{L-1} = dh_{L-1} + 1 * dh_last, as kernels scan it).
template <class F>
F scan_backward(const ChannelScan<F>& s, const F* dh, const F* dh_last, F* g, TermSums* sums = nullptr) {
  if (s.length == 0) return F(0);
  F carry = dh[0];  // g_{t+1} as the recurrence carries it (unwidened)
  TermSums carry_sums{};
  if constexpr (admits_every_order_v<F>)
    if (dh_last) carry_sums = input_sums(*dh_last);
  for (std::int64_t t = s.length - 1; t >= 0; --t) {
    const std::int64_t i = t * s.stride;
    const bool last = t == s.length - 1;
    const bool fresh = (last && !dh_last) || (!last && s.reset && s.reset[t + 1]);
    if constexpr (admits_every_order_v<F>) {
      if (fresh) carry_sums = input_sums(dh[i]);
      else if (last) carry_sums = step_sums(carry_sums, F(1), dh[i], magnitude(*dh_last), s.length);
      else carry_sums = step_sums(carry_sums, conj(s.a[i + s.stride]), dh[i], magnitude(carry), s.length);
    }
    carry = fresh ? dh[i] : last ? dh[i] + *dh_last : dh[i] + conj(s.a[i + s.stride]) * carry;
    if constexpr (admits_every_order_v<F>) {
      g[i] = widened(carry, scan_bound<F>(carry_sums, s.length));
      if (sums) sums[i] = carry_sums;
    } else {
      g[i] = carry;
    }
  }
  if (s.reset && s.reset[0]) return F(0);
  return conj(s.a[0]) * g[0];  // g_0 with its order-free bound
}

}  // namespace scancheck::ref
