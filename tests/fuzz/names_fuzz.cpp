// SPDX-License-Identifier: Apache-2.0
// The strings of the command line that name things: backend globs (--backends), backend names (--backend,
// a worker's hello), shape strings (--shape), and a --worker command's shell words. The first byte picks
// the parser, so one corpus serves all four.
#include "backends/foreign/shell_words.hpp"
#include "backends/variant.hpp"
#include "core/architecture.hpp"
#include "core/case_request.hpp"
#include "core/shape.hpp"
#include "properties/differential.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: fuzz::expect_clean_rejection([&] { (void)match_backends(text); }); break;
    case 1: fuzz::expect_clean_rejection([&] { (void)parse_backend_name(text); }); break;
    case 2:
      fuzz::expect_clean_rejection([&] {
        const Shape shape = parse_shape(text);
        for (Architecture a : all_architectures) fuzz::expect_clean_rejection([&] { validate(a, shape); });
      });
      break;
    case 3: fuzz::expect_clean_rejection([&] { (void)foreign::split_shell_words(text); }); break;
  }
  return 0;
}
