// SPDX-License-Identifier: Apache-2.0
// A whole case directory: the input is a list of files, each record
//   [one byte: which file (case_files below, modulo its size)] [two bytes little-endian: length] [bytes],
// so the fuzzer can drop, duplicate, truncate or reshape any tensor and case.json together.
// tests/fuzz/pack_case_dir.py turns a case directory into such a record list (the seed corpus).
#include <array>
#include <filesystem>

#include "core/case_dir.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace scancheck;

namespace {

// Every file name of every architecture's case directory (keep in step with pack_case_dir.py).
constexpr std::array<std::string_view, 16> case_files = {"case.json",
                                                         "x.npy",
                                                         "a.npy",
                                                         "b.npy",
                                                         "h0.npy",
                                                         "dh.npy",
                                                         "dh_last.npy",
                                                         "dy.npy",
                                                         "a_param.npy",
                                                         "a_imag_param.npy",
                                                         "a_gate_w.npy",
                                                         "a_gate_b.npy",
                                                         "input_gate_w.npy",
                                                         "input_gate_b.npy",
                                                         "segment_pos.npy",
                                                         "unexpected.npy"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path dir = fuzz::scratch() / "case";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  while (size >= 3) {
    const std::string_view name = case_files[data[0] % case_files.size()];
    const std::size_t length = std::min<std::size_t>(data[1] | (data[2] << 8), size - 3);
    fuzz::put_file(dir / name, fuzz::as_text(data + 3, length));
    data += 3 + length;
    size -= 3 + length;
  }
  fuzz::expect_clean_rejection([&] { (void)load_case(dir); });
  return 0;
}
