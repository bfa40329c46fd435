// SPDX-License-Identifier: Apache-2.0
//! @file
//! The scan backends (architectures `scan` and `complex_scan`, every schedule, fp32 and bf16 io) under the
//! host executor. Contract: docs/recurrences.md §1, forward and backward.
//!
//! What is checked, per registered backend (one ctest test per backend and property, via value parameters):
//!   MatchesReference      every output judged under the tolerance policy (docs/tolerance.md) against the
//!                         float128 reference with its error bounds and against the `sequential` backend of
//!                         the same architecture and dtype (the policy's baseline rule: at most twice its
//!                         error plus a slack), on the schedule's boundary lengths (below), every regime,
//!                         h0 / dh_last present and absent; invariant h_last = h[L-1]
//!   Deterministic         two runs are bitwise equal
//! and once: the registry's names and plans; InputError on unknown names and on cases that do not fit the
//! backend; `sequential` equals a plain loop of §1 bit for bit; the executor machinery (poison and guard
//! regions) catches an unwritten output element and an overwritten guard.
//!
//! Cost: the reference dominates. A case (and its reference) depends only on (architecture, dtype, length,
//! regime, presence flags), so every schedule with the same chunk size shares its short cases and the
//! long lengths coincide across schedules (see sweep_points); references (with bounds, which about double
//! their cost) and the sequential baseline's outputs are computed once per process on one thread. Under
//! ctest each test is a process of its own; `sequential`'s MatchesReference, which sweeps the union of its
//! architecture's cases, is the longest (complex_scan: about 2 s on one core). The whole executable takes
//! about 8 s on one core.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "backends/host/host_executor.hpp"
#include "backends/kernels/affine_scan/schedules.hpp"
#include "core/architectures.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "reference/reference.hpp"
#include "tests/backends/backend_test_support.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace scancheck;
using kernels::Schedule;
using test::input_error;
using namespace scancheck::backend_test;

// ---- cases ---------------------------------------------------------------------------------------------

constexpr std::array<Regime, 5> regimes{Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme,
                                        Regime::clip};

//! One sweep case, up to architecture and dtype.
struct Point {
  std::int64_t length;
  Regime regime;
  bool with_h0;
  bool with_dh_last;
  friend auto operator<=>(const Point&, const Point&) = default;
};

struct CaseKey {
  Architecture architecture;
  DType io_dtype;
  Point point;
  friend auto operator<=>(const CaseKey&, const CaseKey&) = default;
};

//! B = 2 (batch entries index separately); W not a multiple of 32 (no channel tiling can hide a tail):
//! 6 real channels, or 5 complex channels (W = 10, merged [Re | Im]).
Shape sweep_shape(Architecture a, std::int64_t length) { return {2, length, describe(a).complex ? 10 : 6, 1}; }

std::uint64_t seed_of(const Point& p) {
  return 1000 + 16 * static_cast<std::uint64_t>(p.length) + 4 * static_cast<std::uint64_t>(p.regime) + 2 * p.with_h0 +
         p.with_dh_last;
}

CaseRequest request_of(const CaseKey& k) {
  CaseRequest r;
  r.architecture = k.architecture;
  r.shape = sweep_shape(k.architecture, k.point.length);
  r.seed = seed_of(k.point);
  r.regime = k.point.regime;
  r.io_dtype = k.io_dtype;
  r.with_h0 = k.point.with_h0;
  r.with_dh_last = k.point.with_dh_last;
  return r;
}

std::string trace_of(const BackendInfo& b, const CaseKey& k) {
  const CaseRequest r = request_of(k);
  return fmt::format("{} on {} seed={} regime={} h0={} dh_last={}", b.name, to_string(r.shape), r.seed,
                     to_string(r.regime), r.with_h0 ? "yes" : "no", r.with_dh_last ? "yes" : "no");
}

CaseCache<CaseKey>& cache() {
  static CaseCache<CaseKey> cases(request_of);
  return cases;
}
const Case& case_of(const CaseKey& k) { return cache().case_of(k); }

