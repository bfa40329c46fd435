// SPDX-License-Identifier: Apache-2.0
#include "properties/fuzz.hpp"

#include <chrono>
#include <map>
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

//! The differential check of one backend: its first failed rule against the reference, or nothing.
FailureOf judged_alone(const BackendInfo& backend, const FuzzOptions& o) {
  return [&backend, &o](const Case& c) -> std::optional<PropertyFailure> {
    const ReferenceResult reference = reference_with_bounds(c, o.reference_threads);
    const BackendResult r = check_backends(c, {&backend}, o.executor, reference, o.policy).front();
    if (r.pass) return std::nullopt;
    const std::vector<std::string> why = r.reasons();
    return PropertyFailure(why.empty() ? std::string("failed") : why.front(), backend.name);
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
  const std::vector<std::string> why = first.reasons();
  const std::string reason = why.empty() ? std::string("failed") : why.front();
  std::optional<Finding> f = shrink_failure(judged_alone(backend, o), generator, address, search);
  if (!f) {
    f.emplace();
    f->property = fuzz_property;
    f->backend = backend.name;
    f->request = request;
    f->seed = o.seed;
    f->message = reason + " (it passed when run again alone: not shrunk)";
  }
  f->rc_reproduce.clear();  // the id replays in no program: the repro is the saved case
  return std::move(*f);
}

}  // namespace

CaseRequest fuzz_case(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture a, DType d) {
  const CaseAddress at = case_address(seed, shard, index, size_of(index));
  return gen_case_request(a, d)(at.random, at.size).value();
}

FuzzProgress fuzz(const FuzzOptions& o, const std::function<void(const FuzzProgress&)>& report) {
  // The (architecture, dtype) groups of the candidates, in registry order.
  std::vector<std::pair<Architecture, DType>> groups;
  std::map<std::pair<Architecture, DType>, std::vector<const BackendInfo*>> members;
  for (const BackendInfo* b : o.backends) {
    const auto key = std::make_pair(b->architecture, b->io_dtype);
    if (members[key].empty()) groups.push_back(key);
    members[key].push_back(b);
  }
  FuzzProgress p;
  const auto start = Clock::now();
  const auto stopped = [&o] { return o.stop && o.stop->load(); };
  for (std::int64_t i = 0; !groups.empty(); ++i) {
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if ((o.cases && i >= *o.cases) || (o.seconds && p.elapsed >= *o.seconds) || stopped()) break;
    const auto [arch, dtype] = groups[static_cast<std::size_t>(i) % groups.size()];
    const rc::Gen<CaseRequest> generator = gen_case_request(arch, dtype);
    const CaseAddress address = case_address(o.seed, o.shard, i, size_of(i));
    const CaseRequest request = generator(address.random, address.size).value();
    const Case c = make_case(request);
    const ReferenceResult reference = reference_with_bounds(c, o.reference_threads);
    for (const BackendResult& r : check_backends(c, members[{arch, dtype}], o.executor, reference, o.policy)) {
      ++p.checks;
      if (r.pass) continue;
      Finding f = finding_of(find_backend(r.backend), r, generator, address, request, o);
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
