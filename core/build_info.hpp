// SPDX-License-Identifier: Apache-2.0
//! @file
//! What this build of scancheck is: its version (CMake's project version), the git revision it was built
//! from (read at build time, "+dirty" when tracked files differed), the compiler and the CUDA version of
//! the CUDA executor (empty without one). `scancheck --version` prints them; every report records them.
#pragma once

#include <string>

namespace scancheck {

struct BuildInfo {
  std::string version, git_revision, compiler, cuda_version;
};

const BuildInfo& build_info();

}  // namespace scancheck
