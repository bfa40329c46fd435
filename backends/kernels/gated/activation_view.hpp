// SPDX-License-Identifier: Apache-2.0
//! @file
//! Where channel c of row `row` lives in a [rows, W] activation. Real channels sit at row*W + c. A complex
//! channel is either planar, the case's "merged" layout (Re at c, Im at Wc + c), or interleaved
//! (Re at 2c, Im at 2c + 1), the layout of a complex tensor in memory; a backend without `fused_output`
//! converts between the two in separate kernels, one with it reads and writes the merged layout in the
//! scan kernels themselves. C++17.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backends/kernels/numeric.hpp"

namespace scancheck::kernels {

struct ChannelLayout {
  std::int64_t row_stride, channel_stride, imag_offset;

  SC_HD static ChannelLayout real(std::int64_t width) { return {width, 1, 0}; }
  SC_HD static ChannelLayout merged(std::int64_t width) { return {width, 1, width / 2}; }
  SC_HD static ChannelLayout interleaved(std::int64_t width) { return {width, 2, 1}; }
  SC_HD std::int64_t at(std::int64_t row, std::int64_t c) const { return row * row_stride + c * channel_stride; }
};

//! A [rows, W] activation in storage T (float or bf16, const for inputs) under a channel layout.
template <class T>
struct ActivationView {
  T* data;
  ChannelLayout layout;

  template <class F>
  SC_HD F load(std::int64_t row, std::int64_t c) const {
    const std::int64_t i = layout.at(row, c);
    if constexpr (std::is_same_v<F, cfloat>) return F{to_float(data[i]), to_float(data[i + layout.imag_offset])};
    else return to_float(data[i]);
  }
  SC_HD void store(std::int64_t row, std::int64_t c, float v) const { kernels::store(data, layout.at(row, c), v); }
  SC_HD void store(std::int64_t row, std::int64_t c, cfloat v) const {
    const std::int64_t i = layout.at(row, c);
    kernels::store(data, i, v.re);
    kernels::store(data, i + layout.imag_offset, v.im);
  }
};

}  // namespace scancheck::kernels
