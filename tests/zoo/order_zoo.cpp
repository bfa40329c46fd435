// SPDX-License-Identifier: Apache-2.0
#include "tests/zoo/order_zoo.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/case_arrays.hpp"
#include "backends/kernels/numeric.hpp"
#include "core/architectures.hpp"
#include "core/dtype.hpp"

namespace scancheck::zoo {
namespace {

using kernels::cfloat;

//! The orders the built-in program bodies run under schedules outside the registered matrix.
std::vector<Schedule> zoo_schedules() {
  using Kind = Schedule::Kind;
  using Tree = Schedule::Tree;
  return {{Kind::local, 16},
          {Kind::tree, 16, 0, Tree::kogge_stone},
          {Kind::tree, 16, 0, Tree::blelloch},
          {Kind::tree, 16, 0, Tree::kogge_stone, true},
          {Kind::tree, 4096, 0, Tree::kogge_stone},
          {Kind::tree, 4096, 0, Tree::blelloch}};
}

// ---- one channel of a plain scan, in float32 -------------------------------------------------------------

template <class F>
F load(const float* p, std::int64_t i, std::int64_t imag) {
  if constexpr (std::is_same_v<F, cfloat>) return F{p[i], p[i + imag]};
  else return p[i];
}
template <class F>
void store(float* p, std::int64_t i, std::int64_t imag, F v, DType io) {
  if constexpr (std::is_same_v<F, cfloat>) {
    p[i] = round_to(io, v.re);
    p[i + imag] = round_to(io, v.im);
  } else {
    p[i] = round_to(io, v);
  }
}

//! An affine map x -> a x + b, the element of the scan's associative operator.
template <class F>
struct Map {
  F a, b;
};

//! A tape of the combines a tree performs: nodes hold maps, each combine makes a node from two; the backward
//! runs the combines in reverse, as reverse-mode differentiation does, accumulating adjoints with the
//! PyTorch convention (z = x y: x_bar += z_bar conj(y)).
template <class F>
class CombineTape {
 public:
  explicit CombineTape(std::vector<Map<F>> leaves) : nodes_(std::move(leaves)) {}

  //! first `before`, then `after`: (a_after a_before, a_after b_before + b_after).
  int combine(int before, int after) {
    const Map<F>& x = nodes_[before];
    const Map<F>& y = nodes_[after];
    nodes_.push_back({y.a * x.a, y.a * x.b + y.b});
    ops_.push_back({before, after});
    return static_cast<int>(nodes_.size()) - 1;
  }
  const Map<F>& operator[](int node) const { return nodes_[node]; }
  std::size_t size() const { return nodes_.size(); }

  //! Adjoints of every node, from `adjoint` holding the outputs' (node -> adjoint of its map).
  std::vector<Map<F>> backward(std::vector<Map<F>> adjoint) const {
    adjoint.resize(nodes_.size(), Map<F>{});
    for (std::size_t k = ops_.size(); k-- > 0;) {
      const auto [before, after] = ops_[k];
      const Map<F> out = adjoint[nodes_.size() - ops_.size() + k];
      const Map<F>& x = nodes_[before];
      const Map<F>& y = nodes_[after];
      adjoint[before].a = adjoint[before].a + out.a * kernels::conj(y.a);
      adjoint[before].b = adjoint[before].b + out.b * kernels::conj(y.a);
      adjoint[after].a = adjoint[after].a + out.a * kernels::conj(x.a) + out.b * kernels::conj(x.b);
      adjoint[after].b = adjoint[after].b + out.b;
    }
    return adjoint;
  }

