// SPDX-License-Identifier: Apache-2.0
// Case directories: the RecurrentGemma fixtures load, every generated case survives save -> load bit for
// bit, extra files are ignored, bad directories are rejected naming the problem, writes are atomic.
#include "core/case_dir.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/generate.hpp"
#include "core/npy.hpp"
#include "tests/test_support.hpp"

namespace scancheck {
namespace {

namespace fs = std::filesystem;
using test::bitwise_equal;
using test::contains;
using test::input_error;
using test::TempDir;

const fs::path fixtures = fs::path(SCANCHECK_FIXTURES_DIR) / "recurrentgemma_torch";

// A fixture folder is named like rglru_<regime>_B2_L33_W16_H2[_noh0] (no std::regex: GCC 12's warns under
// sanitizers).
struct FixtureName {
  Shape shape{0, 0, 0, 0};
  bool has_h0 = true;
};
FixtureName parse_fixture_name(const std::string& folder) {
  FixtureName f;
  std::stringstream tokens(folder);
  for (std::string token; std::getline(tokens, token, '_');) {
    if (token == "noh0") f.has_h0 = false;
    if (token.size() < 2 || token.find_first_not_of("0123456789", 1) != std::string::npos) continue;
    const std::int64_t value = std::stoll(token.substr(1));
    switch (token[0]) {
      case 'B': f.shape.batch = value; break;
      case 'L': f.shape.length = value; break;
      case 'W': f.shape.width = value; break;
      case 'H': f.shape.heads = value; break;
    }
  }
  return f;
}

TEST(CaseDir, LoadsTheRecurrentGemmaFixtures) {
  int loaded = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(fixtures)) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    SCOPED_TRACE(folder);
    ASSERT_TRUE(folder.starts_with("rglru_"));
    const FixtureName expected = parse_fixture_name(folder);
    const Case c = load_case(entry.path());
    EXPECT_EQ(c.architecture, Architecture::rglru);
    EXPECT_EQ(c.shape, expected.shape);
    EXPECT_EQ(c.io_dtype, DType::float32);
    EXPECT_EQ(c.sqrt_gradient, SqrtGradient::bounded);
    EXPECT_EQ(c.has("h0"), expected.has_h0);
    EXPECT_TRUE(c.has("dh_last"));
    EXPECT_EQ(c.segment_pos.dims(), (Dims{c.shape.batch, c.shape.length}));
    EXPECT_EQ(c.tensors.size(), expected.has_h0 ? 9u : 8u);  // expected/ outputs are not part of the case
    EXPECT_FALSE(c.provenance.seed.has_value());
    ++loaded;
  }
  EXPECT_EQ(loaded, 4);
}

void expect_same_case(const Case& a, const Case& b) {
  EXPECT_EQ(a.architecture, b.architecture);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.io_dtype, b.io_dtype);
  EXPECT_EQ(a.sqrt_gradient, b.sqrt_gradient);
  EXPECT_EQ(a.decays, b.decays);
  EXPECT_EQ(a.provenance.seed, b.provenance.seed);
  EXPECT_EQ(a.provenance.regime, b.provenance.regime);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, tensor] : a.tensors) {
    ASSERT_TRUE(b.has(name)) << name;
    EXPECT_TRUE(bitwise_equal(tensor, b.at(name))) << name;
  }
  EXPECT_TRUE(bitwise_equal(a.segment_pos, b.segment_pos));
}

const Regime all_regimes[] = {Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip};

TEST(CaseDir, SaveThenLoadIsBitwiseEqual) {
  TempDir dir;
  int variant = 0;
  for (Architecture arch : all_architectures) {
    for (Regime regime : all_regimes) {
      for (DType dtype : {DType::float32, DType::bfloat16}) {
        CaseRequest req{arch, Shape{2, 9, 12, 3}, 1000u + static_cast<unsigned>(variant), regime, dtype};
        req.sqrt_gradient = variant % 2 ? SqrtGradient::exact : SqrtGradient::bounded;
        req.with_h0 = variant % 3 != 0;
        req.with_dh_last = variant % 4 != 1;
        ++variant;
        SCOPED_TRACE(std::string(to_string(arch)) + " " + std::string(to_string(regime)) + " " +
                     std::string(to_string(dtype)));
        const Case c = make_case(req);
        save_case(c, dir / "case");
        expect_same_case(c, load_case(dir / "case"));
      }
    }
  }
}

