// SPDX-License-Identifier: Apache-2.0
#include "properties/fuzz.hpp"

#include <rapidcheck.h>

#include <chrono>
#include <fstream>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/case_dir.hpp"
#include "properties/differential.hpp"
#include "properties/generators.hpp"

namespace scancheck {
namespace {

using Clock = std::chrono::steady_clock;

//! Sizes cycle through RapidCheck's range so small and large cases alternate from the first case on.
int size_of(std::int64_t index) { return static_cast<int>(index * 37 % 101); }

rc::Shrinkable<CaseRequest> draw(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture a, DType d) {
  const rc::Random random(rc::Random::Key{seed, static_cast<std::uint64_t>(shard), static_cast<std::uint64_t>(index),
                                          0x5ca9c4ec4ULL});
  return gen_case_request(a, d)(random, size_of(index));
}

//! The first failed rule of `backend` on the case of `request`, or nothing when it passes.
std::optional<std::string> failure_of(const BackendInfo& backend, const CaseRequest& request, const FuzzOptions& o) {
  const Case c = make_case(request);
  const ReferenceResult reference = reference_with_bounds(c, o.reference_threads);
  const BackendResult r = check_backends(c, {&backend}, o.executor, reference, o.policy).front();
  if (r.pass) return std::nullopt;
  const std::vector<std::string> why = r.reasons();
  return why.empty() ? std::string("failed") : why.front();
}

//! Greedy descent of the shrink tree: move to the first smaller request that still fails, until none does.
Finding shrink(const BackendInfo& backend, rc::Shrinkable<CaseRequest> failing, std::string reason,
               const FuzzOptions& o) {
  Finding f{backend.name, std::move(reason), failing.value(), failing.value(), 0, 0, std::nullopt};
  for (bool moved = true; moved && !(o.stop && o.stop->load());) {
    moved = false;
    auto children = failing.shrinks();
    while (auto child = children.next()) {
      if (auto why = failure_of(backend, child->value(), o)) {
        failing = std::move(*child);
        f.shrunk = failing.value();
        f.reason = std::move(*why);
        ++f.shrink_steps;
        moved = true;
        break;
      }
    }
  }
  return f;
}

std::string sanitized(std::string name) {
  for (char& ch : name)
    if (ch == '/' || ch == '@') ch = '_';
  return name;
}

void save(Finding& f, const std::filesystem::path& root) {
  const std::filesystem::path dir =
      root / fmt::format("{}-seed{}-L{}", sanitized(f.backend), f.shrunk.seed, f.shrunk.shape.length);
  std::filesystem::create_directories(root);
  const nlohmann::json j = {
      {"backend", f.backend},
      {"reason", f.reason},
      {"case_index", f.case_index},
      {"shrink_steps", f.shrink_steps},
      {"original", describe_request(f.original)},
      {"shrunk", describe_request(f.shrunk)},
      {"repro", fmt::format("scancheck check --case {} --backend '{}'", (dir / "case").string(), f.backend)},
  };
  write_directory_atomically(dir, [&](const std::filesystem::path& tmp) {
    save_case(make_case(f.shrunk), tmp / "case");
    std::ofstream(tmp / "finding.json") << j.dump(2) << "\n";
  });
  f.saved = dir;
}

}  // namespace

CaseRequest fuzz_case(std::uint64_t seed, std::int64_t shard, std::int64_t index, Architecture a, DType d) {
  return draw(seed, shard, index, a, d).value();
}

std::string describe_request(const CaseRequest& r) {
  const Shape& s = r.shape;
  return fmt::format("--arch {} --shape {},{},{},{} --seed {} --regime {} --io-dtype {} --sqrt-gradient {}{}{}",
                     to_string(r.architecture), s.batch, s.length, s.width, s.heads, r.seed, to_string(r.regime),
                     to_string(r.io_dtype), to_string(r.sqrt_gradient), r.with_h0 ? "" : " --no-h0",
                     r.with_dh_last ? "" : " --no-dh-last");
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
  for (std::int64_t i = 0; !groups.empty(); ++i) {
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if ((o.cases && i >= *o.cases) || (o.seconds && p.elapsed >= *o.seconds)) break;
    if (o.stop && o.stop->load()) {
      p.interrupted = true;
      break;
    }
    const auto [arch, dtype] = groups[static_cast<std::size_t>(i) % groups.size()];
    const rc::Shrinkable<CaseRequest> drawn = draw(o.seed, o.shard, i, arch, dtype);
    const Case c = make_case(drawn.value());
    const ReferenceResult reference = reference_with_bounds(c, o.reference_threads);
    for (const BackendResult& r : check_backends(c, members[{arch, dtype}], o.executor, reference, o.policy)) {
      ++p.checks;
      if (r.pass) continue;
      const std::vector<std::string> why = r.reasons();
      Finding f = shrink(find_backend(r.backend), drawn, why.empty() ? "failed" : why.front(), o);
      f.case_index = i + 1;
      if (o.findings) save(f, *o.findings);
      p.findings.push_back(std::move(f));
    }
    ++p.cases;
    p.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (report) report(p);
  }
  if (o.stop && o.stop->load()) p.interrupted = true;
  return p;
}

}  // namespace scancheck
