// SPDX-License-Identifier: Apache-2.0
#include "core/shape.hpp"

#include <unistd.h>

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "core/architectures.hpp"
#include "core/case.hpp"
#include "core/error.hpp"

namespace scancheck {
namespace {

[[noreturn]] void reject(Architecture arch, const Shape& shape, std::string_view why) {
  throw InputError(fmt::format("invalid shape {} for {}: {}", to_string(shape), to_string(arch), why));
}

// Byte counts saturate instead of wrapping: any shape whose count saturates is far beyond any memory.
using Bytes = std::uint64_t;
constexpr Bytes bytes_max = std::numeric_limits<Bytes>::max();

Bytes saturating_mul(Bytes a, Bytes b) {
  Bytes r = 0;
  return __builtin_mul_overflow(a, b, &r) ? bytes_max : r;
}
Bytes saturating_add(Bytes a, Bytes b) {
  Bytes r = 0;
  return __builtin_add_overflow(a, b, &r) ? bytes_max : r;
}

// What checking one case holds at once: every tensor as float32, and the outputs again as a float64 reference.
Bytes case_bytes(Architecture arch, const Shape& shape) {
  Bytes total = 0;
  for (const TensorSpec& spec : tensor_layout(arch, shape)) {
    Bytes count = 1;
    for (std::int64_t d : spec.dims) count = saturating_mul(count, static_cast<Bytes>(d));
    const Bytes per_element = spec.role == TensorRole::output ? 4 + 8 : 4;
    total = saturating_add(total, saturating_mul(count, per_element));
  }
  return total;
}

Bytes physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return bytes_max;  // unknown: let the allocator decide
  return saturating_mul(static_cast<Bytes>(pages), static_cast<Bytes>(page_size));
}

void check_positive(Architecture arch, const Shape& shape) {
  const std::pair<char, std::int64_t> sizes[] = {
      {'B', shape.batch}, {'L', shape.length}, {'W', shape.width}, {'H', shape.heads}};
  for (const auto& [name, value] : sizes)
    if (value <= 0) reject(arch, shape, fmt::format("{} must be positive", name));
}

void check_heads(Architecture arch, const Shape& shape) {
  const std::int64_t w = shape.width, h = shape.heads;
  if (!describe(arch).complex) {
    if (w % h != 0) reject(arch, shape, fmt::format("W = {} is not divisible by H = {}", w, h));
    return;
  }
  if (w % 2 != 0) reject(arch, shape, fmt::format("W = {} is odd; the merged [Re | Im] layout needs an even width", w));
  if ((w / 2) % h != 0)
    reject(arch, shape, fmt::format("W/2 = {} complex channels are not divisible by H = {}", w / 2, h));
}

void check_memory(Architecture arch, const Shape& shape) {
  const Bytes needed = case_bytes(arch, shape);
  const Bytes available = physical_memory();
  if (needed <= available) return;
  const std::string amount = needed == bytes_max ? "more than 2^64" : fmt::format("{}", needed);
  reject(arch, shape,
         fmt::format("too large for memory: {} bytes (float32 tensors plus a float64 reference of the "
                     "outputs) against {} bytes of physical memory",
                     amount, available));
}

}  // namespace

std::string to_string(const Shape& s) {
  return fmt::format("B={} L={} W={} H={}", s.batch, s.length, s.width, s.heads);
}

std::int64_t state_channels(Architecture arch, const Shape& s) { return s.width / describe(arch).channel_factor(); }

std::int64_t head_inputs(Architecture arch, const Shape& s) {
  // The gates read the whole merged input; a plain scan has no gates, its "input" is its own channels.
  return describe(arch).gate_heads ? s.width / s.heads : head_channels(arch, s);
}

std::int64_t head_channels(Architecture arch, const Shape& s) { return state_channels(arch, s) / s.heads; }

void validate(Architecture arch, const Shape& shape) {
  check_positive(arch, shape);
  check_heads(arch, shape);
  check_memory(arch, shape);
}

}  // namespace scancheck