TEST(CaseDir, LogDecaysTravelAsLogAAndSaySo) {
  TempDir dir;
  for (DType dtype : {DType::float32, DType::bfloat16}) {
    CaseRequest req{Architecture::scan, Shape{2, 9, 4, 1}, 5, Regime::clip, dtype};
    req.decays = DecaySpace::log;
    const Case c = make_case(req);
    save_case(c, dir / "log");
    EXPECT_TRUE(std::filesystem::exists(dir / "log" / "log_a.npy"));
    EXPECT_FALSE(std::filesystem::exists(dir / "log" / "a.npy"));
    EXPECT_EQ(nlohmann::json::parse(test::read_file(dir / "log" / "case.json")).at("decays"), "log");
    const Case back = load_case(dir / "log");
    EXPECT_EQ(back.decays, DecaySpace::log);
    expect_same_case(c, back);
  }
  // A linear case says nothing: case directories of other tools stay valid.
  save_case(make_case({Architecture::scan, Shape{1, 3, 2, 1}, 1}), dir / "linear");
  EXPECT_FALSE(nlohmann::json::parse(test::read_file(dir / "linear" / "case.json")).contains("decays"));
}

TEST(CaseDir, CaseJsonHoldsProvenance) {
  TempDir dir;
  CaseRequest req{Architecture::complex_rglru, Shape{1, 4, 8, 2}, 77, Regime::clip, DType::bfloat16};
  save_case(make_case(req), dir / "c");
  const auto j = nlohmann::json::parse(test::read_file(dir / "c" / "case.json"));
  EXPECT_EQ(j.at("architecture"), "complex_rglru");
  EXPECT_EQ(j.at("heads"), 2);
  EXPECT_EQ(j.at("io_dtype"), "bfloat16");
  EXPECT_EQ(j.at("sqrt_gradient"), "bounded");
  EXPECT_EQ(j.at("seed"), 77);
  EXPECT_EQ(j.at("regime"), "clip");
}

TEST(CaseDir, IgnoresOutputsAndOtherFiles) {
  TempDir dir;
  const Case c = make_case({Architecture::scan, Shape{2, 5, 4, 1}, 3});
  save_case(c, dir / "c");
  write_npy(dir / "c" / "h.npy", Tensor<float>({2, 5, 4}));
  fs::create_directory(dir / "c" / "expected");
  write_npy(dir / "c" / "expected" / "h.npy", Tensor<float>({1}));
  test::write_file(dir / "c" / "notes.txt", "anything");
  expect_same_case(c, load_case(dir / "c"));
}

TEST(CaseDir, HeadsDefaultToOneForScansOnly) {
  TempDir dir;
  save_case(make_case({Architecture::complex_scan, Shape{1, 3, 8, 2}, 5}), dir / "scan");
  save_case(make_case({Architecture::rglru, Shape{1, 3, 8, 2}, 5}), dir / "rglru");
  for (const char* name : {"scan", "rglru"}) {
    auto j = nlohmann::json::parse(test::read_file(dir / name / "case.json"));
    j.erase("heads");
    test::write_file(dir / name / "case.json", j.dump());
  }
  EXPECT_EQ(load_case(dir / "scan").shape.heads, 1);
  EXPECT_TRUE(contains(input_error([&] { load_case(dir / "rglru"); }), "no \"heads\" (required for rglru)"));
}

TEST(CaseDir, AcceptsExactFloat64Inputs) {
  TempDir dir;
  const Case c = make_case({Architecture::rglru, Shape{1, 3, 4, 1}, 5});
  save_case(c, dir / "c");
  const Tensor<float>& x = c.at("x");
  write_npy(dir / "c" / "x.npy", Tensor<double>(x.dims(), std::vector<double>(x.values().begin(), x.values().end())));
  expect_same_case(c, load_case(dir / "c"));
  write_npy(dir / "c" / "x.npy",
            Tensor<double>(x.dims(), std::vector<double>(static_cast<std::size_t>(x.size()), 0.1)));
  EXPECT_TRUE(contains(input_error([&] { load_case(dir / "c"); }), "x.npy: float64 value 0.10000000000000001"));
}

// Saves a valid case, lets `spoil` damage it, and returns the load error.
template <class Spoil>
std::string load_error(Architecture arch, Spoil spoil) {
  TempDir dir;
  save_case(make_case({arch, Shape{2, 3, 4, 2}, 9}), dir / "c");
  spoil(dir / "c");
  return input_error([&] { load_case(dir / "c"); });
}

void edit_json(const fs::path& dir, const std::function<void(nlohmann::json&)>& edit) {
  auto j = nlohmann::json::parse(test::read_file(dir / "case.json"));
  edit(j);
  test::write_file(dir / "case.json", j.dump());
}

