// SPDX-License-Identifier: Apache-2.0
//! @file
//! The backend-name grammar, in one place (docs/architecture.md "Backends and the execution model",
//! docs/foreign-backends.md "Names"). Names are parsed here, at the edge, into typed values; everything inside
//! passes the types, never strings.
//!
//!   name      = [provider ":"] architecture "/" variant "@" dtype     rglru/fused_chunk16@bf16,
//!                                                                     mykernels:rglru/triton_chunk64@bf16
//!   provider  = [a-z0-9_-]+        foreign backends only (a worker's or plugin's declared name)
//!   dtype     = fp32 | bf16        the io dtype (compute and states are float32)
//!   variant   = a built-in's [flag "_"]* schedule, or a foreign backend's own token [A-Za-z0-9_.+-]+
//!   schedule  = sequential | chunk{C} | grouped_prefix{G}_hierarchical_chunk{C} | local_chunk{C}
//!             | tree_chunk{C} | blelloch_chunk{C} | tree_prefix_tree_chunk{C}   (schedules.hpp says what each is)
//!   flag      = fused | fused_output | fused_write | shared_sfu, each at most once, in this order
//!
//! Which variants exist is the registry's business (backends/builtin_backends.cpp); the grammar only
//! says what a name means.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kernels/affine_scan/schedules.hpp"
#include "backends/variant_flags.hpp"
#include "core/architecture.hpp"
#include "core/dtype.hpp"

namespace scancheck {

using backends::VariantFlags;
using kernels::Schedule;

//! A built-in variant, typed: the schedule of its scan kernels and its flags.
struct Variant {
  Schedule schedule;
  VariantFlags flags;
};

//! The flags' tokens, in name order.
std::vector<std::string> flag_names(const VariantFlags&);

std::string to_string(const Schedule&);  //!< "sequential", "chunk16", "grouped_prefix32_hierarchical_chunk16"
std::string to_string(const Variant&);   //!< "fused_shared_sfu_chunk16"
//! The variant `text` names under the built-in grammar, or nothing (a foreign token, a malformed one).
std::optional<Variant> parse_variant(std::string_view text);

//! A full backend name, split.
struct BackendName {
  std::string provider;  //!< empty for the built-in backends
  Architecture architecture = Architecture::scan;
  std::string variant;
  DType io_dtype = DType::float32;

  friend bool operator==(const BackendName&, const BackendName&) = default;
};

std::string to_string(const BackendName&);
//! "variant@dtype": a backend within its provider and architecture, as worker run requests name it.
std::string variant_token(std::string_view variant, DType io_dtype);
//! Throws InputError saying which part of `name` does not follow the grammar.
BackendName parse_backend_name(std::string_view name);

//! The name without its "@dtype": "complex_rglru/fused_chunk16", "mykernels:rglru/triton_chunk64" (a speed
//! profile times a backend for every io dtype alike).
std::string name_without_dtype(const BackendName&);

//! A backend named without its architecture and io dtype, as a speed profile names it (reports/profile.hpp):
//! [provider ":"] variant, "fused_chunk16" or "mykernels:triton_chunk64".
struct ProviderVariant {
  std::string provider;  //!< empty for the built-in backends
  std::string variant;
};
//! Throws InputError "'TEXT': WHY" when `text` holds an architecture or a dtype, or its provider or variant
//! does not follow the grammar.
ProviderVariant parse_provider_variant(std::string_view text);

//! The io dtype token of backend names: fp32 or bf16.
std::string_view dtype_token(DType);
DType parse_dtype_token(std::string_view token);  //!< throws InputError naming the accepted tokens

//! A provider name of foreign-backends.md: [a-z0-9_-]+.
bool is_provider_name(std::string_view);
//! A foreign variant token: [A-Za-z0-9_.+-]+ (nothing that could split a name).
bool is_variant_token(std::string_view);

//! The same-precision sequential built-in of `architecture`: the baseline of the FlashAttention rule.
BackendName baseline_of(Architecture, DType io_dtype);

}  // namespace scancheck
