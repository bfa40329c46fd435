// SPDX-License-Identifier: Apache-2.0
//! @file
//! Case directories on disk (harness.md, "Cases"): case.json plus one .npy per tensor.
//! case.json: {"architecture", "heads", "sqrt_gradient", "io_dtype", and optionally "seed", "regime"}.
//! B, L, W come from the tensors themselves and every tensor's shape is checked against them and against
//! tensor_layout. Output directories are written under a temporary name and renamed into place, so a
//! failure never leaves a half-written directory.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "core/case.hpp"

namespace scancheck {

//! Throws InputError naming the file and the problem.
Case load_case(const std::filesystem::path& dir);
void save_case(const Case&, const std::filesystem::path& dir);

//! The outputs of the case's layout found in `dir` as <name>.npy (float32, or float64 rounded to float32),
//! produced anywhere (another framework, `scancheck run`); absent ones are simply not in the map. Throws
//! InputError for a missing directory or a malformed file.
std::map<std::string, Tensor<float>> load_outputs(const Case&, const std::filesystem::path& dir);

//! Creates `dir` atomically: `fill` writes into a fresh temporary sibling directory which is then renamed
//! to `dir` (replacing an existing `dir`). If `fill` throws, the temporary is removed and `dir` untouched.
void write_directory_atomically(const std::filesystem::path& dir,
                                const std::function<void(const std::filesystem::path& tmp)>& fill);

//! Writes `contents` to a temporary sibling of `file` and renames it over `file`: readers never see a
//! half-written file. Throws InputError naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& file, std::string_view contents);

}  // namespace scancheck