TEST(CaseDir, RejectsBrokenDirectoriesNamingTheProblem) {
  TempDir dir;
  EXPECT_EQ(input_error([&] { load_case(dir / "nope"); }),
            "case directory '" + (dir / "nope").string() + "': does not exist");
  test::write_file(dir / "file", "x");
  EXPECT_TRUE(contains(input_error([&] { load_case(dir / "file"); }), "not a directory"));

  const auto rglru = Architecture::rglru;
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { fs::remove(d / "x.npy"); }), "': missing x.npy"));
  EXPECT_TRUE(
      contains(load_error(Architecture::scan, [](const fs::path& d) { fs::remove(d / "a.npy"); }), "': missing a.npy"));
  EXPECT_TRUE(
      contains(load_error(rglru, [](const fs::path& d) { fs::remove(d / "a_gate_w.npy"); }), "missing a_gate_w.npy"));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { fs::remove(d / "segment_pos.npy"); }),
                       "missing segment_pos.npy"));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { fs::remove(d / "case.json"); }), "missing case.json"));
  EXPECT_TRUE(
      contains(load_error(rglru, [](const fs::path& d) { test::write_file(d / "case.json", "{"); }), "case.json: "));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { test::write_file(d / "case.json", "[1]"); }),
                       "expected a JSON object"));
  EXPECT_TRUE(
      contains(load_error(rglru, [](const fs::path& d) { edit_json(d, [](auto& j) { j["architecture"] = "lstm"; }); }),
               "case.json: architecture: unknown architecture 'lstm'"));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { edit_json(d, [](auto& j) { j.erase("io_dtype"); }); }),
                       "case.json: missing field 'io_dtype'"));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { edit_json(d, [](auto& j) { j["seed"] = -1; }); }),
                       "case.json: seed: expected a non-negative integer"));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { edit_json(d, [](auto& j) { j["heads"] = 3; }); }),
                       "W = 4 is not divisible by H = 3"));
  EXPECT_TRUE(contains(load_error(rglru, [](const fs::path& d) { edit_json(d, [](auto& j) { j["heads"] = "2"; }); }),
                       "case.json: heads: expected an integer"));
  EXPECT_TRUE(contains(load_error(rglru,
                                  [](const fs::path& d) {
                                    write_npy(d / "dy.npy", Tensor<float>({2, 3, 5}));
                                  }),
                       "dy.npy: shape [2, 3, 5] does not match [2, 3, 4]"));
  EXPECT_TRUE(contains(load_error(rglru,
                                  [](const fs::path& d) {
                                    write_npy(d / "x.npy", Tensor<float>({2, 3}));
                                  }),
                       "x.npy has shape [2, 3]; expected [B, L, W]"));
  EXPECT_TRUE(contains(load_error(rglru,
                                  [](const fs::path& d) {
                                    write_npy(d / "segment_pos.npy", Tensor<float>({2, 3}));
                                  }),
                       "segment_pos.npy: holds float32"));
}

TEST(CaseDir, UnknownKeysAreIgnored) {
  TempDir dir;
  const Case c = make_case({Architecture::rglru, Shape{1, 2, 2, 1}, 1});
  save_case(c, dir / "c");
  edit_json(dir / "c", [](auto& j) { j["made_by"] = "jax"; });
  expect_same_case(c, load_case(dir / "c"));
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(CaseDir, DirectoryWritesAreAtomic) {
  TempDir dir;
  const fs::path target = dir / "out";
  write_directory_atomically(target, [](const fs::path& tmp) { test::write_file(tmp / "old.txt", "old"); });
  EXPECT_EQ(test::read_file(target / "old.txt"), "old");

  // A failing fill leaves the old directory untouched and no temporary behind.
  EXPECT_THROW(write_directory_atomically(target,
                                          [](const fs::path& tmp) {
                                            test::write_file(tmp / "new.txt", "new");
                                            throw std::runtime_error("fill failed");
                                          }),
               std::runtime_error);
  EXPECT_EQ(test::read_file(target / "old.txt"), "old");
  EXPECT_EQ(entries(dir.path()), 1u);

  // Success replaces the whole directory.
  write_directory_atomically(target, [](const fs::path& tmp) { test::write_file(tmp / "new.txt", "new"); });
  EXPECT_FALSE(fs::exists(target / "old.txt"));
  EXPECT_EQ(test::read_file(target / "new.txt"), "new");
  EXPECT_EQ(entries(dir.path()), 1u);

  // Missing parents are created; a trailing slash names the same directory.
  write_directory_atomically(dir / "a" / "b/", [](const fs::path& tmp) { test::write_file(tmp / "f", "f"); });
  EXPECT_TRUE(fs::exists(dir / "a" / "b" / "f"));
}

TEST(CaseDir, SaveValidatesFirst) {
  TempDir dir;
  Case c = make_case({Architecture::scan, Shape{1, 2, 2, 1}, 1});
  c.tensors.erase("b");
  EXPECT_TRUE(contains(input_error([&] { save_case(c, dir / "c"); }), "b.npy: missing"));
  EXPECT_FALSE(fs::exists(dir / "c"));
  EXPECT_EQ(entries(dir.path()), 0u);
}

}  // namespace
}  // namespace scancheck
