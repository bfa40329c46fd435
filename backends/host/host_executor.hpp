// SPDX-License-Identifier: Apache-2.0
//! @file
//! The `host` executor: runs program bodies on the CPU in grid order (x fastest), the "twin" of the cuda
//! executor. Programs of one launch never communicate, so the launch may be cut into contiguous ranges of
//! programs run on `threads` threads with no effect on any result. Memory is ordinary host memory owned
//! by the executor.
//! C++17.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "backends/gemm.hpp"
#include "backends/kernels/program.hpp"
#include "backends/output_guard.hpp"

namespace scancheck::backends {

class HostExecutor {
 public:
  static constexpr const char* name = "host";
  //! Channels per program. The lanes' independent recurrences overlap in the CPU's pipelines and vector
  //! units; and up to 1024 channels one program owns whole rows, so a chunk's rows are one contiguous
  //! stream that the hardware prefetchers follow (tiles of 32 channels touch 128 bytes per row, 1 KiB
  //! apart at W = 256, which they do not: scan_bench's kernels ran 2.4x slower). Results do not depend
  //! on it: every lane performs the same operations whatever the tile (tests/backends/host_lanes_test).
  static constexpr int lanes = 1024;

  //! threads <= 0: all hardware threads. `gemm_order`: how gemm sums each element's products.
  explicit HostExecutor(int threads = 1, GemmOrder gemm_order = GemmOrder::library)
      : threads_(threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
        gemm_order_(gemm_order) {}

  template <class Body>
  void launch(const std::string& /*kernel*/, kernels::Grid grid, const Body& body) {
    const std::int64_t total = grid.size();
    if (total == 0) return;  // an empty grid launches nothing, as on the device (and Grid::at would divide by 0)
    // Below a few thousand programs of 32 lanes (the same number of lane-programs in wider tiles) a thread
    // costs more than it saves.
    const std::int64_t parts = std::max<std::int64_t>(1, total * lanes / (4096 * 32));
    in_parts(total, parts, [&](std::int64_t begin, std::int64_t end) { run_range(grid, body, begin, end); });
  }

  //! StridedBatchedGemm through Eigen (or summed in gemm_order), on up to `threads` threads. Heads are
  //! independent products, and the rows of a product with A untransposed are computed one by one, so
  //! cutting either across threads leaves every bit as it is.
  void gemm(const std::string& /*name*/, const StridedBatchedGemm& g) {
    // A thread pays for itself from about 2^23 multiply-adds (a few milliseconds).
    const std::int64_t parts = g.m * g.n * g.k * g.batch >> 23;
    if (gemm_order_ != GemmOrder::library)
      return in_parts(g.batch * g.m, parts, [&](std::int64_t begin, std::int64_t end) {
        RowVector out(g.n);
        for (std::int64_t q = begin; q < end; ++q) row_in_order(g, q / g.m, q % g.m, out);
      });
    if (g.a.transposed)
      return in_parts(g.batch, parts, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t h = begin; h < end; ++h) blocked_product(g, h);
      });
    in_parts(g.batch * g.m, parts, [&](std::int64_t begin, std::int64_t end) {
      RowVector in(g.k), out(g.n);
      for (std::int64_t q = begin; q < end; ++q) row_product(g, q / g.m, q % g.m, in, out);
    });
  }

  //! n elements, zeroed.
  template <class T>
  T* scratch(std::int64_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    T* p = allocate<T>(n);
    std::memset(static_cast<void*>(p), 0, static_cast<std::size_t>(n) * sizeof(T));
    return p;
  }

  //! Host values in storage type T (bf16 rounds to nearest even, into a copy). float values are read in
  //! place: bodies take inputs as const pointers, so a copy would change nothing but the cost. `values`
  //! must stay alive while the executor's launches run.
  template <class T>
  const T* upload(const float* values, std::int64_t n) {
    if constexpr (std::is_same_v<T, float>) return values;
    T* p = allocate<T>(n);  // every element written below
    for (std::int64_t i = 0; i < n; ++i) kernels::store<T>(p, i, values[i]);
    return p;
  }

  //! Host values as they are (integers such as segment_pos), read in place like float uploads.
  template <class T>
  const T* copy_in(const T* values, std::int64_t /*n*/) {
    return values;
  }

  //! A poisoned, guarded output buffer of n elements.
  template <class T>
  T* output(std::int64_t n) {
    T* image = allocate<T>(n + 2 * guard_elements);
    poison_image(image, n);
    return image + guard_elements;
  }

  //! Checks the output written at `p` (from output<T>(n)) in place and converts it to float.
  template <class T>
  void download(const T* p, std::int64_t n, float* out, const std::string& what) {
    unpack_image(p - guard_elements, n, out, what);
  }

  void synchronize() {}

 private:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
  using ConstView = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
  using View = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;

  //! op(X[h]), rows x cols; X itself is stored the other way round when transposed.
  static ConstView operand(const MatrixView& x, std::int64_t h, std::int64_t rows, std::int64_t cols) {
    return x.transposed ? ConstView(x.data + h * x.stride, cols, rows, Eigen::OuterStride<>(x.ld))
                        : ConstView(x.data + h * x.stride, rows, cols, Eigen::OuterStride<>(x.ld));
  }

