// SPDX-License-Identifier: Apache-2.0
// The tolerance policy file (--policy): its JSON text, read as TolerancePolicy::load reads a file's.
#include "core/json_reader.hpp"
#include "properties/policy.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_clean_rejection([&] {
    (void)TolerancePolicy::from_json(parse_json_text(fuzz::as_text(data, size), "policy.json"), "policy.json");
  });
  return 0;
}
