// SPDX-License-Identifier: Apache-2.0
//! @file
//! The `host` executor: runs program bodies on the CPU, program after program in grid order (x fastest),
//! the "twin" of the cuda executor. Memory is ordinary host memory owned by the executor.
//! C++17.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/kernels/program.hpp"
#include "backends/output_guard.hpp"

namespace scancheck::backends {

class HostExecutor {
 public:
  static constexpr const char* name = "host";

  template <class Body>
  void launch(const std::string& /*kernel*/, kernels::Grid grid, const Body& body) {
    for (std::int64_t z = 0; z < grid.z; ++z)
      for (std::int64_t y = 0; y < grid.y; ++y)
        for (std::int64_t x = 0; x < grid.x; ++x) body(kernels::ProgramId{x, y, z});
  }

  template <class T>
  T* scratch(std::int64_t n) {
    return keep(std::make_unique<T[]>(static_cast<std::size_t>(n)));
  }

  //! Host values in storage type T (bf16 rounds to nearest even, into a copy). float values are read in
  //! place: bodies take inputs as const pointers, so a copy would change nothing but the cost. `values`
  //! must stay alive while the executor's launches run.
  template <class T>
  const T* upload(const float* values, std::int64_t n) {
    if constexpr (std::is_same_v<T, float>) return values;
    T* p = keep(std::unique_ptr<T[]>(new T[static_cast<std::size_t>(n)]));  // every element written below
    for (std::int64_t i = 0; i < n; ++i) kernels::store<T>(p, i, values[i]);
    return p;
  }

  //! A poisoned, guarded output buffer of n elements.
  template <class T>
  T* output(std::int64_t n) {
    auto image = std::make_shared<std::vector<T>>(poisoned_image<T>(n));
    keep_.push_back(image);
    return image->data() + guard_elements;
  }

  //! Checks the output written at `p` (from output<T>(n)) in place and converts it to float.
  template <class T>
  void download(const T* p, std::int64_t n, float* out, const std::string& what) {
    unpack_image(p - guard_elements, n, out, what);
  }

  void synchronize() {}

 private:
  //! Keeps the block alive until the executor is destroyed.
  template <class T>
  T* keep(std::unique_ptr<T[]> block) {
    T* p = block.get();
    keep_.push_back(std::shared_ptr<void>(block.release(), [](void* q) { delete[] static_cast<T*>(q); }));
    return p;
  }

  std::vector<std::shared_ptr<void>> keep_;
};

}  // namespace scancheck::backends
