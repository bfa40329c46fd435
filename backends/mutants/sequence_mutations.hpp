// SPDX-License-Identifier: Apache-2.0
//! @file
//! Decorators of the affine sequences (kernels/affine_scan/sequence.hpp, kernels/gated/sequences.hpp): a
//! struct derived from the production sequence that hides one member (step, initial or emit) and calls the
//! production one for everything else, run through the unchanged schedule bodies by map_sequence
//! (mutant_executor.hpp). Contract broken: recurrences.md §1-§3 as noted per decorator.
//!
//!   InitialIgnored          initial() = 0: h0 (forward) or dh_last (backward) never read
//!   DecayNotConjugated      backward decay a_{t+1} where conj(a_{t+1}) belongs (complex kinds)
//!   DaNotConjugated         da_t = g_t h_{t-1} where g_t conj(h_{t-1}) belongs (complex_scan)
//!   Dh0WithoutDecay         dh0 = g_0 where conj(a_0) g_0 belongs (scan kinds)
//!   DecayOneStepEarly       backward decay conj(a_t) where conj(a_{t+1}) belongs
//!   ResetIgnoredInBackward  backward decay a_{t+1} from the gates alone where a reset makes it 0 (fused gated)
//!   QRecomputed<Rule>       the forward's q (hence m = sqrt q and the input u) from a broken rule (fused gated)
//!   SqrtClipAtOneHundredth  D(q) = 1 / max(2 sqrt q, 1/100) where the bound is 1/1000 (fused gated)
//! The gated decorators need the `fused` flag (the scan computes the gates); mutations check it.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "backends/kernels/gated/sequences.hpp"
#include "backends/mutants/mutant_executor.hpp"

namespace scancheck::mutation {

template <class Seq>
struct InitialIgnored : Seq {
  using F = typename Seq::field;
  F initial(std::int64_t, std::int64_t) const { return kernels::zero<F>(); }
};

template <class Seq>
struct DecayNotConjugated : Seq {
  using F = typename Seq::field;
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    kernels::Step<F> st = Seq::step(n, s, c);
    st.decay = kernels::conj(st.decay);  // conj is exact: this undoes the production conj bit for bit
    return st;
  }
};

//! Over ScanBackward: emits as production, then overwrites da.
template <class Seq>
struct DaNotConjugated : Seq {
  using F = typename Seq::field;
  void emit(std::int64_t n, std::int64_t s, std::int64_t c, F grad) const {
    Seq::emit(n, s, c, grad);
    const std::int64_t t = this->time(s), row = n * this->g.length + t;
    const F prev = t > 0 ? kernels::load_channel<F>(this->h, this->g, row - 1, c)
                         : (this->h0 ? kernels::load_channel<F>(this->h0, this->g, n, c) : kernels::zero<F>());
    kernels::store_channel(this->da, this->g, row, c, grad * prev);
  }
};

//! Over ScanBackward: emits as production, then overwrites dh0.
template <class Seq>
struct Dh0WithoutDecay : Seq {
  using F = typename Seq::field;
  void emit(std::int64_t n, std::int64_t s, std::int64_t c, F grad) const {
    Seq::emit(n, s, c, grad);
    if (this->time(s) == 0) kernels::store_channel(this->dh0, this->g, n, c, grad);
  }
};

//! The forward decay a_t of a backward sequence's case (at_t for the gated kinds: zero at a reset).
template <class F, class IO>
F decay_at(const kernels::ScanBackward<F, IO>& seq, std::int64_t n, std::int64_t t, std::int64_t c) {
  return kernels::load_channel<F>(seq.a, seq.g, n * seq.g.length + t, c);
}
template <class F, class IO>
F decay_at(const kernels::GatedBackward<F, IO>& seq, std::int64_t n, std::int64_t t, std::int64_t c) {
  const std::int64_t row = n * seq.g.length + t;
  return seq.fused ? seq.gates.decay(row, c) : seq.at[row * seq.g.channels + c];
}

template <class Seq>
struct DecayOneStepEarly : Seq {
  using F = typename Seq::field;
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    kernels::Step<F> st = Seq::step(n, s, c);
    if (s > 0) st.decay = kernels::conj(decay_at(static_cast<const Seq&>(*this), n, this->time(s), c));
    return st;
  }
};

