// SPDX-License-Identifier: Apache-2.0
#include "properties/search.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListenerAdapter.h>

#include "core/case_dir.hpp"

namespace scancheck {
namespace {

using ReproduceMap = std::unordered_map<std::string, rc::detail::Reproduce>;

//! The value of "reproduce=" in RapidCheck's own rendering of a configuration that holds `map`.
std::string reproduce_value(const ReproduceMap& map) {
  rc::detail::Configuration config;
  config.reproduce = map;
  const std::string text = rc::detail::configToMinimalString(config);
  const std::string key = "reproduce=";
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + key.size();
  return text.substr(begin, text.find(' ', begin) - begin);
}

ReproduceMap parse_reproduce(const std::string& value) {
  if (value.empty()) return {};
  return rc::detail::configFromString("reproduce=" + value).reproduce;
}

//! Counts shrinks; prints nothing.
class ShrinkCounter : public rc::detail::TestListenerAdapter {
 public:
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    ++tries;
    if (accepted) ++steps;
  }
  int tries = 0, steps = 0;
};

//! What the property records across its invocations.
struct Record {
  int invocations = 0;
  int first_failure = 0;  // invocation number of the first failure, 0 while none
  std::optional<SearchFinding> last;
};

std::string sanitized(const std::string& name) {
  std::string out = name;
  for (char& ch : out) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '_' || ch == '.';
    if (!keep) ch = '_';
  }
  return out;
}

nlohmann::json request_json(const CaseRequest& r) {
  return {{"architecture", to_string(r.architecture)},
          {"shape", {{"batch", r.shape.batch}, {"length", r.shape.length}, {"width", r.shape.width},
                     {"heads", r.shape.heads}}},
          {"seed", r.seed},
          {"regime", to_string(r.regime)},
          {"io_dtype", to_string(r.io_dtype)},
          {"sqrt_gradient", to_string(r.sqrt_gradient)},
          {"with_h0", r.with_h0},
          {"with_dh_last", r.with_dh_last}};
}

}  // namespace

SearchOptions SearchOptions::from_rc_params(std::string id, int default_cases, int default_max_size) {
  rc::detail::Configuration defaults;
  defaults.testParams.seed = rc::detail::configuration().testParams.seed;  // RapidCheck's: RC_PARAMS or random
  defaults.testParams.maxSuccess = default_cases;
  defaults.testParams.maxSize = default_max_size;
  const char* env = std::getenv("RC_PARAMS");
  const rc::detail::Configuration config = env ? rc::detail::configFromString(env, defaults) : defaults;
  SearchOptions o;
  o.id = std::move(id);
  o.max_success = config.testParams.maxSuccess;
  o.max_size = config.testParams.maxSize;
  o.seed = config.testParams.seed;
  o.shrink = !config.testParams.disableShrinking;
  o.reproduce = config.reproduce.empty() ? std::string() : reproduce_value(config.reproduce);
  return o;
}