//! Lengths that put the schedule's boundaries at the edges of the sequence:
//!   1          one step: h = a h0 + b, g = dh + dh_last; every chunk is partial
//!   C-1        one partial chunk (in reverse the partial chunk is also the first)
//!   C          exactly one chunk
//!   C+1        a full chunk then a one-step chunk (reverse: a one-step chunk first)
//!   G*C-1      one group whose last chunk is one step short
//!   G*C+1      a full group, then a group of one one-step chunk
//!   3*G*C+5    four groups, the last holding one partial chunk: the outer prefix folds several groups
//! Duplicates and lengths below 1 are dropped (C = G = 1 gives {1, 2, 8}).
std::vector<std::int64_t> boundary_lengths(std::int64_t chunk, std::int64_t group) {
  const std::int64_t gc = group * chunk;
  std::vector<std::int64_t> out;
  for (std::int64_t l : {std::int64_t{1}, chunk - 1, chunk, chunk + 1, gc - 1, gc + 1, 3 * gc + 5})
    if (l >= 1 && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  return out;
}

//! Every length with every regime; the presence flags of (length i, regime r) cycle with i + r, so each
//! length and each regime meets all four (h0, dh_last) combinations.
//! Why every regime at every length rather than one regime per length: the group and chunk maps only
//! matter where decays keep the state alive across the boundary (long_memory, clip); with one regime per
//! length, a long length drawn with default decays (a^512 ~ 1e-11) hides a wrong group prefix. The
//! reference costs about 1 us per element-step without bounds and about twice that with them, so the full
//! product stays within a few seconds.
std::vector<Point> points_of(const std::vector<std::int64_t>& lengths) {
  std::vector<Point> out;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    for (std::size_t r = 0; r < regimes.size(); ++r) {
      const std::size_t flags = (i + r) % 4;  // (yes, yes), (no, no), (yes, no), (no, yes)
      out.push_back({lengths[i], regimes[r], flags == 0 || flags == 2, flags == 0 || flags == 3});
    }
  return out;
}

//! The sweep of a backend.
//!   grouped_prefix{G}_hierarchical_chunk{C}: boundary_lengths(C, G).
//!   chunk{C}, local_chunk{C}, tree_chunk{C}: boundary_lengths(C, 32), the lengths of its hierarchical
//!     neighbour (G = 32): the flat prefix
//!     then folds up to 97 chunks, and chunk16 / chunk32 share every case with the grouped_prefix32 schedules
//!     (chunk64's long lengths 2047, 2049, 6149 coincide with grouped_prefix64_hierarchical_chunk32's).
//!   sequential: every case of the other schedules of its architecture and dtype, plus boundary_lengths(1, 1).
std::vector<Point> sweep_points(const BackendInfo& b) {
  const Schedule& schedule = b.builtin->schedule;
  switch (schedule.kind) {
    case Schedule::Kind::hierarchical: return points_of(boundary_lengths(schedule.chunk, schedule.group));
    case Schedule::Kind::chunked:
    case Schedule::Kind::local:
    case Schedule::Kind::tree: return points_of(boundary_lengths(schedule.chunk, 32));
    case Schedule::Kind::sequential: break;
  }
  std::set<Point> all;
  for (const Point& p : points_of(boundary_lengths(1, 1))) all.insert(p);
  for (const BackendInfo& other : registry())
    if (other.builtin && other.architecture == b.architecture && other.io_dtype == b.io_dtype &&
        other.builtin->flags == b.builtin->flags && other.builtin->schedule.kind != Schedule::Kind::sequential)
      for (const Point& p : sweep_points(other)) all.insert(p);
  return {all.begin(), all.end()};
}

//! Invariant: h[:, L-1, :] is h_last rounded to the io dtype (h_last is a float32 state).
void expect_h_last_is_last_h(const Outputs& out, DType io) {
  const Tensor<float>& h = out.at("h");
  const Tensor<float>& h_last = out.at("h_last");
  const std::int64_t batch = h.dim(0), length = h.dim(1), width = h.dim(2);
  for (std::int64_t n = 0; n < batch; ++n)
    for (std::int64_t w = 0; w < width; ++w)
      ASSERT_EQ(h(n, length - 1, w), round_to(io, h_last(n, w))) << "h[" << n << ", L-1, " << w << "]";
}

// ---- per-backend properties ----------------------------------------------------------------------------

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const BackendInfo& b : registry())
    if (b.builtin && describe(b.architecture).family == Family::affine_scan) names.push_back(b.name);
  return names;
}

