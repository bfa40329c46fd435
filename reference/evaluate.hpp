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
#include <vector>

#include "core/architectures.hpp"
#include "core/error.hpp"
#include "reference/bounded.hpp"
#include "reference/gather.hpp"
#include "reference/reference.hpp"

namespace scancheck::ref {

template <class S>
struct is_bounded : std::false_type {};
template <class T, bool Admits>
struct is_bounded<Bounded<T, Admits>> : std::true_type {};

//! Runs body(i) for i in [0, n) on `threads` threads; rethrows the first exception after all joined. Once
//! `*stop` is set no further i starts and Interrupted is thrown: a long reference stops within one block.
template <class Body>
void parallel_for(std::int64_t n, int threads, const std::atomic<bool>* stop, Body&& body) {
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (std::int64_t i; (i = next++) < n;) {
      try {
        if (stop && stop->load()) throw Interrupted();
        body(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    }
  };
  const int count = static_cast<int>(std::min<std::int64_t>(std::max(threads, 1), std::max<std::int64_t>(n, 1)));
  std::vector<std::jthread> pool;
  for (int k = 1; k < count; ++k) pool.emplace_back(worker);
  worker();
  pool.clear();
  if (failure) std::rethrow_exception(failure);
}

//! One output tensor being filled: values, bounds, coverage, and the final rounding to the io dtype that
//! an io-precision output undergoes in a backend (part of the measured error, recurrences.md §5).
struct OutputSlot {
  Tensor<double>* value = nullptr;
  Tensor<double>* bound = nullptr;     // nullptr: no bounds
  Tensor<std::uint8_t>* covered = nullptr;
  bool rounds_to_bf16 = false;

  template <class S>
  void put(std::int64_t index, const S& s) const {
    if constexpr (std::is_same_v<S, float>) {
      (*value)[index] = rounds_to_bf16 ? round_to_bf16(s) : s;  // the float32 evaluation itself
    } else {
      (*value)[index] = to_double(s);
    }
    if constexpr (is_bounded<S>::value) {
      if (bound) {
        // Rounding the float32 result f (|f| <= |exact| + bound) to bf16 adds at most u_bf16 |f| in the
        // normal range and half the bf16 subnormal spacing, 2^-134, below 2^-126.
        const double io = rounds_to_bf16
                              ? unit_roundoff(DType::bfloat16) * (std::fabs(s.approx()) + s.bound()) + 0x1p-134
                              : 0.0;
        const double b = s.bound() + io;
        (*bound)[index] = std::isnan(b) ? std::numeric_limits<double>::infinity() : b;  // NaN value: no bound
      }
    }
    if (covered) (*covered)[index] = 1;
  }
  template <class S>
  void put(std::int64_t index, const Complex<S>& z, std::int64_t complex_width) const {
    put(index, z.re);
    put(index + complex_width, z.im);
  }
};

template <class S>
class Evaluator {
 public:
  Evaluator(const Case& c, const ReferenceOptions& options) : case_(c), options_(options) {
    const Shape& s = c.shape;
    blocks_ = options.sample ? *options.sample : all_blocks(s);
    computed_.assign(s.batch * s.heads, 0);
    for (const Block& b : blocks_) {
      if (b.batch < 0 || b.batch >= s.batch || b.head < 0 || b.head >= s.heads)
        throw InputError("sampled block (batch " + std::to_string(b.batch) + ", head " +
                         std::to_string(b.head) + ") is outside " + to_string(s));
      computed_[b.batch * s.heads + b.head] = 1;
    }
    for (const TensorSpec& spec : tensor_layout(c.architecture, s, TensorRole::output)) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      result_.values.emplace(spec.name, Tensor<double>(spec.dims, nan));
      if (options.bounds && is_bounded<S>::value) result_.bounds.emplace(spec.name, Tensor<double>(spec.dims, nan));
      if (options.sample) result_.covered.emplace(spec.name, Tensor<std::uint8_t>(spec.dims, 0));
      const bool bf16 = c.io_dtype == DType::bfloat16 && spec.precision == TensorPrecision::io;
      slots_.emplace(spec.name, OutputSlot{&result_.values.at(spec.name),
                                           result_.bounds.count(spec.name) ? &result_.bounds.at(spec.name) : nullptr,
                                           options.sample ? &result_.covered.at(spec.name) : nullptr, bf16});
    }
    result_.blocks_total = s.batch * s.heads;
    result_.blocks_computed = static_cast<std::int64_t>(
        std::count(computed_.begin(), computed_.end(), std::uint8_t{1}));
  }

  ReferenceResult run() {
    const int threads = options_.threads > 0 ? options_.threads
                                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // The reference's entry point of each family, over the real or complex field.
    const ArchitectureDescriptor& arch = describe(case_.architecture);
    switch (arch.family) {
      case Family::affine_scan: arch.complex ? run_scan<Complex<S>>(threads) : run_scan<S>(threads); break;
      case Family::gated_layer: arch.complex ? run_gated<Complex<S>>(threads) : run_gated<S>(threads); break;
    }
    return std::move(result_);
  }

 private:
  const OutputSlot& slot(const char* name) const { return slots_.at(name); }
  std::int64_t complex_width() const { return describe(case_.architecture).complex ? case_.shape.width / 2 : 0; }

  //! Writes channel value v of field F at flat index `index` of a [.., W] tensor.
  template <class F>
  void put(const char* name, std::int64_t index, const F& v) const {
    if constexpr (is_complex_v<F>)
      slot(name).put(index, v, complex_width());
    else
      slot(name).put(index, v);
  }

  template <class F>
  void run_scan(int threads) {
    const Shape& s = case_.shape;
    const std::int64_t L = s.length, W = s.width;
    const std::int64_t K = state_channels(case_.architecture, s) / s.heads;
    parallel_for(static_cast<std::int64_t>(blocks_.size()), threads, options_.stop, [&](std::int64_t n) {
      const auto [b, h] = blocks_[n];
      const auto out = scan_block(gather_scan_block<F>(case_, b, h));
      for (std::int64_t t = 0; t < L; ++t)
        for (std::int64_t k = 0; k < K; ++k) {
          const std::int64_t at = (b * L + t) * W + h * K + k;
          put("h", at, out.h[t * K + k]);
          put("da", at, out.da[t * K + k]);
          put("db", at, out.db[t * K + k]);
        }
      for (std::int64_t k = 0; k < K; ++k) {
        put("h_last", b * W + h * K + k, out.h[(L - 1) * K + k]);
        put("dh0", b * W + h * K + k, out.dh0[k]);
      }
    });
  }

  template <class F>
  void run_gated(int threads) {
    const Shape& s = case_.shape;
    const std::int64_t L = s.length, W = s.width, H = s.heads;
    const std::int64_t K = head_channels(case_.architecture, s);
    std::vector<std::optional<GatedBlockGrads<S, F>>> grads(s.batch * H);
    parallel_for(static_cast<std::int64_t>(blocks_.size()), threads, options_.stop, [&](std::int64_t n) {
      const auto [b, h] = blocks_[n];
      const auto in = gather_gated_block<S, F>(case_, b, h);
      const auto fw = gated_forward(in);
      grads[b * H + h] = gated_backward(in, fw);
      for (std::int64_t t = 0; t < L; ++t)
        for (std::int64_t j = 0; j < K; ++j) put("y", (b * L + t) * W + h * K + j, fw.h[t * K + j]);
      for (std::int64_t j = 0; j < K; ++j) {
        put("h_last", b * W + h * K + j, fw.h[(L - 1) * K + j]);
        put("dh0", b * W + h * K + j, grads[b * H + h]->dh0[j]);
      }
    });
    parallel_for(static_cast<std::int64_t>(blocks_.size()), threads, options_.stop, [&](std::int64_t n) {
      combine_dx<F>(blocks_[n], grads);
    });
    parallel_for(H, threads, options_.stop, [&](std::int64_t h) { reduce_parameter_gradients<F>(h, grads); });
  }

  //! dx at the gate inputs of block (b, h): the direct term (owned by the head of that position's state
  //! channel) plus this head's gate back-projection.
  template <class F>
  void combine_dx(Block block, const std::vector<std::optional<GatedBlockGrads<S, F>>>& grads) const {
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
        if constexpr (is_complex_v<F>)
          d = p < Wc ? direct.re : direct.im;
        else
          d = direct;
        slot("dx").put((block.batch * L + t) * W + p, d + gate.dx_gate[t * Ki + i]);
      }
    }
  }

  //! Sums the head's parameter gradients over batch entries 0..B-1, if all of them were computed.
  template <class F>
  void reduce_parameter_gradients(std::int64_t h, const std::vector<std::optional<GatedBlockGrads<S, F>>>& grads) const {
    const Shape& s = case_.shape;
    const std::int64_t H = s.heads, K = head_channels(case_.architecture, s);
    for (std::int64_t b = 0; b < s.batch; ++b)
      if (!grads[b * H + h]) return;
    auto total = *grads[h];
    for (std::int64_t b = 1; b < s.batch; ++b) {
      const auto& g = *grads[b * H + h];
      add_into(total.dwx, g.dwx);
      add_into(total.dwa, g.dwa);
      add_into(total.dbx, g.dbx);
      add_into(total.dba, g.dba);
      add_into(total.a_param_sum, g.a_param_sum);
      add_into(total.a_imag_sum, g.a_imag_sum);
    }
    const std::int64_t weights = static_cast<std::int64_t>(total.dwx.size());
    for (std::int64_t k = 0; k < weights; ++k) {
      slot("d_input_gate_w").put(h * weights + k, total.dwx[k]);
      slot("d_a_gate_w").put(h * weights + k, total.dwa[k]);
    }
    const Tensor<float>& a_param = case_.at("a_param");
    for (std::int64_t j = 0; j < K; ++j) {
      slot("d_input_gate_b").put(h * K + j, total.dbx[j]);
      slot("d_a_gate_b").put(h * K + j, total.dba[j]);
      slot("d_a_param").put(h * K + j, sigmoid(S(a_param[h * K + j])) * total.a_param_sum[j]);
      if constexpr (is_complex_v<F>) slot("d_a_imag_param").put(h * K + j, total.a_imag_sum[j]);
    }
  }

  static void add_into(std::vector<S>& acc, const std::vector<S>& x) {
    for (std::size_t k = 0; k < acc.size(); ++k) acc[k] = acc[k] + x[k];
  }

  const Case& case_;
  const ReferenceOptions& options_;
  std::vector<Block> blocks_;
  std::vector<std::uint8_t> computed_;
  ReferenceResult result_;
  std::map<std::string, OutputSlot> slots_;
};

}  // namespace scancheck::ref
