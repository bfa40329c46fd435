// SPDX-License-Identifier: Apache-2.0
#include "backends/mutants/mutant_run.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "backends/case_arrays.hpp"
#include "core/architectures.hpp"
#include "core/error.hpp"

namespace scancheck::mutation {
PreparedRun::PreparedRun(const BackendInfo& backend, const Case& c) : base(backend) {
  validate(c);
  if (!base.builtin)
    throw InputError(fmt::format("{} is not a built-in backend: mutants mutate built-in launch sequences", base.name));
  if (c.architecture != base.architecture || c.io_dtype != base.io_dtype)
    throw InputError(fmt::format("a mutant of {} cannot run a {} case with {} io", base.name, to_string(c.architecture),
                                 to_string(c.io_dtype)));
  // The same mapping as run_backend (backends/case_arrays.hpp).
  outputs = backends::output_tensors(c);
  gated = describe(c.architecture).family == Family::gated_layer;
  if (!gated) {
    scan = backends::scan_arrays(c, &outputs);
    return;
  }
  gates = backends::gated_arrays(c, &outputs);
  flags = base.builtin->flags;
}

Outputs run_unmutated(const BackendInfo& base, const Case& c) {
  using A = Architecture;
  constexpr DType fp32 = DType::float32, bf16 = DType::bfloat16;
  const bool f = base.io_dtype == fp32;
  switch (base.architecture) {
    case A::scan:
      return f ? run_mutated<A::scan, fp32>(base, c, Unchanged{}) : run_mutated<A::scan, bf16>(base, c, Unchanged{});
    case A::complex_scan:
      return f ? run_mutated<A::complex_scan, fp32>(base, c, Unchanged{})
               : run_mutated<A::complex_scan, bf16>(base, c, Unchanged{});
    case A::rglru:
      return f ? run_mutated<A::rglru, fp32>(base, c, Unchanged{}) : run_mutated<A::rglru, bf16>(base, c, Unchanged{});
    case A::complex_rglru:
      return f ? run_mutated<A::complex_rglru, fp32>(base, c, Unchanged{})
               : run_mutated<A::complex_rglru, bf16>(base, c, Unchanged{});
  }
  throw std::logic_error("unknown architecture");
}

}  // namespace scancheck::mutation
