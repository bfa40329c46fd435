// SPDX-License-Identifier: Apache-2.0
#include "core/tensor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace scancheck {

std::string to_string(const Dims& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

std::string index_string(const Dims& dims, std::int64_t flat) {
  Dims index(dims.size());
  for (std::size_t k = dims.size(); k-- > 0;) {
    index[k] = dims[k] > 0 ? flat % dims[k] : 0;
    flat = dims[k] > 0 ? flat / dims[k] : flat;
  }
  return to_string(index);
}

}  // namespace scancheck