SearchOutcome search(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator, const SearchOptions& o) {
  const auto record = std::make_shared<Record>();
  const auto property = [&failure_of, generator, record, id = o.id, seed = o.seed]() {
    const CaseRequest request = *generator;
    ++record->invocations;
    std::optional<PropertyFailure> failure;
    try {
      failure = failure_of(make_case(request));
    } catch (const rc::GenerationFailure&) {
      throw;  // RapidCheck's own: a value the predicate asked for could not be generated
    } catch (const std::exception& e) {
      failure = PropertyFailure(fmt::format("exception: {}", e.what()));
    }
    if (!failure) return;
    if (record->first_failure == 0) record->first_failure = record->invocations;
    SearchFinding f;
    f.id = id;
    f.request = request;
    f.message = failure->message;
    f.backend = failure->backend;
    f.related = std::move(failure->related);
    f.seed = seed;
    record->last = std::move(f);
    RC_FAIL(failure->message);
  };

  rc::detail::TestParams params;
  params.seed = o.seed;
  params.maxSuccess = o.max_success;
  params.maxSize = o.max_size;
  params.disableShrinking = !o.shrink;
  rc::detail::TestMetadata metadata;
  metadata.id = o.id;
  metadata.description = o.id;
  ShrinkCounter listener;
  const rc::detail::TestResult result = rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params,
                                                                  listener, parse_reproduce(o.reproduce));
  SearchOutcome outcome;
  rc::detail::SuccessResult success;
  if (result.match(success)) {
    outcome.cases = success.numSuccess;
    return outcome;
  }
  rc::detail::FailureResult failure;
  if (!result.match(failure)) {
    std::ostringstream why;
    rc::detail::printResultMessage(result, why);
    throw std::runtime_error(fmt::format("property {}: RapidCheck gave up: {}", o.id, why.str()));
  }
  if (!record->last)  // failed outside the predicate (RapidCheck itself)
    throw std::runtime_error(fmt::format("property {} failed outside its predicate: {}", o.id, failure.description));
  outcome.cases = record->first_failure;
  SearchFinding f = std::move(*record->last);
  f.cases_until_failure = record->first_failure;
  f.shrink_steps = listener.steps;
  f.shrink_tries = listener.tries;
  if (const std::string value = reproduce_value({{o.id, failure.reproduce}}); !value.empty())
    f.rc_reproduce = fmt::format("RC_PARAMS=\"reproduce={}\"", value);
  outcome.finding = std::move(f);
  return outcome;
}

SearchOutcome search(const FailureOf& failure_of, Architecture arch, DType io, const SearchOptions& o,
                     const GeneratorOptions& generator_options) {
  return search(failure_of, gen_case_request(arch, io, generator_options), o);
}

std::optional<SearchFinding> find_failure(const FailureOf& failure_of, Architecture arch, DType io,
                                          const SearchOptions& o, const GeneratorOptions& generator_options) {
  return search(failure_of, arch, io, o, generator_options).finding;
}

std::vector<std::string> repro_lines(const SearchFinding& f, const std::filesystem::path& case_dir) {
  std::vector<std::string> lines;
  if (!f.rc_reproduce.empty())
    lines.push_back(fmt::format("{}  (replays the shrunk case of property '{}' in the program that ran it)",
                                f.rc_reproduce, f.id));
  lines.push_back(fmt::format("RC_PARAMS=\"seed={}\"  (reruns the search)", f.seed));
  if (!f.backend.empty())
    lines.push_back(fmt::format("scancheck check --case {} --backend '{}'", case_dir.string(), f.backend));
  return lines;
}

std::filesystem::path save_finding(const SearchFinding& f, const std::filesystem::path& findings_dir) {
  const Shape& s = f.request.shape;
  const std::filesystem::path dir =
      findings_dir / fmt::format("{}-seed{}-B{}-L{}-W{}-H{}", sanitized(f.id), f.request.seed, s.batch, s.length,
                                 s.width, s.heads);
  std::filesystem::create_directories(findings_dir);
  const std::vector<std::string> repro = repro_lines(f, dir / "case");
  nlohmann::json related = nlohmann::json::array();
  for (const auto& [name, c] : f.related) related.push_back(sanitized(name));
  const nlohmann::json j = {
      {"property", f.id},
      {"message", f.message},
      {"backend", f.backend},
      {"request", request_json(f.request)},
      {"request_line", format_request(f.request)},
      {"related_cases", related},
      {"cases_until_failure", f.cases_until_failure},
      {"shrink_steps", f.shrink_steps},
      {"shrink_tries", f.shrink_tries},
      {"search_seed", f.seed},
      {"rc_params", f.rc_reproduce},
      {"repro", repro},
  };
  write_directory_atomically(dir, [&](const std::filesystem::path& tmp) {
    save_case(make_case(f.request), tmp / "case");
    for (const auto& [name, c] : f.related) save_case(c, tmp / sanitized(name));
    std::ofstream(tmp / "finding.json") << j.dump(2) << "\n";
    std::ofstream readme(tmp / "README.txt");
    readme << "property " << f.id << ": " << format_request(f.request) << "\n" << f.message << "\n\nrepro:\n";
    for (const std::string& line : repro) readme << "  " << line << "\n";
  });
  return dir;
}

}  // namespace scancheck
