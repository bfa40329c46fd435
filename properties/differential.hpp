// SPDX-License-Identifier: Apache-2.0
//! @file
//! One case against one or many backends: the reference (with its error bounds) computed once, the
//! same-precision `sequential` baseline run once, every backend run and each of its output tensors compared
//! (compare.hpp) and judged (policy.hpp). What `scancheck check`, `verify` and `fuzz`, the property tests
//! and the mutation test share.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "backends/backend.hpp"
#include "properties/compare.hpp"
#include "properties/diagnosis.hpp"
#include "properties/policy.hpp"
#include "properties/verdict.hpp"
#include "reference/reference.hpp"

namespace scancheck {

struct TensorResult {
  TensorMetrics metrics;
  TensorVerdict verdict;
};

struct BackendResult {
  std::string backend;  //!< a backend name, or "candidate" for verify
  bool pass = true;     //!< verdict == Verdict::pass
  Verdict verdict = Verdict::pass;
  std::string error;                   //!< the run failed (BackendError): the message; no tensors then
  std::string log;                     //!< a worker's last stderr lines, when its run failed
  bool attempted = true;               //!< false: not run at all (its worker was given up)
  std::vector<std::string> missing;    //!< outputs of its passes the run did not produce
  std::vector<std::string> misshapen;  //!< outputs of the wrong shape: "dx: [2, 3] instead of [2, 3, 4]"
  std::vector<TensorResult> tensors;   //!< in tensor_layout order
  std::vector<Direction> passes{Direction::forward, Direction::backward};  //!< the passes judged
  std::vector<std::string> omits;      //!< gradients the backend declares it does not compute: not judged
  std::vector<std::string> diagnosis;  //!< where a failing run goes wrong (diagnosis.hpp), when asked for
  //! Accuracy a passing run loses that a better formulation keeps (with the reference's strict bounds);
  //! never a failure unless the policy is strict, then also in the tensor's reasons.
  std::vector<std::string> notes;
  std::optional<ErrorStrip> strip;           //!< with the diagnosis: the worst failing tensor over (t, w)
  std::vector<std::string> reasons() const;  //!< every failed rule, missing and misshapen tensor, one line each
};

//! The reference of `c` with bounds, on `threads` threads (0: all); `strict` adds the strict bounds (notes).
//! Tiered by default: double certified element by element, float128 where it is not (reference.hpp).
ReferenceResult reference_with_bounds(const Case& c, int threads = 0, bool strict = false,
                                      Precision precision = Precision::tiered);
//! The options it uses.
ReferenceOptions reference_options_with_bounds(int threads = 0, bool strict = false,
                                               Precision precision = Precision::tiered);

//! scancheck's own float32 evaluations of one case in the evaluation orders correct kernels use: what a run
//! is measured against beside the exact reference. `sequential` is the baseline of FlashAttention's rule;
//! the ensemble (the sequential order, chunks with the carry fed in, chunk-local scans plus the carry, a
//! Kogge-Stone tree per chunk, the hierarchical prefix, Blelloch's tree over the whole sequence, and for the
//! gated layers the sequential order with gate GEMMs summed one product at a time, forwards and backwards:
//! ensemble_members) is what
//! the ensemble rule compares a run's error distribution with (policy.hpp). The
//! orders beside the sequential one run on first request only: a run within the rule's factor of the
//! sequential order's distribution passes whatever the others give, and correct runs nearly always are.
struct CorrectOrders {
  Outputs sequential;
  //! The rest of the ensemble on `c`, the case `sequential` was run on; run on the first call. Not
  //! thread-safe: one judging thread per case, as check_backends has.
  const std::vector<Outputs>& others(const Case& c) const;
  //! The largest error profile of the sequential order, or of every order, under the comparison `in` of one
  //! of c's tensors; computed once per tensor and element set for every backend judged on the case.
  ErrorProfile profile(const Case& c, const TensorComparison& in, bool every_order) const;
  //! The reference's BoundScale of the tensor `in` compares (compare.hpp), once per tensor for every backend
  //! judged on the case: the detection threshold's scale, a property of the reference alone.
  const std::optional<BoundScale>& bound_scale(const TensorComparison& in) const;

