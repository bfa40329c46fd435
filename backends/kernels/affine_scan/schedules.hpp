// SPDX-License-Identifier: Apache-2.0
//! @file
//! The program bodies of the affine-scan schedules, over any affine sequence (sequence.hpp), and the
//! launch sequence of each schedule. Contract: recurrences.md §1; accumulation and states in float32.
//!
//!   sequential                          one program per (batch, channel) walks all L steps
//!   chunk{C}                            chunk summary -> chunk prefix -> chunk replay
//!   grouped_prefix{G}_hierarchical_chunk{C}
//!                                       chunk summary -> group local -> group outer -> group correct
//!                                       -> chunk replay
//! A chunk summary is the affine map (A, B) of a chunk: state_out = A state_in + B. Summaries compose in
//! scan order with fixed association: the prefix is a left fold, the hierarchical prefix a left fold within
//! each group of G chunks, then over groups, then one correction per chunk.
//! Buffers of summaries are [batch, chunks or groups, channels], channels fastest.
//! C++17.
#pragma once

#include <cstdint>
#include <string>

#include "backends/kernels/affine_scan/sequence.hpp"

namespace scancheck::kernels {

struct Schedule {
  enum class Kind { sequential, chunked, hierarchical };
  Kind kind = Kind::sequential;
  std::int64_t chunk = 0;  // C
  std::int64_t group = 0;  // G
};

//! Each program owns a tile of up to V consecutive channels (its lanes) and runs them side by side: the
//! cuda executor uses V = 1 (one thread per channel), the host executor whole rows (host_executor.hpp), so
//! the compiler can overlap the lanes' independent recurrences. Every lane performs the same operations
//! either way.
struct Lanes {
  std::int64_t first, count;
  template <int V>
  SC_HD static Lanes of(std::int64_t x, std::int64_t channels) {
    const std::int64_t first = x * V, rest = channels - first;
    return {first, rest < V ? rest : V};
  }
  //! The lane visited k-th within a step: in channel order, or in reverse order when the sequence runs
  //! backwards in time, so that a reverse scan walks memory downwards throughout (rows and channels alike).
  //! Rows visited downwards but each row upwards is a pattern CPU prefetchers do not follow (the host
  //! twin's backward kernels ran 3x slower at W = 256). No effect on results: lanes are independent.
  template <bool Descending>
  SC_HD std::int64_t lane(std::int64_t k) const {
    return Descending ? count - 1 - k : k;
  }
};

template <class Seq, int V>
struct SequentialScan {
  using F = typename Seq::field;
  Seq seq;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t n = p.z;
    F state[V];
    for (std::int64_t l = 0; l < c.count; ++l) state[l] = seq.initial(n, c.first + l);
    for (std::int64_t s = 0; s < seq.g.length; ++s)
      for (std::int64_t k = 0; k < c.count; ++k) {
        const std::int64_t l = c.lane<Seq::reverse>(k);
        const Step<F> st = seq.step(n, s, c.first + l);
        state[l] = st.decay * state[l] + st.input;
        seq.emit(n, s, c.first + l, state[l]);
      }
  }
};

//! Program (channel tile, chunk j, batch): the chunk's affine map.
template <class Seq, int V>
struct ChunkSummary {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  F* A;  // [B, chunks, channels]
  F* B;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t j = p.y, n = p.z;
    F a[V], b[V];
    for (std::int64_t l = 0; l < c.count; ++l) {
      a[l] = one<F>();
      b[l] = zero<F>();
    }
    for (std::int64_t s = chunks.begin(j); s < chunks.end(j); ++s)
      for (std::int64_t k = 0; k < c.count; ++k) {
        const std::int64_t l = c.lane<Seq::reverse>(k);
        const Step<F> st = seq.step(n, s, c.first + l);
        a[l] = st.decay * a[l];
        b[l] = st.decay * b[l] + st.input;
      }
    const std::int64_t at = (n * chunks.count + j) * seq.g.channels + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) {
      A[at + l] = a[l];
      B[at + l] = b[l];
    }
  }
};

