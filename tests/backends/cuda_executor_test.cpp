// SPDX-License-Identifier: Apache-2.0
//! @file
//! What a CUDA build must do on any machine, device or not: offer the cuda executor, and refuse it with an
//! InputError naming the reason (exit code 2 in the CLI), not a crash, when no device can be used. Runs
//! on CPU-only CI (label unit); the device-needing checks are in scan_backend_gpu_test.cpp (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "backends/backend.hpp"
#include "backends/cuda/cublas_library.hpp"
#include "backends/cuda/device.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"

namespace scancheck {
namespace {

// cuBLAS is opened on first use rather than linked (half a second of start-up per process otherwise): the
// library of the toolkit we compiled against must be found and export every entry point we call. Needs no
// device: loading the library does not touch one.
TEST(CudaExecutor, CublasIsFoundOnFirstUse) {
  const backends::CublasLibrary& lib = backends::cublas_library();
  EXPECT_NE(lib.create, nullptr);
  EXPECT_NE(lib.destroy, nullptr);
  EXPECT_NE(lib.set_math_mode, nullptr);
  EXPECT_NE(lib.sgemm_strided_batched, nullptr);
  ASSERT_NE(lib.status_string, nullptr);
  EXPECT_GT(std::string(lib.status_string(CUBLAS_STATUS_NOT_INITIALIZED)).size(), 0u);
}

TEST(CudaExecutor, CudaExecutorIsBuilt) {
  const auto executors = built_executors();
  EXPECT_NE(std::find(executors.begin(), executors.end(), Executor::cuda), executors.end());
}

//! Without a device the cuda executor is refused with an InputError naming the reason, not a crash.
TEST(CudaExecutor, NoDeviceIsAnInputError) {
  const auto status = cuda::device_status();
  if (status.count > 0) GTEST_SKIP() << "a CUDA device is present (" << status.name << ")";
  CaseRequest r;
  r.architecture = Architecture::scan;
  r.shape = {1, 4, 3, 1};
  const Case c = make_case(r);
  try {
    run_backend(find_backend("scan/sequential@fp32"), c, Executor::cuda);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scancheck
