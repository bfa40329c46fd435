// SPDX-License-Identifier: Apache-2.0
// report.json (schema v1 and v2) through the strict reader that render, diff, merge and calibrate use
// (load_report is this after reading the file). Rendering is not a parser and is tested with hostile text
// by tests/reports/untrusted_text_test.cpp.
#include "core/json_reader.hpp"
#include "reports/model.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_clean_rejection(
      [&] { (void)reports::from_json(parse_json_text(fuzz::as_text(data, size), "report.json"), "report.json"); });
  return 0;
}
