// SPDX-License-Identifier: Apache-2.0
//! @file
//! A synthetic report of the seed shapes and the real seed profile, for the tests of a joined speed profile:
//! the reader and the join (profile_test.cpp) and the pages' section of it (tests/render/profile_pages_test.cpp).
//! seed_shape_report() holds the three production backends in both io dtypes on the four seed shapes, forward
//! and backward rows; the seed profile names complex_rglru "samu" (samu_alias() maps it).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/variant.hpp"
#include "reports/model.hpp"
#include "reports/profile.hpp"

namespace scancheck::reports::profile_fixtures {

inline const std::filesystem::path seed_profile =
    std::filesystem::path(SCANCHECK_FIXTURES_DIR) / "profiles" / "backward_profile_seed.json";
inline const std::string seed_method = "one warmed backward pass; CUDA device event durations from torch.profiler";

inline const std::string rglru_variant = "fused_grouped_prefix32_hierarchical_chunk16";
inline const std::string samu_chunk32 = "fused_output_fused_write_shared_sfu_chunk32";
inline const std::string samu_grouped = "fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32";

//! The production shapes of the seed-shapes preset, with its 16 heads.
inline const std::vector<Shape> seed_shapes = {
    {4, 2048, 2048, 16}, {1, 8192, 2560, 16}, {1, 32768, 1024, 16}, {1, 32768, 2048, 16}};

inline TensorEntry measured(const std::string& name, double max_abs, double max_exact, double bound_ratio) {
  TensorEntry t;
  TensorMetrics& m = t.metrics;
  m.name = name;
  m.compared = 1000;
  m.max_abs = max_abs;
  m.max_exact = max_exact;
  m.max_rel = max_abs / max_exact;
  m.ulp_max = 3;
  m.ulp_p50 = 0;
  m.ulp_p90 = m.ulp_p99 = 1;
  m.max_bound = max_abs / bound_ratio;
  m.bound_ratio = bound_ratio;
  m.baseline_abs = max_abs;
  m.baseline_ratio = 1;
  m.worst = {3, "[0, 1, 2]", max_exact - max_abs, max_exact, m.max_bound, 3};
  m.ulp_histogram[0] = 900;
  m.ulp_histogram[1] = 100;
  return t;
}

inline Report empty_report() {
  Report r;
  r.label = "profile-test";
  r.generated_at = "2024-06-01T12:00:00Z";
  r.tool = {"scancheck", "0.1.0", "abc123"};
  r.environment = {"host", std::nullopt, "GCC 12.2.0", std::nullopt, "testhost", 2};
  r.method = {"seed-shapes", "float64", "first-order float32 bounds", "sequential", "one block", 1, "*", {}, {}};
  r.coverage.backends_total = 6;
  r.scope = default_scope(r.method);
  return r;
}

inline std::string case_id(Report& r, const CaseRequest& request) {
  for (const CaseEntry& c : r.cases)
    if (to_string(c.request) == to_string(request)) return c.id;
  r.cases.push_back({fmt::format("c{}", r.cases.size()), request, 1000, 100, 0.1, to_string(request), std::nullopt});
  return r.cases.back().id;
}

//! A row of `backend` (a full name) on `shape`; the backward rows' errors grow with the shape's length.
inline void add_row(Report& r, const std::string& backend, const Shape& shape, Direction direction) {
  const BackendName name = parse_backend_name(backend);
  CaseRequest request;
  request.architecture = name.architecture;
  request.shape = shape;
  request.seed = 7;
  request.io_dtype = name.io_dtype;
  Row row;
  row.case_id = case_id(r, request);
  row.shape = shape;
  row.architecture = name.architecture;
  row.backend = backend;
  row.io_dtype = name.io_dtype;
  row.direction = direction;
  const double e = 1e-6 * static_cast<double>(shape.length) / 2048;
  row.tensors = direction == Direction::forward
                    ? std::vector<TensorEntry>{measured("y", e, 2, 0.1), measured("h_last", e, 2, 0.1)}
                    : std::vector<TensorEntry>{measured("dx", 2 * e, 2, 0.25), measured("dh0", e, 2, 0.125)};
  row.seed = request.seed;
  row.repro = fmt::format("scancheck check {} --backend '{}'", to_string(request), backend);
  r.rows.push_back(std::move(row));
}

//! The three production backends in both dtypes on the four seed shapes, forward and backward: 48 rows.
inline Report seed_shape_report() {
  Report r = empty_report();
  for (const Shape& shape : seed_shapes)
    for (const std::string& backend :
         {"rglru/" + rglru_variant, "complex_rglru/" + samu_chunk32, "complex_rglru/" + samu_grouped})
      for (const char* dtype : {"@fp32", "@bf16"})
        for (Direction d : {Direction::forward, Direction::backward}) add_row(r, backend + dtype, shape, d);
  summarise(r);
  return r;
}

inline const Profile& seed() {
  static const Profile p = load_profile(seed_profile);
  return p;
}

inline ProfileAliases samu_alias() { return parse_profile_aliases({"samu=complex_rglru"}); }

}  // namespace scancheck::reports::profile_fixtures
