// SPDX-License-Identifier: Apache-2.0
#include "core/build_info.hpp"

#include <fmt/format.h>

#include "scancheck_revision.hpp"

namespace scancheck {
namespace {

std::string compiler() {
#if defined(__clang__)
  return fmt::format("Clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("GCC {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

}  // namespace

const BuildInfo& build_info() {
  static const BuildInfo info{SCANCHECK_VERSION, SCANCHECK_GIT_REVISION, compiler(), SCANCHECK_CUDA_VERSION};
  return info;
}

}  // namespace scancheck
