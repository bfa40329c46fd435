// SPDX-License-Identifier: Apache-2.0
//! @file
//! Mutations that change how a gated kernel formulates its per-element math, not what it computes: each is a
//! textbook rewriting that rounds more than the recurrence needs (recurrences.md §2, §3, §5). They lose accuracy
//! a little on every element rather than O(1) at one step, so most pass the worst-case bound and are the
//! ensemble rule's to catch (formulation_losses(), mutants.hpp).
//!
//!   LogOfSigmoid              s = softplus(a_param) as -log(sigma(-a_param)) of a float32 sigmoid
//!   GateTermsRecomputed<Rule> the gate terms of every fused gated sequence (forward step, backward decay and
//!                             local gradients, the fused_write replay) passed through Rule first:
//!     QFromSquare               q = 1 - |a|^2 in float32 from |a| = exp(log_a)
//!     SigmoidDerivativeOneMinus sigma'(z) = sigma (1 - sigma)
//!     RecurrenceGateInBf16      the recurrence gate sigma(za) rounded to bfloat16
//!     CumulativeLogDecay        the decay's modulus exp(G_t - G_{t-1}), G the float32 cumulative sum of log_a
//!     AsProduction              nothing: the control, bitwise the base (formulation_loss_test)
//! The decorators re-derive the gate terms as the production sequences do (kernels/gated/sequences.hpp) and
//! apply the rule, so a rule that changes nothing reproduces the base bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/kernels/gated/elementwise.hpp"
#include "backends/mutants/mutant_executor.hpp"
#include "backends/mutants/sequence_mutations.hpp"

namespace scancheck::mutation {

// ---- the parameter kernel ----------------------------------------------------------------------------------

//! Griffin writes the decay as a = sigma(Lambda)^(c r), so log a = c r log sigma(Lambda); with Lambda = -a_param
//! that is -c r softplus(a_param). A kernel taking the log of a float32 sigmoid (torch.log(torch.sigmoid(x))
//! where logsigmoid belongs) gets sigma(-a_param) rounded towards 1 for decays near 1, and its log keeps that
//! rounding: an absolute error of up to 2^-24 in s, which is 1e-5 .. 1e-3 for long-memory decays.
template <int V>
struct LogOfSigmoidParameters {
  kernels::SoftplusParameters<V> production;
  void operator()(kernels::ProgramId p) const {
    const kernels::Lanes c = kernels::Lanes::of<V>(p.x, production.channels);
    for (std::int64_t l = 0; l < c.count; ++l) {
      const float z = production.a_param[c.first + l];
      production.s[c.first + l] = -std::log(ref::sigmoid(-z));
    }
  }
};

struct LogOfSigmoid : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_lane_body_v<Body, kernels::SoftplusParameters>) ex.launch(name, grid, of_sigmoid(body));
    else ex.launch(name, grid, body);
  }
  template <int V>
  static LogOfSigmoidParameters<V> of_sigmoid(const kernels::SoftplusParameters<V>& b) {
    return {b};
  }
};

// ---- the gate terms through a rule -------------------------------------------------------------------------

//! The production gate terms of element (row, c), then the rule: what every decorator below evaluates where
//! the production sequence calls gates.terms(row, c).
template <class F, class Rule>
ref::GateTerms<float, F> terms_by(const kernels::GateInputs<F>& gates, const Rule& rule, std::int64_t row,
                                  std::int64_t c) {
  ref::GateTerms<float, F> gt = gates.terms(row, c);
  rule(gt, gates, row, c);
  return gt;
}

//! Over a fused GatedForward: its step with the rule's gate terms (the decay zero at a reset, as production).
template <class Seq, class Rule>
struct ForwardByRule : Seq {
  using F = typename Seq::field;
  Rule rule;
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    const std::int64_t row = n * this->g.length + s;
    const ref::GateTerms<float, F> gt = terms_by(this->gates, rule, row, c);
    return {this->gates.reset(row) ? kernels::zero<F>() : gt.a,
            kernels::gated_input(gt, this->x.template load<F>(row, c))};
  }
};

