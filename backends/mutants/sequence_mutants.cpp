// SPDX-License-Identifier: Apache-2.0
//! @file
//! Catalogue part: the affine sequences decorated (sequence_mutations.hpp), through the unchanged schedule
//! bodies. Bases: a complex kind for the conj mutants, a `fused` gated base where the decorator recomputes
//! the gates, and otherwise a spread of architectures, schedules and io dtypes.
#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/mutants/catalogue.hpp"
#include "backends/mutants/sequence_mutations.hpp"

namespace scancheck::mutation {
namespace {

//! Decorates the sequences of one direction with Decorator<Seq>.
template <template <class> class Decorator, bool backward>
auto decorate_direction() {
  return decorate_sequences([](const auto& seq) {
    using Seq = std::decay_t<decltype(seq)>;
    if constexpr (Seq::reverse == backward) return Decorator<Seq>{seq};
    else return seq;
  });
}

//! Decorates the sequences that are instances of Sequence<F, IO> with Decorator<Seq>; `fused`: the
//! sequence must compute its gates (the gated sequences), else the run fails with a logic_error.
template <template <class> class Decorator, template <class, class> class Sequence, bool fused = false>
auto decorate_kind(const char* mutant) {
  return decorate_sequences([mutant](const auto& seq) {
    (void)mutant;  // read by the fused instantiations only
    using Seq = std::decay_t<decltype(seq)>;
    if constexpr (is_sequence_v<Seq, Sequence>) {
      if constexpr (fused) require_fused(seq.fused, mutant);
      return Decorator<Seq>{seq};
    } else {
      return seq;
    }
  });
}

template <class Rule>
struct WithQ {
  template <class Seq>
  using type = QRecomputed<Seq, Rule>;
};

//! The fused gated backward carrying g across resets: its decorator reads a_{t+1} from a copy of the gates
//! whose segment positions are all 1 (no reset anywhere).
struct ResetIgnored : Unchanged {
  std::int32_t* no_resets = nullptr;
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    ex.launch(name, grid, map_sequence(body, [&](const auto& seq) {
                using Seq = std::decay_t<decltype(seq)>;
                if constexpr (is_sequence_v<Seq, kernels::GatedBackward>) {
                  require_fused(seq.fused, "reset_ignored_in_backward");
                  if (!no_resets) {
                    const std::int64_t rows = seq.g.batch * seq.g.length;
                    no_resets = ex.template scratch<std::int32_t>(rows);
                    for (std::int64_t i = 0; i < rows; ++i) no_resets[i] = 1;
                  }
                  kernels::GateInputs<typename Seq::field> gates = seq.gates;
                  gates.segment_pos = no_resets;
                  return ResetIgnoredInBackward<Seq>{seq, gates};
                } else {
                  return seq;
                }
              }));
  }
};

}  // namespace

std::vector<Mutant> sequence_mutants() {
  std::vector<Mutant> all;
  all.push_back(make_mutant<Architecture::complex_scan, DType::bfloat16>(
      "h0_ignored", "The forward scan starts from zero instead of the initial state h0.",
      "complex_scan/sequential@bf16", [] { return decorate_direction<InitialIgnored, false>(); }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::bfloat16>(
      "dh_last_ignored", "The backward scan starts from zero instead of dh_last, the cotangent of the final state.",
      "complex_rglru/fused_fused_output_chunk16@bf16", [] { return decorate_direction<InitialIgnored, true>(); }));
  all.push_back(make_mutant<Architecture::scan, DType::bfloat16>(
      "dh0_missing_a0", "The gradient of h0 is g_0 instead of conj(a_0) g_0: the decay of the first step is forgotten.",
      "scan/grouped_prefix64_hierarchical_chunk32@bf16",
      [] { return decorate_kind<Dh0WithoutDecay, kernels::ScanBackward>("dh0_missing_a0"); }));
  all.push_back(make_mutant<Architecture::rglru, DType::bfloat16>(
      "backward_decay_one_step_early",
      "The backward scan multiplies g_{t+1} by a_t where a_{t+1} belongs (an off-by-one in the reversed time index).",
      "rglru/chunk16@bf16", [] { return decorate_direction<DecayOneStepEarly, true>(); }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "backward_decay_not_conjugated", "The complex backward scan propagates g with a_{t+1} instead of conj(a_{t+1}).",
      "complex_rglru/fused_shared_sfu_chunk64@fp32", [] { return decorate_direction<DecayNotConjugated, true>(); }));
  all.push_back(make_mutant<Architecture::complex_scan, DType::bfloat16>(
      "da_not_conjugated", "The complex backward emits da_t = g_t h_{t-1} instead of g_t conj(h_{t-1}).",
      "complex_scan/chunk16@bf16",
      [] { return decorate_kind<DaNotConjugated, kernels::ScanBackward>("da_not_conjugated"); }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "reset_ignored_in_backward",
      "The fused backward recomputes the decay a_{t+1} from the gates without the reset mask, so g flows back across "
      "segment boundaries that the forward cut.",
      "rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32", [] { return ResetIgnored{}; }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "q_literal_float32",
      "q = 1 - exp(2 log_a) evaluated literally in float32 (RecurrentGemma's form): every decay within about 6e-8 of "
      "1 gives q = 0, so the input never reaches the state (recurrences.md §5).",
      "complex_rglru/fused_fused_output_fused_write_chunk32@fp32",
      [] { return decorate_kind<WithQ<LiteralQ>::type, kernels::GatedForward, true>("q_literal_float32"); }));
  all.push_back(make_mutant<Architecture::rglru, DType::bfloat16>(
      "q_in_bf16",
      "q = 1 - a^2 computed in bfloat16 arithmetic: for decays near 1 the square rounds to within a bf16 ulp of 1 "
      "and q loses most or all of its digits.",
      "rglru/fused_grouped_prefix64_hierarchical_chunk16@bf16",
      [] { return decorate_kind<WithQ<QInBf16>::type, kernels::GatedForward, true>("q_in_bf16"); }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "sqrt_clip_at_one_hundredth",
      "The bounded sqrt derivative clips 2 sqrt(q) at 1/100 instead of 1/1000 (maximum gradient 100 instead of "
      "RecurrentGemma's 1000).",
      "rglru/fused_chunk64@fp32", [] {
        return decorate_kind<SqrtClipAtOneHundredth, kernels::GatedBackward, true>("sqrt_clip_at_one_hundredth");
      }));
  return all;
}

}  // namespace scancheck::mutation
