// SPDX-License-Identifier: Apache-2.0
#include "properties/finding.hpp"

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "core/case_dir.hpp"
#include "core/case_request.hpp"
#include "core/json_reader.hpp"

namespace scancheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

//! A file-name-safe form of a name: [A-Za-z0-9._-] kept, anything else '_'.
std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& ch : out) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '_' || ch == '.';
    if (!keep) ch = '_';
  }
  return out;
}

std::string directory_name(const Finding& f) {
  const Shape& s = f.request.shape;
  const std::string what = f.backend.empty() ? f.property : fmt::format("{}-{}", f.property, f.backend);
  return fmt::format("{}-seed{}-B{}-L{}-W{}-H{}", file_safe(what), f.request.seed, s.batch, s.length, s.width, s.heads);
}

json finding_json(const Finding& f, const std::vector<std::string>& repro) {
  json related = json::array();
  for (const auto& [name, c] : f.related) related.push_back(file_safe(name));
  return {
      {"format", "scancheck-finding"},
      {"version", finding_format_version},
      {"property", f.property},
      {"backend", f.backend},
      {"message", f.message},
      {"request", to_json(f.request)},
      {"original_request", f.original ? to_json(*f.original) : json(nullptr)},
      {"log", f.log},
      {"diagnosis", f.diagnosis},
      {"related_cases", related},
      {"cases_until_failure", f.cases_until_failure},
      {"shrink_steps", f.shrink_steps},
      {"shrink_tries", f.shrink_tries},
      {"search_seed", f.seed},
      {"rc_params", f.rc_reproduce},
      {"repro", repro},
  };
}

std::string readme(const Finding& f, const std::vector<std::string>& repro) {
  std::ostringstream out;
  out << f.property << (f.backend.empty() ? "" : " of " + f.backend) << "\n  " << to_string(f.request) << "\n"
      << f.message << "\n";
  for (const std::string& where : f.diagnosis) out << "where: " << where << "\n";
  if (!f.log.empty()) out << "\nthe worker's stderr ended with:\n" << f.log << "\n";
  out << "\nrepro:\n";
  for (const std::string& line : repro) out << "  " << line << "\n";
  return out.str();
}

}  // namespace

std::vector<std::string> repro_lines(const Finding& f, const fs::path& case_dir) {
  std::vector<std::string> lines;
  if (!f.rc_reproduce.empty()) {
    lines.push_back(fmt::format("{}  (replays the shrunk case of property '{}' in the program that ran it)",
                                f.rc_reproduce, f.property));
    lines.push_back(fmt::format("RC_PARAMS=\"seed={}\"  (reruns the search)", f.seed));
  }
  if (!f.backend.empty()) {
    const BackendInfo* b = registry().find(f.backend);  // a foreign backend: the options that load it
    const std::string loader = b && !b->loaded_by.empty() ? b->loaded_by + " " : "";
    lines.push_back(fmt::format("scancheck check {}--case {} --backend '{}'", loader, case_dir.string(), f.backend));
  }
  return lines;
}

fs::path save_finding(const Finding& f, const fs::path& findings_dir) {
  const fs::path dir = findings_dir / directory_name(f);
  const std::vector<std::string> repro = repro_lines(f, dir / "case");
  write_directory_atomically(dir, [&](const fs::path& tmp) {
    save_case(make_case(f.request), tmp / "case");
    for (const auto& [name, c] : f.related) save_case(c, tmp / file_safe(name));
    write_file(tmp / "finding.json", {finding_json(f, repro).dump(2) + "\n"});
    write_file(tmp / "README.txt", {readme(f, repro)});
  });
  return dir;
}

Finding load_finding(const fs::path& argument) {
  const fs::path path = fs::is_directory(argument) ? argument / "finding.json" : argument;
  return finding_from_json(read_json_file(path, "the finding"), path.string());
}

Finding finding_from_json(const json& j, const std::string& source) {
  const JsonReader in(source);
  in.object(j, "$");
  if (!in.has(j, "format"))
    in.fail("$",
            "a finding of an earlier scancheck (no \"format\"): replay its case/ with scancheck check, or "
            "rerun the search that found it");
  if (in.text(j, "$", "format") != "scancheck-finding") in.fail("format", "not a scancheck finding");
  if (const std::int64_t v = in.integer(j, "$", "version"); v != finding_format_version)
    in.fail("version",
            fmt::format("version {} is not supported (this scancheck reads version {})", v, finding_format_version));
  Finding f;
  f.property = in.text(j, "$", "property");
  f.backend = in.text(j, "$", "backend");
  f.message = in.text(j, "$", "message");
  f.request = request_from_json(in, in.field(j, "$", "request"), "request");
  if (const json& original = in.field(j, "$", "original_request"); !original.is_null())
    f.original = request_from_json(in, original, "original_request");
  f.log = in.text(j, "$", "log");
  f.diagnosis = in.strings(j, "$", "diagnosis");
  f.cases_until_failure = in.integer(j, "$", "cases_until_failure");
  f.shrink_steps = static_cast<int>(in.integer(j, "$", "shrink_steps"));
  f.shrink_tries = static_cast<int>(in.integer(j, "$", "shrink_tries"));
  f.seed = in.unsigned_integer(j, "$", "search_seed");
  f.rc_reproduce = in.text(j, "$", "rc_params");
  return f;
}

}  // namespace scancheck