  static View product(const StridedBatchedGemm& g, std::int64_t h) {
    return View(g.c + h * g.stride_c, g.m, g.n, Eigen::OuterStride<>(g.ldc));
  }

  //! Row i of C[h] on its own, from aligned copies (`in`, `out`: k and n elements), so that its bits do not
  //! depend on where the row sits in a blocked product: rows of A are rows of the case (batch entries times
  //! time steps), and a batch permutation must permute the outputs bitwise.
  static void row_product(const StridedBatchedGemm& g, std::int64_t h, std::int64_t i, RowVector& in, RowVector& out) {
    const ConstView a = operand(g.a, h, g.m, g.k), b = operand(g.b, h, g.k, g.n);
    in = a.row(i);
    if (g.b.transposed) out.noalias() = in * b.transpose();
    else out.noalias() = in * b;
    View c = product(g, h);
    if (g.beta == 0.0f) c.row(i) = out;
    else c.row(i) = g.beta * c.row(i) + out;
  }

  //! Row i of C[h] with each element's products summed in gemm_order_ (`out`: n elements). The whole row is
  //! swept per product, so the order holds for every element alike.
  void row_in_order(const StridedBatchedGemm& g, std::int64_t h, std::int64_t i, RowVector& out) const {
    const ConstView a = operand(g.a, h, g.m, g.k), b = operand(g.b, h, g.k, g.n);  // as stored
    const auto term = [&](std::int64_t k) -> RowVector {
      const float a_ik = g.a.transposed ? a(k, i) : a(i, k);
      if (g.b.transposed) return a_ik * b.col(k).transpose();
      return a_ik * b.row(k);
    };
    if (gemm_order_ == GemmOrder::pairwise_k) {
      out = pairwise_sum(term, 0, g.k, g.n);
    } else {
      out.setZero();
      for (std::int64_t s = 0; s < g.k; ++s) out += term(gemm_order_ == GemmOrder::ascending_k ? s : g.k - 1 - s);
    }
    View c = product(g, h);
    if (g.beta == 0.0f) c.row(i) = out;
    else c.row(i) = g.beta * c.row(i) + out;
  }

  //! term(begin) + ... + term(end - 1), the two halves summed first.
  template <class Term>
  static RowVector pairwise_sum(const Term& term, std::int64_t begin, std::int64_t end, std::int64_t n) {
    if (end - begin == 0) return RowVector::Zero(n);
    if (end - begin == 1) return term(begin);
    const std::int64_t middle = begin + (end - begin) / 2;
    return pairwise_sum(term, begin, middle, n) + pairwise_sum(term, middle, end, n);
  }

  //! C[h] as one blocked product: the weight gradients (A transposed) sum over the case's rows anyway.
  static void blocked_product(const StridedBatchedGemm& g, std::int64_t h) {
    const ConstView a = operand(g.a, h, g.m, g.k), b = operand(g.b, h, g.k, g.n);
    View c = product(g, h);
    if (g.beta == 0.0f) c.setZero();
    else c *= g.beta;
    if (g.a.transposed && g.b.transposed) c.noalias() += a.transpose() * b.transpose();
    else if (g.a.transposed) c.noalias() += a.transpose() * b;
    else if (g.b.transposed) c.noalias() += a * b.transpose();
    else c.noalias() += a * b;
  }

  //! Calls range(begin, end) on contiguous ranges covering [0, n): at most `parts` of them (and `threads`),
  //! one per thread.
  template <class Range>
  void in_parts(std::int64_t n, std::int64_t parts, const Range& range) const {
    parts = std::min<std::int64_t>({parts, threads_, n});
    if (parts <= 1) return range(0, n);
    std::vector<std::thread> pool;
    for (std::int64_t k = 1; k < parts; ++k) pool.emplace_back([&, k] { range(n * k / parts, n * (k + 1) / parts); });
    range(0, n / parts);
    for (std::thread& t : pool) t.join();
  }

  //! Programs [begin, end) in grid order.
  template <class Body>
  static void run_range(kernels::Grid grid, const Body& body, std::int64_t begin, std::int64_t end) {
    kernels::ProgramId p = grid.at(begin);
    for (std::int64_t i = begin; i < end; ++i) {
      body(p);
      if (++p.x == grid.x) {
        p.x = 0;
        if (++p.y == grid.y) {
          p.y = 0;
          ++p.z;
        }
      }
    }
  }

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };

  //! Room for n elements, uninitialised (T is trivial), kept until the executor is destroyed. Plain malloc:
  //! 2 MiB-aligned blocks advised as huge pages cut the faults of fresh memory, but aligned blocks
  //! fragment glibc's heap so that every run got fresh memory (gated_bench: 110 ms more per run).
  template <class T>
  T* allocate(std::int64_t n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>);
    void* p = std::malloc(static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T));
    if (!p) throw std::bad_alloc();
    std::unique_ptr<void, Free> block(p);
    keep_.push_back(std::move(block));
    return static_cast<T*>(p);
  }

  int threads_;
  GemmOrder gemm_order_;
  std::vector<std::unique_ptr<void, Free>> keep_;
};

}  // namespace scancheck::backends
