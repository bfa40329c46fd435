// SPDX-License-Identifier: Apache-2.0
#include "properties/fuzz.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "properties/differential.hpp"
#include "properties/generators.hpp"
#include "properties/search.hpp"

namespace scancheck {
namespace {

using Clock = std::chrono::steady_clock;

//! Sizes cycle through RapidCheck's range so small and large cases alternate from the first case on.
int size_of(std::int64_t index) { return static_cast<int>(index * 37 % 101); }

//! "fault: worker ... exited" for runs that did not fail the policy but failed to run; the first failed
//! rule otherwise.
std::string first_reason(const BackendResult& r) {
  const std::vector<std::string> why = r.reasons();
  const std::string reason = why.empty() ? std::string("failed") : why.front();
  return r.verdict == Verdict::fail ? reason : fmt::format("{}: {}", to_string(r.verdict), reason);
}

//! The differential check of one backend: its first failed rule against the reference, or nothing.
FailureOf judged_alone(const BackendInfo& backend, const FuzzOptions& o) {
  return [&backend, &o](const Case& c) -> std::optional<PropertyFailure> {
    const ReferenceResult reference =
        reference_with_bounds(c, o.reference_threads, o.policy.strict, o.reference_precision);
    const BackendResult r = check_backends(c, {&backend}, o.executor, reference, o.policy).front();
    if (r.pass || !r.attempted) return std::nullopt;  // not attempted: says nothing about this case
    PropertyFailure failure(first_reason(r), backend.name);
    failure.log = r.log;
    return failure;
  };
}

//! The finding of `backend`, which failed case `address` among others: shrunk alone. A backend that
//! passes the case when run alone (it does not reproduce) keeps the first failure, unshrunk.
Finding finding_of(const BackendInfo& backend, const BackendResult& first, const rc::Gen<CaseRequest>& generator,
                   const CaseAddress& address, const CaseRequest& request, const FuzzOptions& o) {
  SearchOptions search;
  search.id = fuzz_property;
  search.seed = o.seed;
  search.shard = o.shard;
  search.stop = o.stop;
  const std::string reason = first_reason(first);
  std::optional<Finding> f = shrink_failure(judged_alone(backend, o), generator, address, search);
  if (!f) {
    f.emplace();
    f->property = fuzz_property;
    f->backend = backend.name;
    f->request = request;
    f->seed = o.seed;
    f->message = reason + " (it passed when run again alone: not shrunk)";
    f->log = first.log;
  }
  f->rc_reproduce.clear();  // the id replays in no program: the repro is the saved case
  // Where the shrunk case goes wrong: judged once more, with the diagnosis (re-runs included).
  const Case shrunk = make_case(f->request);
  const BackendResult again =
      check_backends(shrunk, {&backend}, o.executor,
                     reference_with_bounds(shrunk, o.reference_threads, o.policy.strict, o.reference_precision),
                     o.policy, {},
                     /*diagnose=*/true)
          .front();
  f->diagnosis = again.diagnosis;
  return std::move(*f);
}

}  // namespace

CaseRequest fuzz_case(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture a, DType d) {
  return request_at(gen_case_request(a, d), case_address(seed, shard, index, size_of(index)));
}

FuzzProgress fuzz(const FuzzOptions& o, const std::function<void(const FuzzProgress&)>& report) {
  // The groups of the candidates, in registry order: one generator per architecture, io dtype and
  // constraints, so that every case of a group is inside every member's constraints.
  struct Group {
    Architecture architecture;
    DType io_dtype;
    BackendConstraints constraints;
    std::vector<const BackendInfo*> members;
  };
  std::vector<Group> groups;
  for (const BackendInfo* b : o.backends) {
    const auto same = [&](const Group& g) {
      return g.architecture == b->architecture && g.io_dtype == b->io_dtype && g.constraints == b->constraints;
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) it = groups.insert(groups.end(), Group{b->architecture, b->io_dtype, b->constraints, {}});
    it->members.push_back(b);
  }
  FuzzProgress p;
  const auto start = Clock::now();
  const auto stopped = [&o] { return o.stop && o.stop->load(); };
  const auto all_found = [&] {
    return std::all_of(groups.begin(), groups.end(), [](const Group& g) { return g.members.empty(); });
  };
  for (std::int64_t i = 0; !groups.empty() && !all_found(); ++i) {
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if ((o.cases && i >= *o.cases) || (o.seconds && p.elapsed >= *o.seconds) || stopped()) break;
    Group& group = groups[static_cast<std::size_t>(i) % groups.size()];
    if (group.members.empty()) continue;  // every backend of the group has its finding
    GeneratorOptions generator_options;
    generator_options.constraints = group.constraints;
    generator_options.regimes = o.regimes;
    const rc::Gen<CaseRequest> generator = gen_case_request(group.architecture, group.io_dtype, generator_options);
    const CaseAddress address = case_address(o.seed, o.shard, i, size_of(i));
    const CaseRequest request = request_at(generator, address);
    const Case c = make_case(request);
    const auto reference_start = Clock::now();
    const ReferenceResult reference =
        reference_with_bounds(c, o.reference_threads, o.policy.strict, o.reference_precision);
    p.reference_seconds += std::chrono::duration<double>(Clock::now() - reference_start).count();
    for (const BackendResult& r : check_backends(c, group.members, o.executor, reference, o.policy)) {
      ++p.checks;
      if (r.pass) continue;
      // One finding per backend: once it is known to fail, later cases do not run it again.
      const BackendInfo& failing = find_backend(r.backend);
      std::erase(group.members, &failing);
      Finding f = finding_of(failing, r, generator, address, request, o);
      f.cases_until_failure = i + 1;
      p.saved.push_back(o.findings ? save_finding(f, *o.findings) : std::filesystem::path());
      p.findings.push_back(std::move(f));
    }
    ++p.cases;
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (report) report(p);
  }
  p.interrupted = stopped();
  return p;
}

}  // namespace scancheck
