// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated layers' kernels besides the scans: per-channel parameters, the unfused backends' gate and
//! gradient stages, layout conversion, fixed-order column sums for the parameter gradients, and the final
//! rounding of dx. Programs own a tile of V channels (affine_scan/schedules.hpp, Lanes) of one row
//! (grid y), except the parameter kernels, which own a tile of channels. C++17.
#pragma once

#include <cstdint>

#include "backends/kernels/affine_scan/schedules.hpp"
#include "backends/kernels/gated/sequences.hpp"

namespace scancheck::kernels {

//! Program (channel tile): s[c] = softplus(a_param[c]).
template <int V>
struct SoftplusParameters {
  std::int64_t channels;
  const float* a_param;
  float* s;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, channels);
    for (std::int64_t l = 0; l < c.count; ++l) s[c.first + l] = ref::softplus(a_param[c.first + l]);
  }
};

//! Program (channel tile, row): the unfused forward's materialised decay at and input u.
template <class F, class IO, int V>
struct GateElementwise {
  GateInputs<F> gates;
  ActivationView<const IO> x;
  F* at;  // [N, Wc]
  F* u;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, gates.channels);
    const std::int64_t row = p.y;
    for (std::int64_t l = 0; l < c.count; ++l) {
      const std::int64_t ch = c.first + l, i = row * gates.channels + ch;
      const auto gt = gates.terms(row, ch);
      at[i] = gates.reset(row) ? zero<F>() : gt.a;
      u[i] = gated_input(gt, x.template load<F>(row, ch));
    }
  }
};

//! Program (channel tile, row): the unfused backward's local gradients from the stored g.
template <class F, class IO, int V>
struct GateGradients {
  GradientElement<F, IO> element;
  const F* g;  // [N, Wc]
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, element.g.channels);
    const std::int64_t row = p.y, n = row / element.g.length, t = row % element.g.length;
    for (std::int64_t l = 0; l < c.count; ++l) element(n, t, c.first + l, g[row * element.g.channels + c.first + l]);
  }
};

//! Program (channel tile, row): copies an activation between channel layouts (bits unchanged).
template <class F, class IO, int V>
struct Relayout {
  std::int64_t channels;
  ActivationView<const IO> from;
  ActivationView<IO> to;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, channels);
    for (std::int64_t l = 0; l < c.count; ++l) to.store(p.y, c.first + l, from.template load<F>(p.y, c.first + l));
  }
};

//! Program (element tile, row): rounds a float32 [N, W] activation to its io storage.
template <class IO, int V>
struct StoreActivation {
  std::int64_t width;
  const float* from;
  IO* to;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, width);
    for (std::int64_t l = 0; l < c.count; ++l)
      store<IO>(to, p.y * width + c.first + l, from[p.y * width + c.first + l]);
  }
};

//! Column sums of a [rows, channels] float32 array in a fixed order and no atomics: programs
//! (channel tile, block) sum blocks of `block_rows` rows top to bottom, then programs (channel tile) sum
//! the blocks in order and apply the channel's factor (sigma(a_param) for d_a_param, else 1).
template <int V>
struct ColumnBlockSums {
  std::int64_t rows, channels, block_rows;
  const float* values;
  float* partial;  // [blocks, channels]
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, channels);
    const std::int64_t first = p.y * block_rows, last = first + block_rows < rows ? first + block_rows : rows;
    float sum[V];
    for (std::int64_t l = 0; l < c.count; ++l) sum[l] = 0.0f;
    for (std::int64_t r = first; r < last; ++r)
      for (std::int64_t l = 0; l < c.count; ++l) sum[l] += values[r * channels + c.first + l];
    for (std::int64_t l = 0; l < c.count; ++l) partial[p.y * channels + c.first + l] = sum[l];
  }
};

template <int V>
struct ColumnTotals {
  std::int64_t blocks, channels;
  const float* partial;
  const float* sigmoid_of;  // [channels] or nullptr: the total is multiplied by sigma(sigmoid_of[c])
  float* total;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, channels);
    for (std::int64_t l = 0; l < c.count; ++l) {
      float sum = 0.0f;
      for (std::int64_t k = 0; k < blocks; ++k) sum += partial[k * channels + c.first + l];
      total[c.first + l] = sigmoid_of ? ref::sigmoid(sigmoid_of[c.first + l]) * sum : sum;
    }
  }
};

}  // namespace scancheck::kernels
