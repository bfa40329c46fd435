// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck list`: every backend with its architecture, schedule, flags, io dtype and the executors of
//! this build; then each foreign provider's runtime and provenance. `scancheck run`: one backend's forward and backward
//! on a case, outputs in the case format.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "backends/foreign/plugin_host.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "core/case_dir.hpp"
#include "core/choices.hpp"
#include "core/npy.hpp"

namespace scancheck::cli {
namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::vector<std::string> executor_names() {
  std::vector<std::string> names;
  for (Executor e : built_executors()) names.emplace_back(to_string(e));
  return names;
}

//! The executors a backend runs on: a built-in's are this build's; a foreign backend runs where its worker
//! or plugin runs it ("worker" or "plugin"), whatever --executor says.
std::vector<std::string> executors_of(const BackendInfo& b, const std::vector<std::string>& built) {
  if (b.builtin) return built;
  return {b.loaded_by.rfind("--worker", 0) == 0 ? "worker" : "plugin"};
}

//! A foreign backend's provenance as its worker said it: the fields said; null when none (and for built-ins).
nlohmann::json provenance_json(const BackendProvenance& p) {
  if (p.empty()) return nullptr;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [field, value] : {std::pair{"package", &p.package}, {"version", &p.version}, {"commit", &p.commit}})
    if (!value->empty()) j[field] = *value;
  return j;
}

//! After the table, each foreign provider shown: how it was loaded, what its kernels run on and where their
//! code comes from, as its worker said (hello "runtime" and "provenance"; a plugin says neither).
void print_providers(const std::vector<const BackendInfo*>& shown) {
  std::vector<std::string> done;
  for (const BackendInfo* b : shown) {
    if (b->provider.empty() || std::find(done.begin(), done.end(), b->provider) != done.end()) continue;
    if (done.empty()) std::printf("providers:\n");
    done.push_back(b->provider);
    std::printf("  %s  %s\n    runtime: %s\n    provenance: %s\n", b->provider.c_str(), b->loaded_by.c_str(),
                b->runtime.empty() ? "not said" : b->runtime.c_str(),
                b->provenance.empty() ? "not said" : to_string(b->provenance).c_str());
  }
}

//! A built-in's schedule; "-" for a foreign backend (its variant is its own).
std::string schedule_of(const BackendInfo& b) { return b.builtin ? to_string(b.builtin->schedule) : "-"; }
std::vector<std::string> flags_of(const BackendInfo& b) {
  return b.builtin ? flag_names(b.builtin->flags) : std::vector<std::string>{};
}

int list_backends(const std::string& arch_filter, bool json) {
  std::vector<const BackendInfo*> shown;
  const bool filter = !arch_filter.empty();
  const Architecture arch = filter ? parse_architecture(arch_filter) : Architecture::scan;
  for (const BackendInfo& b : registry())
    if (!filter || b.architecture == arch) shown.push_back(&b);
  const std::vector<std::string> executors = executor_names();
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const BackendInfo* b : shown)
      rows.push_back({{"name", b->name},
                      {"architecture", std::string(to_string(b->architecture))},
                      {"provider", b->provider},
                      {"variant", b->variant},
                      {"schedule", schedule_of(*b)},
                      {"flags", flags_of(*b)},
                      {"io_dtype", std::string(to_string(b->io_dtype))},
                      {"executors", executors_of(*b, executors)},
                      {"runtime", b->runtime.empty() ? nlohmann::json(nullptr) : nlohmann::json(b->runtime)},
                      {"provenance", provenance_json(b->provenance)}});
    std::printf("%s\n", rows.dump(2).c_str());
    return 0;
  }
  // Columns as wide as their longest entry: complex_rglru names run to 100 characters.
  std::size_t name_width = 7, schedule_width = 8, flags_width = 5;
  for (const BackendInfo* b : shown) {
    name_width = std::max(name_width, b->name.size());
    schedule_width = std::max(schedule_width, schedule_of(*b).size());
    flags_width = std::max(flags_width, join(flags_of(*b), ",").size());
  }
  const auto row = [&](const std::string& name, const std::string& arch, const std::string& schedule,
                       const std::string& flags, const std::string& dtype, const std::string& execs) {
    std::printf("%s\n", fmt::format("{:<{}} {:<14} {:<{}} {:<{}} {:<9} {}", name, name_width, arch, schedule,
                                    schedule_width, flags, flags_width, dtype, execs)
                            .c_str());
  };
  row("backend", "architecture", "schedule", "flags", "io dtype", "executors");
  for (const BackendInfo* b : shown)
    row(b->name, std::string(to_string(b->architecture)), schedule_of(*b),
        flags_of(*b).empty() ? "-" : join(flags_of(*b), ","), std::string(to_string(b->io_dtype)),
        join(executors_of(*b, executors), ","));
  std::printf("%zu backends\n", shown.size());
  print_providers(shown);
  return 0;
}

}  // namespace

