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
//!   local_chunk{C}                      chunk local scan (from a zero state, with the cumulative decay
//!                                       product) -> chunk prefix -> carry apply: h = local + product carry,
//!                                       the structure of Mamba's and FLA's chunked kernels
//!   tree_chunk{C}                       chunk tree (Kogge-Stone over the chunk's steps) -> chunk prefix ->
//!                                       carry apply: tl.associative_scan or a CUB block scan per chunk
//!   blelloch_chunk{C}                   the same with a work-efficient tree (up-sweep, down-sweep)
//!   tree_prefix_tree_chunk{C}           Kogge-Stone in the chunks and over the chunks' summaries
//! A chunk summary is the affine map (A, B) of a chunk: state_out = A state_in + B. Summaries compose in
//! scan order with fixed association: the prefix is a left fold, the hierarchical prefix a left fold within
//! each group of G chunks, then over groups, then one correction per chunk.
//! Buffers of summaries are [batch, chunks or groups, channels], channels fastest; per-step buffers of the
//! local and tree schedules are [batch, steps, channels] in step order.
//! These orders round differently from the sequential one; reference/order_free_bound.hpp bounds them all.
//! C++17.
#pragma once

#include <cstdint>
#include <string>

#include "backends/kernels/affine_scan/sequence.hpp"

namespace scancheck::kernels {

struct Schedule {
  //! sequential; chunked (carry replayed); hierarchical; local (chunk-local scans plus the carry); tree
  //! (a tree over each chunk's steps plus the carry)
  enum class Kind { sequential, chunked, hierarchical, local, tree };
  //! The tree of Kind::tree: Kogge-Stone (depth log2 C, every step at every level) or Blelloch's
  //! work-efficient up-sweep and down-sweep (depth 2 log2 C, inclusive).
  enum class Tree { kogge_stone, blelloch };
  Kind kind = Kind::sequential;
  std::int64_t chunk = 0;  // C
  std::int64_t group = 0;  // G
  Tree tree = Tree::kogge_stone;
  bool tree_prefix = false;  // Kind::tree: the carries between chunks by a Kogge-Stone tree, not a left fold
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
  const F* A;  // [B, count, channels]
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

//! x[s] = x[prev] o x[s] for the affine maps x = (a, b): first x[prev], then x[s].
template <class F>
SC_HD void compose_after(F& a, F& b, const F& a_prev, const F& b_prev) {
  b = a * b_prev + b;
  a = a * a_prev;
}

//! Program (channel tile, chunk j, batch): the chunk's steps scanned from a zero state beside the cumulative
//! decay product: local[s] is the state after step s from 0 at the chunk's start, product[s] the decays
//! since it. The chunk's map is (product, local) at its last step.
template <class Seq, int V>
struct ChunkLocalScan {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  F* local;  // [B, L, channels], step order
  F* product;
  F* A;  // [B, chunks, channels]
  F* B;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t j = p.y, n = p.z, W = seq.g.channels;
    F state[V], prod[V];
    for (std::int64_t l = 0; l < c.count; ++l) {
      state[l] = zero<F>();
      prod[l] = one<F>();
    }
    for (std::int64_t s = chunks.begin(j); s < chunks.end(j); ++s)
      for (std::int64_t k = 0; k < c.count; ++k) {
        const std::int64_t l = c.lane<Seq::reverse>(k), at = (n * seq.g.length + s) * W + c.first + l;
        const Step<F> st = seq.step(n, s, c.first + l);
        prod[l] = st.decay * prod[l];
        state[l] = st.decay * state[l] + st.input;
        local[at] = state[l];
        product[at] = prod[l];
      }
    const std::int64_t at = (n * chunks.count + j) * W + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) {
      A[at + l] = prod[l];
      B[at + l] = state[l];
    }
  }
};

