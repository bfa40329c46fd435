// SPDX-License-Identifier: Apache-2.0
// .npy files, versions 1.0, 2.0 and 3.0, every dtype scancheck reads, parsed from memory (read_npy of a
// file is the same parse after the file's size and bytes are read).
#include "core/npy.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_clean_rejection([&] { (void)parse_npy(fuzz::as_text(data, size), "t.npy"); });
  return 0;
}
