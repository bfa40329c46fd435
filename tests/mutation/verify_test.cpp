// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck verify`'s judgement on cases nobody here wrote (fixtures/recurrentgemma_torch: RecurrentGemma's
//! PyTorch RG-LRU in float64 autograd): the PyTorch outputs, rounded to float32 as a float32 implementation
//! would store them, pass the default policy on the default, long-memory and reset cases; on the extreme
//! case they fail, and rightly: RecurrentGemma evaluates q = 1 - exp(2 log a) literally, which cancels for
//! decays within 1e-16 of 1 even in float64 (recurrences.md §5: "the harness must flag that formulation"),
//! so y = 0 where the exact value is -1.2e-28. Outputs of plausible bugs (the rglru float32 mutants run on
//! the same cases) fail, and a candidate missing a tensor fails naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/mutants/mutants.hpp"
#include "core/case_dir.hpp"
#include "core/npy.hpp"
#include "properties/differential.hpp"

namespace {

using namespace scancheck;
namespace fs = std::filesystem;

std::vector<fs::path> fixture_cases() {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(fs::path(SCANCHECK_FIXTURES_DIR) / "recurrentgemma_torch"))
    if (fs::exists(e.path() / "case.json")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

//! The PyTorch outputs as a float32 implementation stores them.
Outputs pytorch_outputs(const fs::path& dir) {
  Outputs out;
  for (const auto& e : fs::directory_iterator(dir / "expected"))
    if (e.path().extension() == ".npy") out.emplace(e.path().stem().string(), read_npy_float(e.path(), true));
  return out;
}

TEST(Verify, PyTorchFloat32OutputsPassAndPlausibleBugsFail) {
  const std::vector<fs::path> dirs = fixture_cases();
  ASSERT_EQ(dirs.size(), 4u);
  std::vector<const Mutant*> bugs;
  for (const Mutant& m : mutants())
    if (find_backend(m.base).architecture == Architecture::rglru && find_backend(m.base).io_dtype == DType::float32)
      bugs.push_back(&m);
  ASSERT_GE(bugs.size(), 3u);
  const TolerancePolicy policy;
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    const Case c = load_case(dir);
    const ReferenceResult reference = reference_with_bounds(c, 1);
    const CorrectOrders orders = correct_orders(c);
    const BackendResult pytorch = judge_outputs("pytorch", c, pytorch_outputs(dir), reference, &orders, policy);
    if (dir.filename().string().find("extreme") == std::string::npos) {
      EXPECT_TRUE(pytorch.pass) << format_result(pytorch);
    } else {
      EXPECT_FALSE(pytorch.pass) << "the literal 1 - exp(2 log a) must be flagged";
      const auto y = std::find_if(pytorch.tensors.begin(), pytorch.tensors.end(),
                                  [](const TensorResult& t) { return t.metrics.name == "y"; });
      ASSERT_NE(y, pytorch.tensors.end());
      EXPECT_FALSE(y->verdict.pass) << format_result(pytorch);
      EXPECT_EQ(y->metrics.worst.got, 0.0) << "the cancelled q leaves no input in the state";
    }
    int caught = 0;
    for (const Mutant* m : bugs) {
      const BackendResult r = judge_outputs(m->name, c, m->run(c), reference, &orders, policy);
      caught += r.pass ? 0 : 1;
      std::printf("[ verify ] %-36s %-22s %s\n", dir.filename().c_str(), m->name.c_str(), r.pass ? "pass" : "FAIL");
    }
    // Not every bug shows on every case (a reset bug needs resets, a clip bug the clip regime); on every
    // case at least one does, and over the four cases each must (below).
    EXPECT_GE(caught, 1);
    Outputs missing = pytorch_outputs(dir);
    missing.erase("d_a_gate_w");
    const BackendResult incomplete = judge_outputs("pytorch", c, missing, reference, &orders, policy);
    EXPECT_FALSE(incomplete.pass);
    ASSERT_EQ(incomplete.missing, std::vector<std::string>{"d_a_gate_w"});
  }
}

TEST(Verify, EveryPlausibleBugFailsOnSomeFixture) {
  const TolerancePolicy policy;
  std::vector<std::pair<Case, ReferenceResult>> cases;
  for (const fs::path& dir : fixture_cases()) {
    Case c = load_case(dir);
    ReferenceResult r = reference_with_bounds(c, 1);
    cases.emplace_back(std::move(c), std::move(r));
  }
  for (const Mutant& m : mutants()) {
    const BackendInfo& base = find_backend(m.base);
    if (base.architecture != Architecture::rglru || base.io_dtype != DType::float32) continue;
    bool caught = false;
    for (const auto& [c, reference] : cases) {
      const CorrectOrders orders = correct_orders(c);
      caught = caught || !judge_outputs(m.name, c, m.run(c), reference, &orders, policy).pass;
    }
    // The run-dependent reduction is invisible to any single judgement (mutation_test reruns it), and needs
    // more rows than the fixtures have.
    if (m.name == "parameter_sums_run_dependent") continue;
    EXPECT_TRUE(caught) << m.name << ": " << m.bug;
  }
}

}  // namespace
