// SPDX-License-Identifier: Apache-2.0
//! @file
//! The one operation executors provide besides program launches: a strided batched matrix product, for
//! the block-diagonal gate projections of the gated layers (one batch entry per head). Row-major views:
//!
//!   C[h] = op(A[h]) op(B[h]) + beta C[h],   h = 0..batch-1,   op(X) = X or X^T
//!
//! with op(A[h]) m x k, op(B[h]) k x n, C[h] m x n; X[h] starts at x + h * stride_x and its rows are
//! ld_x elements apart. float32 inputs, outputs and compute: the host executor uses Eigen, the cuda
//! executor cuBLAS in pedantic math mode (no TF32). Summation order is the library's; the two executors
//! agree to float32 rounding, not bitwise. The host executor can also sum each element's k products one
//! at a time (GemmOrder): the ensemble of correct orders spans a GEMM's order too (properties/differential.hpp).
//! C++17.
#pragma once

#include <cstdint>

namespace scancheck::backends {

struct MatrixView {
  const float* data;
  std::int64_t ld;      //!< elements between rows
  std::int64_t stride;  //!< elements between batch entries
  bool transposed;      //!< use X^T
};

//! The order in which a GEMM sums the k products of each output element. Which one a kernel's library
//! uses is its own business (blocked, split, vectorised); a cancelling sum rounds differently in each.
enum class GemmOrder {
  library,       //!< the executor's library (Eigen's blocked, vectorised product; cuBLAS)
  ascending_k,   //!< one product at a time, k = 0, 1, ... (a GPU GEMM thread's accumulation over its k-tiles)
  descending_k,  //!< one product at a time, k = K-1, ..., 0
  pairwise_k,    //!< halves summed recursively (a tree reduction, as split-k partial sums are combined)
};

struct StridedBatchedGemm {
  std::int64_t m, n, k, batch;
  MatrixView a, b;
  float* c;
  std::int64_t ldc, stride_c;
  float beta = 0;
};

}  // namespace scancheck::backends
