// SPDX-License-Identifier: Apache-2.0
#include "properties/differential.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fnmatch.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/architectures.hpp"
#include "core/error.hpp"
#include "properties/diagnosis.hpp"
#include "properties/element_judgement.hpp"

namespace scancheck {

std::vector<std::string> BackendResult::reasons() const {
  std::vector<std::string> out;
  if (!error.empty()) out.push_back(error);
  for (const std::string& name : missing) out.push_back(fmt::format("{}: missing from the outputs", name));
  for (const std::string& what : misshapen) out.push_back(fmt::format("{}: wrong shape", what));
  for (const TensorResult& t : tensors) out.insert(out.end(), t.verdict.reasons.begin(), t.verdict.reasons.end());
  return out;
}

ReferenceOptions reference_options_with_bounds(int threads, bool strict, Precision precision) {
  ReferenceOptions options;
  options.precision = precision;
  options.threads = threads;
  options.bounds = true;
  options.strict_bounds = strict;
  return options;
}

ReferenceResult reference_with_bounds(const Case& c, int threads, bool strict, Precision precision) {
  return compute_reference(c, reference_options_with_bounds(threads, strict, precision));
}

namespace {

//! "dx: 3 elements (worst 41 at [0, 5, 2]) ... not within 4 times that of scancheck's own": accuracy within
//! the accepted formulations' bound that a better formulation keeps.
std::optional<std::string> accuracy_note(const std::string& name, const Tensor<float>& got, const Tensor<double>& exact,
                                         const Tensor<double>& strict_bound, const Tensor<std::uint8_t>* covered,
                                         const TolerancePolicy& policy) {
  std::int64_t count = 0, worst_at = -1;
  double worst = 0;
  const ElementSource elements{&got, &exact, &strict_bound, covered};
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const ElementJudgement e = elements(i);
    if (e.kind != ElementKind::finite || !(e.ratio > policy.bound_factor)) continue;  // mismatches fail already
    ++count;
    if (e.ratio > worst) worst = e.ratio, worst_at = i;
  }
  if (count == 0) return std::nullopt;
  return fmt::format(
      "{}: {} element(s) (worst {:.3g} bounds at {}) are within the accepted formulations' bound but "
      "not within {:g} times that of scancheck's own (in any evaluation order): accuracy a better "
      "formulation keeps (sigma' as sigma(z) sigma(-z), not sigma (1 - sigma), where a gate "
      "saturates; exp(2 log a) itself, not 1 + expm1, where a decay is tiny; no flushing of "
      "subnormals)",
      name, count, worst, index_string(got.dims(), worst_at), policy.bound_factor);
}

}  // namespace

