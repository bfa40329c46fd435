// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal: the reference driver templated over the scalar S. Included only by the instantiation files
//! (reference_<precision>.cpp), each of which compiles it for one precision.
//!
//! Each worker takes whole (batch, head) blocks, runs the block's forward and backward and scatters what
//! the block alone determines. What several blocks share is combined afterwards in a fixed order: the
//! parameter gradients (summed over batch entries 0..B-1) and, for complex_rglru, dx (whose direct and
//! gate-projection terms come from different heads).
#pragma once

#ifndef SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#error "reference/evaluate.hpp is internal to reference/: include reference/reference.hpp"
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/architectures.hpp"
#include "core/error.hpp"
#include "reference/bounded.hpp"
#include "reference/gather.hpp"
#include "reference/reference.hpp"

namespace scancheck::ref {

template <class S>
struct is_bounded : std::false_type {};
template <class T, BoundScope Scope, bool Certifies>
struct is_bounded<Bounded<T, Scope, Certifies>> : std::true_type {};

//! Scalars that bound the error of their own value: the tiered reference's double pass.
template <class S>
struct is_certifying : std::false_type {};
template <class T, BoundScope Scope>
struct is_certifying<Bounded<T, Scope, true>> : std::true_type {};

//! A double value is certified where its own error bound is at most this fraction of the float32 bound it
//! is judged with (the strict one too, when notes are wanted): judging a float32 result against it instead
//! of the exact value then moves no verdict by more than 1/1000 of a bound.
inline constexpr double certification_margin = 1e-3;

//! The number of workers parallel_for(n, threads, ...) runs.
inline int worker_count(std::int64_t n, int threads) {
  return static_cast<int>(std::min<std::int64_t>(std::max(threads, 1), std::max<std::int64_t>(n, 1)));
}

//! Runs body(i) (or body(i, worker), worker in [0, worker_count(n, threads))) for i in [0, n) on `threads`
//! threads; rethrows the first exception after all joined. Once `*stop` is set no further i starts and
//! Interrupted is thrown: a long reference stops within one block.
template <class Body>
void parallel_for(std::int64_t n, int threads, const std::atomic<bool>* stop, Body&& body) {
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&](int w) {
    for (std::int64_t i; (i = next++) < n;) {
      try {
        if (stop && stop->load()) throw Interrupted();
        if constexpr (std::is_invocable_v<Body&, std::int64_t, int>) body(i, w);
        else body(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    }
  };
  const int count = worker_count(n, threads);
  std::vector<std::jthread> pool;
  for (int k = 1; k < count; ++k) pool.emplace_back(worker, k);
  worker(0);
  pool.clear();
  if (failure) std::rethrow_exception(failure);
}

//! One output tensor being filled: values, bounds, coverage, and the final rounding to the io dtype that
//! an io-precision output undergoes in a backend (part of the measured error, recurrences.md §5).
struct OutputSlot {
  Tensor<double>* value = nullptr;
  Tensor<double>* bound = nullptr;  // nullptr: no bounds
  Tensor<std::uint8_t>* covered = nullptr;
  const Tensor<double>* strict = nullptr;  // certifying: the strict bounds, when notes are wanted
  bool rounds_to_bf16 = false;

  //! Stores the element; returns whether its value is certified (always, but for a certifying scalar).
  template <class S>
  bool put(std::int64_t index, const S& s) const {
    if constexpr (std::is_same_v<S, float>) {
      (*value)[index] = rounds_to_bf16 ? round_to_bf16(s) : s;  // the float32 evaluation itself
    } else {
      (*value)[index] = to_double(s);
    }
    if constexpr (is_bounded<S>::value) {
      if (bound) {
        // Rounding the float32 result f (|f| <= |exact| + bound) to bf16 adds at most u_bf16 |f| in the
        // normal range and half the bf16 subnormal spacing, 2^-134, below 2^-126.
        const double io =
            rounds_to_bf16 ? unit_roundoff(DType::bfloat16) * (std::fabs(s.approx()) + s.bound()) + 0x1p-134 : 0.0;
        const double b = s.bound() + io;
        (*bound)[index] = std::isnan(b) ? std::numeric_limits<double>::infinity() : b;  // NaN value: no bound
      }
    }
    if (covered) (*covered)[index] = 1;
    if constexpr (is_certifying<S>::value) {
      const double judged_by = strict ? std::min((*bound)[index], (*strict)[index]) : (*bound)[index];
      return std::isfinite(s.approx()) && s.working_bound() <= certification_margin * judged_by;
    }
    return true;
  }
  template <class S>
  bool put(std::int64_t index, const Complex<S>& z, std::int64_t complex_width) const {
    const bool re = put(index, z.re);
    return put(index + complex_width, z.im) && re;
  }
};

template <class S>
class Evaluator {
 public:
  //! `strict`: certifying only, the strict bounds the certification also answers to (nullptr: none).
  Evaluator(const Case& c, const ReferenceOptions& options,
            const std::map<std::string, Tensor<double>>* strict = nullptr)
      : case_(c), options_(options), needs_float128_(static_cast<std::size_t>(c.shape.batch * c.shape.heads)) {
    static_assert(!is_certifying<S>::value || is_bounded<S>::value);
    const Shape& s = c.shape;
    blocks_ = options.sample ? *options.sample : all_blocks(s);
    computed_.assign(s.batch * s.heads, 0);
    for (const Block& b : blocks_) {
      if (b.batch < 0 || b.batch >= s.batch || b.head < 0 || b.head >= s.heads)
        throw InputError("sampled block (batch " + std::to_string(b.batch) + ", head " + std::to_string(b.head) +
                         ") is outside " + to_string(s));
      computed_[b.batch * s.heads + b.head] = 1;
    }
    for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      result_.values.emplace(spec.name, Tensor<double>(spec.dims, nan));
      if (options.bounds && is_bounded<S>::value) result_.bounds.emplace(spec.name, Tensor<double>(spec.dims, nan));
      if (options.sample) result_.covered.emplace(spec.name, Tensor<std::uint8_t>(spec.dims, 0));
      const bool bf16 = c.io_dtype == DType::bfloat16 && spec.precision == TensorPrecision::io;
      slots_.emplace(spec.name, OutputSlot{&result_.values.at(spec.name),
                                           result_.bounds.count(spec.name) ? &result_.bounds.at(spec.name) : nullptr,
                                           options.sample ? &result_.covered.at(spec.name) : nullptr,
                                           strict ? &strict->at(spec.name) : nullptr, bf16});
    }
    result_.blocks_total = s.batch * s.heads;
    result_.blocks_computed =
        static_cast<std::int64_t>(std::count(computed_.begin(), computed_.end(), std::uint8_t{1}));
  }

  ReferenceResult run() {
    const Shape& s = case_.shape;
    // Below some 16k element-steps (milliseconds of work) starting threads costs more than they save: the
    // fuzz stream's cases are mostly that small.
    const bool small = s.batch * s.length * s.width < (std::int64_t{1} << 14);
    const int threads = small                  ? 1
                        : options_.threads > 0 ? options_.threads
                                               : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // The reference's entry point of each family, over the real or complex field.
    const ArchitectureDescriptor& arch = describe(case_.architecture);
    switch (arch.family) {
      case Family::affine_scan: arch.complex ? run_scan<Complex<S>>(threads) : run_scan<S>(threads); break;
      case Family::gated_layer: arch.complex ? run_gated<Complex<S>>(threads) : run_gated<S>(threads); break;
    }
    if constexpr (is_certifying<S>::value) {
      ReferenceTiers tiers;
      tiers.uncertified_elements = uncertified_;
      for (const Block& b : all_blocks(case_.shape))
        if (needs_float128_[b.batch * case_.shape.heads + b.head]) tiers.float128_blocks.push_back(b);
      result_.tiers = std::move(tiers);
    }
    return std::move(result_);
  }

 private:
  const OutputSlot& slot(const char* name) const { return slots_.at(name); }
  std::int64_t complex_width() const { return describe(case_.architecture).complex ? case_.shape.width / 2 : 0; }

  //! Writes channel value v of field F at flat index `index` of a [.., W] tensor; false if not certified.
  template <class F>
  bool put(const char* name, std::int64_t index, const F& v) const {
    if constexpr (is_complex_v<F>) return slot(name).put(index, v, complex_width());
    else return slot(name).put(index, v);
  }

  //! Counts `uncertified` elements whose exact values need block (b, h) recomputed in float128.
  void needs_float128(std::int64_t b, std::int64_t h, std::int64_t uncertified = 1) {
    if (uncertified == 0) return;
    needs_float128_[b * case_.shape.heads + h] = 1;
    uncertified_ += uncertified;
  }
  //! Also block (b, h), for elements already counted.
  void also_float128(std::int64_t b, std::int64_t h) { needs_float128_[b * case_.shape.heads + h] = 1; }

  template <class F>
  void run_scan(int threads) {
    const Shape& s = case_.shape;
    const std::int64_t L = s.length, W = s.width;
    const std::int64_t K = state_channels(case_.architecture, s) / s.heads;
    parallel_for(static_cast<std::int64_t>(blocks_.size()), threads, options_.stop, [&](std::int64_t n) {
      const auto [b, h] = blocks_[n];
      const ScanBlockInputs<F> in = gather_scan_block<F>(case_, b, h);
      const auto out = scan_block(in);
      // In log form the decay's gradient is d log a = a da (recurrences.md §1 by the chain rule).
      const bool log_form = case_.decays == DecaySpace::log;
      std::int64_t uncertified = 0;
      for (std::int64_t t = 0; t < L; ++t)
        for (std::int64_t k = 0; k < K; ++k) {
          const std::int64_t at = (b * L + t) * W + h * K + k, i = t * K + k;
          uncertified += !put("h", at, out.h[i]);
          uncertified += log_form ? !put("dlog_a", at, out.da[i] * in.a[i]) : !put("da", at, out.da[i]);
          uncertified += !put("db", at, out.db[i]);
        }
      for (std::int64_t k = 0; k < K; ++k) {
        uncertified += !put("h_last", b * W + h * K + k, out.h[(L - 1) * K + k]);
        uncertified += !put("dh0", b * W + h * K + k, out.dh0[k]);
      }
      needs_float128(b, h, uncertified);
    });
  }

  template <class F>
  void run_gated(int threads) {
    std::vector<std::optional<GatedBlockGrads<S, F>>> grads(case_.shape.batch * case_.shape.heads);
    const std::int64_t n_blocks = static_cast<std::int64_t>(blocks_.size());
    {
      std::vector<GatedBlockWorkspace<S, F>> workspaces(worker_count(n_blocks, threads));  // freed before dx
      parallel_for(n_blocks, threads, options_.stop,
                   [&](std::int64_t n, int worker) { evaluate_gated_block<F>(blocks_[n], workspaces[worker], grads); });
    }
    parallel_for(n_blocks, threads, options_.stop, [&](std::int64_t n) { combine_dx<F>(blocks_[n], grads); });
    parallel_for(case_.shape.heads, threads, options_.stop,
                 [&](std::int64_t h) { reduce_parameter_gradients<F>(h, grads); });
  }

  //! Forward and backward of one block: writes what the block alone determines (y, h_last, dh0) and keeps
  //! its gradients for what blocks share.
  template <class F>
  void evaluate_gated_block(Block block, GatedBlockWorkspace<S, F>& work,
                            std::vector<std::optional<GatedBlockGrads<S, F>>>& grads) {
    const Shape& s = case_.shape;
    const std::int64_t L = s.length, W = s.width, H = s.heads;
    const std::int64_t K = head_channels(case_.architecture, s);
    const auto [b, h] = block;
    auto& [in, fw, scan] = work;
    gather_gated_block(case_, b, h, in);
    gated_forward(in, fw, scan);
    const auto& gr = grads[b * H + h] = gated_backward(in, fw, scan);
    std::int64_t uncertified = 0;
    for (std::int64_t t = 0; t < L; ++t)
      for (std::int64_t j = 0; j < K; ++j) uncertified += !put("y", (b * L + t) * W + h * K + j, fw.h[t * K + j]);
    for (std::int64_t j = 0; j < K; ++j) {
      uncertified += !put("h_last", b * W + h * K + j, fw.h[(L - 1) * K + j]);
      uncertified += !put("dh0", b * W + h * K + j, gr->dh0[j]);
    }
    needs_float128(b, h, uncertified);
  }

  //! dx at the gate inputs of block (b, h): the direct term (owned by the head of that position's state
  //! channel) plus this head's gate back-projection. An uncertified element needs both blocks in float128.
  template <class F>
  void combine_dx(Block block, const std::vector<std::optional<GatedBlockGrads<S, F>>>& grads) {
    const Shape& s = case_.shape;
    const std::int64_t L = s.length, W = s.width, H = s.heads;
    const std::int64_t Ki = head_inputs(case_.architecture, s), K = head_channels(case_.architecture, s);
    const std::int64_t Wc = complex_width();
    const auto& gate = *grads[block.batch * H + block.head];
    for (std::int64_t i = 0; i < Ki; ++i) {
      const std::int64_t p = block.head * Ki + i;
      const std::int64_t channel = Wc ? p % Wc : p;
      const auto& owner = grads[block.batch * H + channel / K];
      if (!owner) continue;  // sampled run: the direct term's head was not computed
      for (std::int64_t t = 0; t < L; ++t) {
        const F& direct = owner->dx_direct[t * K + channel % K];
        S d;
        if constexpr (is_complex_v<F>) d = p < Wc ? direct.re : direct.im;
        else d = direct;
        if (!slot("dx").put((block.batch * L + t) * W + p, d + gate.dx_gate[t * Ki + i])) {
          needs_float128(block.batch, block.head);
          also_float128(block.batch, channel / K);
        }
      }
    }
  }

  //! Sums the head's parameter gradients over batch entries 0..B-1, if all of them were computed. An
  //! uncertified sum needs every batch entry of the head in float128.
  template <class F>
  void reduce_parameter_gradients(std::int64_t h, const std::vector<std::optional<GatedBlockGrads<S, F>>>& grads) {
    const Shape& s = case_.shape;
    const std::int64_t H = s.heads, K = head_channels(case_.architecture, s);
    for (std::int64_t b = 0; b < s.batch; ++b)
      if (!grads[b * H + h]) return;
    auto total = grads[h]->parameters_only();
    for (std::int64_t b = 1; b < s.batch; ++b) {
      const auto& g = *grads[b * H + h];
      for (auto field : GatedBlockGrads<S, F>::parameters()) add_into(total.*field, g.*field);
    }
    const std::int64_t weights = static_cast<std::int64_t>(total.dwx.size());
    std::int64_t uncertified = 0;
    for (std::int64_t k = 0; k < weights; ++k) {
      uncertified += !slot("d_input_gate_w").put(h * weights + k, total.dwx[k]);
      uncertified += !slot("d_a_gate_w").put(h * weights + k, total.dwa[k]);
    }
    const Tensor<float>& a_param = case_.at("a_param");
    for (std::int64_t j = 0; j < K; ++j) {
      uncertified += !slot("d_input_gate_b").put(h * K + j, total.dbx[j]);
      uncertified += !slot("d_a_gate_b").put(h * K + j, total.dba[j]);
      uncertified += !slot("d_a_param").put(h * K + j, sigmoid(S(a_param[h * K + j])) * total.a_param_sum[j]);
      if constexpr (is_complex_v<F>) uncertified += !slot("d_a_imag_param").put(h * K + j, total.a_imag_sum[j]);
    }
    if (uncertified == 0) return;
    needs_float128(0, h, uncertified);
    for (std::int64_t b = 1; b < s.batch; ++b) also_float128(b, h);
  }

  static void add_into(std::vector<S>& acc, const std::vector<S>& x) {
    for (std::size_t k = 0; k < acc.size(); ++k) acc[k] = acc[k] + x[k];
  }

  const Case& case_;
  const ReferenceOptions& options_;
  std::vector<Block> blocks_;
  std::vector<std::uint8_t> computed_;
  std::vector<std::atomic<std::uint8_t>> needs_float128_;  // per (batch, head) block; certifying only
  std::atomic<std::int64_t> uncertified_{0};
  ReferenceResult result_;
  std::map<std::string, OutputSlot> slots_;
};

}  // namespace scancheck::ref
