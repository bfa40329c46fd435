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

//! The candidates of one architecture, io dtype and constraints: one generator serves them all, so that
//! every case of the group is inside every member's constraints.
struct Group {
  Architecture architecture;
  DType io_dtype;
  BackendConstraints constraints;
  std::vector<const BackendInfo*> members;  //!< those still judged
  std::int64_t cases = 0;                   //!< run so far: the index of its next case
};

//! The groups of the candidates, in registry order.
std::vector<Group> groups_of(const std::vector<const BackendInfo*>& backends) {
  std::vector<Group> groups;
  for (const BackendInfo* b : backends) {
    const auto same = [&](const Group& g) {
      return g.architecture == b->architecture && g.io_dtype == b->io_dtype && g.constraints == b->constraints;
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end())
      it = groups.insert(groups.end(), Group{b->architecture, b->io_dtype, b->constraints, {}, 0});
    it->members.push_back(b);
  }
  return groups;
}

//! The progress's case counts: in all, per group, and what the run will hold when done.
void count_cases(FuzzProgress& p, const std::vector<Group>& groups, const FuzzOptions& o) {
  p.cases = p.planned = 0;
  p.fewest = groups.empty() ? 0 : groups.front().cases;
  p.most = 0;
  for (const Group& g : groups) {
    p.cases += g.cases;
    p.planned += g.members.empty() || !o.cases ? g.cases : std::max(g.cases, *o.cases);
    p.fewest = std::min(p.fewest, g.cases);
    p.most = std::max(p.most, g.cases);
  }
}

BackendTally& tally_of(FuzzProgress& p, const std::string& backend) {
  return *std::find_if(p.tallies.begin(), p.tallies.end(), [&](const BackendTally& t) { return t.backend == backend; });
}

//! The group's next case, judged for every member still judged. A member's first failure is shrunk and
//! saved; without keep_going it is then judged no more, with it its later failures are only counted.
void run_group_case(Group& group, const FuzzOptions& o, FuzzProgress& p) {
  GeneratorOptions generator_options;
  generator_options.constraints = group.constraints;
  generator_options.regimes = o.regimes;
  const rc::Gen<CaseRequest> generator = gen_case_request(group.architecture, group.io_dtype, generator_options);
  const std::int64_t index = group.cases++;
  const CaseAddress address = case_address(o.seed, o.shard, index, size_of(index));
  const CaseRequest request = request_at(generator, address);
  const Case c = make_case(request);
  const auto reference_start = Clock::now();
  const ReferenceResult reference =
      reference_with_bounds(c, o.reference_threads, o.policy.strict, o.reference_precision);
  p.reference_seconds += std::chrono::duration<double>(Clock::now() - reference_start).count();
  for (const BackendResult& r : check_backends(c, group.members, o.executor, reference, o.policy)) {
    ++p.checks;
    BackendTally& tally = tally_of(p, r.backend);
    const bool found = tally.failed > 0;
    const BackendInfo& backend = find_backend(r.backend);
    if (found && !r.attempted) {  // given up after its faults: nothing more to learn from it
      std::erase(group.members, &backend);
      continue;
    }
    ++tally.judged;
    if (r.pass) continue;
    ++tally.failed;
    if (!o.keep_going) std::erase(group.members, &backend);
    if (found) continue;
    Finding f = finding_of(backend, r, generator, address, request, o);
    f.cases_until_failure = index + 1;
    p.saved.push_back(o.findings ? save_finding(f, *o.findings) : std::filesystem::path());
    p.findings.push_back(std::move(f));
  }
}

}  // namespace

CaseRequest fuzz_case(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture a, DType d) {
  return request_at(gen_case_request(a, d), case_address(seed, shard, index, size_of(index)));
}

FuzzProgress fuzz(const FuzzOptions& o, const std::function<void(const FuzzProgress&)>& report) {
  std::vector<Group> groups = groups_of(o.backends);
  FuzzProgress p;
  p.groups = static_cast<std::int64_t>(groups.size());
  for (const BackendInfo* b : o.backends) p.tallies.push_back({b->name, 0, 0});
  const auto start = Clock::now();
  const auto stopped = [&o] { return o.stop && o.stop->load(); };
  const auto done = [&o](const Group& g) { return g.members.empty() || (o.cases && g.cases >= *o.cases); };
  count_cases(p, groups, o);
  // The groups take turns, so that with --time every group gets about as many cases.
  for (std::size_t turn = 0; !std::all_of(groups.begin(), groups.end(), done); ++turn) {
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if ((o.seconds && p.elapsed >= *o.seconds) || stopped()) break;
    Group& group = groups[turn % groups.size()];
    if (done(group)) continue;
    run_group_case(group, o, p);
    count_cases(p, groups, o);
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (report) report(p);
  }
  p.interrupted = stopped();
  return p;
}

}  // namespace scancheck
