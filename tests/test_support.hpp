// SPDX-License-Identifier: Apache-2.0
//! @file
//! Shared helpers of the test suites: a self-removing temporary directory, InputError matching, and
//! bitwise tensor comparison.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace scancheck::test {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("scancheck-core-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

//! The message of the InputError that `f` throws, or a test failure (and "") when it throws none.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

inline testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

//! Same dims and the same bits in every element (NaN payloads and signed zeros included).
template <class T>
testing::AssertionResult bitwise_equal(const Tensor<T>& a, const Tensor<T>& b) {
  if (a.dims() != b.dims())
    return testing::AssertionFailure() << "dims " << to_string(a.dims()) << " vs " << to_string(b.dims());
  if (a.size() != b.size()) return testing::AssertionFailure() << "sizes differ";
  if (a.size() > 0 && std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(T)) != 0)
    return testing::AssertionFailure() << "values differ";
  return testing::AssertionSuccess();
}

}  // namespace scancheck::test
