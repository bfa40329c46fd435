// SPDX-License-Identifier: Apache-2.0
// The worker protocol's answers (a worker is outside code): the hello line and a run answer. A bad hello
// is bad input (InputError); a bad run answer is a ProtocolError, which the worker client turns into the
// run's "error" verdict.
#include "backends/foreign/worker_protocol.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line = fuzz::as_text(data, size);
  fuzz::expect_clean_rejection([&] { (void)foreign::parse_hello_answer(line, "fuzz worker"); });
  try {
    (void)foreign::parse_run_answer(line, 7);
  } catch (const foreign::ProtocolError&) {
  }
  return 0;
}
