// SPDX-License-Identifier: Apache-2.0
//! @file
//! A real report for the tests of the runner and the model's JSON (report_runner_test.cpp) and of the pages and
//! the report directory (tests/render/): a quick report of three backends in both io dtypes, six cases of
//! each (architecture, io dtype), computed once per test process.
#pragma once

#include "reports/model.hpp"
#include "reports/runner.hpp"

namespace scancheck::reports::fixtures {

inline const Report& small_report() {
  static const Report report = [] {
    ReportOptions o;
    o.backends = "{scan/chunk16,complex_rglru/fused_output_shared_sfu_chunk32,rglru/sequential}@*";
    o.seed = 7;
    o.label = "runner-test";
    // The quick ladder up to 300 (every chunk and a group boundary): every test process pays for it, and
    // L = 2100 made each of them take 30 s under the sanitizers.
    o.lengths = {2, 33, 300};
    return run_report(o);
  }();
  return report;
}

}  // namespace scancheck::reports::fixtures
