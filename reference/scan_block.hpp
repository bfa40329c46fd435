// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward and backward of the plain affine scans (architectures `scan`, `complex_scan`) on one
//! (batch, head) block: K channels at full length. Contract: recurrences.md §1.
//! F is the field: a reference scalar S for `scan`, Complex<S> for `complex_scan`.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/affine_scan.hpp"
#include "reference/io_storage.hpp"

namespace scancheck::ref {

template <class F>
struct ScanBlockInputs {
  std::int64_t length = 0;
  std::int64_t channels = 0;
  std::vector<F> a, b, dh;    // [L, K]
  std::vector<F> h0;          // [K], empty when the case has none
  std::vector<F> dh_last;     // [K], empty when the case has none
  bool bf16_storage = false;  // h is stored in bfloat16: the backward reads it rounded (io_storage.hpp)
};

template <class F>
struct ScanBlockOutputs {
  std::vector<F> h, da, db;  // [L, K]
  std::vector<F> dh0;        // [K]
};

template <class F>
ScanBlockOutputs<F> scan_block(const ScanBlockInputs<F>& in) {
  const std::int64_t L = in.length, K = in.channels;
  ScanBlockOutputs<F> out;
  out.h.resize(L * K);
  out.db.resize(L * K);
  out.da.resize(L * K);
  out.dh0.resize(K);
  // Bounded fields: each element's TermSums, for the order-free bound of da (order_free_bound.hpp).
  std::vector<TermSums> h_sums(admits_every_order_v<F> ? L * K : 0), g_sums(h_sums.size());
  const auto sums_at = [](std::vector<TermSums>& v, std::int64_t k) { return v.empty() ? nullptr : v.data() + k; };
  for (std::int64_t k = 0; k < K; ++k) {
    const ChannelScan<F> channel{L, K, in.a.data() + k, nullptr, in.h0.empty() ? nullptr : &in.h0[k]};
    scan_forward(channel, in.b.data() + k, out.h.data() + k, sums_at(h_sums, k));
    // db_t = g_t: the reverse scan writes straight into db.
    out.dh0[k] = scan_backward(channel, in.dh.data() + k, in.dh_last.empty() ? nullptr : &in.dh_last[k],
                               out.db.data() + k, sums_at(g_sums, k));
    for (std::int64_t t = 0; t < L; ++t) {
      const std::int64_t i = t * K + k;
      if (t == 0 && in.h0.empty()) {
        out.da[i] = F(0);  // no state: a_0 multiplies nothing
        continue;
      }
      const F& h = t > 0 ? out.h[i - K] : in.h0[k];
      const F stored = t > 0 ? read_back(h, in.bf16_storage) : h;
      out.da[i] = out.db[i] * conj(stored);
      if constexpr (admits_every_order_v<F>) {
        const TermSums hs = t > 0 ? h_sums[i - K] : input_sums(h);
        const double read_back_extra = magnitude(out.db[i]) * (error_bound(stored) - error_bound(h));
        out.da[i] = widened(out.da[i], product_bound(out.db[i], g_sums[i], h, hs, L, read_back_extra));
      }
    }
  }
  return out;
}

}  // namespace scancheck::ref
