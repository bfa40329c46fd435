// SPDX-License-Identifier: Apache-2.0
#include "properties/search.hpp"

// The one file that uses RapidCheck's internals (rc::detail; tests aside), because this search drives
// RapidCheck's shrink trees itself instead of leaving them to rc::check: it needs a property as a function
// from (random, size) to a shrink tree (detail::Property, toProperty), each case's result in that tree
// (detail::CaseDescription, CaseResult) and RapidCheck's own RC_PARAMS and "reproduce=" text
// (detail::Configuration, configFromString, configToMinimalString, Reproduce), so that a finding's repro
// line is one RapidCheck itself replays. A RapidCheck update that moves them breaks this file only.

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/Property.h>
#include <rapidcheck/shrinkable/Operations.h>

namespace scancheck {
namespace {

using ReproduceMap = std::unordered_map<std::string, rc::detail::Reproduce>;
using CaseShrinkable = rc::Shrinkable<rc::detail::CaseDescription>;

rc::detail::Reproduce reproduce_of(const CaseAddress& a) { return {a.random, a.size, a.shrink_path}; }
CaseAddress address_of(const rc::detail::Reproduce& r) { return {r.random, r.size, r.shrinkPath}; }

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

//! The property's latest failing invocation: the predicate's report on the case it failed.
struct Record {
  std::optional<Finding> last;
};

//! The predicate on generated requests as a RapidCheck property that records each failure.
rc::detail::Property property_of(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator,
                                 const std::shared_ptr<Record>& record) {
  return rc::detail::toProperty([failure_of, generator, record]() {
    const CaseRequest request = *generator;
    std::optional<PropertyFailure> failure;
    try {
      failure = failure_of(make_case(request));
    } catch (const rc::GenerationFailure&) {
      throw;  // RapidCheck's own: a value the predicate asked for could not be generated
    } catch (const std::exception& e) {
      failure = PropertyFailure(fmt::format("exception: {}", e.what()));
    }
    if (!failure) return;
    Finding f;
    f.request = request;
    f.message = failure->message;
    f.backend = failure->backend;
    f.log = failure->log;
    f.related = std::move(failure->related);
    record->last = std::move(f);
    RC_FAIL(failure->message);
  });
}

bool fails(const CaseShrinkable& s) { return s.value().result.type == rc::detail::CaseResult::Type::Failure; }

bool stopped(const SearchOptions& o) { return o.stop && o.stop->load(); }

//! Greedy descent of the shrink tree from a failing case: accept the first child that still fails, then
//! try its children, until none fails. `address.shrink_path` grows by the index of each accepted child.
void shrink(CaseShrinkable& failing, CaseAddress& address, int& steps, int& tries, const SearchOptions& o) {
  for (bool moved = true; moved && !stopped(o);) {
    moved = false;
    auto children = failing.shrinks();
    std::size_t index = 0;
    while (auto child = children.next()) {
      if (stopped(o)) return;
      ++tries;
      if (fails(*child)) {
        failing = std::move(*child);
        address.shrink_path.push_back(index);
        ++steps;
        moved = true;
        break;
      }
      ++index;
    }
  }
}

//! The finding of the failing case `failing` at `address`, shrunk when the options say so.
Finding finish(CaseShrinkable failing, CaseAddress address, const std::shared_ptr<Record>& record,
               const SearchOptions& o) {
  const std::optional<CaseRequest> original = record->last ? std::optional(record->last->request) : std::nullopt;
  int steps = 0, tries = 0;
  if (o.shrink) shrink(failing, address, steps, tries, o);
  // Re-run the final case last, so the record holds exactly its report. If it passes now (a backend that
  // is not a function of its case, or one whose worker was given up meanwhile), the record keeps the last
  // failing run's report, which is the accepted case's.
  (void)fails(failing);
  Finding f = std::move(*record->last);
  f.property = o.id;
  if (steps > 0) f.original = original;
  f.shrink_steps = steps;
  f.shrink_tries = tries;
  f.seed = o.seed;
  if (const std::string value = reproduce_value({{o.id, reproduce_of(address)}}); !value.empty())
    f.rc_reproduce = fmt::format("RC_PARAMS=\"reproduce={}\"", value);
  return f;
}

int size_for(int index, const SearchOptions& o) {
  if (o.max_success <= 1) return 0;
  return static_cast<int>(static_cast<std::int64_t>(index) * o.max_size / (o.max_success - 1));
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

CaseAddress case_address(std::uint64_t seed, std::int64_t shard, std::int64_t index, int size) {
  const rc::Random random(
      rc::Random::Key{seed, static_cast<std::uint64_t>(shard), static_cast<std::uint64_t>(index), 0x5ca9c4ec4ULL});
  return {random, size, {}};
}

CaseRequest request_at(const rc::Gen<CaseRequest>& generator, const CaseAddress& address) {
  auto drawn = std::make_shared<CaseRequest>();
  const rc::detail::Property property = rc::detail::toProperty([generator, drawn]() { *drawn = *generator; });
  const auto at = rc::shrinkable::walkPath(property(address.random, address.size), address.shrink_path);
  if (!at) throw std::logic_error("request_at: the shrink path names no case");
  (void)at->value();
  return *drawn;
}

SearchOutcome search(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator, const SearchOptions& o) {
  const auto record = std::make_shared<Record>();
  const rc::detail::Property property = property_of(failure_of, generator, record);
  SearchOutcome outcome;
  if (!o.reproduce.empty()) {
    const ReproduceMap map = parse_reproduce(o.reproduce);
    const auto it = map.find(o.id);
    if (it == map.end()) return outcome;  // the string replays other properties only
    const CaseAddress at = address_of(it->second);
    const auto replayed = rc::shrinkable::walkPath(property(at.random, at.size), at.shrink_path);
    if (!replayed) throw std::runtime_error(fmt::format("property {}: the reproduce string names no case", o.id));
    outcome.cases = 1;
    if (!fails(*replayed)) return outcome;
    SearchOptions replay = o;
    replay.shrink = false;
    outcome.finding = finish(*replayed, at, record, replay);
    outcome.finding->cases_until_failure = 1;
    return outcome;
  }
  for (int i = 0; i < o.max_success && !stopped(o); ++i) {
    const CaseAddress at = case_address(o.seed, o.shard, i, size_for(i, o));
    const CaseShrinkable drawn = property(at.random, at.size);
    outcome.cases = i + 1;
    if (!fails(drawn)) continue;
    outcome.finding = finish(drawn, at, record, o);
    outcome.finding->cases_until_failure = i + 1;
    return outcome;
  }
  return outcome;
}

SearchOutcome search(const FailureOf& failure_of, Architecture arch, DType io, const SearchOptions& o,
                     const GeneratorOptions& generator_options) {
  return search(failure_of, gen_case_request(arch, io, generator_options), o);
}

std::optional<Finding> find_failure(const FailureOf& failure_of, Architecture arch, DType io, const SearchOptions& o,
                                    const GeneratorOptions& generator_options) {
  return search(failure_of, arch, io, o, generator_options).finding;
}

std::optional<Finding> shrink_failure(const FailureOf& failure_of, const rc::Gen<CaseRequest>& generator,
                                      const CaseAddress& address, const SearchOptions& o) {
  const auto record = std::make_shared<Record>();
  const rc::detail::Property property = property_of(failure_of, generator, record);
  const auto at = rc::shrinkable::walkPath(property(address.random, address.size), address.shrink_path);
  if (!at || !fails(*at)) return std::nullopt;
  return finish(*at, address, record, o);
}

}  // namespace scancheck
