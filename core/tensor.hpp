// SPDX-License-Identifier: Apache-2.0
//! @file
//! A dense row-major host tensor (last axis fastest), the one container for case inputs, outputs, reference
//! values and error bounds.
#pragma once

#include <cassert>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace scancheck {

using Dims = std::vector<std::int64_t>;

inline std::int64_t element_count(const Dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>{});
}
std::string to_string(const Dims&);  // "[2, 33, 16]"
//! The multi-index of row-major element `flat` of a tensor with these dims, for error messages: "[0, 3, 5]".
std::string index_string(const Dims&, std::int64_t flat);

template <class T>
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Dims dims, T fill = T{})
      : dims_(std::move(dims)), data_(static_cast<std::size_t>(element_count(dims_)), fill) {}
  Tensor(Dims dims, std::vector<T> data) : dims_(std::move(dims)), data_(std::move(data)) {
    assert(static_cast<std::int64_t>(data_.size()) == element_count(dims_));
  }

  const Dims& dims() const { return dims_; }
  std::int64_t dim(std::size_t axis) const { return dims_[axis]; }
  std::int64_t rank() const { return static_cast<std::int64_t>(dims_.size()); }
  std::int64_t size() const { return static_cast<std::int64_t>(data_.size()); }
  bool empty() const { return dims_.empty(); }

  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  std::span<T> span() { return data_; }
  std::span<const T> span() const { return data_; }
  std::vector<T>& values() { return data_; }
  const std::vector<T>& values() const { return data_; }

  T& operator[](std::int64_t i) { return data_[static_cast<std::size_t>(i)]; }
  const T& operator[](std::int64_t i) const { return data_[static_cast<std::size_t>(i)]; }

  //! Element at a full multi-index, row-major.
  template <class... I>
  T& operator()(I... idx) {
    return data_[offset(idx...)];
  }
  template <class... I>
  const T& operator()(I... idx) const {
    return data_[offset(idx...)];
  }

 private:
  template <class... I>
  std::size_t offset(I... idx) const {
    assert(sizeof...(I) == dims_.size());
    const std::int64_t index[] = {static_cast<std::int64_t>(idx)...};
    std::int64_t o = 0;
    for (std::size_t k = 0; k < sizeof...(I); ++k) o = o * dims_[k] + index[k];
    return static_cast<std::size_t>(o);
  }

  Dims dims_;
  std::vector<T> data_;
};

}  // namespace scancheck
