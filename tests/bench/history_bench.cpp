// SPDX-License-Identifier: Apache-2.0
//! @file
//! How long `scancheck history add` takes for a realistic report (issue goal: under 1 s for a quick report),
//! and `history show` for the reports added. No Google Benchmark: one add is one measurement, as a user
//! sees it.
//!
//!   history_bench [--rows N] [--adds K] [--max-seconds S]
//!
//! Writes a report of N rows (default 3000: a quick report of about 300 backends; rglru-like forward rows
//! with 2 tensors and backward rows with 6, full metrics and ulp histograms) as report.json into a temporary
//! directory, then K times (default 5) does what `history add` does: load_report, then History::add into one
//! database (each time a distinct report: another generated_at). Prints each add's seconds, their median,
//! the report.json and database sizes, and the seconds of history_view + both renderings + writing of the
//! K reports. Exits 1 when the median add exceeds --max-seconds (default: no limit).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "core/error.hpp"
#include "render/history_page.hpp"
#include "reports/history.hpp"
#include "reports/model.hpp"

namespace {

using namespace scancheck;
using namespace scancheck::reports;
using namespace scancheck::render;
namespace fs = std::filesystem;

TensorEntry tensor(const std::string& name, double error) {
  TensorEntry t;
  TensorMetrics& m = t.metrics;
  m.name = name;
  m.compared = 2 * 2100 * 64;
  m.max_exact = 3.5;
  m.max_abs = error * m.max_exact;
  m.max_rel = 4 * error;
  m.ulp_p50 = 0.5;
  m.ulp_p90 = 1;
  m.ulp_p99 = 3;
  m.ulp_max = 40;
  m.max_bound = 100 * m.max_abs;
  m.bound_ratio = 0.01;
  m.baseline_abs = m.max_abs;
  m.baseline_ratio = 1;
  m.worst = {1234, "[1, 2099, 17]", m.max_exact - m.max_abs, m.max_exact, m.max_bound, 40};
  for (int k = 0; k < 8; ++k) m.ulp_histogram[static_cast<std::size_t>(k)] = m.compared >> (k + 1);
  return t;
}

//! `rows` rows over 10 cases, 20 per backend (foreign names: any number of them is within the grammar),
//! forward and backward alternating.
Report realistic_report(std::int64_t rows) {
  Report r;
  r.label = "bench";
  r.generated_at = "2024-06-01T02:00:00Z";
  r.tool = {"scancheck", "0.1.0", "0123456789ab"};
  r.environment.executor = "host";
  r.environment.compiler = "GCC 12.2.0";
  r.environment.host = "bench-host";
  r.environment.threads = 2;
  r.method.preset = "quick";
  r.method.reference_precision = "float128";
  r.method.bounds = "first-order float32 bounds";
  r.method.baseline = "rglru/sequential@fp32";
  r.method.sampling = "full";
  r.method.seed = 1;
  r.method.backends = "*";
  r.method.lengths = {2, 33, 300, 2100, 8200};
  r.scope = default_scope(r.method);
  constexpr int cases = 10;
  for (int c = 0; c < cases; ++c) {
    CaseEntry e;
    e.id = fmt::format("c{}", c);
    e.request.architecture = Architecture::rglru;
    e.request.shape = {2, 33 + 200 * c, 64, 2};
    e.request.seed = static_cast<std::uint64_t>(c);
    e.repro = to_string(e.request);
    r.cases.push_back(e);
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    const CaseEntry& c = r.cases[static_cast<std::size_t>(i % cases)];
    Row row;
    row.case_id = c.id;
    row.shape = c.request.shape;
    row.architecture = Architecture::rglru;
    row.backend = fmt::format("bench:rglru/variant{}@fp32", i / (2 * cases));  // a foreign name per 20 rows
    row.direction = i % 2 == 0 ? Direction::forward : Direction::backward;
    row.seed = c.request.seed;
    row.repro = fmt::format("scancheck check {} --backend {}", c.repro, row.backend);
    const double e = 1e-6 * static_cast<double>(1 + i % 7);
    if (row.direction == Direction::forward) row.tensors = {tensor("y", e), tensor("h_last", e)};
    else
      row.tensors = {tensor("dx", e),
                     tensor("dh0", e),
                     tensor("d_a_param", e),
                     tensor("d_input_gate_w", e),
                     tensor("d_input_gate_b", e),
                     tensor("d_a_gate_w", e)};
    r.rows.push_back(std::move(row));
  }
  summarise(r);
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(std::int64_t rows, int adds, double max_seconds) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("scancheck-history-bench-{}", ::getpid());
  fs::create_directories(dir);
  Report report = realistic_report(rows);
  std::vector<double> times;
  for (int k = 0; k < adds; ++k) {
    report.generated_at = fmt::format("2024-06-{:02d}T02:00:00Z", k + 1);
    save_report_json(report, dir / "report.json");
    const auto start = std::chrono::steady_clock::now();
    History history(dir / "history.db", History::Open::create_or_upgrade);  // as the CLI: open, load, add
    const Report loaded = load_report(dir / "report.json");
    const double load = seconds_since(start);
    const AddResult a = history.add(loaded);
    times.push_back(seconds_since(start));
    std::printf("add %d: %lld rows in %.3f s (open and load_report %.3f s, History::add %.3f s)%s\n", k + 1,
                static_cast<long long>(a.entry.rows), times.back(), load, times.back() - load,
                a.added ? "" : " (not added?)");
  }
  const auto start = std::chrono::steady_clock::now();
  {
    const History history(dir / "history.db", History::Open::existing);
    write_history_page(history_view(history, {"bench"}), dir / "page");
  }
  const double show = seconds_since(start);
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  std::printf(
      "history add of a %lld-row report (report.json %.1f MB): median %.3f s, max %.3f s over %d adds; "
      "database %.1f MB; history show of the %d reports: %.3f s (history.html %.1f MB)\n",
      static_cast<long long>(rows), static_cast<double>(fs::file_size(dir / "report.json")) / 1e6, median,
      sorted.back(), adds, static_cast<double>(fs::file_size(dir / "history.db")) / 1e6, adds, show,
      static_cast<double>(fs::file_size(dir / "page" / "history.html")) / 1e6);
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  if (max_seconds > 0 && median > max_seconds) {
    std::printf("FAIL: median add %.3f s > %.3f s\n", median, max_seconds);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t rows = 3000;
  int adds = 5;
  double max_seconds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rows") rows = std::atoll(argv[i + 1]);
    else if (flag == "--adds") adds = std::atoi(argv[i + 1]);
    else if (flag == "--max-seconds") max_seconds = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: history_bench [--rows N] [--adds K] [--max-seconds S]\n");
      return 2;
    }
  }
  if (rows < 1 || adds < 1) {
    std::fprintf(stderr, "history_bench: --rows and --adds must be at least 1\n");
    return 2;
  }
  try {
    return run(rows, adds, max_seconds);
  } catch (const InputError& e) {
    std::fprintf(stderr, "history_bench: %s\n", e.what());
    return 2;
  }
}
