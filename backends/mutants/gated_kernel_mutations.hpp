// SPDX-License-Identifier: Apache-2.0
//! @file
//! Mutations of the gated layers' kernels besides the scans (kernels/gated/elementwise.hpp) and of their
//! GEMMs (gated_run.hpp's launch sequence). Contract broken: recurrences.md §2, §3, §5.
//!
//!   NaiveSoftplus             s = log(1 + exp(z)) in float32: inf above z = 88.7, 0 below z = -16.6
//!   RunDependentColumnSums    the parameter gradients' block partials summed from a block that changes
//!                             with every run (the order atomics or a work queue would give)
//!   ColumnSumsDropTailBlock   the parameter gradients' column sums cover floor(rows / 256) blocks
//!   GemmSkipped               one named GEMM of the launch sequence never runs
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>

#include "backends/kernels/gated/elementwise.hpp"
#include "backends/mutants/mutant_executor.hpp"

namespace scancheck::mutation {

template <int V>
struct NaiveSoftplusParameters {
  kernels::SoftplusParameters<V> production;
  void operator()(kernels::ProgramId p) const {
    const kernels::Lanes c = kernels::Lanes::of<V>(p.x, production.channels);
    for (std::int64_t l = 0; l < c.count; ++l) {
      const float z = production.a_param[c.first + l];
      production.s[c.first + l] = std::log(1.0f + std::exp(z));
    }
  }
};

struct NaiveSoftplus : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_lane_body_v<Body, kernels::SoftplusParameters>) ex.launch(name, grid, naive(body));
    else ex.launch(name, grid, body);
  }
  template <int V>
  static NaiveSoftplusParameters<V> naive(const kernels::SoftplusParameters<V>& b) {
    return {b};
  }
};

//! ColumnTotals summing the blocks in the cyclic order that starts at block `first`.
template <int V>
struct RotatedColumnTotals {
  kernels::ColumnTotals<V> production;
  std::int64_t first;
  void operator()(kernels::ProgramId p) const {
    const kernels::ColumnTotals<V>& t = production;
    const kernels::Lanes c = kernels::Lanes::of<V>(p.x, t.channels);
    for (std::int64_t l = 0; l < c.count; ++l) {
      float sum = 0.0f;
      for (std::int64_t k = 0; k < t.blocks; ++k) sum += t.partial[((first + k) % t.blocks) * t.channels + c.first + l];
      t.total[c.first + l] = t.sigmoid_of ? ref::sigmoid(t.sigmoid_of[c.first + l]) * sum : sum;
    }
  }
};

//! The run number is taken from a process-wide counter when the mutation is made, so two runs of the same
//! case sum in different orders (never in the production order when there are two blocks or more).
struct RunDependentColumnSums : Unchanged {
  std::uint64_t run = next_run();

  static std::uint64_t next_run() {
    static std::atomic<std::uint64_t> runs{0};
    return runs++;
  }
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_lane_body_v<Body, kernels::ColumnTotals>) ex.launch(name, grid, rotated(body));
    else ex.launch(name, grid, body);
  }
  template <int V>
  RotatedColumnTotals<V> rotated(const kernels::ColumnTotals<V>& b) const {
    const std::int64_t blocks = b.blocks;
    return {b, blocks > 1 ? 1 + static_cast<std::int64_t>(run % static_cast<std::uint64_t>(blocks - 1)) : 0};
  }
};

//! The block sums launch over whole blocks only; the totals then sum those blocks.
struct ColumnSumsDropTailBlock : Unchanged {
  std::int64_t blocks = 0;  // of the last block-sums launch, for the totals launch that follows it
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_lane_body_v<Body, kernels::ColumnBlockSums>) {
      blocks = body.rows / body.block_rows;
      grid.y = blocks;
      ex.launch(name, grid, body);
    } else if constexpr (is_lane_body_v<Body, kernels::ColumnTotals>) {
      Body b = body;
      b.blocks = blocks;
      ex.launch(name, grid, b);
    } else {
      ex.launch(name, grid, body);
    }
  }
};

struct GemmSkipped : Unchanged {
  std::string skipped;  // the GEMM's name in gated_run.hpp
  template <class Exec>
  void gemm(Exec& ex, const std::string& name, const backends::StridedBatchedGemm& g) {
    if (name != skipped) ex.gemm(name, g);
  }
};

}  // namespace scancheck::mutation