BackendResult judge_outputs(std::string name, const Case& c, const Outputs& got, const ReferenceResult& reference,
                            const CorrectOrders* orders, const TolerancePolicy& policy,
                            const std::vector<Direction>& passes, const std::vector<std::string>& omits) {
  BackendResult r;
  r.backend = std::move(name);
  r.passes = passes;
  r.omits = omits;
  // The strict bounds tell the ensemble rule which elements an accepted formulation may widen; a reference
  // without them (fuzz's) gets them only for a run the rule would otherwise fail.
  std::optional<ReferenceResult> with_strict;
  const auto strict_bound = [&](const std::string& tensor) -> const Tensor<double>* {
    if (reference.strict_bounds.empty() && !with_strict) with_strict = reference_with_bounds(c, 0, /*strict=*/true);
    const ReferenceResult& strict = reference.strict_bounds.empty() ? *with_strict : reference;
    const auto it = strict.strict_bounds.find(tensor);
    return it == strict.strict_bounds.end() ? nullptr : &it->second;
  };
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) {
    if (std::find(passes.begin(), passes.end(), spec.direction) == passes.end()) continue;
    if (std::find(omits.begin(), omits.end(), spec.name) != omits.end()) continue;
    const auto it = got.find(spec.name);
    if (it == got.end()) {
      r.missing.push_back(spec.name);
      r.pass = false;
      continue;
    }
    if (it->second.dims() != spec.dims || it->second.size() != element_count(spec.dims)) {
      r.misshapen.push_back(
          fmt::format("{}: {} instead of {}", spec.name, to_string(it->second.dims()), to_string(spec.dims)));
      r.pass = false;
      continue;
    }
    TensorComparison in;
    in.name = spec.name;
    in.dtype = stored_dtype(c, spec.name);
    in.got = &it->second;
    in.exact = &reference.values.at(spec.name);
    if (const auto b = reference.bounds.find(spec.name); b != reference.bounds.end()) in.bound = &b->second;
    if (const auto cv = reference.covered.find(spec.name); cv != reference.covered.end()) in.covered = &cv->second;
    if (const auto strict = reference.strict_bounds.find(spec.name); strict != reference.strict_bounds.end())
      in.strict_bound = &strict->second;
    const auto every_order = static_cast<std::int64_t>(ensemble_members(c.architecture).size());
    if (orders) {
      // With the strict bounds at hand (reports, check, verify: a case judged for many backends, or one a user
      // reads the detection threshold of), the whole ensemble at once, run once per case. Without (a fuzz
      // case, judged for one backend), the other orders only for a run beyond the sequential order's.
      const bool all = !reference.strict_bounds.empty();
      in.baseline = &orders->sequential.at(spec.name);
      in.ensemble_profile = orders->profile(c, in, all);
      in.ensemble_orders = all ? every_order : 1;
      in.bound_scale = &orders->bound_scale(in);
    }
    TensorResult t{compare_tensor(in), {}};
    if (orders && in.ensemble_orders == 1 && distribution_excess(t.metrics, policy)) {  // ask every order
      in.strict_bound = strict_bound(spec.name);
      in.ensemble_profile = orders->profile(c, in, /*every_order=*/true);
      in.ensemble_orders = every_order;
      t.metrics = compare_tensor(in);
    }
    t.verdict = judge(t.metrics, policy);
    if (const auto strict = reference.strict_bounds.find(spec.name);
        t.verdict.pass && strict != reference.strict_bounds.end())
      if (auto note = accuracy_note(spec.name, it->second, *in.exact, strict->second, in.covered, policy)) {
        if (policy.strict) {
          t.verdict.pass = false;
          t.verdict.reasons.push_back(fmt::format("{} (--strict)", *note));
        }
        r.notes.push_back(std::move(*note));
      }
    r.pass = r.pass && t.verdict.pass;
    r.tensors.push_back(std::move(t));
  }
  r.verdict = r.pass ? Verdict::pass : Verdict::fail;
  return r;
}

BackendResult failed_run(const BackendInfo& backend, const BackendError& e) {
  BackendResult failed;
  failed.backend = backend.name;
  failed.pass = false;
  failed.verdict = verdict_of(e.kind);
  failed.error = e.what();
  failed.log = e.log;
  failed.attempted = e.attempted;
  failed.passes = backend.passes;
  failed.omits = backend.omits;
  return failed;
}

namespace {

//! The outputs of built-in `variant` on `c`, a log-form case through its linear twin (correct_orders).
Outputs outputs_in_order(const Case& c, const EnsembleMember& member) {
  const BackendInfo order = builtin_variant_backend(c.architecture, *parse_variant(member.variant), c.io_dtype);
  if (c.decays == DecaySpace::linear) return run_builtin_on_host(order, c, member.gemm);
  Case twin = c;
  twin.decays = DecaySpace::linear;
  auto log_a = twin.tensors.extract(std::string(decay_input(c.decays)));
  for (float& v : log_a.mapped().values()) v = round_to(c.io_dtype, std::exp(v));
  const Tensor<float>& a = twin.tensors.emplace("a", std::move(log_a.mapped())).first->second;
  Outputs out = run_builtin_on_host(order, twin, member.gemm);
  auto da = out.extract("da");
  if (da.empty()) return out;
  for (std::int64_t i = 0; i < a.size(); ++i) da.mapped()[i] *= a[i];
  da.key() = "dlog_a";
  out.insert(std::move(da));
  return out;
}

}  // namespace

const std::vector<EnsembleMember>& ensemble_members(Architecture architecture) {
  // The deepest tree production kernels build (Blelloch's, over sequences of up to 4096 steps) is the
  // order whose errors grow most; the others are the registered orders of production kernels, and for the
  // gated layers GEMMs that add one product at a time (a GPU GEMM's thread, a naive loop) forwards and
  // backwards: a cancelling sum rounds unlike Eigen's blocked one, and which end its large partial sums
  // sit at decides how much (tests/mutation/ensemble_rule_test.cpp: one direction alone misses cases).
  static const std::vector<EnsembleMember> scans{{"sequential"},
                                                 {"chunk64"},
                                                 {"local_chunk64"},
                                                 {"tree_chunk32"},
                                                 {"grouped_prefix32_hierarchical_chunk16"},
                                                 {"blelloch_chunk4096"}};
  static const std::vector<EnsembleMember> gated_layers = [] {
    std::vector<EnsembleMember> members = scans;
    members.push_back({"sequential", backends::GemmOrder::ascending_k});
    members.push_back({"sequential", backends::GemmOrder::descending_k});
    return members;
  }();
  return describe(architecture).family == Family::gated_layer ? gated_layers : scans;
}

