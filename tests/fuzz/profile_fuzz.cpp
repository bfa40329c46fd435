// SPDX-License-Identifier: Apache-2.0
// A user's speed profile (`--timings PROFILE.json`, reports/profile.hpp): its text through the strict reader
// that load_profile uses after reading the file (the size and SHA-256 of the provenance included).
#include "reports/profile.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_clean_rejection([&] { (void)reports::parse_profile(fuzz::as_text(data, size), "profile.json"); });
  return 0;
}