class ScanBackend : public testing::TestWithParam<std::string> {
 protected:
  const BackendInfo& backend() const { return find_backend(GetParam()); }
  CaseKey key(const Point& p) const { return {backend().architecture, backend().io_dtype, p}; }
};

TEST_P(ScanBackend, MatchesReference) {
  const BackendInfo& b = backend();
  for (const Point& p : sweep_points(b)) {
    const CaseKey k = key(p);
    SCOPED_TRACE(trace_of(b, k));
    const Outputs out = run_backend(b, case_of(k), Executor::host);
    expect_h_last_is_last_h(out, b.io_dtype);
    cache().expect_passes(k, b, out);
  }
}

TEST_P(ScanBackend, Deterministic) {
  const BackendInfo& b = backend();
  // The longest case of the sweep: the most chunks, groups and boundaries.
  const std::vector<Point> points = sweep_points(b);
  const CaseKey k = key(*std::max_element(points.begin(), points.end(),
                                          [](const Point& x, const Point& y) { return x.length < y.length; }));
  SCOPED_TRACE(trace_of(b, k));
  const Case& c = case_of(k);
  expect_bitwise_equal(run_backend(b, c, Executor::host), run_backend(b, c, Executor::host));
}

INSTANTIATE_TEST_SUITE_P(Registry, ScanBackend, testing::ValuesIn(backend_names()), test_name);

// ---- registry and input errors -------------------------------------------------------------------------

TEST(ScanBackendRegistry, NamesAndPlans) {
  std::set<std::string> names;
  for (const BackendInfo& b : registry()) {
    SCOPED_TRACE(b.name);
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate name";
    EXPECT_EQ(&find_backend(b.name), &b);
    ASSERT_TRUE(b.builtin);  // only built-ins are registered in a test process
    EXPECT_EQ(parse_backend_name(b.name), (BackendName{"", b.architecture, b.variant, b.io_dtype}));
    EXPECT_EQ(b.variant, to_string(*b.builtin));
  }
  EXPECT_EQ(std::count_if(registry().begin(), registry().end(),
                          [](const BackendInfo& b) { return describe(b.architecture).family == Family::affine_scan; }),
            40);  // 2 architectures x 10 schedules x 2 dtypes
  EXPECT_EQ(find_backend("complex_scan/grouped_prefix32_hierarchical_chunk16@bf16").builtin->schedule.group, 32);
  EXPECT_EQ(find_backend("scan/grouped_prefix64_hierarchical_chunk32@fp32").builtin->schedule.chunk, 32);
  EXPECT_EQ(built_executors().front(), Executor::host);
}

TEST(ScanBackendErrors, UnknownBackendName) {
  for (const char* name :
       {"scan/chunk17@fp32", "scan/chunk16@fp16", "rglru/fused_write_chunk16@fp32", "", "scan/chunk16"}) {
    SCOPED_TRACE(name);
    EXPECT_NE(input_error([&] { find_backend(name); }).find("unknown backend"), std::string::npos);
  }
}

TEST(ScanBackendErrors, DtypeMismatch) {
  const Point p{17, Regime::default_, true, true};
  for (Architecture a : {Architecture::scan, Architecture::complex_scan}) {
    const Case& fp32 = case_of({a, DType::float32, p});
    const Case& bf16 = case_of({a, DType::bfloat16, p});
    const BackendInfo& bf16_backend = find_backend(to_string(BackendName{"", a, "chunk16", DType::bfloat16}));
    const BackendInfo& fp32_backend = baseline_backend(a, DType::float32);
    const std::string m1 = input_error([&] { run_backend(bf16_backend, fp32, Executor::host); });
    EXPECT_NE(m1.find("bf16"), std::string::npos) << m1;
    EXPECT_NE(m1.find("float32"), std::string::npos) << m1;
    const std::string m2 = input_error([&] { run_backend(fp32_backend, bf16, Executor::host); });
    EXPECT_NE(m2.find("bfloat16"), std::string::npos) << m2;
  }
}