std::string correct_orders_description() {
  std::vector<std::string> variants;
  for (const EnsembleMember& m : ensemble_members(Architecture::scan)) variants.push_back(m.variant);
  return fmt::format(
      "scancheck's own float32 evaluations of the same case on the host executor: the same-precision sequential "
      "backend of the architecture (the baseline ratio's) and the ensemble of the ensemble rule, the built-in "
      "variants {} of the case's architecture and io dtype, and for the gated layers the sequential variant "
      "again with its gate GEMMs summed one product at a time, in ascending and in descending order",
      fmt::join(variants, ", "));
}

CorrectOrders correct_orders(const Case& c) {
  CorrectOrders orders;
  orders.sequential = outputs_in_order(c, ensemble_members(c.architecture).front());
  return orders;
}

ErrorProfile CorrectOrders::profile(const Case& c, const TensorComparison& in, bool every_order) const {
  const auto key = std::make_tuple(in.name, in.strict_bound != nullptr, every_order);
  if (const auto it = profiles_.find(key); it != profiles_.end()) return it->second;
  ErrorProfile worst = error_profile(in, sequential.at(in.name));
  if (every_order)
    for (const Outputs& other : others(c)) worst = worst_of(worst, error_profile(in, other.at(in.name)));
  return profiles_.emplace(key, worst).first->second;
}

const std::optional<BoundScale>& CorrectOrders::bound_scale(const TensorComparison& in) const {
  if (const auto it = scales_.find(in.name); it != scales_.end()) return it->second;
  return scales_.emplace(in.name, scancheck::bound_scale(in)).first->second;
}

const std::vector<Outputs>& CorrectOrders::others(const Case& c) const {
  if (!others_) {
    others_.emplace();
    const auto& members = ensemble_members(c.architecture);
    for (auto m = members.begin() + 1; m != members.end(); ++m) others_->push_back(outputs_in_order(c, *m));
  }
  return *others_;
}

namespace {

//! The pattern of the failing elements, and what re-runs without dh_last or h0 show.
std::vector<std::string> diagnosis_of(const BackendInfo& b, const Case& c, const Outputs& got,
                                      const ReferenceResult& reference, Executor executor,
                                      const TolerancePolicy& policy) {
  std::vector<std::string> out =
      diagnose(c, got, reference, policy, b.builtin ? std::optional(b.builtin->schedule) : std::nullopt);
  const auto passes = [&](const Case& d) {
    try {
      const CorrectOrders orders = correct_orders(d);
      return judge_outputs(b.name, d, run_backend(b, d, executor), reference_with_bounds(d), &orders, policy, b.passes,
                           b.omits)
          .pass;
    } catch (const std::exception&) {
      return false;  // a re-run that fails to run tells nothing
    }
  };
  // A counterfactual (the run passes without dh_last, with constant decays) names a bug class: only for
  // errors no correct kernel comes near.
  if (worst_bound_ratio(c, got, reference, policy) > gross_error_factor)
    for (std::string& line : counterfactual_diagnosis(c, passes)) out.push_back(std::move(line));
  return out;
}

//! The tensors whose error distribution breaks the ensemble rule, in a user's words: accuracy a formulation
//! loses everywhere, which no single element shows. "accuracy lost on every element: y 26.1x, dx 69.4x the
//! typical error of any correct float32 order; ...".
std::optional<std::string> accuracy_loss_diagnosis(const BackendResult& r, const TolerancePolicy& policy) {
  std::vector<std::string> typical, tail;
  for (const TensorResult& t : r.tensors)
    if (const std::optional<DistributionExcess> e = distribution_excess(t.metrics, policy))
      (e->typical ? typical : tail)
          .push_back(e->orders > 0
                         ? fmt::format("{} {:.3g}x", t.metrics.name, e->got / e->orders)
                         : fmt::format("{} {:.3g} bounds where every order is exact", t.metrics.name, e->got));
  if (typical.empty() && tail.empty()) return std::nullopt;
  std::vector<std::string> parts;
  if (!typical.empty())
    parts.push_back(fmt::format("accuracy lost on every element: {} the typical error of any correct float32 order",
                                fmt::join(typical, ", ")));
  if (!tail.empty())
    parts.push_back(fmt::format("accuracy lost on many elements: {} the tail (p90) of any correct float32 order",
                                fmt::join(tail, ", ")));
  const bool within_the_bound = std::all_of(r.tensors.begin(), r.tensors.end(), [&](const TensorResult& t) {
    return t.metrics.nonfinite_mismatches == 0 && t.metrics.bound_ratio.value_or(0) <= policy.bound_factor;
  });
  if (!within_the_bound) return fmt::format("{}", fmt::join(parts, "; "));
  return fmt::format(
      "{}; every element within what the worst case admits, so a formulation that rounds more than "
      "the recurrence needs (softplus as log(1 + exp(z)), q as 1 - a^2, a gate kept in bfloat16, exp "
      "of a summed log decay), not a bug at one step",
      fmt::join(parts, "; "));
}

}  // namespace

