// SPDX-License-Identifier: Apache-2.0
//! @file
//! An affine sequence is what every scan kernel iterates: per (batch, channel), steps s = 0..L-1 of
//! state = decay(s) * state + input(s) (both from step(n, s, c)), starting from initial(), and
//! emit(s, state) after each step.
//! The forward scan and the backward (reverse) scan of recurrences.md §1 are both affine sequences, so
//! every schedule is written once and serves both directions; later layers (the gated ones) supply
//! their own sequences with decay and input computed from their gates.
//!
//! Step s is time t = s forward and t = L-1-s in reverse. Chunks are aligned in time: chunk j covers
//! steps [begin(j), end(j)), which in reverse is the time chunk counted from the end.
//! C++17.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backends/kernels/numeric.hpp"

namespace scancheck::kernels {

//! One step of an affine sequence: state = decay * state + input. Sequences compute both together, so the
//! gated layers evaluate their gates once per step.
template <class F>
struct Step {
  F decay, input;
};

//! Batch, length, stored width W, state channels (W, or Wc = W/2 complex channels at c and Wc + c).
struct ScanGeometry {
  std::int64_t batch, length, width, channels;
  std::int64_t imag_offset;  // Wc for the complex kinds, 0 for the real ones
};

//! Channel c of row `row` of a [rows, W] tensor.
template <class F, class T>
SC_HD F load_channel(const T* p, const ScanGeometry& g, std::int64_t row, std::int64_t c) {
  if constexpr (std::is_same_v<F, cfloat>)
    return F{to_float(p[row * g.width + c]), to_float(p[row * g.width + g.imag_offset + c])};
  else return to_float(p[row * g.width + c]);
}

template <class T>
SC_HD void store_channel(T* p, const ScanGeometry& g, std::int64_t row, std::int64_t c, float v) {
  store<T>(p, row * g.width + c, v);
}
template <class T>
SC_HD void store_channel(T* p, const ScanGeometry& g, std::int64_t row, std::int64_t c, cfloat v) {
  store<T>(p, row * g.width + c, v.re);
  store<T>(p, row * g.width + g.imag_offset + c, v.im);
}

//! Time-aligned chunks of C steps, numbered in scan order.
struct ChunkLayout {
  std::int64_t length, chunk, count;
  bool reverse;

  SC_HD static ChunkLayout make(std::int64_t length, std::int64_t chunk, bool reverse) {
    return {length, chunk, (length + chunk - 1) / chunk, reverse};
  }
  SC_HD std::int64_t begin(std::int64_t j) const {
    if (!reverse) return j * chunk;
    const std::int64_t b = length - (count - j) * chunk;
    return b > 0 ? b : 0;
  }
  SC_HD std::int64_t end(std::int64_t j) const {
    if (reverse) return length - (count - 1 - j) * chunk;
    const std::int64_t e = (j + 1) * chunk;
    return e < length ? e : length;
  }
};

//! Forward scan of recurrences.md §1: h_t = a_t h_{t-1} + b_t, writes h (io) and h_last (float32).
template <class F, class IO>
struct ScanForward {
  using field = F;
  static constexpr bool reverse = false;
  ScanGeometry g;
  const IO* a;      // [B, L, W]
  const IO* b;      // [B, L, W]
  const float* h0;  // [B, W] or nullptr
  IO* h;            // [B, L, W]
  float* h_last;    // [B, W]

  SC_HD Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    const std::int64_t row = n * g.length + s;
    return {load_channel<F>(a, g, row, c), load_channel<F>(b, g, row, c)};
  }
  SC_HD F initial(std::int64_t n, std::int64_t c) const { return h0 ? load_channel<F>(h0, g, n, c) : zero<F>(); }
  SC_HD void emit(std::int64_t n, std::int64_t s, std::int64_t c, F state) const {
    store_channel(h, g, n * g.length + s, c, state);
    if (s == g.length - 1) store_channel(h_last, g, n, c, state);
  }
};

//! Backward scan: g_t = dh_t + conj(a_{t+1}) g_{t+1}, g_{L-1} = dh_{L-1} + dh_last, as the affine sequence
//! with decay conj(a_{t+1}) (1 at t = L-1) and initial state dh_last. Emits db_t = g_t,
//! da_t = g_t conj(h_{t-1}) (h_{-1} = h0, or 0) and dh0 = conj(a_0) g_0.
template <class F, class IO>
struct ScanBackward {
  using field = F;
  static constexpr bool reverse = true;
  ScanGeometry g;
  const IO* a;           // [B, L, W]
  const IO* dh;          // [B, L, W]
  const float* dh_last;  // [B, W] or nullptr
  const IO* h;           // [B, L, W] the forward's output
  const float* h0;       // [B, W] or nullptr
  IO* da;                // [B, L, W]
  IO* db;                // [B, L, W]
  float* dh0;            // [B, W]

  SC_HD std::int64_t time(std::int64_t s) const { return g.length - 1 - s; }
  SC_HD Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    const std::int64_t row = n * g.length + time(s);
    return {s == 0 ? one<F>() : conj(load_channel<F>(a, g, row + 1, c)), load_channel<F>(dh, g, row, c)};
  }
  SC_HD F initial(std::int64_t n, std::int64_t c) const {
    return dh_last ? load_channel<F>(dh_last, g, n, c) : zero<F>();
  }
  SC_HD void emit(std::int64_t n, std::int64_t s, std::int64_t c, F grad) const {
    const std::int64_t t = time(s);
    const std::int64_t row = n * g.length + t;
    store_channel(db, g, row, c, grad);
    // t > 0 (every step but the last) tested first and alone: the host compiler unswitches a program's loop
    // over its lanes on it, and the loop for t > 0 loads, multiplies and stores with no other test
    // (scan_bench: the host's reverse chunk replay 1.6 -> 1.2 ms). The same stores in the same order.
    if (t > 0) {
      store_channel(da, g, row, c, grad * conj(load_channel<F>(h, g, row - 1, c)));
      return;
    }
    const F prev = h0 ? load_channel<F>(h0, g, n, c) : zero<F>();
    store_channel(da, g, row, c, grad * conj(prev));
    store_channel(dh0, g, n, c, conj(load_channel<F>(a, g, row, c)) * grad);
  }
};

}  // namespace scancheck::kernels