TEST(ScanBackendErrors, ArchitectureMismatch) {
  const Point p{17, Regime::default_, true, true};
  const Case& complex = case_of({Architecture::complex_scan, DType::float32, p});
  const std::string m = input_error([&] { run_backend(find_backend("scan/chunk16@fp32"), complex, Executor::host); });
  EXPECT_NE(m.find("complex_scan"), std::string::npos) << m;
  // W = 6 is a valid complex width too: the check is on the architecture, not on the shape.
  const Case& real = case_of({Architecture::scan, DType::float32, p});
  const BackendInfo& complex_backend = find_backend("complex_scan/chunk16@fp32");
  EXPECT_FALSE(input_error([&] { run_backend(complex_backend, real, Executor::host); }).empty());
  CaseRequest r;
  r.architecture = Architecture::rglru;
  r.shape = {1, 4, 4, 1};
  const Case gated = make_case(r);
  EXPECT_FALSE(input_error([&] { run_backend(find_backend("scan/sequential@fp32"), gated, Executor::host); }).empty());
}

TEST(ScanBackendErrors, InconsistentCase) {
  Case c = case_of({Architecture::scan, DType::float32, {17, Regime::default_, true, true}});
  c.tensors.erase("dh");
  EXPECT_FALSE(input_error([&] { run_backend(find_backend("scan/chunk16@fp32"), c, Executor::host); }).empty());
}

// ---- sequential = the plain loop of recurrences.md §1, bit for bit ----------------------------------------

//! Field arithmetic of the plain loop, written out: complex product (ac - bd) + i(ad + bc).
struct C32 {
  float re, im;
};
C32 mul(C32 x, C32 y) { return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re}; }
C32 add(C32 x, C32 y) { return {x.re + y.re, x.im + y.im}; }
C32 conj(C32 x) { return {x.re, -x.im}; }

//! recurrences.md §1 as a plain loop over (batch, channel) in float32, io values rounded to the io dtype where
//! they are stored (h, da, db), states (h_last, dh0) in float32; the backward reads the stored h.
Outputs plain_loop(const Case& c) {
  const bool complex = describe(c.architecture).complex;
  const std::int64_t B = c.shape.batch, L = c.shape.length, W = c.shape.width;
  const std::int64_t channels = complex ? W / 2 : W, im = complex ? W / 2 : 0;
  const auto io = [&](float v) { return round_to(c.io_dtype, v); };
  Outputs out;
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) out.emplace(spec.name, Tensor<float>(spec.dims));
  const auto load = [&](const float* p, std::int64_t row, std::int64_t ch) {
    return C32{p[row * W + ch], complex ? p[row * W + im + ch] : 0.0f};
  };
  const auto store = [&](float* p, std::int64_t row, std::int64_t ch, C32 v, bool round) {
    p[row * W + ch] = round ? io(v.re) : v.re;
    if (complex) p[row * W + im + ch] = round ? io(v.im) : v.im;
  };
  const float *a = c.at("a").data(), *b = c.at("b").data(), *dh = c.at("dh").data();
  const float* h0 = c.has("h0") ? c.at("h0").data() : nullptr;
  const float* dh_last = c.has("dh_last") ? c.at("dh_last").data() : nullptr;
  float *h = out.at("h").data(), *h_last = out.at("h_last").data();
  float *da = out.at("da").data(), *db = out.at("db").data(), *dh0 = out.at("dh0").data();
  // Real channels use only the real parts; the imaginary parts stay zero and are never stored.
  const auto fmul = [&](C32 x, C32 y) { return complex ? mul(x, y) : C32{x.re * y.re, 0.0f}; };
  for (std::int64_t n = 0; n < B; ++n)
    for (std::int64_t ch = 0; ch < channels; ++ch) {
      // Forward: h_t = a_t h_{t-1} + b_t, h_{-1} = h0 (or 0).
      C32 state = h0 ? load(h0, n, ch) : C32{0, 0};
      for (std::int64_t t = 0; t < L; ++t) {
        state = add(fmul(load(a, n * L + t, ch), state), load(b, n * L + t, ch));
        store(h, n * L + t, ch, state, true);
      }
      store(h_last, n, ch, state, false);
      // Backward: g_{L-1} = dh_{L-1} + dh_last, g_t = dh_t + conj(a_{t+1}) g_{t+1};
      // db_t = g_t, da_t = g_t conj(h_{t-1}), dh0 = conj(a_0) g_0.
      C32 g = dh_last ? load(dh_last, n, ch) : C32{0, 0};
      for (std::int64_t t = L - 1; t >= 0; --t) {
        g = t == L - 1 ? add(load(dh, n * L + t, ch), g)
                       : add(load(dh, n * L + t, ch), fmul(conj(load(a, n * L + t + 1, ch)), g));
        store(db, n * L + t, ch, g, true);
        const C32 prev = t > 0 ? load(h, n * L + t - 1, ch) : (h0 ? load(h0, n, ch) : C32{0, 0});
        store(da, n * L + t, ch, fmul(g, conj(prev)), true);
        if (t == 0) store(dh0, n, ch, fmul(conj(load(a, n * L, ch)), g), false);
      }
    }
  return out;
}