std::vector<BackendResult> check_backends(const Case& c, const std::vector<const BackendInfo*>& backends,
                                          Executor executor, const ReferenceResult& reference,
                                          const TolerancePolicy& policy,
                                          const std::function<void(const BackendResult&)>& judged, bool diagnose) {
  return check_backends(
      c, backends, executor, [&reference]() -> const ReferenceResult& { return reference; }, policy, judged, diagnose);
}

std::vector<BackendResult> check_backends(const Case& c, const std::vector<const BackendInfo*>& backends,
                                          Executor executor, const ReferenceWhenReady& reference,
                                          const TolerancePolicy& policy,
                                          const std::function<void(const BackendResult&)>& judged, bool diagnose) {
  const CorrectOrders orders = correct_orders(c);
  std::vector<std::optional<Outputs>> outputs(backends.size());
  std::vector<std::optional<BackendResult>> failures(backends.size());
  for (std::size_t k = 0; k < backends.size(); ++k) {
    try {
      outputs[k] = run_backend(*backends[k], c, executor);
    } catch (const BackendError& e) {
      failures[k] = failed_run(*backends[k], e);
    }
  }
  std::vector<BackendResult> results;
  for (std::size_t k = 0; k < backends.size(); ++k) {
    const BackendInfo& b = *backends[k];
    if (failures[k]) {
      results.push_back(std::move(*failures[k]));
    } else {
      const Outputs& got = *outputs[k];
      results.push_back(judge_outputs(b.name, c, got, reference(), &orders, policy, b.passes, b.omits));
      if (diagnose && !results.back().pass) {
        results.back().diagnosis = diagnosis_of(b, c, got, reference(), executor, policy);
        if (auto loss = accuracy_loss_diagnosis(results.back(), policy))
          results.back().diagnosis.push_back(std::move(*loss));
        results.back().strip =
            error_strip(c, got, reference(), policy, b.builtin ? std::optional(b.builtin->schedule) : std::nullopt);
      }
      outputs[k].reset();
    }
    if (judged) judged(results.back());
  }
  return results;
}

BackendResult verify_outputs(std::string name, const Case& c, const Outputs& candidate, const TolerancePolicy& policy,
                             int threads) {
  const ReferenceResult reference = reference_with_bounds(c, threads, /*strict=*/true);  // with its notes
  const CorrectOrders orders = correct_orders(c);
  return judge_outputs(std::move(name), c, candidate, reference, &orders, policy);
}

namespace {

//! The globs of one {a,b,...} alternation (fnmatch has none): "x{a,b}y" -> "xay", "xby".
std::vector<std::string> alternatives(std::string_view glob) {
  const auto open = glob.find('{'), close = glob.find('}', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return {std::string(glob)};
  std::vector<std::string> out;
  const std::string_view head = glob.substr(0, open), tail = glob.substr(close + 1);
  const std::string_view list = glob.substr(open + 1, close - open - 1);
  for (std::size_t start = 0;;) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    out.push_back(fmt::format("{}{}{}", head, list.substr(start, comma - start), tail));
    if (comma == list.size()) return out;
    start = comma + 1;
  }
}

}  // namespace

bool backend_name_matches(std::string_view glob, const std::string& name) {
  const std::vector<std::string> patterns = alternatives(glob);
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), name.c_str(), 0) == 0; });
}