void add_list(CLI::App& app, Action& action) {
  struct Options {
    std::string arch;
    bool json = false;
    ForeignOptions foreign;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("list", "List every registered backend");
  cmd->add_option("--arch", o->arch, "only this architecture: " + architecture_choices());
  cmd->add_flag("--json", o->json, "print JSON");
  o->foreign.add_to(*cmd);
  cmd->callback([&action, o] {
    action = [o] {
      o->foreign.load();
      return list_backends(o->arch, o->json);
    };
  });
}

void add_run(CLI::App& app, Action& action) {
  struct Options {
    std::string backend, case_dir, out, sqrt_gradient;
    ExecutorOption executor;
    ForeignOptions foreign;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("run", "Run one backend forward and backward on a case");
  cmd->add_option("--backend", o->backend, "architecture/variant@dtype (see scancheck list)")->required();
  cmd->add_option("--case", o->case_dir, "case directory")->required();
  cmd->add_option("--out", o->out, "output directory, written in the case format (replaced atomically)")->required();
  o->executor.add_to(*cmd);
  o->foreign.add_to(*cmd);
  cmd->add_option("--sqrt-gradient", o->sqrt_gradient,
                  sqrt_gradient_choices() + ": the gated layers' sqrt-gradient convention (default: the case's)");
  cmd->callback([&action, o] {
    action = [o] {
      o->foreign.load();
      const BackendInfo& backend = find_backend(o->backend);
      const Executor executor = o->executor.executor();
      require_output_apart(o->case_dir, o->out, "--out");
      Case c = load_case(o->case_dir);
      if (!o->sqrt_gradient.empty()) c.sqrt_gradient = parse_sqrt_gradient(o->sqrt_gradient);
      const Outputs outputs = run_backend(backend, c, executor);
      write_directory_atomically(o->out, [&](const std::filesystem::path& tmp) {
        for (const auto& [name, tensor] : outputs) write_npy(tmp / (name + ".npy"), tensor);
      });
      std::printf("wrote %s: %s on %s %s (%s executor)\n", o->out.c_str(), backend.name.c_str(),
                  std::string(to_string(c.architecture)).c_str(), to_string(c.shape).c_str(), o->executor.name.c_str());
      return 0;
    };
  });
}

}  // namespace scancheck::cli

namespace scancheck::cli {

void add_plugin_host(CLI::App& app, Action& action) {
  auto plugin = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "plugin-host", "Serve a C ABI plugin's backends over the worker protocol on stdin/stdout (what --plugin runs)");
  cmd->add_option("plugin", *plugin, "the plugin's shared library")->required();
  cmd->callback([&action, plugin] {
    action = [plugin] {
      // A cluster's SIGTERM reaches the host beside scancheck: the host serves the run in progress and
      // ends when scancheck, stopping, closes its stdin (a second signal ends it at once).
      (void)stop_on_interrupt();
      return foreign::serve_plugin(*plugin);
    };
  });
}

}  // namespace scancheck::cli