TEST(ScanSequential, EqualsPlainLoopBitwise) {
  for (Architecture arch : {Architecture::scan, Architecture::complex_scan})
    for (DType dtype : {DType::float32, DType::bfloat16}) {
      const BackendInfo& b = baseline_backend(arch, dtype);
      for (const Point& p : points_of({1, 2, 17, 64, 1025})) {
        const CaseKey k{arch, dtype, p};
        SCOPED_TRACE(trace_of(b, k));
        const Case& c = case_of(k);
        expect_bitwise_equal(run_backend(b, c, Executor::host), plain_loop(c));
      }
    }
}

// ---- poison and guard regions of the executor -----------------------------------------------------------

template <class F>
std::string runtime_error(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::runtime_error";
  return "";
}

template <class T>
class HostExecutorGuards : public testing::Test {};
using IoTypes = testing::Types<float, kernels::bf16>;
TYPED_TEST_SUITE(HostExecutorGuards, IoTypes);

TYPED_TEST(HostExecutorGuards, UnwrittenElementIsReported) {
  using T = TypeParam;
  constexpr std::int64_t n = 37;
  backends::HostExecutor ex;
  T* out = ex.template output<T>(n);
  // A body that writes every element but the last program's.
  ex.launch("skips last", kernels::Grid{n - 1, 1, 1},
            [out](kernels::ProgramId p) { kernels::store<T>(out, p.x, 1.0f); });
  std::vector<float> host(n);
  const std::string m = runtime_error([&] { ex.download(out, n, host.data(), "h"); });
  EXPECT_NE(m.find("never written"), std::string::npos) << m;
  EXPECT_NE(m.find("1 of 37"), std::string::npos) << m;
  EXPECT_NE(m.find("flat index 36"), std::string::npos) << m;
  EXPECT_NE(m.find("output h"), std::string::npos) << m;
}

TYPED_TEST(HostExecutorGuards, WriteAfterTheEndIsReported) {
  using T = TypeParam;
  constexpr std::int64_t n = 37;
  backends::HostExecutor ex;
  T* out = ex.template output<T>(n);
  // Programs 0..n: one too many, writing index n, the first guard element after the output.
  ex.launch("one past", kernels::Grid{n + 1, 1, 1}, [out](kernels::ProgramId p) { kernels::store<T>(out, p.x, 2.0f); });
  std::vector<float> host(n);
  const std::string m = runtime_error([&] { ex.download(out, n, host.data(), "da"); });
  EXPECT_NE(m.find("guard"), std::string::npos) << m;
  EXPECT_NE(m.find("output da"), std::string::npos) << m;
}