std::vector<const BackendInfo*> match_backends(std::string_view glob) {
  std::vector<const BackendInfo*> out;
  for (const BackendInfo& b : registry())
    if (backend_name_matches(glob, b.name)) out.push_back(&b);
  if (out.empty()) throw InputError(fmt::format("no backend matches '{}' (scancheck list shows every backend)", glob));
  return out;
}

namespace {

std::string indented(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '\n' ? std::string("\n    ") : std::string(1, ch);
  return out;
}

}  // namespace

namespace {

//! "37 / 1.9": the detection threshold's ulps at the typical element, rule 2's / rule 4's ("-" where absent).
std::string detects(const std::optional<DetectionThreshold>& d) {
  if (!d) return "-";
  return fmt::format("{:.2g} / {}", d->certainty.ulps,
                     d->distribution ? fmt::format("{:.2g}", d->distribution->ulps) : std::string("-"));
}

}  // namespace

std::string format_result(const BackendResult& r) {
  std::string verdict(to_string(r.verdict));
  std::transform(verdict.begin(), verdict.end(), verdict.begin(), [](unsigned char ch) { return std::toupper(ch); });
  std::string s = fmt::format("{}: {}{}{}\n", r.backend, verdict,
                              r.passes.size() == 1 ? " (forward only: gradients not checked)" : "",
                              r.omits.empty() ? "" : fmt::format(" (not computed: {})", fmt::join(r.omits, ", ")));
  if (!r.error.empty()) {
    s += "  " + r.error + "\n";
    if (!r.log.empty()) s += "  its stderr ends:\n    " + indented(r.log) + "\n";
    return s;
  }
  // The error in units of each element's own bound first: it is what the verdict reads (max ULP is large for
  // correct backends wherever an exact value cancels to near zero).
  // "typical x": the typical element's error over that of the worst correct order (the ensemble rule's p50).
  // "detects": the smallest error that fails at the typical element, in ulps, by rule 2 (on one element) / by
  // rule 4 (on half the elements): what the verdict could have seen (policy.hpp, DetectionThreshold).
  s += fmt::format("  {:<16} {:>9} {:>9} {:>9} {:>10} {:>10} {:>8} {:>8} {:>9} {:>15}  {}\n", "tensor", "err/bound",
                   "typical x", "base x", "max abs", "max rel", "ulp p50", "ulp p99", "ulp max", "detects (ulp)",
                   "verdict");
  const auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.3g}", *v) : std::string("-"); };
  const auto typical = [](const TensorMetrics& m) -> std::optional<double> {
    if (!m.profile || !m.ensemble_profile || m.ensemble_profile->p50 == 0) return std::nullopt;
    return m.profile->p50 / m.ensemble_profile->p50;
  };
  for (const TensorResult& t : r.tensors) {
    const TensorMetrics& m = t.metrics;
    s += fmt::format("  {:<16} {:>9} {:>9} {:>9} {:>10.3g} {:>10.3g} {:>8.3g} {:>8.3g} {:>9.3g} {:>15}  {}\n", m.name,
                     opt(m.bound_ratio), opt(typical(m)), opt(m.baseline_ratio), m.max_abs, m.max_rel, m.ulp_p50,
                     m.ulp_p99, m.ulp_max, detects(t.verdict.detection), t.verdict.pass ? "pass" : "FAIL");
  }
  for (const std::string& why : r.reasons()) s += "  " + why + "\n";
  for (const std::string& where : r.diagnosis) s += "  where: " + where + "\n";
  for (const std::string& note : r.notes) s += "  note: " + note + "\n";
  return s;
}

std::string format_check(const Case& c, const std::string& source, const std::vector<BackendResult>& results) {
  std::string s = fmt::format("{}: {} {} io={} sqrt_gradient={}\n", source, to_string(c.architecture),
                              to_string(c.shape), to_string(c.io_dtype), to_string(c.sqrt_gradient));
  std::size_t failed = 0;
  for (const BackendResult& r : results) {
    s += format_result(r);
    failed += r.pass ? 0 : 1;
  }
  s += "detects (ulp): the smallest error at the typical element that fails, on any one element by the bound rule / "
       "on half of the elements by the ensemble rule\n";
  return s + fmt::format("verdict: {} ({} checked, {} failed)\n", failed ? "FAIL" : "PASS", results.size(), failed);
}

}  // namespace scancheck