//! Program (channel tile, 0, batch): the state entering each of `count` consecutive affine maps (chunk
//! summaries for the flat prefix, group maps for the hierarchical one's outer pass), a left fold from the
//! sequence's initial state.
template <class Seq, int V>
struct PrefixFold {
  using F = typename Seq::field;
  Seq seq;
  std::int64_t count;
  const F* A;   // [B, count, channels]
  const F* B;
  F* state_in;  // [B, count, channels]
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t n = p.z;
    F state[V];
    for (std::int64_t l = 0; l < c.count; ++l) state[l] = seq.initial(n, c.first + l);
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t at = (n * count + j) * seq.g.channels + c.first;
      for (std::int64_t l = 0; l < c.count; ++l) {
        state_in[at + l] = state[l];
        state[l] = A[at + l] * state[l] + B[at + l];
      }
    }
  }
};

//! Program (channel tile, group, batch): within the group, the map from the group's entry state to each
//! chunk's entry state (PA, PB), and the whole group's map (GA, GB).
template <class F, int V>
struct GroupLocal {
  std::int64_t channels, count, group, groups;
  const F* A;
  const F* B;
  F* PA;  // [B, chunks, channels]
  F* PB;
  F* GA;  // [B, groups, channels]
  F* GB;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, channels);
    const std::int64_t k = p.y, n = p.z;
    F a[V], b[V];
    for (std::int64_t l = 0; l < c.count; ++l) {
      a[l] = one<F>();
      b[l] = zero<F>();
    }
    const std::int64_t last = (k + 1) * group < count ? (k + 1) * group : count;
    for (std::int64_t j = k * group; j < last; ++j) {
      const std::int64_t at = (n * count + j) * channels + c.first;
      for (std::int64_t l = 0; l < c.count; ++l) {
        PA[at + l] = a[l];
        PB[at + l] = b[l];
        a[l] = A[at + l] * a[l];
        b[l] = A[at + l] * b[l] + B[at + l];
      }
    }
    const std::int64_t at = (n * groups + k) * channels + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) {
      GA[at + l] = a[l];
      GB[at + l] = b[l];
    }
  }
};

//! Program (channel tile, chunk, batch): a chunk's entry state from its group's entry state.
template <class F, int V>
struct GroupCorrect {
  std::int64_t channels, count, group, groups;
  const F* PA;
  const F* PB;
  const F* group_in;
  F* state_in;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, channels);
    const std::int64_t j = p.y, n = p.z;
    const std::int64_t at = (n * count + j) * channels + c.first;
    const std::int64_t from = (n * groups + j / group) * channels + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) state_in[at + l] = PA[at + l] * group_in[from + l] + PB[at + l];
  }
};

//! Program (channel tile, chunk, batch): the chunk's steps from its entry state, emitting every state.
template <class Seq, int V>
struct ChunkReplay {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  const F* state_in;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t j = p.y, n = p.z;
    const std::int64_t at = (n * chunks.count + j) * seq.g.channels + c.first;
    F state[V];
    for (std::int64_t l = 0; l < c.count; ++l) state[l] = state_in[at + l];
    for (std::int64_t s = chunks.begin(j); s < chunks.end(j); ++s)
      for (std::int64_t k = 0; k < c.count; ++k) {
        const std::int64_t l = c.lane<Seq::reverse>(k);
        const Step<F> st = seq.step(n, s, c.first + l);
        state[l] = st.decay * state[l] + st.input;
        seq.emit(n, s, c.first + l, state[l]);
      }
  }
};

//! Elements of the chunk-entry states of a chunked schedule: [batch, chunks, channels].
inline std::int64_t chunk_state_count(const ScanGeometry& g, const Schedule& schedule) {
  return g.batch * ChunkLayout::make(g.length, schedule.chunk, false).count * g.channels;
}

