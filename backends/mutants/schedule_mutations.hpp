// SPDX-License-Identifier: Apache-2.0
//! @file
//! Mutations of the schedules' launch sequence (kernels/affine_scan/schedules.hpp): each replaces one kind
//! of schedule launch by a broken one, for any sequence, both directions. Contract broken: recurrences.md §1
//! as the chunked and hierarchical schedules compute it.
//!
//!   TailChunkDropped            chunk summary, prefix and replay cover floor(L / C) chunks, not ceil
//!   CorrectionSkipsLastGroup    the hierarchical correction leaves the last group's chunks at their
//!                               in-group prefix (their group's entry state taken as zero)
//!   SummaryDropsFirstDecay      each chunk summary's A misses the chunk's first decay (B cannot see it)
//!   ChunkStatesInBf16           the state entering each chunk is stored in bfloat16 before the replay
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "backends/mutants/mutant_executor.hpp"

namespace scancheck::mutation {

//! ChunkLayout with the partial last chunk (in time) left out.
inline kernels::ChunkLayout without_tail(const kernels::ChunkLayout& c) {
  return {c.length, c.chunk, c.length / c.chunk, c.reverse};
}

//! For the `chunk{C}` schedules (no groups): the grid counts whole chunks only, so when C does not divide
//! L the last L mod C steps of time are never scanned in either direction, and their outputs never written.
//! The chunk summary launch comes first in each direction; the prefix that follows folds its chunks.
struct TailChunkDropped : Unchanged {
  static constexpr bool zero_outputs = true;
  std::int64_t whole_chunks = 0;  // of the last chunk summary launch

  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_body_v<Body, kernels::ChunkSummary> || is_body_v<Body, kernels::ChunkReplay>) {
      Body b = body;
      b.chunks = without_tail(body.chunks);
      whole_chunks = b.chunks.count;
      grid.y = b.chunks.count;
      ex.launch(name, grid, b);
    } else if constexpr (is_body_v<Body, kernels::PrefixFold>) {
      Body b = body;
      b.count = whole_chunks;
      ex.launch(name, grid, b);
    } else if constexpr (is_body_v<Body, kernels::GroupLocal>) {
      throw std::logic_error("tail_chunk_dropped mutates the chunk{C} schedules, not the hierarchical ones");
    } else {
      ex.launch(name, grid, body);
    }
  }
};

//! GroupCorrect that returns early for the last group, leaving the in-group prefix PB (computed from a zero
//! group entry state) where the chunk's entry state belongs.
template <class F, int V>
struct CorrectionSkippingLastGroup {
  kernels::GroupCorrect<F, V> correct;
  void operator()(kernels::ProgramId p) const {
    if (p.y / correct.group < correct.groups - 1) return correct(p);
    const kernels::Lanes c = kernels::Lanes::of<V>(p.x, correct.channels);
    const std::int64_t at = (p.z * correct.count + p.y) * correct.channels + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) correct.state_in[at + l] = correct.PB[at + l];
  }
};

template <class F, int V>
CorrectionSkippingLastGroup<F, V> skipping_last_group(const kernels::GroupCorrect<F, V>& correct) {
  return {correct};
}

struct CorrectionSkipsLastGroup : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_body_v<Body, kernels::GroupCorrect>)
      ex.launch(name, grid, skipping_last_group(body));
    else
      ex.launch(name, grid, body);
  }
};

//! The sequence as the chunk summaries see it: the first step of every chunk has decay 1.
template <class Seq>
struct FirstDecayDropped : Seq {
  using F = typename Seq::field;
  kernels::ChunkLayout chunks;

  bool starts_chunk(std::int64_t s) const {
    if (!chunks.reverse) return s % chunks.chunk == 0;
    return s == 0 || (chunks.length - s) % chunks.chunk == 0;  // begin(j) = max(0, L - (count - j) C)
  }
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    kernels::Step<F> st = Seq::step(n, s, c);
    if (starts_chunk(s)) st.decay = kernels::one<F>();
    return st;
  }
};

struct SummaryDropsFirstDecay : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_body_v<Body, kernels::ChunkSummary>)
      ex.launch(name, grid, map_sequence(body, [&](const auto& seq) {
                  return FirstDecayDropped<std::decay_t<decltype(seq)>>{seq, body.chunks};
                }));
    else
      ex.launch(name, grid, body);
  }
};

//! Every chunk replay (forward, backward, the fused_write replay) reads its entry states from a bfloat16
//! copy: the carry between chunks is stored in bf16, while every state inside a chunk stays float32.
struct ChunkStatesInBf16 : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_body_v<Body, kernels::ChunkReplay>) {
      using F = typename decltype(body.seq)::field;
      const std::int64_t n = body.seq.g.batch * body.chunks.count * body.seq.g.channels;
      F* stored = ex.template scratch<F>(n);
      for (std::int64_t i = 0; i < n; ++i) stored[i] = through_bf16(body.state_in[i]);
      Body b = body;
      b.state_in = stored;
      ex.launch(name, grid, b);
    } else {
      ex.launch(name, grid, body);
    }
  }
};

}  // namespace scancheck::mutation
