// SPDX-License-Identifier: Apache-2.0
//! @file
//! The seam every mutant uses: an executor that runs the production launch sequences (scan_run.hpp,
//! gated_run.hpp) unchanged on the host executor, but hands every launch and every GEMM to a Mutation
//! first. The production code has no hook for mutants and pays nothing for them: a launch is already a
//! typed program body (kernels/program.hpp), so a mutation recognises the bodies it breaks by type and
//! launches a broken one instead (usually the same body over a decorated sequence, see map_sequence),
//! and passes every other launch through untouched.
//!
//! Test-only (scancheck_mutants is built with the tests): mutations may read and write executor memory
//! directly, which only the host executor allows. The executor runs on one thread, so a mutation that
//! throws from inside a program body fails the run instead of terminating the process.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "backends/gemm.hpp"
#include "backends/host/host_executor.hpp"
#include "backends/kernels/affine_scan/schedules.hpp"

namespace scancheck::mutation {

//! The mutation that changes nothing: mutations derive from it and hide what they change.
struct Unchanged {
  //! Outputs start zeroed (as torch.zeros would leave them) instead of poisoned: for mutants that leave
  //! outputs unwritten, whose runs the host executor would otherwise refuse before any comparison.
  static constexpr bool zero_outputs = false;

  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    ex.launch(name, grid, body);
  }
  template <class Exec>
  void gemm(Exec& ex, const std::string& name, const backends::StridedBatchedGemm& g) {
    ex.gemm(name, g);
  }
};

//! The host executor with a mutation between the launch sequence and the launches. Same interface as
//! backends::HostExecutor, so the production launch sequences take it as they are.
template <class Mutation>
class MutantExecutor {
 public:
  static constexpr const char* name = "host";
  static constexpr int lanes = backends::HostExecutor::lanes;

  explicit MutantExecutor(Mutation mutation) : mutation_(std::move(mutation)) {}

  template <class Body>
  void launch(const std::string& kernel, kernels::Grid grid, const Body& body) {
    mutation_.launch(host_, kernel, grid, body);
  }
  void gemm(const std::string& gemm_name, const backends::StridedBatchedGemm& g) {
    mutation_.gemm(host_, gemm_name, g);
  }

  template <class T>
  T* scratch(std::int64_t n) {
    return host_.template scratch<T>(n);
  }
  template <class T>
  const T* upload(const float* values, std::int64_t n) {
    return host_.template upload<T>(values, n);
  }
  template <class T>
  const T* copy_in(const T* values, std::int64_t n) {
    return host_.copy_in(values, n);
  }
  template <class T>
  T* output(std::int64_t n) {
    T* p = host_.template output<T>(n);
    if constexpr (Mutation::zero_outputs)
      for (std::int64_t i = 0; i < n; ++i) kernels::store<T>(p, i, 0.0f);
    return p;
  }
  template <class T>
  void download(const T* p, std::int64_t n, float* out, const std::string& what) {
    host_.download(p, n, out, what);
  }
  void synchronize() { host_.synchronize(); }

 private:
  backends::HostExecutor host_{1};
  Mutation mutation_;
};

//! A value stored in bfloat16 and read back (round to nearest even, as the kernels' io stores do).
inline float through_bf16(float x) { return kernels::to_float(kernels::to_bf16(x)); }
inline kernels::cfloat through_bf16(kernels::cfloat x) { return {through_bf16(x.re), through_bf16(x.im)}; }

// ---- recognising bodies ------------------------------------------------------------------------------------

//! Whether Body is Template<A, V> (the schedules' bodies: SequentialScan, ChunkSummary, PrefixFold,
//! ChunkReplay over a sequence, GroupLocal, GroupCorrect over a field).
template <class Body, template <class, int> class Template>
inline constexpr bool is_body_v = false;
template <template <class, int> class Template, class A, int V>
inline constexpr bool is_body_v<Template<A, V>, Template> = true;

//! Whether Body is Template<V> (the gated parameter kernels: SoftplusParameters, ColumnBlockSums, ...).
template <class Body, template <int> class Template>
inline constexpr bool is_lane_body_v = false;
template <template <int> class Template, int V>
inline constexpr bool is_lane_body_v<Template<V>, Template> = true;

//! Whether Seq is Template<F, IO> (the sequences: ScanForward, ScanBackward, GatedForward, GatedBackward).
template <class Seq, template <class, class> class Template>
inline constexpr bool is_sequence_v = false;
template <template <class, class> class Template, class F, class IO>
inline constexpr bool is_sequence_v<Template<F, IO>, Template> = true;

// ---- the same schedule body over another sequence ----------------------------------------------------------

//! A scan body with its sequence replaced by decorate(sequence); any other body as it is. `decorate` may
//! return the sequence itself (unchanged) or a decorator: a struct derived from the sequence that hides
//! one of step, initial or emit, so the unchanged body calls the broken member.
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::SequentialScan<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::SequentialScan<decltype(seq), V>{seq};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::ChunkSummary<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::ChunkSummary<decltype(seq), V>{seq, b.chunks, b.A, b.B};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::PrefixFold<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::PrefixFold<decltype(seq), V>{seq, b.count, b.A, b.B, b.state_in};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::ChunkReplay<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::ChunkReplay<decltype(seq), V>{seq, b.chunks, b.state_in};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::ChunkLocalScan<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::ChunkLocalScan<decltype(seq), V>{seq, b.chunks, b.local, b.product, b.A, b.B};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::ChunkTree<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::ChunkTree<decltype(seq), V>{seq, b.chunks, b.tree, b.local, b.product, b.A, b.B};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::PrefixTree<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::PrefixTree<decltype(seq), V>{seq, b.count, b.A, b.B, b.state_in};
}
template <class Seq, int V, class Decorate>
auto map_sequence(const kernels::CarryApply<Seq, V>& b, const Decorate& decorate) {
  auto seq = decorate(b.seq);
  return kernels::CarryApply<decltype(seq), V>{seq, b.chunks, b.local, b.product, b.state_in};
}
template <class Body, class Decorate>
const Body& map_sequence(const Body& b, const Decorate&) {
  return b;
}

//! A mutation that decorates the sequence of every scan launch (both directions, every schedule, the
//! fused_write replay too) with Decorate: a functor from a sequence to itself or to a decorator.
template <class Decorate>
struct SequenceMutation : Unchanged {
  Decorate decorate;
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    ex.launch(name, grid, map_sequence(body, decorate));
  }
};

template <class Decorate>
SequenceMutation<Decorate> decorate_sequences(Decorate decorate) {
  return {{}, std::move(decorate)};
}

}  // namespace scancheck::mutation
