// SPDX-License-Identifier: Apache-2.0
//! @file
//! Worker overhead (issue 12, "Performance"): what one run of a foreign backend costs scancheck beyond the
//! worker's own compute (writing the case directory, the protocol's messages, reading the outputs back),
//! against writing and reading the case's tensors once (save_case + load_case), at a small case and at
//! the production shape (1, 8192, 2048). The worker is tests/bench/null_worker.py, which computes nothing
//! and links prepared outputs into place. Goal: under 5 ms and under 2x the baseline.
//!   worker_bench [--benchmark_filter=small]          (needs /usr/bin/python3)
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "backends/case_arrays.hpp"
#include "backends/foreign/worker.hpp"
#include "core/case_dir.hpp"
#include "core/generate.hpp"
#include "core/npy.hpp"
#include "tests/bench/ratio_reporter.hpp"

namespace scancheck {
namespace {

namespace fs = std::filesystem;

Shape shape_of(const std::string& size) { return size == "small" ? Shape{1, 64, 16, 2} : Shape{1, 8192, 2048, 16}; }

//! A case of `size`, its outputs written once into a scratch directory, and a null worker serving them.
struct Fixture {
  // The baseline writes where the worker's case directories go (foreign::scratch_root()), for a fair ratio.
  explicit Fixture(const std::string& size) : dir(foreign::scratch_root() / fmt::format("worker_bench-{}", size)) {
    CaseRequest r;
    r.architecture = Architecture::rglru;
    r.shape = shape_of(size);
    r.seed = 1;
    c = make_case(r);
    fs::remove_all(dir);
    fs::create_directories(dir / "outputs");
    for (const auto& [name, tensor] : backends::output_tensors(c)) write_npy(dir / "outputs" / (name + ".npy"), tensor);
    worker = std::make_unique<foreign::Worker>(fmt::format("/usr/bin/python3 {}/tests/bench/null_worker.py {} rglru",
                                                           SCANCHECK_SOURCE_DIR, (dir / "outputs").string()),
                                               foreign::WorkerOptions{});
  }
  ~Fixture() { fs::remove_all(dir); }
  fs::path dir;
  Case c;
  std::unique_ptr<foreign::Worker> worker;
};

Fixture& fixture(const std::string& size) {
  static std::map<std::string, std::unique_ptr<Fixture>> all;
  auto& f = all[size];
  if (!f) f = std::make_unique<Fixture>(size);
  return *f;
}

void worker_run(benchmark::State& state, const std::string& size) {
  Fixture& f = fixture(size);
  const foreign::DeclaredBackend& backend = f.worker->hello().backends.front();
  for (auto _ : state) benchmark::DoNotOptimize(f.worker->run(backend, f.c));
}

void case_write_and_read(benchmark::State& state, const std::string& size) {
  Fixture& f = fixture(size);
  for (auto _ : state) {
    save_case(f.c, f.dir / "case");
    benchmark::DoNotOptimize(load_case(f.dir / "case"));
  }
}

BENCHMARK_CAPTURE(worker_run, small, std::string("small"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(case_write_and_read, small, std::string("small"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(worker_run, seed_shape, std::string("seed_shape"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(case_write_and_read, seed_shape, std::string("seed_shape"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace scancheck

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  scancheck::bench::RatioReporter reporter({
      {"worker_run/small/real_time", "case_write_and_read/small/real_time",
       "worker run / case write+read at (1, 64, 16)", " (goal: < 2x and < 5 ms)", 2},
      {"worker_run/seed_shape/real_time", "case_write_and_read/seed_shape/real_time",
       "worker run / case write+read at (1, 8192, 2048)", " (goal: < 2x)", 2},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