//! Runs one affine sequence under a schedule on executor `ex` (host or cuda): `ex.launch(name, grid, body)`
//! and `ex.template scratch<T>(count)` for buffers that live until the executor is done. A chunked
//! schedule leaves the state entering each chunk in `chunk_states` when given (chunk_state_count
//! elements), for a later replay_chunks.
template <class Exec, class Seq>
void run_affine_scan(Exec& ex, const Seq& seq, const Schedule& schedule,
                     typename Seq::field* chunk_states = nullptr) {
  using F = typename Seq::field;
  constexpr int V = Exec::lanes;
  const ScanGeometry& g = seq.g;
  const std::int64_t tiles = (g.channels + V - 1) / V;
  const char* prefix = Seq::reverse ? "reverse " : "affine ";
  const auto name = [&](const char* kernel) { return std::string(prefix) + kernel; };
  if (schedule.kind == Schedule::Kind::sequential) {
    ex.launch(name("sequential scan"), Grid{tiles, 1, g.batch}, SequentialScan<Seq, V>{seq});
    return;
  }
  const ChunkLayout chunks = ChunkLayout::make(g.length, schedule.chunk, Seq::reverse);
  const std::int64_t per_chunk = g.batch * chunks.count * g.channels;
  F* A = ex.template scratch<F>(per_chunk);
  F* B = ex.template scratch<F>(per_chunk);
  F* state_in = chunk_states ? chunk_states : ex.template scratch<F>(per_chunk);
  ex.launch(name("chunk summary"), Grid{tiles, chunks.count, g.batch}, ChunkSummary<Seq, V>{seq, chunks, A, B});
  if (schedule.kind == Schedule::Kind::chunked) {
    ex.launch(name("chunk prefix"), Grid{tiles, 1, g.batch}, PrefixFold<Seq, V>{seq, chunks.count, A, B, state_in});
  } else {
    const std::int64_t groups = (chunks.count + schedule.group - 1) / schedule.group;
    F* PA = ex.template scratch<F>(per_chunk);
    F* PB = ex.template scratch<F>(per_chunk);
    F* GA = ex.template scratch<F>(g.batch * groups * g.channels);
    F* GB = ex.template scratch<F>(g.batch * groups * g.channels);
    F* group_in = ex.template scratch<F>(g.batch * groups * g.channels);
    ex.launch(name("group local"), Grid{tiles, groups, g.batch},
              GroupLocal<F, V>{g.channels, chunks.count, schedule.group, groups, A, B, PA, PB, GA, GB});
    ex.launch(name("group outer"), Grid{tiles, 1, g.batch}, PrefixFold<Seq, V>{seq, groups, GA, GB, group_in});
    ex.launch(name("group correct"), Grid{tiles, chunks.count, g.batch},
              GroupCorrect<F, V>{g.channels, chunks.count, schedule.group, groups, PA, PB, group_in, state_in});
  }
  ex.launch(name("chunk replay"), Grid{tiles, chunks.count, g.batch}, ChunkReplay<Seq, V>{seq, chunks, state_in});
}

//! Runs the chunks of `seq` again from the entry states a run_affine_scan left in `chunk_states`: the
//! replay that lets a backward recompute the forward's float32 states instead of storing them all.
template <class Exec, class Seq>
void replay_chunks(Exec& ex, const Seq& seq, const Schedule& schedule, const typename Seq::field* chunk_states) {
  constexpr int V = Exec::lanes;
  const ChunkLayout chunks = ChunkLayout::make(seq.g.length, schedule.chunk, Seq::reverse);
  ex.launch(std::string(Seq::reverse ? "reverse " : "affine ") + "chunk replay from saved states",
            Grid{(seq.g.channels + V - 1) / V, chunks.count, seq.g.batch},
            ChunkReplay<Seq, V>{seq, chunks, chunk_states});
}

}  // namespace scancheck::kernels