 private:
  std::vector<Map<F>> nodes_;
  std::vector<std::pair<int, int>> ops_;
};

//! The inclusive scan of positions 0..n-1 by a Kogge-Stone tree: the node of each prefix.
template <class F>
std::vector<int> kogge_stone(CombineTape<F>& tape, std::vector<int> at) {
  const std::int64_t n = static_cast<std::int64_t>(at.size());
  for (std::int64_t d = 1; d < n; d *= 2) {
    std::vector<int> next = at;
    for (std::int64_t s = d; s < n; ++s) next[s] = tape.combine(at[s - d], at[s]);
    at = std::move(next);
  }
  return at;
}

//! ... by Blelloch's work-efficient up-sweep and down-sweep (inclusive).
template <class F>
std::vector<int> blelloch(CombineTape<F>& tape, std::vector<int> at) {
  const std::int64_t n = static_cast<std::int64_t>(at.size());
  std::int64_t top = 1;
  for (std::int64_t d = 1; d < n; d *= 2) {
    for (std::int64_t s = 2 * d - 1; s < n; s += 2 * d) at[s] = tape.combine(at[s - d], at[s]);
    top = d;
  }
  for (std::int64_t d = top / 2; d >= 1; d /= 2)
    for (std::int64_t s = 3 * d - 1; s < n; s += 2 * d) at[s] = tape.combine(at[s - d], at[s]);
  return at;
}

//! One (batch, channel) of a plain scan: the inputs, and where its outputs go.
struct Channel {
  std::int64_t length, stride, first, imag;  // element t at first + t * stride; imaginary part + imag
  std::int64_t state;                        // index into the [B, W] states
};

enum class Order { autograd_tree, autograd_blelloch, sequential_fma, log_space };

//! Forward and backward of one channel by a tree of combines, the backward through the tree.
template <class F>
void autograd_channel(const backends::ScanArrays& io, const Channel& ch, DType dtype, Order order) {
  const std::int64_t L = ch.length;
  std::vector<Map<F>> leaves(static_cast<std::size_t>(L));
  for (std::int64_t t = 0; t < L; ++t) {
    const std::int64_t i = ch.first + t * ch.stride;
    leaves[t] = {load<F>(io.a, i, ch.imag), load<F>(io.b, i, ch.imag)};
  }
  CombineTape<F> tape(leaves);
  std::vector<int> at(static_cast<std::size_t>(L));
  for (std::int64_t t = 0; t < L; ++t) at[t] = static_cast<int>(t);
  const std::vector<int> prefix = order == Order::autograd_tree ? kogge_stone(tape, at) : blelloch(tape, at);
  const bool has_h0 = io.h0 != nullptr;
  const F h0 = has_h0 ? load<F>(io.h0, ch.state, ch.imag) : F{};
  // h_t = A_t h0 + B_t
  std::vector<Map<F>> adjoint;
  F h0_bar{};
  std::vector<F> h(static_cast<std::size_t>(L));
  for (std::int64_t t = 0; t < L; ++t) {
    const Map<F>& m = tape[prefix[t]];
    h[t] = has_h0 ? m.a * h0 + m.b : m.b;
    store(io.h, ch.first + t * ch.stride, ch.imag, h[t], dtype);
  }
  store(io.h_last, ch.state, ch.imag, h[L - 1], DType::float32);
  // The outputs' adjoints, in reverse order of their computation.
  adjoint.assign(tape.size(), Map<F>{});
  for (std::int64_t t = L - 1; t >= 0; --t) {
    F h_bar = load<F>(io.dh, ch.first + t * ch.stride, ch.imag);
    if (t == L - 1 && io.dh_last) h_bar = h_bar + load<F>(io.dh_last, ch.state, ch.imag);
    Map<F>& node = adjoint[prefix[t]];
    node.b = node.b + h_bar;
    if (has_h0) node.a = node.a + h_bar * kernels::conj(h0);
    // dh0 is written without an h0 too: the gradient at a zero state (docs/reference.md).
    h0_bar = h0_bar + h_bar * kernels::conj(tape[prefix[t]].a);
  }
  const std::vector<Map<F>> leaf_bar = tape.backward(std::move(adjoint));
  for (std::int64_t t = 0; t < L; ++t) {
    const std::int64_t i = ch.first + t * ch.stride;
    store(io.da, i, ch.imag, leaf_bar[t].a, dtype);
    store(io.db, i, ch.imag, leaf_bar[t].b, dtype);
  }
  store(io.dh0, ch.state, ch.imag, h0_bar, DType::float32);
}

//! a x + b with every product-and-sum contracted.
float fused(float a, float x, float b) { return std::fma(a, x, b); }
cfloat fused(cfloat a, cfloat x, cfloat b) {
  return {std::fma(a.re, x.re, std::fma(-a.im, x.im, b.re)), std::fma(a.re, x.im, std::fma(a.im, x.re, b.im))};
}

//! The sequential order with fused multiply-adds; the backward reads h_{t-1} back from io storage.
template <class F>
void fma_channel(const backends::ScanArrays& io, const Channel& ch, DType dtype) {
  const std::int64_t L = ch.length;
  const bool has_h0 = io.h0 != nullptr;
  F state = has_h0 ? load<F>(io.h0, ch.state, ch.imag) : F{};
  for (std::int64_t t = 0; t < L; ++t) {
    const std::int64_t i = ch.first + t * ch.stride;
    state = (t == 0 && !has_h0) ? load<F>(io.b, i, ch.imag)
                                : fused(load<F>(io.a, i, ch.imag), state, load<F>(io.b, i, ch.imag));
    store(io.h, i, ch.imag, state, dtype);
  }
  store(io.h_last, ch.state, ch.imag, state, DType::float32);
  F g = io.dh_last ? load<F>(io.dh_last, ch.state, ch.imag) : F{};
  for (std::int64_t t = L - 1; t >= 0; --t) {
    const std::int64_t i = ch.first + t * ch.stride;
    const F decay = t == L - 1 ? kernels::one<F>() : kernels::conj(load<F>(io.a, i + ch.stride, ch.imag));
    g = fused(decay, g, load<F>(io.dh, i, ch.imag));
    store(io.db, i, ch.imag, g, dtype);
    const F prev = t > 0 ? load<F>(io.h, i - ch.stride, ch.imag) : (has_h0 ? load<F>(io.h0, ch.state, ch.imag) : F{});
    store(io.da, i, ch.imag, g * kernels::conj(prev), dtype);
    if (t == 0) store(io.dh0, ch.state, ch.imag, kernels::conj(load<F>(io.a, i, ch.imag)) * g, DType::float32);
  }
}

//! A real scan's channel in log space (rejected_formulations): the products of decays as exp of differences
//! of the cumulative sum of log |a|, O(L^2), and the same for the reverse scan.
void log_space_channel(const backends::ScanArrays& io, const Channel& ch, DType dtype) {
  const std::int64_t L = ch.length;
  std::vector<float> c(static_cast<std::size_t>(L)), sign(static_cast<std::size_t>(L));
  float sum = 0, product_sign = 1;
  for (std::int64_t t = 0; t < L; ++t) {
    const float a = io.a[ch.first + t * ch.stride];
    if (a == 0) throw std::invalid_argument("log space needs nonzero decays");
    sum += std::log(std::fabs(a));
    product_sign *= a < 0 ? -1.0f : 1.0f;
    c[t] = sum;
    sign[t] = product_sign;
  }
  const auto decays = [&](std::int64_t from, std::int64_t to) {  // a_{from+1} ... a_to, from < to
    return sign[to] * sign[from] * std::exp(c[to] - c[from]);
  };
  const bool has_h0 = io.h0 != nullptr;
  const float h0 = has_h0 ? io.h0[ch.state] : 0.0f;
  std::vector<float> h(static_cast<std::size_t>(L));
  for (std::int64_t t = 0; t < L; ++t) {
    float state = has_h0 ? sign[t] * std::exp(c[t]) * h0 : 0.0f;
    for (std::int64_t s = 0; s < t; ++s) state += io.b[ch.first + s * ch.stride] * decays(s, t);
    h[t] = state + io.b[ch.first + t * ch.stride];
    store(io.h, ch.first + t * ch.stride, ch.imag, h[t], dtype);
  }
  store(io.h_last, ch.state, ch.imag, h[L - 1], DType::float32);
  for (std::int64_t t = 0; t < L; ++t) {
    float g = (io.dh_last ? io.dh_last[ch.state] * (t == L - 1 ? 1.0f : decays(t, L - 1)) : 0.0f);
    for (std::int64_t r = L - 1; r > t; --r) g += io.dh[ch.first + r * ch.stride] * decays(t, r);
    g += io.dh[ch.first + t * ch.stride];
    store(io.db, ch.first + t * ch.stride, ch.imag, g, dtype);
    const float prev = t > 0 ? h[t - 1] : h0;
    store(io.da, ch.first + t * ch.stride, ch.imag, g * prev, dtype);
    if (t == 0) store(io.dh0, ch.state, ch.imag, io.a[ch.first] * g, DType::float32);
  }
}

Outputs run_scan_order(const Case& c, Order order) {
  Outputs out = backends::output_tensors(c);
  const backends::ScanArrays io = backends::scan_arrays(c, &out);
  const kernels::ScanGeometry& g = io.geometry;
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t w = 0; w < g.channels; ++w) {
      const Channel ch{g.length, g.width, n * g.length * g.width + w, g.imag_offset, n * g.width + w};
      const auto run = [&](auto field) {
        using F = decltype(field);
        if constexpr (std::is_same_v<F, float>)
          if (order == Order::log_space) return log_space_channel(io, ch, c.io_dtype);
        if (order == Order::sequential_fma) fma_channel<F>(io, ch, c.io_dtype);
        else autograd_channel<F>(io, ch, c.io_dtype, order);
      };
      if (io.complex) run(cfloat{});
      else run(float{});
    }
  return out;
}

BackendInfo scan_order(Architecture architecture, DType dtype, Order order, std::string variant) {
  BackendInfo b;
  b.provider = "zoo";
  b.architecture = architecture;
  b.variant = std::move(variant);
  b.io_dtype = dtype;
  b.run = [order](const Case& c, Executor) { return run_scan_order(c, order); };
  return b;
}

}  // namespace

std::vector<BackendInfo> rejected_formulations() {
  return {scan_order(Architecture::scan, DType::float32, Order::log_space, "log_space")};
}

std::vector<BackendInfo> order_zoo() {
  std::vector<BackendInfo> zoo;
  for (const ArchitectureDescriptor& arch : architecture_descriptors)
    for (const DType dtype : {DType::float32, DType::bfloat16}) {
      for (const Schedule& schedule : zoo_schedules())
        zoo.push_back(builtin_variant_backend(arch.id, {schedule, {}}, dtype, "zoo"));
      if (arch.family != Family::affine_scan) continue;
      zoo.push_back(scan_order(arch.id, dtype, Order::autograd_tree, "autograd_tree"));
      zoo.push_back(scan_order(arch.id, dtype, Order::autograd_blelloch, "autograd_blelloch"));
      zoo.push_back(scan_order(arch.id, dtype, Order::sequential_fma, "sequential_fma"));
    }
  return zoo;
}

}  // namespace scancheck::zoo
