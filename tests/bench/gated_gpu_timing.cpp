// SPDX-License-Identifier: Apache-2.0
//! @file
//! Device timings of the production gated backends at the seed shapes, run by hand on a GPU machine
//! (backends/cuda/gated_timing.hpp says what each time is): per-launch CUDA events, median of `repeats`
//! (default 20) warmed runs, forward and backward apart, the backward's scan kernels and everything
//! outside its GEMMs, and that against its byte roofline (the bytes its non-GEMM kernels must move over the
//! device's measured copy rate). Prints Markdown: per io dtype (fp32, then bf16) a summary table, then for
//! rglru at (4, 2048, 2048) its backward kernel by kernel. Exit 77 without a device.
//!
//!   gated_gpu_timing [repeats [heads]]     heads: gate blocks per layer (default 16; it divides every
//!                                          seed width, and W/2 for complex_rglru)
//!
//! Cost: case generation dominates, 2.4 s (at (4, 2048, 2048)) to 13 s (at (1, 32768, 2048)) per case on
//! one core of the build machine, about 50 s per io dtype; the timed runs are milliseconds each with 16
//! heads (the gate GEMMs are block-diagonal, 16x fewer flops than one head). So about 2 minutes for fp32
//! and bf16 (estimated, not yet measured on the GPU machine). Rows print as they finish, fp32 first, so a
//! timeout cuts the bf16 rows first.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/case_arrays.hpp"
#include "backends/cuda/device.hpp"
#include "backends/cuda/gated_timing.hpp"
#include "core/generate.hpp"

using namespace scancheck;

namespace {

struct Row {
  std::string backend;  //!< without @dtype
  Shape shape;
};

//! The production backend of each architecture at each seed shape (the issue's list).
std::vector<Row> rows(std::int64_t heads) {
  const std::string rglru = "rglru/fused_grouped_prefix32_hierarchical_chunk16";
  const std::string complex_chunk = "complex_rglru/fused_output_fused_write_shared_sfu_chunk32";
  const std::string complex_grouped =
      "complex_rglru/fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32";
  const Shape issue{4, 2048, 2048, heads};
  std::vector<Row> out{{rglru, issue}, {complex_chunk, issue}};
  for (const Shape& s : {Shape{1, 8192, 2560, heads}, Shape{1, 32768, 1024, heads}, Shape{1, 32768, 2048, heads}}) {
    out.push_back({rglru, s});
    out.push_back({complex_grouped, s});
  }
  return out;
}

std::string shape_string(const Shape& s) {
  char text[96];
  std::snprintf(text, sizeof text, "(%lld, %lld, %lld)", static_cast<long long>(s.batch),
                static_cast<long long>(s.length), static_cast<long long>(s.width));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::stoi(argv[1]) : 20;
  const std::int64_t heads = argc > 2 ? std::stoll(argv[2]) : 16;
  const auto status = cuda::device_status();
  if (status.count == 0) {
    std::printf("SKIP: no CUDA device (%s)\n", status.reason.c_str());
    return 77;
  }
  const auto began = std::chrono::steady_clock::now();
  const double copy_rate = backends::device_copy_rate(std::int64_t{1} << 30, 10);
  std::printf(
      "Device: %s. Device-to-device copy rate: %.0f GB/s (read + write, 1 GiB, median of 10). "
      "%lld heads, median of %d runs after 3 warm-up runs; times are sums of per-launch device times "
      "(launch gaps excluded); roofline = minimum bytes of the backward's non-GEMM kernels / copy rate.\n\n",
      status.name.c_str(), copy_rate / 1e9, static_cast<long long>(heads), repeats);
  std::fflush(stdout);
  for (DType dtype : {DType::float32, DType::bfloat16}) {
    std::printf(
        "### %s io\n\n| backend | shape (B, L, W) | forward ms (median [min, max]) | backward ms "
        "| backward scan kernels ms | backward outside GEMMs ms | roofline ms | ratio |\n"
        "|---|---|---|---|---|---|---|---|\n",
        std::string(dtype_token(dtype)).c_str());
    std::fflush(stdout);
    std::string after;  // the per-kernel table and notes, printed after this dtype's summary table
    for (const Row& row : rows(heads)) {
      const BackendInfo& b = find_backend(row.backend + "@" + std::string(dtype_token(dtype)));
      CaseRequest r;
      r.architecture = b.architecture;
      r.shape = row.shape;
      r.seed = 1;
      r.io_dtype = dtype;
      const Case c = make_case(r);
      const backends::VariantFlags flags = b.builtin->flags;
      const backends::GatedTiming t =
          backends::time_gated_cuda(backends::gated_arrays(c, nullptr), flags, b.builtin->schedule, 3, repeats);
      const double roofline_ms = t.backward_outside_gemm_bytes / copy_rate * 1e3;
      const auto range = [](const backends::PhaseTiming& p) {
        char text[64];
        std::snprintf(text, sizeof text, "%.3f [%.3f, %.3f]", p.median_ms, p.min_ms, p.max_ms);
        return std::string(text);
      };
      std::printf("| %s | %s | %s | %s | %s | %s | %.3f | %.2f |\n", b.name.c_str(), shape_string(row.shape).c_str(),
                  range(t.forward.total).c_str(), range(t.backward.total).c_str(), range(t.backward.scan).c_str(),
                  range(t.backward.outside_gemm).c_str(), roofline_ms, t.backward.outside_gemm.median_ms / roofline_ms);
      std::fflush(stdout);
      if (b.architecture == Architecture::rglru && row.shape.batch == 4) {
        after += "\nBackward of " + b.name + " at " + shape_string(row.shape) +
                 ", kernels outside the GEMMs (minimum bytes: backends/cuda/gated_timing.hpp):\n\n"
                 "| kernel | minimum MB | roofline us | measured us (median) | ratio |\n|---|---|---|---|---|\n";
        for (const backends::KernelCost& k : t.backward_kernels) {
          char line[256];
          const double us = k.bytes / copy_rate * 1e6;
          std::snprintf(line, sizeof line, "| %s | %.1f | %.1f | %.1f | %.2f |\n", k.name.c_str(), k.bytes / 1e6, us,
                        k.median_ms * 1e3, us > 0 ? k.median_ms * 1e3 / us : 0.0);
          after += line;
        }
        char line[256];
        std::snprintf(line, sizeof line, "| **sum** | %.1f | %.1f | %.1f | %.2f |\n",
                      t.backward_outside_gemm_bytes / 1e6, roofline_ms * 1e3, t.backward.outside_gemm.median_ms * 1e3,
                      t.backward.outside_gemm.median_ms / roofline_ms);
        after += line;
      }
      for (const std::string& name : t.unmodelled)
        after += "\nNote: " + b.name + ": no byte count for kernel '" + name + "' (counted as 0 bytes).\n";
    }
    std::printf("%s\n", after.c_str());
    std::fflush(stdout);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::printf("\nTimed in %.0f s.\n", seconds);
  return 0;
}