//! Program (channel tile, chunk j, batch): the inclusive scan of the chunk's steps' maps by a tree, in place
//! in (product, local) (per step, as ChunkLocalScan leaves them), and the chunk's map.
template <class Seq, int V>
struct ChunkTree {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  Schedule::Tree tree;
  F* local;    // [B, L, channels], step order: the maps' b ...
  F* product;  // ... and a
  F* A;        // [B, chunks, channels]
  F* B;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t j = p.y, n = p.z, W = seq.g.channels;
    const std::int64_t first = chunks.begin(j), count = chunks.end(j) - first;
    const auto at = [&](std::int64_t s, std::int64_t l) { return (n * seq.g.length + first + s) * W + c.first + l; };
    for (std::int64_t s = 0; s < count; ++s)
      for (std::int64_t k = 0; k < c.count; ++k) {
        const std::int64_t l = c.lane<Seq::reverse>(k);
        const Step<F> st = seq.step(n, first + s, c.first + l);
        product[at(s, l)] = st.decay;
        local[at(s, l)] = st.input;
      }
    const auto combine = [&](std::int64_t from, std::int64_t into) {
      for (std::int64_t l = 0; l < c.count; ++l)
        compose_after(product[at(into, l)], local[at(into, l)], product[at(from, l)], local[at(from, l)]);
    };
    if (tree == Schedule::Tree::kogge_stone) {
      // Each level d combines every step with the one d before it; descending, so each reads its level's input.
      for (std::int64_t d = 1; d < count; d *= 2)
        for (std::int64_t s = count - 1; s >= d; --s) combine(s - d, s);
    } else {
      // Up-sweep: partial maps at 2d-1, 4d-1, ...; down-sweep: the steps between them (inclusive Blelloch).
      std::int64_t top = 1;
      for (std::int64_t d = 1; d < count; d *= 2) {
        for (std::int64_t s = 2 * d - 1; s < count; s += 2 * d) combine(s - d, s);
        top = d;
      }
      for (std::int64_t d = top / 2; d >= 1; d /= 2)
        for (std::int64_t s = 3 * d - 1; s < count; s += 2 * d) combine(s - d, s);
    }
    const std::int64_t out = (n * chunks.count + j) * W + c.first;
    for (std::int64_t l = 0; l < c.count; ++l) {
      A[out + l] = product[at(count - 1, l)];
      B[out + l] = local[at(count - 1, l)];
    }
  }
};

//! Program (channel tile, 0, batch): the states entering `count` consecutive maps, from the sequence's initial
//! state, with the prefix of the maps computed by a Kogge-Stone tree (in place in A, B) instead of a fold.
template <class Seq, int V>
struct PrefixTree {
  using F = typename Seq::field;
  Seq seq;
  std::int64_t count;
  F* A;  // [B, count, channels]
  F* B;
  F* state_in;  // [B, count, channels]
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t n = p.z, W = seq.g.channels;
    const auto at = [&](std::int64_t j, std::int64_t l) { return (n * count + j) * W + c.first + l; };
    for (std::int64_t d = 1; d < count; d *= 2)
      for (std::int64_t j = count - 1; j >= d; --j)
        for (std::int64_t l = 0; l < c.count; ++l)
          compose_after(A[at(j, l)], B[at(j, l)], A[at(j - d, l)], B[at(j - d, l)]);
    for (std::int64_t l = 0; l < c.count; ++l) {
      const F initial = seq.initial(n, c.first + l);
      state_in[at(0, l)] = initial;
      for (std::int64_t j = 1; j < count; ++j) state_in[at(j, l)] = A[at(j - 1, l)] * initial + B[at(j - 1, l)];
    }
  }
};