TYPED_TEST(HostExecutorGuards, WriteBeforeTheStartIsReported) {
  using T = TypeParam;
  constexpr std::int64_t n = 37;
  backends::HostExecutor ex;
  T* out = ex.template output<T>(n);
  ex.launch("one before", kernels::Grid{n, 1, 1},
            [out](kernels::ProgramId p) { kernels::store<T>(out, p.x - 1, 3.0f); });
  std::vector<float> host(n);
  const std::string m = runtime_error([&] { ex.download(out, n, host.data(), "db"); });
  EXPECT_NE(m.find("guard"), std::string::npos) << m;
}

TYPED_TEST(HostExecutorGuards, CompleteOutputPasses) {
  using T = TypeParam;
  constexpr std::int64_t n = 37;
  backends::HostExecutor ex;
  T* out = ex.template output<T>(n);
  ex.launch("all", kernels::Grid{n, 1, 1}, [out](kernels::ProgramId p) { kernels::store<T>(out, p.x, 0.5f * p.x); });
  std::vector<float> host(n);
  ex.download(out, n, host.data(), "h");
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(host[i], 0.5f * static_cast<float>(i));
}

//! The real forward body, launched on a grid one channel short: the last channel's h is never written.
TEST(HostExecutorGuards, ScanBodyOnTooSmallGridIsReported) {
  const Case& c = case_of({Architecture::scan, DType::float32, {17, Regime::default_, true, true}});
  const kernels::ScanGeometry g{c.shape.batch, c.shape.length, c.shape.width, c.shape.width, 0};
  const std::int64_t act = g.batch * g.length * g.width, state = g.batch * g.width;
  backends::HostExecutor ex;
  const float* a = ex.upload<float>(c.at("a").data(), act);
  const float* b = ex.upload<float>(c.at("b").data(), act);
  float* h = ex.output<float>(act);
  float* h_last = ex.output<float>(state);
  const kernels::ScanForward<float, float> fw{g, a, b, nullptr, h, h_last};
  ex.launch("short grid", kernels::Grid{g.channels - 1, 1, g.batch}, kernels::SequentialScan<decltype(fw), 1>{fw});
  std::vector<float> host(static_cast<std::size_t>(act));
  const std::string m = runtime_error([&] { ex.download(h, act, host.data(), "h"); });
  EXPECT_NE(m.find("never written"), std::string::npos) << m;
  // B * L elements of channel W-1; the first is [0, 0, W-1].
  EXPECT_NE(m.find(fmt::format("{} of {}", g.batch * g.length, act)), std::string::npos) << m;
  EXPECT_NE(m.find(fmt::format("flat index {}", g.width - 1)), std::string::npos) << m;
}

//! The real forward body told the sequence is one step longer than the buffer: it writes past h's end.
TEST(HostExecutorGuards, ScanBodyWritingPastTheEndIsReported) {
  const Case& c = case_of({Architecture::scan, DType::float32, {17, Regime::default_, true, true}});
  const kernels::ScanGeometry g{1, c.shape.length, c.shape.width, c.shape.width, 0};
  const std::int64_t act = g.length * g.width;
  backends::HostExecutor ex;
  // Inputs one row longer, the output exactly L rows: row L lands in the guard after h.
  std::vector<float> ones(static_cast<std::size_t>(act + g.width), 0.5f);
  const float* a = ex.upload<float>(ones.data(), act + g.width);
  float* h = ex.output<float>(act);
  float* h_last = ex.output<float>(g.width);
  kernels::ScanGeometry longer = g;
  longer.length += 1;
  const kernels::ScanForward<float, float> fw{longer, a, a, nullptr, h, h_last};
  ex.launch("long", kernels::Grid{g.channels, 1, 1}, kernels::SequentialScan<decltype(fw), 1>{fw});
  std::vector<float> host(static_cast<std::size_t>(act));
  const std::string m = runtime_error([&] { ex.download(h, act, host.data(), "h"); });
  EXPECT_NE(m.find("guard"), std::string::npos) << m;
}

}  // namespace
