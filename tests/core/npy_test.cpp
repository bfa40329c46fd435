// SPDX-License-Identifier: Apache-2.0
// .npy reading and writing: round trips, numpy's exact byte layout, hand-built v2/v3 files, and every kind
// of malformed file rejected with an InputError that names the file.
#include "core/npy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/test_support.hpp"

namespace scancheck {
namespace {

namespace fs = std::filesystem;
using test::bitwise_equal;
using test::contains;
using test::input_error;
using test::TempDir;

const std::vector<Dims> shapes{{}, {0}, {5}, {3, 0, 2}, {2, 3, 4}, {1, 1, 1, 1, 7}};

template <class T>
Tensor<T> ramp(const Dims& dims) {
  Tensor<T> t(dims);
  for (std::int64_t i = 0; i < t.size(); ++i) t[i] = static_cast<T>(i * 3 - 7) / static_cast<T>(2);
  return t;
}

template <class T>
void expect_round_trip(const Tensor<T>& t) {
  TempDir dir;
  write_npy(dir / "t.npy", t);
  const AnyTensor back = read_npy(dir / "t.npy");
  ASSERT_TRUE(std::holds_alternative<Tensor<T>>(back));
  EXPECT_TRUE(bitwise_equal(std::get<Tensor<T>>(back), t)) << to_string(t.dims());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1) << "temporary left";
}

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  for (const Dims& dims : shapes) {
    expect_round_trip(ramp<float>(dims));
    expect_round_trip(ramp<double>(dims));
    expect_round_trip(ramp<std::int32_t>(dims));
  }
}

TEST(Npy, RoundTripsSpecialValues) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  expect_round_trip(Tensor<float>({6}, {std::nanf(""), -inf, inf, -0.0f, 0x1p-149f, -3.5f}));
  expect_round_trip(Tensor<std::int32_t>(
      {3}, {std::numeric_limits<std::int32_t>::min(), -1, std::numeric_limits<std::int32_t>::max()}));
}

TEST(Npy, WritesNumpysExactBytes) {
  // Fixtures written by numpy.save: reading and writing again must reproduce every byte.
  const fs::path dir = fs::path(SCANCHECK_FIXTURES_DIR) / "recurrentgemma_torch" / "rglru_default_B2_L33_W16_H2";
  TempDir out;
  for (const char* name : {"x.npy", "a_param.npy", "a_gate_w.npy", "segment_pos.npy"}) {
    const AnyTensor t = read_npy(dir / name);
    std::visit([&](const auto& tensor) { write_npy(out / name, tensor); }, t);
    EXPECT_EQ(test::read_file(out / name), test::read_file(dir / name)) << name;
  }
}

TEST(Npy, HeaderIsPaddedTo64Bytes) {
  TempDir dir;
  for (const Dims& dims : shapes) {
    write_npy(dir / "t.npy", ramp<float>(dims));
    const std::string bytes = test::read_file(dir / "t.npy");
    const std::size_t header_end =
        10 + static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
    EXPECT_EQ(header_end % 64, 0u);
    EXPECT_EQ(bytes[header_end - 1], '\n');
    EXPECT_EQ(bytes[6], '\x01');
  }
}

// A file built by hand: magic, version, a little-endian header length of 2 (v1) or 4 bytes, the header.
std::string npy_file(int major, const std::string& header, const std::string& data, int minor = 0) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string s(values.size() * sizeof(T), '\0');
  std::memcpy(s.data(), std::data(values), s.size());
  return s;
}

const std::string f4_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";

TEST(Npy, ReadsVersion2And3) {
  TempDir dir;
  for (int major : {2, 3}) {
    test::write_file(dir / "v.npy", npy_file(major, f4_header, raw<float>({1.5f, -2.0f})));
    const Tensor<float> t = read_npy_float(dir / "v.npy");
    EXPECT_EQ(t.dims(), Dims{2});
    EXPECT_EQ(t[0], 1.5f);
    EXPECT_EQ(t[1], -2.0f);
  }
}

TEST(Npy, HeaderParserIgnoresOrderSpacingAndQuotes) {
  TempDir dir;
  const std::string header = "{ \"shape\" :(1 ,2) ,'fortran_order':False,\n\t'descr':\"<f8\"}   \n";
  test::write_file(dir / "h.npy", npy_file(1, header, raw<double>({0.25, 8.0})));
  const Tensor<double> t = read_npy_double(dir / "h.npy");
  EXPECT_EQ(t.dims(), (Dims{1, 2}));
  EXPECT_EQ(t[1], 8.0);
  test::write_file(dir / "scalar.npy",
                   npy_file(1, "{'descr': '<i4', 'fortran_order': False, 'shape': ()}", raw<std::int32_t>({42})));
  EXPECT_EQ(read_npy_int32(dir / "scalar.npy")[0], 42);
  test::write_file(dir / "native.npy",
                   npy_file(1, "{'descr': '=f4', 'fortran_order': False, 'shape': (1,)}", raw<float>({3.0f})));
  EXPECT_EQ(read_npy_float(dir / "native.npy")[0], 3.0f);
}