 private:
  mutable std::optional<std::vector<Outputs>> others_;
  mutable std::map<std::tuple<std::string, bool, bool>, ErrorProfile> profiles_;
  mutable std::map<std::string, std::optional<BoundScale>> scales_;
};

//! One evaluation order of the ensemble: a built-in variant, its gate GEMMs (gated layers) summed in `gemm`.
struct EnsembleMember {
  std::string variant;
  backends::GemmOrder gemm = backends::GemmOrder::library;
};

//! The orders whose outputs make the ensemble of `architecture`, the sequential baseline first. A gated
//! layer's gate pre-activations are sums of W products that may cancel (|terms| hundreds of times the sum
//! in the extreme regime), and a kernel's GEMM sums them in its own order: the library's blocked order
//! alone would leave that spread out of the ensemble and accuse a correct kernel of it.
const std::vector<EnsembleMember>& ensemble_members(Architecture architecture);

//! What the correct orders are, in the words reports print (their method section's baseline).
std::string correct_orders_description();

//! The correct orders of `c` (host executor), the sequential one run. A case with decays in log space runs
//! as its linear twin, a = exp(log a) rounded to the io dtype as a kernel stores it, giving dlog_a = a da in
//! float32: the orders of a kernel that exponentiates log a before it scans.
CorrectOrders correct_orders(const Case& c);

//! Judges `got` against the reference and (when given) the correct orders' outputs on the same case, on the
//! outputs of `passes` only (a forward-only backend is judged on its forward outputs alone) but the gradients
//! it `omits` (BackendInfo::omits).
BackendResult judge_outputs(std::string name, const Case& c, const Outputs& got, const ReferenceResult& reference,
                            const CorrectOrders* orders, const TolerancePolicy& policy,
                            const std::vector<Direction>& passes = {Direction::forward, Direction::backward},
                            const std::vector<std::string>& omits = {});

//! The result of a run that failed (BackendError): its verdict (error, fault, timeout), message and log.
BackendResult failed_run(const BackendInfo& backend, const BackendError& e);

//! Runs the baseline, then every backend, on `executor`, and judges each; with `diagnose`, a failing
//! result also says where it goes wrong (diagnosis.hpp: re-runs without dh_last and h0 included). A backend that fails
//! while running (BackendError) is a result with its verdict (error, fault, timeout) and message; input errors
//! propagate. `judged` is
//! called after each backend (progress displays).
std::vector<BackendResult> check_backends(const Case& c, const std::vector<const BackendInfo*>& backends,
                                          Executor executor, const ReferenceResult& reference,
                                          const TolerancePolicy& policy,
                                          const std::function<void(const BackendResult&)>& judged = {},
                                          bool diagnose = false);

//! The reference once it is there: called after every run has finished, so a reference computed on
//! another thread (reports do, at the large shapes where both take minutes) overlaps the runs.
using ReferenceWhenReady = std::function<const ReferenceResult&()>;

//! check_backends, with the baseline and every backend run before the reference is asked for.
std::vector<BackendResult> check_backends(const Case& c, const std::vector<const BackendInfo*>& backends,
                                          Executor executor, const ReferenceWhenReady& reference,
                                          const TolerancePolicy& policy,
                                          const std::function<void(const BackendResult&)>& judged = {},
                                          bool diagnose = false);

//! `candidate` (outputs produced anywhere: another framework, another kernel) judged as `name` on `c`,
//! against the reference (on `threads` threads) and the host sequential baseline.
BackendResult verify_outputs(std::string name, const Case& c, const Outputs& candidate, const TolerancePolicy& policy,
                             int threads = 0);

//! Whether a backend name matches a shell glob (* ? [...] and one {a,b,...} alternation, as in
//! '{rglru/chunk16,complex_rglru/chunk32}@*'); the name need not be registered (a report's, a history's).
bool backend_name_matches(std::string_view glob, const std::string& name);

//! Registered backends whose names match the glob, in registry order; throws InputError when none does.
std::vector<const BackendInfo*> match_backends(std::string_view glob);

//! A per-tensor table (tensor, error / bound, baseline ratio, max abs, max rel, ulp p50/p99/max, verdict) and
//! the failed rules below it, for terminals and logs.
std::string format_result(const BackendResult&);

//! One case's check for terminals and logs: a header naming the case and its `source`, each result's
//! table (format_result), and the verdict line "verdict: PASS|FAIL (N checked, M failed)".
std::string format_check(const Case& c, const std::string& source, const std::vector<BackendResult>& results);

}  // namespace scancheck
