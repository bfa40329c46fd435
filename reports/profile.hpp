// SPDX-License-Identifier: Apache-2.0
//! @file
//! The speed profiles teams already take of their kernels, joined to the report's accuracy rows
//! (`scancheck report|render ... --timings PROFILE.json [--timings-alias FROM=TO]...`), so that what a
//! backend costs stands beside how exact it is. scancheck measures none of these durations: it reads them,
//! matches them by name and shape, and quotes where they came from.
//!
//! The format (schema_version 1; tests/fixtures/profiles/backward_profile_seed.json is a real one):
//!
//!   {"schema_version": 1,
//!    "method": "one warmed backward pass; CUDA device event durations from torch.profiler",
//!    "rows": [{"shape": {"batch": 4, "length": 2048, "width": 2048},
//!              "architecture": "samu",                      // scancheck's name, or one --timings-alias maps
//!              "backend": "fused_output_fused_write_shared_sfu_chunk32",   // [provider ":"] variant
//!              "cuda_events": 49, "summed_cuda_duration_us": 1023.0,
//!              "categories": {"copy": {"events": 12, "duration_us": 368.0}, ...},
//!              "top_cuda_events": [{"name": "_samu_reverse_chunk_replay", "events": 1, "duration_us": 191.0}, ...]}]}
//!
//! A row's backend is a backend name of backends/variant.hpp without its "architecture/" and "@dtype":
//! "fused_chunk16" for rglru/fused_chunk16@bf16, "mykernels:triton_chunk64" for the foreign
//! mykernels:rglru/triton_chunk64@bf16. The profile times one warmed backward pass per (shape,
//! architecture, backend) and names neither the io dtype nor the heads.
//!
//! Reading is strict (core/json_reader.hpp): an unknown or missing key, a wrong type, a negative or
//! non-finite duration or count, a schema_version other than 1, no rows, a backend outside the grammar or
//! two rows of one (shape, architecture, backend) is an InputError naming the file and the field:
//! "profile p.json: rows[3].categories.copy.duration_us: expected a non-negative number".
//!
//! The join (join_profile): a profile row matches every backward row of the report with its (batch, length,
//! width) and any heads, its architecture (after the aliases), its provider (after the aliases) and variant,
//! and any io dtype. Each matched row gets a ProfileTiming; the report gets a ProfileJoin saying where the
//! profile came from, the aliases used, and why each unmatched profile row did not match (model.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::reports {

//! One kernel of a row's top_cuda_events: its name as the profiler wrote it.
struct ProfiledKernel {
  std::string name;
  std::int64_t events = 0;
  double duration_us = 0;
};

//! One row of a profile, as written (the architecture before aliases).
struct ProfileRow {
  ProfileShape shape;
  std::string architecture;
  std::string backend;   //!< as written: "variant" or "provider:variant"
  std::string provider;  //!< of backend; empty for a built-in backend
  std::string variant;   //!< of backend
  std::int64_t cuda_events = 0;
  double summed_cuda_duration_us = 0;
  std::map<std::string, ProfileCategory> categories;
  std::vector<ProfiledKernel> top_cuda_events;
};

struct Profile {
  ProfileSource source;
  std::string method;  //!< the profile's own words
  std::vector<ProfileRow> rows;
};

//! The profile in `text`, read from the file `file` (which names it in errors and in its provenance:
//! the size and SHA-256 of `text`). Throws InputError as the header says.
Profile parse_profile(std::string_view text, const std::string& file);
//! Reads `path` and parses it; InputError when it cannot be read.
Profile load_profile(const std::filesystem::path& path);

//! The --timings-alias FROM=TO options: a profile's architecture or provider name FROM is read as TO.
struct ProfileAliases {
  std::vector<ProfileAlias> aliases;

  //! `name` after the aliases (unchanged when none has it as FROM).
  std::string map(std::string_view name) const;
  //! The alias whose FROM is `name`, if any.
  const ProfileAlias* find(std::string_view name) const;
};

//! "samu=complex_rglru" -> {samu, complex_rglru}. Throws InputError for a text without '=', an empty
//! side, FROM equal to TO, or a FROM given twice with different TOs.
ProfileAliases parse_profile_aliases(const std::vector<std::string>& texts);

//! Joins `profile` to `report` (header): sets Row::profile on every matched backward row (and clears it
//! everywhere else: a second join replaces the first) and Report::profile. Throws InputError when two
//! profile rows name the same row after the aliases.
void join_profile(Report& report, const Profile& profile, const ProfileAliases& aliases);

//! load_profile + join_profile, for the commands that take --timings; returns the report's ProfileJoin.
const ProfileJoin& attach_profile(Report& report, const std::filesystem::path& profile, const ProfileAliases& aliases);

//! What a command prints after a join: "profile: 8 rows, 8 matched (16 report rows), 0 unmatched", then a
//! line per unmatched profile row with its reason.
std::vector<std::string> describe_profile_join(const ProfileJoin&);

//! A line of the "Measured speed (your profile)" section of report.md and report.html: one backend (with
//! its io dtype) at one (batch, length, width), the accuracy of its backward rows there beside the timing.
struct ProfiledSpeed {
  std::string backend;
  Architecture architecture = Architecture::rglru;
  ProfileShape shape;
  std::int64_t rows = 0, rows_failed = 0;  //!< its backward rows at the shape (any heads)
  std::string verdict;                     //!< "pass", or the worst verdict of its failing rows
  std::optional<double> scaled_error;      //!< largest max |got - exact| / max |exact| over the tensors
  std::optional<double> bound_ratio;       //!< largest error in units of the element's bound
  ProfileTiming timing;
};

//! The lines: a backend's together (backends in report order), its shapes in report order, the io dtypes of
//! one shape next to each other.
std::vector<ProfiledSpeed> profiled_speeds(const Report&);

//! The `n` categories with the largest durations (ties by name), largest first.
std::vector<std::pair<std::string, ProfileCategory>> largest_categories(const ProfileTiming&, std::size_t n);

//! "4 × 2048 × 2048" (batch × length × width).
std::string to_string(const ProfileShape&);

}  // namespace scancheck::reports
