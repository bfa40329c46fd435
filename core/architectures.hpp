// SPDX-License-Identifier: Apache-2.0
//! @file
//! The architecture descriptors: one record per recurrence that says everything generic code needs to
//! know about it (the model is PyTorch's OpInfo: every generic test and tool iterates descriptors, so
//! adding an architecture is adding a record, its reference and its kernels). Generic code asks the
//! descriptor a question by its meaning (`segment_positions`, `main_input`, `channel_factor()`), never
//! "is this the gated kind"; only the code that implements one family of architectures (its reference
//! block, its kernels, its case generator) looks at `family` and `complex`.
//!
//! Facts that belong to higher layers hang off the same identity: the reference evaluator of each family
//! (reference/evaluate.hpp), the built-in backends of each family (backends/builtin_backends.cpp).
//! docs/architecture.md has the recipe for adding an architecture.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/architecture.hpp"
#include "core/case.hpp"

namespace scancheck {

//! Which reference block and which kernels implement an architecture (recurrences.md §1-§3).
enum class Family {
  affine_scan,  //!< h_t = a_t h_{t-1} + b_t on given a, b (§1)
  gated_layer,  //!< the RG-LRU layer: gate projections, decays and normalisation around the scan (§2, §3)
};

struct GenerationContext;  // core/case_generation.hpp

//! The families' layouts and generators (core/architectures.cpp, core/generate.cpp).
std::vector<TensorSpec> affine_scan_layout(const Shape&);
std::vector<TensorSpec> real_gated_layer_layout(const Shape&);
std::vector<TensorSpec> complex_gated_layer_layout(const Shape&);
void generate_affine_scan_tensors(Case&, const GenerationContext&);
void generate_gated_layer_tensors(Case&, const GenerationContext&);

struct ArchitectureDescriptor {
  Architecture id;
  std::string_view name;      //!< as on the command line and in case.json
  std::string_view equation;  //!< one line, for `scancheck list --architectures` and docs
  Family family;
  //! Complex state: W/2 complex channels stored in the merged [Re | Im] layout (channel c at c and W/2 + c).
  bool complex;
  //! The [B, L, W] activation whose dims define B, L and W in a case directory ("a" or "x").
  std::string_view main_input;
  //! Heads are diagonal blocks of the gate projections (W/H gate inputs per head), so case.json must name
  //! them; without gates heads only cut the state channels into independently verifiable blocks.
  bool gate_heads;
  //! The case has segment_pos [B, L] (int32; resets where it is 0), and resets reach the recurrence
  //! through it rather than through zero decays.
  bool segment_positions;
  //! The sqrt-gradient convention (recurrences.md §2) changes the backward; otherwise only `bounded` exists.
  bool sqrt_gradient;
  //! Its decays are inputs a kernel may take in log space (DecaySpace::log): real, given decays.
  bool log_decays;
  //! A layer of the production models (the seed shapes of the users' profiles are its shapes).
  bool production_layer;
  //! Every tensor at this shape, inputs first, in the order of docs/recurrences.md.
  std::vector<TensorSpec> (*layout)(const Shape&);
  //! Fills the case's tensors (core/case_generation.hpp); make_case has prepared the context.
  void (*generate)(Case&, const GenerationContext&);

  //! Stored real channels per state channel: 2 for the merged complex layout, else 1.
  constexpr std::int64_t channel_factor() const { return complex ? 2 : 1; }
};

namespace detail {

//! scan and complex_scan (recurrences.md section 1): decays and inputs are given, no gates.
constexpr ArchitectureDescriptor affine_scan(Architecture id, std::string_view name, std::string_view equation,
                                             bool complex) {
  return {.id = id,
          .name = name,
          .equation = equation,
          .family = Family::affine_scan,
          .complex = complex,
          .main_input = "a",
          .gate_heads = false,
          .segment_positions = false,
          .sqrt_gradient = false,
          .log_decays = !complex,
          .production_layer = false,
          .layout = affine_scan_layout,
          .generate = generate_affine_scan_tensors};
}

//! rglru and complex_rglru (recurrences.md sections 2 and 3): the RG-LRU layers of the production models.
constexpr ArchitectureDescriptor gated_layer(Architecture id, std::string_view name, std::string_view equation,
                                             bool complex) {
  return {.id = id,
          .name = name,
          .equation = equation,
          .family = Family::gated_layer,
          .complex = complex,
          .main_input = "x",
          .gate_heads = true,
          .segment_positions = true,
          .sqrt_gradient = true,
          .log_decays = false,
          .production_layer = true,
          .layout = complex ? complex_gated_layer_layout : real_gated_layer_layout,
          .generate = generate_gated_layer_tensors};
}

}  // namespace detail

//! Every descriptor, in the order of the enumeration (constexpr, so kernels and test-only mutants can ask
//! at compile time).
inline constexpr std::array<ArchitectureDescriptor, 4> architecture_descriptors{{
    detail::affine_scan(Architecture::scan, "scan", "h_t = a_t h_{t-1} + b_t, real (recurrences.md section 1)", false),
    detail::affine_scan(Architecture::complex_scan, "complex_scan",
                        "h_t = a_t h_{t-1} + b_t, complex, merged [Re | Im] layout (recurrences.md section 1)", true),
    detail::gated_layer(Architecture::rglru, "rglru",
                        "RecurrentGemma's RG-LRU: gated real decays, normalised inputs (recurrences.md section 2)",
                        false),
    detail::gated_layer(Architecture::complex_rglru, "complex_rglru",
                        "the RG-LRU with complex decays, merged [Re | Im] layout (recurrences.md section 3)", true),
}};

//! The descriptor of `a`.
constexpr const ArchitectureDescriptor& describe(Architecture a) {
  return architecture_descriptors[static_cast<std::size_t>(a)];
}

static_assert(
    [] {
      for (std::size_t i = 0; i < architecture_descriptors.size(); ++i)
        if (static_cast<std::size_t>(architecture_descriptors[i].id) != i ||
            architecture_descriptors[i].id != all_architectures[i])
          return false;
      return true;
    }(),
    "architecture_descriptors must follow the order of the enumeration");

}  // namespace scancheck
