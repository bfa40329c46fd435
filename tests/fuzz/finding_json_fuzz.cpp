// SPDX-License-Identifier: Apache-2.0
// finding.json, as load_finding reads it after reading the file.
#include "core/json_reader.hpp"
#include "properties/finding.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_clean_rejection(
      [&] { (void)finding_from_json(parse_json_text(fuzz::as_text(data, size), "finding.json"), "finding.json"); });
  return 0;
}
