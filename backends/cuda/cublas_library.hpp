// SPDX-License-Identifier: Apache-2.0
//! @file
//! cuBLAS, opened on first use instead of linked. Linking it costs every process about half a second of
//! loader-time initialisation (libcublasLt's constructors), GPU or not: every `scancheck` call and every
//! test process paid it although only the cuda executor's GEMMs need the library. The entry points are
//! the header's own declarations, so the types cannot drift from the library's.
#pragma once

#include <cublas_v2.h>

namespace scancheck::backends {

struct CublasLibrary {
  decltype(&::cublasCreate_v2) create;
  decltype(&::cublasDestroy_v2) destroy;
  decltype(&::cublasSetMathMode) set_math_mode;
  decltype(&::cublasSgemmStridedBatched) sgemm_strided_batched;
  decltype(&::cublasGetStatusString) status_string;
};

//! The loaded library; throws CudaError (cuda_executor.cuh) naming what is missing when it cannot be opened.
const CublasLibrary& cublas_library();

}  // namespace scancheck::backends
