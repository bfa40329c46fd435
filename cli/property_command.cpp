// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck property NAME`: one backend property (properties/backend_properties.hpp) searched for a
//! failure (properties/search.hpp) on every architecture x io dtype, or the ones --arch / --io-dtype pick;
//! the same searches as tests/properties/backend_properties_test.cpp, with the same ids, so an
//! RC_PARAMS="reproduce=..." line from either replays in both. Cases, seed and size come from RC_PARAMS
//! like the test's, with --cases and --seed overriding. A failure is shrunk, printed with its repro lines
//! and saved under --findings. `scancheck property --list` (or `property list`) names the properties.
//! Exit codes: 0 every search passes, 1 one fails, 2 bad input.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/choices.hpp"
#include "core/error.hpp"
#include "properties/backend_properties.hpp"
#include "properties/search.hpp"

namespace scancheck::cli {
namespace {

struct Options {
  std::string name, arch, io_dtype, findings = "findings";
  bool list = false;
  int cases = 0;
  std::uint64_t seed = 0;
  const CLI::Option* cases_given = nullptr;
  const CLI::Option* seed_given = nullptr;
  ForeignOptions foreign;
};

int list_properties() {
  for (const BackendProperty& p : backend_properties()) std::printf("%-24s %s\n", p.name.c_str(), p.statement.c_str());
  return 0;
}

//! Searches `property` on (architecture, io); prints one line, and on failure the finding and its repro.
bool holds(const BackendProperty& property, Architecture architecture, DType io, const Options& o) {
  const std::string id = property_id(property, architecture, io);
  SearchOptions options = SearchOptions::from_rc_params(id, property.default_cases, property.default_max_size);
  if (o.cases_given->count() > 0) options.max_success = o.cases;
  if (o.seed_given->count() > 0) options.seed = o.seed;
  const auto start = std::chrono::steady_clock::now();
  const SearchOutcome out = search(property.make(architecture, io), architecture, io, options, property.generator);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string run = fmt::format("{}: {} cases (max size {}, seed {}) in {:.2f} s", id, out.cases,
                                      options.max_size, options.seed, seconds);
  if (!out.finding) {
    std::printf("%s: PASS\n", run.c_str());
    return true;
  }
  const Finding& f = *out.finding;
  std::printf("%s: FAIL %s\n", run.c_str(), f.message.c_str());
  std::printf("  shrunk in %d steps (%d tried) to %s\n", f.shrink_steps, f.shrink_tries, to_string(f.request).c_str());
  std::filesystem::path dir;
  try {
    dir = save_finding(f, o.findings);
    std::printf("  saved: %s\n", dir.string().c_str());
  } catch (const std::exception& e) {
    std::printf("  not saved: %s\n", e.what());
  }
  std::printf("  repro:\n");
  for (const std::string& line : repro_lines(f, dir / "case")) std::printf("    %s\n", line.c_str());
  return false;
}

int run_property(const Options& o) {
  if (o.list || o.name == "list") return list_properties();
  o.foreign.load();
  if (o.name.empty()) throw InputError("property needs a NAME (scancheck property --list names them)");
  const BackendProperty& property = find_property(o.name);
  if (o.cases_given->count() > 0 && o.cases < 1) throw InputError("--cases must be positive");
  std::vector<Architecture> architectures(all_architectures.begin(), all_architectures.end());
  if (!o.arch.empty()) architectures = {parse_architecture(o.arch)};
  std::vector<DType> dtypes{DType::float32, DType::bfloat16};
  if (!o.io_dtype.empty()) dtypes = {parse_dtype(o.io_dtype)};
  int failed = 0;
  for (const Architecture architecture : architectures)
    for (const DType io : dtypes) failed += holds(property, architecture, io, o) ? 0 : 1;
  return failed ? 1 : 0;
}

}  // namespace

void add_property(CLI::App& app, Action& action) {
  auto [cmd, o] = add_command(app, action, "property", "Search one backend property for a failure, shrink and save it",
                              run_property);
  cmd->add_option("name", o->name, "the property (see --list), or 'list'");
  cmd->add_flag("--list", o->list, "print the properties and what each states");
  cmd->add_option("--arch", o->arch, "only this architecture, " + architecture_choices() + " (default: every one)");
  cmd->add_option("--io-dtype", o->io_dtype, "only this io dtype, " + dtype_choices() + " (default: every one)");
  o->cases_given = cmd->add_option("--cases", o->cases, "cases per architecture x dtype (default: the property's)");
  o->seed_given = cmd->add_option("--seed", o->seed, "RapidCheck seed (default: RC_PARAMS's seed, else random)");
  cmd->add_option("--findings", o->findings, "directory for shrunk failing cases (default ./findings)");
  o->foreign.add_to(*cmd);
}

}  // namespace scancheck::cli
