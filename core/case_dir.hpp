// SPDX-License-Identifier: Apache-2.0
//! @file
//! Case directories on disk (docs/architecture.md, "Cases"): case.json plus one .npy per tensor.
//! case.json: {"architecture", "heads", "sqrt_gradient", "io_dtype", and optionally "decays", "seed", "regime"}.
//! B, L, W come from the tensors themselves and every tensor's shape is checked against them and against
//! tensor_layout. Output directories are written under a temporary name and renamed into place, so a
//! failure never leaves a half-written directory.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "core/case.hpp"
#include "core/files.hpp"

namespace scancheck {

//! Throws InputError naming the file and the problem.
Case load_case(const std::filesystem::path& dir);
void save_case(const Case&, const std::filesystem::path& dir);

//! The outputs of the case's layout found in `dir` as <name>.npy (float32, or float64 rounded to float32),
//! produced anywhere (another framework, `scancheck run`); absent ones are simply not in the map. Throws
//! InputError for a missing directory or a malformed file.
std::map<std::string, Tensor<float>> load_outputs(const Case&, const std::filesystem::path& dir);

}  // namespace scancheck