//! Over a fused GatedBackward: the decay a_{t+1} and the local gradients (GradientElement::operator(), line for
//! line) from the rule's gate terms.
template <class Seq, class Rule>
struct BackwardByRule : Seq {
  using F = typename Seq::field;
  Rule rule;
  kernels::Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    kernels::Step<F> st = Seq::step(n, s, c);
    const std::int64_t next = n * this->g.length + this->time(s) + 1;
    if (s > 0 && !this->gates.reset(next)) st.decay = kernels::conj(terms_by(this->gates, rule, next, c).a);
    return st;
  }
  void emit(std::int64_t n, std::int64_t s, std::int64_t c, F grad) const {
    const auto& e = this->element;
    const std::int64_t t = this->time(s), row = n * this->g.length + t, i = row * this->g.channels + c;
    const bool reset = e.gates.reset(row);
    const ref::GateTerms<float, F> gt = terms_by(e.gates, rule, row, c);
    bool present = false;
    const F product = ref::scan_product(grad, e.previous_state(n, t, c, present));
    const float* imag = e.gates.a_imag ? e.gates.a_imag + c : nullptr;
    const auto lg = ref::local_gradients<float, F>(gt, grad, e.x.template load<F>(row, c), present ? &product : nullptr,
                                                   e.gates.softplus_a[c], imag, reset, e.exact_sqrt_gradient);
    e.dx.store(row, c, lg.dx_direct);
    e.dzx[i] = lg.dzx;
    e.dza[i] = lg.dza;
    e.a_param_term[i] = lg.a_param_term;
    if (e.a_imag_term) e.a_imag_term[i] = lg.a_imag_term;
    if (t == 0) e.dh0.store(n, c, reset ? kernels::zero<F>() : kernels::conj(gt.a) * grad);
  }
};

//! Decorates every fused gated sequence with the rule. Before the first one, rule.prepare(ex, seq) may
//! compute what the rule reads (in executor scratch: the cumulative sums); the base must be `fused`.
template <class Rule>
struct GateTermsRecomputed : Unchanged {
  Rule rule;
  const char* mutant;
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    ex.launch(name, grid, map_sequence(body, [&](const auto& seq) {
                using Seq = std::decay_t<decltype(seq)>;
                if constexpr (is_sequence_v<Seq, kernels::GatedForward>) {
                  require_fused(seq.fused, mutant);
                  rule.prepare(ex, seq.gates, seq.g);
                  return ForwardByRule<Seq, Rule>{seq, rule};
                } else if constexpr (is_sequence_v<Seq, kernels::GatedBackward>) {
                  require_fused(seq.fused, mutant);
                  rule.prepare(ex, seq.gates, seq.g);
                  return BackwardByRule<Seq, Rule>{seq, rule};
                } else {
                  return seq;
                }
              }));
  }
};

template <class Rule>
GateTermsRecomputed<Rule> recompute_gate_terms(Rule rule, const char* mutant) {
  return {{}, std::move(rule), mutant};
}

//! A rule that needs nothing computed beforehand.
struct StatelessRule {
  template <class Exec, class F>
  void prepare(Exec&, const kernels::GateInputs<F>&, const kernels::ScanGeometry&) {}
};

struct AsProduction : StatelessRule {
  template <class F>
  void operator()(ref::GateTerms<float, F>&, const kernels::GateInputs<F>&, std::int64_t, std::int64_t) const {}
};

//! q = 1 - |a|^2 with |a| = exp(log_a) rounded to float32 first (the textbook 1 - a^2, in the forward's
//! normalisation and in the backward's m alike): |a| and |a|^2 round by about 2^-24 absolute, so q errs by about
//! 2^-23 / q relative where -expm1(2 log_a) keeps a few ulps; q is 0 for decays within 3e-8 of 1.
struct QFromSquare : StatelessRule {
  template <class F>
  void operator()(ref::GateTerms<float, F>& gt, const kernels::GateInputs<F>& gates, std::int64_t row,
                  std::int64_t) const {
    gt.q = 1.0f - gt.r * gt.r;
    gt.m = gates.reset(row) ? 1.0f : std::sqrt(gt.q);
  }
};

