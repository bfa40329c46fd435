// SPDX-License-Identifier: Apache-2.0
// case.json beside a valid set of tensors: only the JSON varies, so the fuzzer spends its time on the keys.
#include "core/case_dir.hpp"
#include "core/generate.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

namespace {

const std::filesystem::path& case_dir() {
  static const std::filesystem::path dir = [] {
    const auto d = fuzz::scratch() / "case";
    CaseRequest request;
    request.architecture = Architecture::rglru;
    request.shape = Shape{1, 3, 4, 1};
    save_case(make_case(request), d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::put_file(case_dir() / "case.json", fuzz::as_text(data, size));
  fuzz::expect_clean_rejection([&] { (void)load_case(case_dir()); });
  return 0;
}
