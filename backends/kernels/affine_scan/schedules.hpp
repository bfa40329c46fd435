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

template <class Seq>
struct SequentialScan {
  using F = typename Seq::field;
  Seq seq;
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, n = p.z;
    F state = seq.initial(n, c);
    for (std::int64_t s = 0; s < seq.g.length; ++s) {
      state = seq.decay(n, s, c) * state + seq.input(n, s, c);
      seq.emit(n, s, c, state);
    }
  }
};

//! Program (channel, chunk j, batch): the chunk's affine map.
template <class Seq>
struct ChunkSummary {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  F* A;  // [B, chunks, channels]
  F* B;
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, j = p.y, n = p.z;
    F a = one<F>(), b = zero<F>();
    for (std::int64_t s = chunks.begin(j); s < chunks.end(j); ++s) {
      const F d = seq.decay(n, s, c);
      a = d * a;
      b = d * b + seq.input(n, s, c);
    }
    const std::int64_t at = (n * chunks.count + j) * seq.g.channels + c;
    A[at] = a;
    B[at] = b;
  }
};

//! Program (channel, 0, batch): the state entering every chunk, a left fold over the chunk summaries.
template <class Seq>
struct ChunkPrefix {
  using F = typename Seq::field;
  Seq seq;
  std::int64_t count;
  const F* A;
  const F* B;
  F* state_in;  // [B, chunks, channels]
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, n = p.z;
    F state = seq.initial(n, c);
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t at = (n * count + j) * seq.g.channels + c;
      state_in[at] = state;
      state = A[at] * state + B[at];
    }
  }
};

//! Program (channel, group, batch): within the group, the map from the group's entry state to each chunk's
//! entry state (PA, PB), and the whole group's map (GA, GB).
template <class F>
struct GroupLocal {
  std::int64_t channels, count, group, groups;
  const F* A;
  const F* B;
  F* PA;  // [B, chunks, channels]
  F* PB;
  F* GA;  // [B, groups, channels]
  F* GB;
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, k = p.y, n = p.z;
    F a = one<F>(), b = zero<F>();
    const std::int64_t last = (k + 1) * group < count ? (k + 1) * group : count;
    for (std::int64_t j = k * group; j < last; ++j) {
      const std::int64_t at = (n * count + j) * channels + c;
      PA[at] = a;
      PB[at] = b;
      a = A[at] * a;
      b = A[at] * b + B[at];
    }
    GA[(n * groups + k) * channels + c] = a;
    GB[(n * groups + k) * channels + c] = b;
  }
};

//! Program (channel, 0, batch): the state entering every group, a left fold over the group maps.
template <class Seq>
struct GroupOuter {
  using F = typename Seq::field;
  Seq seq;
  std::int64_t groups;
  const F* GA;
  const F* GB;
  F* group_in;  // [B, groups, channels]
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, n = p.z;
    F state = seq.initial(n, c);
    for (std::int64_t k = 0; k < groups; ++k) {
      const std::int64_t at = (n * groups + k) * seq.g.channels + c;
      group_in[at] = state;
      state = GA[at] * state + GB[at];
    }
  }
};

//! Program (channel, chunk, batch): a chunk's entry state from its group's entry state.
template <class F>
struct GroupCorrect {
  std::int64_t channels, count, group, groups;
  const F* PA;
  const F* PB;
  const F* group_in;
  F* state_in;
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, j = p.y, n = p.z;
    const std::int64_t at = (n * count + j) * channels + c;
    state_in[at] = PA[at] * group_in[(n * groups + j / group) * channels + c] + PB[at];
  }
};

//! Program (channel, chunk, batch): the chunk's steps from its entry state, emitting every state.
template <class Seq>
struct ChunkReplay {
  using F = typename Seq::field;
  Seq seq;
  ChunkLayout chunks;
  const F* state_in;
  SC_HD void operator()(ProgramId p) const {
    const std::int64_t c = p.x, j = p.y, n = p.z;
    F state = state_in[(n * chunks.count + j) * seq.g.channels + c];
    for (std::int64_t s = chunks.begin(j); s < chunks.end(j); ++s) {
      state = seq.decay(n, s, c) * state + seq.input(n, s, c);
      seq.emit(n, s, c, state);
    }
  }
};

//! Runs one affine sequence under a schedule on executor `ex` (host or cuda): `ex.launch(name, grid, body)`
//! and `ex.template scratch<T>(count)` for buffers that live until the executor is done.
template <class Exec, class Seq>
void run_affine_scan(Exec& ex, const Seq& seq, const Schedule& schedule) {
  using F = typename Seq::field;
  const ScanGeometry& g = seq.g;
  const char* prefix = Seq::reverse ? "reverse " : "affine ";
  const auto name = [&](const char* kernel) { return std::string(prefix) + kernel; };
  if (schedule.kind == Schedule::Kind::sequential) {
    ex.launch(name("sequential scan"), Grid{g.channels, 1, g.batch}, SequentialScan<Seq>{seq});
    return;
  }
  const ChunkLayout chunks = ChunkLayout::make(g.length, schedule.chunk, Seq::reverse);
  const std::int64_t per_chunk = g.batch * chunks.count * g.channels;
  F* A = ex.template scratch<F>(per_chunk);
  F* B = ex.template scratch<F>(per_chunk);
  F* state_in = ex.template scratch<F>(per_chunk);
  ex.launch(name("chunk summary"), Grid{g.channels, chunks.count, g.batch}, ChunkSummary<Seq>{seq, chunks, A, B});
  if (schedule.kind == Schedule::Kind::chunked) {
    ex.launch(name("chunk prefix"), Grid{g.channels, 1, g.batch}, ChunkPrefix<Seq>{seq, chunks.count, A, B, state_in});
  } else {
    const std::int64_t groups = (chunks.count + schedule.group - 1) / schedule.group;
    F* PA = ex.template scratch<F>(per_chunk);
    F* PB = ex.template scratch<F>(per_chunk);
    F* GA = ex.template scratch<F>(g.batch * groups * g.channels);
    F* GB = ex.template scratch<F>(g.batch * groups * g.channels);
    F* group_in = ex.template scratch<F>(g.batch * groups * g.channels);
    ex.launch(name("group local"), Grid{g.channels, groups, g.batch},
              GroupLocal<F>{g.channels, chunks.count, schedule.group, groups, A, B, PA, PB, GA, GB});
    ex.launch(name("group outer"), Grid{g.channels, 1, g.batch}, GroupOuter<Seq>{seq, groups, GA, GB, group_in});
    ex.launch(name("group correct"), Grid{g.channels, chunks.count, g.batch},
              GroupCorrect<F>{g.channels, chunks.count, schedule.group, groups, PA, PB, group_in, state_in});
  }
  ex.launch(name("chunk replay"), Grid{g.channels, chunks.count, g.batch}, ChunkReplay<Seq>{seq, chunks, state_in});
}

}  // namespace scancheck::kernels
