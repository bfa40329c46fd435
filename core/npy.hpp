// SPDX-License-Identifier: Apache-2.0
//! @file
//! NumPy .npy files, the interchange format of case directories (format versions 1.0 and 2.0).
//! Reads '<f4', '<f8' and '<i4' (plus '|' or '=' byte-order marks where unambiguous), C order only; every
//! other file (Fortran order, big-endian, other dtypes, truncated data, a bad magic or header) is rejected
//! with an InputError naming the file and the problem. Writes are atomic: a temporary file is renamed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string_view>
#include <variant>

#include "core/tensor.hpp"

namespace scancheck {

using AnyTensor = std::variant<Tensor<float>, Tensor<double>, Tensor<std::int32_t>>;

AnyTensor read_npy(const std::filesystem::path&);
//! The same reading of `size` bytes from a stream, or of bytes in memory; `name` is the file named in errors.
AnyTensor read_npy(std::istream& in, const std::filesystem::path& name, std::uint64_t size);
AnyTensor parse_npy(std::string_view bytes, const std::filesystem::path& name);
//! Reads and converts: float32 and float64 files to float (float64 must convert exactly unless
//! `allow_rounding`), int32 files only to int32.
Tensor<float> read_npy_float(const std::filesystem::path&, bool allow_rounding = false);
Tensor<double> read_npy_double(const std::filesystem::path&);
Tensor<std::int32_t> read_npy_int32(const std::filesystem::path&);

void write_npy(const std::filesystem::path&, const Tensor<float>&);
void write_npy(const std::filesystem::path&, const Tensor<double>&);
void write_npy(const std::filesystem::path&, const Tensor<std::int32_t>&);

}  // namespace scancheck