//! sigma'(z) = sigma (1 - sigma) for both gates: 1 - sigma cancels once sigma rounds towards 1 (an accepted
//! formulation: the bound admits 2^-23 sigma^2, docs/tolerance.md "Accepted formulations").
struct SigmoidDerivativeOneMinus : StatelessRule {
  template <class F>
  void operator()(ref::GateTerms<float, F>& gt, const kernels::GateInputs<F>&, std::int64_t, std::int64_t) const {
    gt.gx_minus = 1.0f - gt.gx;
    gt.ga_minus = 1.0f - gt.ga;
  }
};

//! The recurrence gate r = sigma(za) as it would arrive from a bfloat16 projection and sigmoid (autocast): its
//! value rounded to bfloat16 wherever it is used (the decay, q, the gradients through -8 r s and r a_imag),
//! its derivative sigma(za) sigma(-za) from the float32 pair as the kernel computes it.
struct RecurrenceGateInBf16 : StatelessRule {
  template <class F>
  void operator()(ref::GateTerms<float, F>& gt, const kernels::GateInputs<F>& gates, std::int64_t row,
                  std::int64_t c) const {
    gt.ga = through_bf16(gt.ga);
    const float* imag = gates.a_imag ? gates.a_imag + c : nullptr;
    const ref::DecayTerms<float, F> d =
        gates.shared_sfu ? ref::decay_terms<float, F, ref::DecayForm::shared_sfu>(gt.ga, gates.softplus_a[c], imag)
                         : ref::decay_terms<float, F>(gt.ga, gates.softplus_a[c], imag);
    gt.log_a = d.log_a;
    gt.r = d.r;
    gt.q = d.q;
    gt.a = d.a;
    gt.m = gates.reset(row) ? 1.0f : std::sqrt(d.q);
  }
};

//! A kernel that works from cumulative log decays (Mamba- and GLA-style chunked kernels): G_t = log_a_0 + ... +
//! log_a_t summed in float32 along the whole sequence (each batch entry and channel apart), and every decay's
//! modulus exp(G_t - G_{t-1}). G_t rounds to u |G_t|, so each step's log decay errs by about u |sum log a|
//! absolute where its own rounding is u |log_a_t|: a relative error of the decays that grows with the summed
//! log decay. The phase, q and m keep the step's own log_a, which such a kernel also has.
struct CumulativeLogDecay {
  const float* cumulative = nullptr;  // [N, Wc], in executor scratch
  std::int64_t length = 0;

  template <class Exec, class F>
  void prepare(Exec& ex, const kernels::GateInputs<F>& gates, const kernels::ScanGeometry& g) {
    if (cumulative) return;
    float* sums = ex.template scratch<float>(g.batch * g.length * g.channels);
    for (std::int64_t n = 0; n < g.batch; ++n)
      for (std::int64_t c = 0; c < g.channels; ++c) {
        float sum = 0.0f;
        for (std::int64_t t = 0; t < g.length; ++t) {
          const std::int64_t row = n * g.length + t;
          sum += gates.terms(row, c).log_a;
          sums[row * g.channels + c] = sum;
        }
      }
    cumulative = sums;
    length = g.length;
  }

  template <class F>
  void operator()(ref::GateTerms<float, F>& gt, const kernels::GateInputs<F>& gates, std::int64_t row,
                  std::int64_t c) const {
    const std::int64_t i = row * gates.channels + c;
    const float step = row % length == 0 ? cumulative[i] : cumulative[i] - cumulative[i - gates.channels];
    const float r = std::exp(step);
    if constexpr (ref::has_imaginary_v<F>) {
      const float phi = gates.a_imag[c] * gt.ga;
      gt.a = F{r * std::cos(phi), r * std::sin(phi)};
    } else {
      gt.a = r;
    }
  }
};

}  // namespace scancheck::mutation
