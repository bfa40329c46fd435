// SPDX-License-Identifier: Apache-2.0
//! @file
//! A StridedBatchedGemm on host arrays run through the cuda executor (copies in, cuBLAS, copies out):
//! how tests hold the cuda executor's GEMM to the host executor's.
#pragma once

#include <cstdint>

#include "backends/gemm.hpp"

namespace scancheck::backends {

//! `g` points at host memory; a, b and c hold a_size, b_size and c_size elements. c is updated in place.
void gemm_cuda(const StridedBatchedGemm& g, std::int64_t a_size, std::int64_t b_size, std::int64_t c_size);

}  // namespace scancheck::backends
