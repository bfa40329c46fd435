// SPDX-License-Identifier: Apache-2.0
//! @file
//! A case (docs/architecture.md, "Cases"): architecture, shape, io dtype, sqrt-gradient convention, provenance, and the
//! named input and cotangent tensors, plus the table that says which tensors each architecture has and
//! their shapes. That table (`tensor_layout`) is the single source of names and shapes for case
//! directories, references and backends.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/architecture.hpp"
#include "core/dtype.hpp"
#include "core/shape.hpp"
#include "core/tensor.hpp"

namespace scancheck {

enum class TensorRole {
  input,      //!< forward input or parameter (a, b, x, h0, a_param, gate weights, ...)
  cotangent,  //!< backward seed (dh, dy, dh_last)
  output      //!< forward output or gradient (h, y, h_last, dx, dh0, d_a_param, ...)
};

//! Whether a tensor holds activations (stored in the io dtype) or states and parameters (always float32).
enum class TensorPrecision { io, float32 };

struct TensorSpec {
  std::string name;  //!< file stem: "x" for x.npy
  TensorRole role;
  Dims dims;
  bool optional = false;  //!< h0 and dh_last may be absent
  bool integer = false;   //!< segment_pos: int32
  TensorPrecision precision = TensorPrecision::io;
  Direction direction = Direction::forward;  //!< outputs: the pass that produces it (gradients: backward)
  bool parameter = false;  //!< a weight, bias or decay parameter, or its gradient: shared by every batch entry
};

//! Every tensor of the architecture at this shape, inputs first, in the order of docs/recurrences.md (the
//! architecture's descriptor, core/architectures.hpp, defines it). Precondition: validate(arch, shape) passed.
//! In log form the decays a and their gradient da are log_a and dlog_a; InputError where the architecture
//! has no decays to take in log space.
std::vector<TensorSpec> tensor_layout(Architecture, const Shape&, DecaySpace = DecaySpace::linear);
std::vector<TensorSpec> tensor_layout(Architecture, const Shape&, TensorRole, DecaySpace = DecaySpace::linear);
//! The name of a plain scan's decay input in `form`: "a" or "log_a".
std::string_view decay_input(DecaySpace form);
//! The pass that produces output `output` of the architecture (h, y, h_last: forward; gradients: backward).
//! Throws InputError when it is not one of its outputs.
Direction direction_of(Architecture, std::string_view output);

struct Provenance {
  std::optional<std::uint64_t> seed;
  std::string regime;  //!< empty when unknown (a case written by another tool)
};

struct Case {
  Architecture architecture = Architecture::scan;
  Shape shape;
  DType io_dtype = DType::float32;
  SqrtGradient sqrt_gradient = SqrtGradient::bounded;
  DecaySpace decays = DecaySpace::linear;  //!< a plain scan's decays as a or as log_a
  Provenance provenance;

  //! Every float input and cotangent present (optional ones may be missing). float32 values; a bfloat16
  //! case holds bf16-representable values.
  std::map<std::string, Tensor<float>> tensors;
  //! [B, L] for architectures with segment positions; empty for the others.
  Tensor<std::int32_t> segment_pos;

  bool has(const std::string& name) const { return tensors.count(name) != 0; }
  //! Throws std::out_of_range when absent.
  const Tensor<float>& at(const std::string& name) const { return tensors.at(name); }
  Tensor<float>& at(const std::string& name) { return tensors.at(name); }
};

//! The case's tensors: tensor_layout at its architecture, shape and decay form.
std::vector<TensorSpec> tensor_layout(const Case&);
std::vector<TensorSpec> tensor_layout(const Case&, TensorRole);
//! The [B, L, W] input whose dims define B, L and W: the descriptor's main input, in the case's decay form.
std::string main_input(const Case&);

//! Checks that the case is complete and consistent: shape valid, every required tensor present with the
//! dims of tensor_layout, no unknown tensor, segment_pos present exactly when the
//! architecture has segment positions, bfloat16
//! io tensors bf16-representable. Throws InputError naming the first problem.
void validate(const Case&);

}  // namespace scancheck
