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
//! and of the local and tree schedules (the orders of most production kernels):
//!   CarryTimesPreviousProduct   the carry applied to step s with the decay product up to step s - 1
//!   TreeOffsetOffByOne          each Kogge-Stone level skips the step its offset d names (s > d for s >= d)
//!   CarryDropsChunksLastStep    the chunk's map handed to the carries is its second-to-last step's
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
    if constexpr (is_body_v<Body, kernels::GroupCorrect>) ex.launch(name, grid, skipping_last_group(body));
    else ex.launch(name, grid, body);
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
    else ex.launch(name, grid, body);
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

//! CarryApply multiplying the carry by the product of the decays before step s (1 at the chunk's first step):
//! every step but the first of a chunk misses its own decay on the carried state.
template <class Seq, int V>
struct CarryTimesPreviousProductBody {
  kernels::CarryApply<Seq, V> apply;
  void operator()(kernels::ProgramId p) const {
    using F = typename Seq::field;
    const auto& a = apply;
    const kernels::Lanes c = kernels::Lanes::of<V>(p.x, a.seq.g.channels);
    const std::int64_t j = p.y, n = p.z, W = a.seq.g.channels;
    const std::int64_t entry = (n * a.chunks.count + j) * W + c.first;
    for (std::int64_t s = a.chunks.begin(j); s < a.chunks.end(j); ++s)
      for (std::int64_t l = 0; l < c.count; ++l) {
        const std::int64_t at = (n * a.seq.g.length + s) * W + c.first + l;
        const F product = s == a.chunks.begin(j) ? kernels::one<F>() : a.product[at - W];
        a.seq.emit(n, s, c.first + l, a.local[at] + product * a.state_in[entry + l]);
      }
  }
};

template <class Seq, int V>
CarryTimesPreviousProductBody<Seq, V> previous_product(const kernels::CarryApply<Seq, V>& apply) {
  return {apply};
}

struct CarryTimesPreviousProduct : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_body_v<Body, kernels::CarryApply>) ex.launch(name, grid, previous_product(body));
    else ex.launch(name, grid, body);
  }
};

//! ChunkTree whose Kogge-Stone levels start at s = d + 1: step d of each level keeps its own map, so steps
//! 1, 2, 4, ... of every chunk miss the steps before them.
template <class Seq, int V>
struct TreeOffsetOffByOneBody {
  kernels::ChunkTree<Seq, V> tree;
  void operator()(kernels::ProgramId p) const {
    const auto& t = tree;
    const kernels::Lanes c = kernels::Lanes::of<V>(p.x, t.seq.g.channels);
    const std::int64_t j = p.y, n = p.z, W = t.seq.g.channels;
    const std::int64_t first = t.chunks.begin(j), count = t.chunks.end(j) - first;
    const auto at = [&](std::int64_t s, std::int64_t l) { return (n * t.seq.g.length + first + s) * W + c.first + l; };
    for (std::int64_t s = 0; s < count; ++s)
      for (std::int64_t l = 0; l < c.count; ++l) {
        const auto st = t.seq.step(n, first + s, c.first + l);
        t.product[at(s, l)] = st.decay;
        t.local[at(s, l)] = st.input;
      }
    for (std::int64_t d = 1; d < count; d *= 2)
      for (std::int64_t s = count - 1; s > d; --s)  // the bug: s >= d
        for (std::int64_t l = 0; l < c.count; ++l)
          kernels::compose_after(t.product[at(s, l)], t.local[at(s, l)], t.product[at(s - d, l)],
                                 t.local[at(s - d, l)]);
    const std::int64_t out = (n * t.chunks.count + j) * W + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) {
      t.A[out + l] = t.product[at(count - 1, l)];
      t.B[out + l] = t.local[at(count - 1, l)];
    }
  }
};

template <class Seq, int V>
TreeOffsetOffByOneBody<Seq, V> offset_off_by_one(const kernels::ChunkTree<Seq, V>& tree) {
  return {tree};
}

struct TreeOffsetOffByOne : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_body_v<Body, kernels::ChunkTree>) ex.launch(name, grid, offset_off_by_one(body));
    else ex.launch(name, grid, body);
  }
};

//! After each chunk tree, the chunk's map handed to the carries is the one of its second-to-last step (its
//! last step where the chunk has one): the carry into the next chunk misses the chunk's last element.
struct CarryDropsChunksLastStep : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    ex.launch(name, grid, body);
    if constexpr (is_body_v<Body, kernels::ChunkTree>) {
      const auto& g = body.seq.g;
      for (std::int64_t n = 0; n < g.batch; ++n)
        for (std::int64_t j = 0; j < body.chunks.count; ++j) {
          const std::int64_t first = body.chunks.begin(j), count = body.chunks.end(j) - first;
          const std::int64_t step = first + (count > 1 ? count - 2 : 0);
          for (std::int64_t c = 0; c < g.channels; ++c) {
            const std::int64_t from = (n * g.length + step) * g.channels + c,
                               to = (n * body.chunks.count + j) * g.channels + c;
            body.A[to] = body.product[from];
            body.B[to] = body.local[from];
          }
        }
    }
  }
};

}  // namespace scancheck::mutation