struct Malformed {
  const char* what;
  std::string bytes;
  const char* message;
};

TEST(Npy, RejectsMalformedFilesNamingThem) {
  const std::string two_floats = raw<float>({1.0f, 2.0f});
  const auto with_header = [&](const std::string& header) { return npy_file(1, header, two_floats); };
  const std::vector<Malformed> cases{
      {"bad magic", std::string("\x93NUMPZ\x01\x00\x00\x00", 10), "bad magic"},
      {"too short", "\x93NU", "bad magic"},
      {"empty", "", "bad magic"},
      {"version 4", npy_file(4, f4_header, two_floats), "version 4.0"},
      {"truncated length", std::string("\x93NUMPY\x02\x00\x10", 9), "truncated header"},
      {"header past end", npy_file(1, f4_header, "").substr(0, 40), "truncated header"},
      {"truncated data", npy_file(1, f4_header, two_floats.substr(0, 5)), "truncated data (expected 8 bytes, found 5)"},
      {"trailing data", npy_file(1, f4_header, two_floats + "x"), "trailing data"},
      {"fortran order", with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }"), "fortran_order"},
      {"big-endian", with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }"), "'>f4'"},
      {"float16", with_header("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }"), "'<f2'"},
      {"int64", with_header("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }"), "'<i8'"},
      {"not a dict", with_header("['descr', '<f4']"), "not a valid dict"},
      {"a string", with_header("'descr'"), "not a valid dict"},
      {"missing shape", with_header("{'descr': '<f4', 'fortran_order': False}"), "no 'shape'"},
      {"missing descr", with_header("{'fortran_order': False, 'shape': (2,)}"), "no 'descr'"},
      {"extra key", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), "unexpected key"},
      {"duplicate key", with_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"),
       "duplicate"},
      {"negative dim", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"), "non-negative"},
      {"float dim", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}"), "not a valid dict"},
      {"garbage after", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x"), "after the closing"},
      {"huge shape", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"),
       "too large"},
  };
  TempDir dir;
  for (const Malformed& m : cases) {
    const fs::path path = dir / "bad.npy";
    test::write_file(path, m.bytes);
    const std::string message = input_error([&] { read_npy(path); });
    EXPECT_TRUE(contains(message, path.string() + ": ")) << m.what;
    EXPECT_TRUE(contains(message, m.message)) << m.what;
    EXPECT_EQ(message.find('\n'), std::string::npos) << m.what;
  }
}

TEST(Npy, MissingFileIsAnInputError) {
  TempDir dir;
  EXPECT_TRUE(contains(input_error([&] { read_npy(dir / "nope.npy"); }), "nope.npy: cannot read"));
  EXPECT_TRUE(contains(input_error([&] { read_npy(dir.path()); }), "cannot read"));
}

TEST(Npy, FloatFromFloat64MustBeExactUnlessRounding) {
  TempDir dir;
  constexpr double inf = std::numeric_limits<double>::infinity();
  write_npy(dir / "exact.npy", Tensor<double>({4}, {0.5, -inf, std::nan(""), 0x1.fffffep127}));
  const Tensor<float> exact = read_npy_float(dir / "exact.npy");
  EXPECT_EQ(exact[0], 0.5f);
  EXPECT_EQ(exact[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(exact[2]));

  write_npy(dir / "inexact.npy", Tensor<double>({2, 2}, {0.5, 1.0, 2.0, 0.1}));
  const std::string message = input_error([&] { read_npy_float(dir / "inexact.npy"); });
  EXPECT_TRUE(contains(message, "inexact.npy: float64 value 0.10000000000000001 at [1, 1]"));
  EXPECT_EQ(read_npy_float(dir / "inexact.npy", true)[3], 0.1f);
}

TEST(Npy, ConversionsBetweenKinds) {
  TempDir dir;
  write_npy(dir / "f.npy", Tensor<float>({2}, {0.1f, -3.0f}));
  write_npy(dir / "i.npy", Tensor<std::int32_t>({1}, std::int32_t{7}));
  EXPECT_EQ(read_npy_double(dir / "f.npy")[0], static_cast<double>(0.1f));
  EXPECT_TRUE(contains(input_error([&] { read_npy_float(dir / "i.npy"); }), "i.npy: holds int32"));
  EXPECT_TRUE(contains(input_error([&] { read_npy_double(dir / "i.npy"); }), "i.npy: holds int32"));
  EXPECT_TRUE(contains(input_error([&] { read_npy_int32(dir / "f.npy"); }), "f.npy: holds float32"));
}

TEST(Npy, WriteReplacesAnExistingFile) {
  TempDir dir;
  write_npy(dir / "t.npy", ramp<float>({100}));
  write_npy(dir / "t.npy", ramp<float>({3}));
  EXPECT_EQ(read_npy_float(dir / "t.npy").dims(), Dims{3});
  EXPECT_TRUE(
      contains(input_error([&] { write_npy(dir / "no" / "such" / "t.npy", ramp<float>({1})); }), "cannot write"));
}

}  // namespace
}  // namespace scancheck