//! Program (channel tile, chunk j, batch): each step's state from the chunk's entry state (the carry) and
//! the step's map from the chunk's start: state = local + product carry, emitted.
template <class Seq, int V>
struct CarryApply {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  const F* local;  // [B, L, channels], step order
  const F* product;
  const F* state_in;
  SC_HD void operator()(ProgramId p) const {
    const Lanes c = Lanes::of<V>(p.x, seq.g.channels);
    const std::int64_t j = p.y, n = p.z, W = seq.g.channels;
    const std::int64_t entry = (n * chunks.count + j) * W + c.first;
    for (std::int64_t s = chunks.begin(j); s < chunks.end(j); ++s)
      for (std::int64_t k = 0; k < c.count; ++k) {
        const std::int64_t l = c.lane<Seq::reverse>(k), at = (n * seq.g.length + s) * W + c.first + l;
        seq.emit(n, s, c.first + l, local[at] + product[at] * state_in[entry + l]);
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
void run_affine_scan(Exec& ex, const Seq& seq, const Schedule& schedule, typename Seq::field* chunk_states = nullptr) {
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
  const Grid per_chunk_grid{tiles, chunks.count, g.batch};
  if (schedule.kind == Schedule::Kind::local || schedule.kind == Schedule::Kind::tree) {
    F* local = ex.template scratch<F>(g.batch * g.length * g.channels);
    F* product = ex.template scratch<F>(g.batch * g.length * g.channels);
    if (schedule.kind == Schedule::Kind::local)
      ex.launch(name("chunk local scan"), per_chunk_grid, ChunkLocalScan<Seq, V>{seq, chunks, local, product, A, B});
    else
      ex.launch(name("chunk tree"), per_chunk_grid,
                ChunkTree<Seq, V>{seq, chunks, schedule.tree, local, product, A, B});
    if (schedule.tree_prefix)
      ex.launch(name("prefix tree"), Grid{tiles, 1, g.batch}, PrefixTree<Seq, V>{seq, chunks.count, A, B, state_in});
    else
      ex.launch(name("chunk prefix"), Grid{tiles, 1, g.batch}, PrefixFold<Seq, V>{seq, chunks.count, A, B, state_in});
    ex.launch(name("carry apply"), per_chunk_grid, CarryApply<Seq, V>{seq, chunks, local, product, state_in});
    return;
  }
  ex.launch(name("chunk summary"), per_chunk_grid, ChunkSummary<Seq, V>{seq, chunks, A, B});
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
//! replay that lets a backward recompute the forward's float32 states instead of storing them all. Each
//! chunk is recomputed in the order the schedule computed it, so the replayed states are the forward's, bit
//! for bit: sequentially from the entry state, or (local and tree schedules) the chunk's local scan or tree
//! again, then the carry applied.
template <class Exec, class Seq>
void replay_chunks(Exec& ex, const Seq& seq, const Schedule& schedule, const typename Seq::field* chunk_states) {
  using F = typename Seq::field;
  constexpr int V = Exec::lanes;
  const ScanGeometry& g = seq.g;
  const ChunkLayout chunks = ChunkLayout::make(g.length, schedule.chunk, Seq::reverse);
  const Grid per_chunk_grid{(g.channels + V - 1) / V, chunks.count, g.batch};
  const std::string prefix = Seq::reverse ? "reverse " : "affine ";
  if (schedule.kind == Schedule::Kind::local || schedule.kind == Schedule::Kind::tree) {
    const std::int64_t per_chunk = g.batch * chunks.count * g.channels;
    F* A = ex.template scratch<F>(per_chunk);  // the chunks' maps again, unused
    F* B = ex.template scratch<F>(per_chunk);
    F* local = ex.template scratch<F>(g.batch * g.length * g.channels);
    F* product = ex.template scratch<F>(g.batch * g.length * g.channels);
    if (schedule.kind == Schedule::Kind::local)
      ex.launch(prefix + "chunk local scan for the replay", per_chunk_grid,
                ChunkLocalScan<Seq, V>{seq, chunks, local, product, A, B});
    else
      ex.launch(prefix + "chunk tree for the replay", per_chunk_grid,
                ChunkTree<Seq, V>{seq, chunks, schedule.tree, local, product, A, B});
    ex.launch(prefix + "carry apply from saved states", per_chunk_grid,
              CarryApply<Seq, V>{seq, chunks, local, product, chunk_states});
    return;
  }
  ex.launch(prefix + "chunk replay from saved states", per_chunk_grid, ChunkReplay<Seq, V>{seq, chunks, chunk_states});
}

}  // namespace scancheck::kernels
