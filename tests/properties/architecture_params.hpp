// SPDX-License-Identifier: Apache-2.0
//! @file
//! The (architecture, io dtype) pairs the property suites run over, and their gtest names.
#pragma once

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/backend.hpp"

namespace scancheck::test {

struct ArchitectureParam {
  Architecture architecture;
  DType io_dtype;
};

inline std::string name_of(const testing::TestParamInfo<ArchitectureParam>& info) {
  return fmt::format("{}_{}", to_string(info.param.architecture), dtype_token(info.param.io_dtype));
}

//! Every architecture in both io dtypes.
inline auto all_architecture_params() {
  using A = Architecture;
  constexpr DType f = DType::float32, b = DType::bfloat16;
  return testing::Values(ArchitectureParam{A::scan, f}, ArchitectureParam{A::scan, b},
                         ArchitectureParam{A::complex_scan, f}, ArchitectureParam{A::complex_scan, b},
                         ArchitectureParam{A::rglru, f}, ArchitectureParam{A::rglru, b},
                         ArchitectureParam{A::complex_rglru, f}, ArchitectureParam{A::complex_rglru, b});
}

}  // namespace scancheck::test
