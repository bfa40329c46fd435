// SPDX-License-Identifier: Apache-2.0
//! @file
//! A gated linear attention kernel's outputs judged on one problem (reference/gla.hpp) by the rules of
//! docs/tolerance.md: the bound (gla_bounds, every evaluation order), the float32 recurrent order as rule
//! 3's baseline, and the error distribution of the correct float32 orders (the built-in kernels on the host:
//! recurrent, and fla's chunked algorithm at chunks of 16 and 64) as rule 4's ensemble; with bfloat16 io
//! (options.io) the same kernels with bfloat16 io. What `scancheck gla verify` and the
//! mutation tests share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "properties/compare.hpp"
#include "properties/policy.hpp"
#include "reference/gla.hpp"

namespace scancheck {

struct GlaTensorJudgement {
  TensorMetrics metrics;
  TensorVerdict verdict;
};

struct GlaJudgement {
  bool pass = true;
  std::vector<GlaTensorJudgement> tensors;  //!< in the order of gla_output_names, those given
};

//! Judges `got` (any of the outputs, each shaped as gla_reference's; InputError naming one that is not, or
//! an unknown name) against the tiered evaluation of `p`.
GlaJudgement judge_gla(const GlaProblem& p, const std::map<std::string, Tensor<float>>& got,
                       const TolerancePolicy& policy, const GlaBoundOptions& options = {}, int threads = 0);

}  // namespace scancheck
