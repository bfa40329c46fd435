// SPDX-License-Identifier: Apache-2.0
//! @file
//! The affine scan h_t = a_t h_{t-1} + b_t and its reverse (backward) scan, over one channel, sequentially.
//! Contract: recurrences.md §1. F is a reference scalar or Complex<S>; the backward takes conj(a), which is
//! the identity for real F. Written once for the plain scans and the gated layers (whose decay is `at`).
//!
//! Resets are selections, not multiplications by zero: where `reset[t]` holds, h_t = b_t and the previous
//! state is ignored (recurrences.md §5), so a NaN before a reset does not cross it. With no h0 the scan
//! starts at h_0 = b_0 (the state is absent, not zero) and the gradient dh0 is the one at a zero state.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/complex.hpp"

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

//! h[t*stride] = h_t for t = 0..L-1.
template <class F>
void scan_forward(const ChannelScan<F>& s, const F* b, F* h) {
  for (std::int64_t t = 0; t < s.length; ++t) {
    const std::int64_t i = t * s.stride;
    const bool restart = (s.reset && s.reset[t]) || (t == 0 && !s.h0);
    if (restart) {
      h[i] = b[i];
    } else {
      const F& prev = t == 0 ? *s.h0 : h[i - s.stride];
      h[i] = s.a[i] * prev + b[i];
    }
  }
}

//! The reverse scan: g_{L-1} = dh_{L-1} + dh_last, g_t = dh_t + conj(a_{t+1}) g_{t+1}. Also returns the
//! cotangent of h_{-1}: dh0 = conj(a_0) g_0 (zero after a reset at t = 0).
template <class F>
F scan_backward(const ChannelScan<F>& s, const F* dh, const F* dh_last, F* g) {
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
  if (s.reset && s.reset[0]) return F(0);
  return conj(s.a[0]) * g[0];
}

}  // namespace scancheck::ref