inline void require_fused(bool fused, const char* mutant) {
  if (!fused) throw std::logic_error(std::string(mutant) + " mutates the fused gated scans: its base must be `fused`");
}

//! Over a fused GatedBackward: where step t+1 resets, the decay carried into g_t is the gates' a_{t+1}
//! (from `without_resets`, the same gates with no segment position at 0) instead of zero.
template <class Seq>
struct ResetIgnoredInBackward : Seq {
  using F = typename Seq::field;
  kernels::GateInputs<F> without_resets;
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    kernels::Step<F> st = Seq::step(n, s, c);
    const std::int64_t next = n * this->g.length + this->time(s) + 1;
    if (s > 0 && this->gates.reset(next)) st.decay = kernels::conj(without_resets.decay(next, c));
    return st;
  }
};

//! Over a fused GatedForward: the production gate terms with q = Rule::q(terms) and m = sqrt(q) (1 at a
//! reset), so the input u = x gx m uses the broken q. The decay is unchanged.
template <class Seq, class Rule>
struct QRecomputed : Seq {
  using F = typename Seq::field;
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    const std::int64_t row = n * this->g.length + s;
    const bool reset = this->gates.reset(row);
    ref::GateTerms<float, F> gt = this->gates.terms(row, c);
    gt.q = Rule::q(gt);
    gt.m = reset ? 1.0f : std::sqrt(gt.q);
    return {reset ? kernels::zero<F>() : gt.a, kernels::gated_input(gt, this->x.template load<F>(row, c))};
  }
};

//! RecurrentGemma's literal q = 1 - exp(2 log_a) in float32 (recurrences.md §5: 0 for every decay within
//! about 6e-8 of 1).
struct LiteralQ {
  template <class Terms>
  static float q(const Terms& gt) {
    return 1.0f - std::exp(2.0f * gt.log_a);
  }
};

//! 1 - |a|^2 in bfloat16 arithmetic: |a|, its square and the difference each rounded to bf16.
struct QInBf16 {
  template <class Terms>
  static float q(const Terms& gt) {
    const float r = through_bf16(gt.r);
    return through_bf16(1.0f - through_bf16(r * r));
  }
};

//! Over a fused GatedBackward, bounded convention: emits as production, then recomputes the gradients dq
//! reaches (dza, the a_param and a_imag_param terms) with the derivative bounded at 2 sqrt(q) >= 1/100.
//! local_gradients with m raised to 1/200 is exactly that: in it m reaches dl (through dq) only by
//! max(2 m, 1/1000), which is then 1/100 as in the broken kernel; dx_direct and dzx are kept.
template <class Seq>
struct SqrtClipAtOneHundredth : Seq {
  using F = typename Seq::field;
  void emit(std::int64_t n, std::int64_t s, std::int64_t c, F grad) const {
    Seq::emit(n, s, c, grad);
    const auto& e = this->element;
    const std::int64_t t = this->time(s), row = n * this->g.length + t, i = row * this->g.channels + c;
    constexpr float half_clip = 0.005f;  // 2 * 0.005f == 1.0f / 100.0f
    ref::GateTerms<float, F> gt = e.gates.terms(row, c);
    const bool reset = e.gates.reset(row);
    if (reset || e.exact_sqrt_gradient || !(gt.m < half_clip)) return;  // the 1/100 clip does not bind
    gt.m = half_clip;
    bool present = false;
    const F product = ref::scan_product(grad, e.previous_state(n, t, c, present));
    const float* imag = e.gates.a_imag ? e.gates.a_imag + c : nullptr;
    const auto lg = ref::local_gradients<float, F>(gt, grad, e.x.template load<F>(row, c), present ? &product : nullptr,
                                                   e.gates.softplus_a[c], imag, reset, false);
    e.dza[i] = lg.dza;
    e.a_param_term[i] = lg.a_param_term;
    if (e.a_imag_term) e.a_imag_term[i] = lg.a_imag_term;
  }
};

}  // namespace scancheck::mutation
