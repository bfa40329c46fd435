// SPDX-License-Identifier: Apache-2.0
#include "reports/runner.hpp"

#include <unistd.h>

#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/architectures.hpp"
#include "core/build_info.hpp"
#include "core/case_dir.hpp"
#include "core/error.hpp"
#include "properties/differential.hpp"
#include "properties/fuzz.hpp"
#include "properties/generators.hpp"
#include "reference/budget.hpp"

namespace scancheck::reports {
namespace {

using Clock = std::chrono::steady_clock;

using Group = std::pair<Architecture, DType>;

//! The (architecture, io dtype, constraints) groups of `backends`, in registry order, with their members:
//! the built-ins and unconstrained foreign backends share cases; a constrained backend gets cases fitted
//! into its constraints.
struct Members {
  Group group;
  BackendConstraints constraints;
  std::vector<const BackendInfo*> backends;
};
std::vector<Members> groups_of(const std::vector<const BackendInfo*>& backends) {
  std::vector<Members> groups;
  for (const BackendInfo* b : backends) {
    const Group key{b->architecture, b->io_dtype};
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Members& g) { return g.group == key && g.constraints == b->constraints; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, b->constraints, {}});
    it->backends.push_back(b);
  }
  return groups;
}

//! A random case of the fuzz stream at a chosen length: lengths form a ladder across the schedules'
//! boundaries (so the report can plot error against length), the rest is drawn. The drawn width is
//! widened by a whole factor (heads still divide it) to at least min_width channels, so that every
//! case has enough channels to show its error distribution; long cases keep one batch entry.
CaseRequest ladder_case(std::uint64_t seed, std::int64_t index, Group group, std::int64_t length) {
  constexpr std::int64_t min_width = 64;
  CaseRequest r = fuzz_case(seed, 0, index, group.first, group.second);
  r.shape.length = length;
  r.shape.width *= (min_width + r.shape.width - 1) / r.shape.width;
  if (length > 512) r.shape.batch = 1;
  return r;
}

std::vector<PlannedCase> ladder_cases(const ReportOptions& o, const std::vector<std::int64_t>& lengths, Group group,
                                      std::int64_t& index) {
  std::vector<PlannedCase> cases;
  for (std::int64_t length : lengths) {
    CaseRequest r = ladder_case(o.seed, index, group, length);
    if (!o.regimes.empty()) r.regime = o.regimes[static_cast<std::size_t>(index) % o.regimes.size()];
    ++index;
    cases.push_back({r, o.reference_precision, std::nullopt, true, {}});
  }
  return cases;
}

//! The production shapes of the seed workloads, with 16 gate heads (they divide every width).
const std::vector<Shape>& seed_shapes() {
  static const std::vector<Shape> shapes{
      {4, 2048, 2048, 16}, {1, 8192, 2560, 16}, {1, 32768, 1024, 16}, {1, 32768, 2048, 16}};
  return shapes;
}

//! Shapes past 32-bit indexing: B x L x W just above 2^31 elements in one long sequence, and a large batch
//! whose last entries start beyond 2^31 (16 heads, as the seed shapes).
const std::vector<Shape>& scale_shapes() {
  static const std::vector<Shape> shapes{{1, (std::int64_t{1} << 20) + 64, 2048, 16}, {1025, 1024, 2048, 16}};
  return shapes;
}

//! The production shapes of `preset` (seed-shapes or scale), whole or, with --sample, one block each.
std::vector<PlannedCase> production_shape_cases(const ReportOptions& o, Group group, std::int64_t& index) {
  std::vector<PlannedCase> cases;
  for (const Shape& s : o.preset == "scale" ? scale_shapes() : seed_shapes()) {
    CaseRequest r;
    r.architecture = group.first;
    r.io_dtype = group.second;
    r.shape = s;
    r.seed = o.seed * 1000003 + static_cast<std::uint64_t>(index);
    // Sampled: one whole (batch, head) block at full length, drawn from the seed. Notes (a second bounded
    // pass over every element) only when asked for with --strict: the production shapes are large.
    PlannedCase planned{r, o.reference_precision, std::nullopt, o.policy.strict, {}};
    if (o.sample) {
      const std::uint64_t pick = r.seed * 0x9e3779b97f4a7c15ULL;
      planned.sample =
          std::vector<Block>{{static_cast<std::int64_t>(pick % static_cast<std::uint64_t>(s.batch)),
                              static_cast<std::int64_t>((pick >> 32) % static_cast<std::uint64_t>(s.heads))}};
    }
    cases.push_back(std::move(planned));
    ++index;
  }
  return cases;
}

//! The case lengths of the quick and ci presets, or the caller's.
std::vector<std::int64_t> ladder_lengths(const ReportOptions& o) {
  if (!o.lengths.empty()) return o.lengths;
  if (o.preset == "quick") return {2, 33, 300, 2100, 8200};
  return {1, 17, 65, 129, 513, 1025, 2049, 4100};
}

bool production_shapes(const std::string& preset) { return preset == "seed-shapes" || preset == "scale"; }

std::string default_backends(const std::string& preset) {
  if (production_shapes(preset))
    return "{rglru/fused_grouped_prefix32_hierarchical_chunk16,complex_rglru/"
           "fused_output_fused_write_shared_sfu_chunk32,complex_rglru/"
           "fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32}@*";
  return "*";
}

Executor choose_executor(const ReportOptions& o) {
  if (o.executor) return *o.executor;
  if (production_shapes(o.preset) && cuda_device_name()) return Executor::cuda;
  return Executor::host;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

//! Keeps the cases whose plan index is shard.index modulo shard.count: round robin, so every shard gets
//! short and long cases alike and the shards of one plan are disjoint and together the whole.
void keep_shard(ReportPlan& plan, const ShardOf& shard) {
  plan.cases_unsharded = static_cast<std::int64_t>(plan.cases.size());
  if (shard.count == 1) return;
  if (shard.index < 0 || shard.index >= shard.count)
    throw InputError(fmt::format("--shard {}/{}: expected i/n with 0 <= i < n", shard.index, shard.count));
  if (shard.count > plan.cases_unsharded)
    throw InputError(fmt::format("--shard {}/{}: the plan has only {} cases, so at most {} shards have work",
                                 shard.index, shard.count, plan.cases_unsharded, plan.cases_unsharded));
  std::vector<PlannedCase> kept;
  plan.backend_runs = 0;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    if (static_cast<std::int64_t>(i) % shard.count != shard.index) continue;
    plan.backend_runs += static_cast<std::int64_t>(plan.cases[i].backends.size());
    kept.push_back(std::move(plan.cases[i]));
  }
  plan.cases = std::move(kept);
}

Report header(const ReportOptions& o, const ReportPlan& plan) {
  Report r;
  r.label = o.label.empty() ? o.preset : o.label;
  r.generated_at = utc_now();
  const BuildInfo& build = build_info();
  r.tool = {"scancheck", build.version, build.git_revision};
  r.environment.executor = std::string(to_string(plan.executor));
  if (plan.executor == Executor::cuda) r.environment.device = cuda_device_name();
  r.environment.compiler = build.compiler;
  if (!build.cuda_version.empty()) r.environment.cuda = build.cuda_version;
  r.environment.host = host_name();
  r.environment.threads = o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  const bool sampled = production_shapes(o.preset) && o.sample;
  r.method = {o.preset,
              std::string(to_string(o.reference_precision)),
              bound_description,
              correct_orders_description(),
              sampled ? "one whole (batch, head) block per case at full length, drawn from the seed"
                      : "every element of every case",
              o.seed,
              o.backends.value_or(default_backends(o.preset)),
              production_shapes(o.preset) ? std::vector<std::int64_t>{} : ladder_lengths(o),
              std::nullopt};
  if (o.shard.count > 1) r.method.shard = o.shard;
  r.policy = o.policy;
  r.coverage.backends_total = static_cast<std::int64_t>(registry().size());
  r.scope = default_scope(r.method);
  if (r.method.shard)
    r.scope.push_back(fmt::format(
        "Shard {} of {} (indices from 0): the {} of the plan's {} cases whose index is {} "
        "modulo {}; `scancheck merge` joins the shards.",
        o.shard.index, o.shard.count, plan.cases.size(), plan.cases_unsharded, o.shard.index, o.shard.count));
  return r;
}

std::int64_t output_elements(const Case& c) {
  std::int64_t n = 0;
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) n += element_count(spec.dims);
  return n;
}

std::int64_t verified_elements(const Case& c, const ReferenceResult& reference) {
  if (reference.covered.empty()) return output_elements(c);
  std::int64_t n = 0;
  for (const auto& [name, mask] : reference.covered)
    for (std::int64_t i = 0; i < mask.size(); ++i) n += mask[i] != 0;
  return n;
}

//! The two rows (forward, backward) of one backend's result on a case.
std::vector<Row> rows_of(const BackendResult& result, const BackendInfo& backend, const CaseEntry& entry,
                         const std::optional<BackendTiming>& timing) {
  std::vector<Row> rows;
  for (Direction direction : backend.passes) {  // a forward-only backend has no backward rows
    Row row;
    row.case_id = entry.id;
    row.shape = entry.request.shape;
    row.architecture = backend.architecture;
    row.backend = backend.name;
    row.io_dtype = backend.io_dtype;
    row.direction = direction;
    row.error = result.error;
    row.log = result.log;
    row.diagnosis = result.diagnosis;
    if (result.strip && direction_of(backend.architecture, result.strip->tensor) == direction) row.strip = result.strip;
    for (const std::string& note : result.notes)
      if (direction_of(backend.architecture, note.substr(0, note.find(':'))) == direction) row.notes.push_back(note);
    row.seed = entry.request.seed;
    row.repro = fmt::format("scancheck check {}{} --backend '{}'",
                            backend.loaded_by.empty() ? "" : backend.loaded_by + " ", entry.repro, backend.name);
    for (const std::string& name : result.missing)
      if (direction_of(backend.architecture, name) == direction) row.missing.push_back(name);
    for (const std::string& what : result.misshapen)
      if (direction_of(backend.architecture, what.substr(0, what.find(':'))) == direction)
        row.misshapen.push_back(what);
    for (const TensorResult& t : result.tensors)
      if (direction_of(backend.architecture, t.metrics.name) == direction)
        row.tensors.push_back({t.metrics, t.verdict.pass, t.verdict.reasons});
    // A run that failed (error, fault, timeout) fails both its rows; otherwise each row on its own tensors.
    const bool pass = row.error.empty() && row.missing.empty() && row.misshapen.empty() &&
                      std::all_of(row.tensors.begin(), row.tensors.end(), [](const TensorEntry& t) { return t.pass; });
    row.verdict = !result.error.empty() ? result.verdict : pass ? scancheck::Verdict::pass : scancheck::Verdict::fail;
    if (timing) {
      const PassTiming& t = direction == Direction::forward ? timing->forward : timing->backward;
      row.timing = Timing{t.median_ms, t.min_ms, t.max_ms, timing->repeats};
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names{"quick", "ci", "seed-shapes", "scale"};
  return names;
}

//! The scale preset is for backends whose indices may wrap at 2^31 (device kernels, users' own); the host
//! twins index in 64 bits. Its shapes must also fit this machine's memory, said before anything runs.
void require_index_limit_suspects(const ReportPlan& plan) {
  const bool suspects =
      plan.executor == Executor::cuda || std::any_of(plan.backends.begin(), plan.backends.end(),
                                                     [](const BackendInfo* b) { return !b->loaded_by.empty(); });
  if (!suspects)
    throw InputError(
        "preset scale checks 32-bit index limits of GPU and foreign backends, and the host twins index "
        "in 64 bits: run it with --executor cuda on a GPU machine, or with --worker/--plugin backends");
  for (const PlannedCase& c : plan.cases) validate(c.request.architecture, c.request.shape);
}

ReportPlan plan_report(const ReportOptions& o) {
  if (std::find(preset_names().begin(), preset_names().end(), o.preset) == preset_names().end())
    throw InputError(fmt::format("unknown preset '{}' (quick | ci | seed-shapes | scale)", o.preset));
  ReportPlan plan;
  plan.executor = choose_executor(o);
  if (plan.executor == Executor::cuda && !cuda_device_name())
    throw InputError("--executor cuda: no CUDA device is available on this machine");
  if (production_shapes(o.preset) && !o.lengths.empty())
    throw InputError(fmt::format("--lengths applies to the quick and ci presets; {} runs its own shapes", o.preset));
  if (production_shapes(o.preset) && !o.regimes.empty())
    throw InputError(
        fmt::format("--regimes applies to the quick and ci presets; {} runs the default regime", o.preset));
  if (o.sample && !production_shapes(o.preset))
    throw InputError("--sample applies to the seed-shapes and scale presets; quick and ci verify every element");
  if (o.reference_precision != Precision::tiered && o.reference_precision != Precision::float128)
    throw InputError(fmt::format("--reference-precision {}: a report's reference is tiered or float128",
                                 to_string(o.reference_precision)));
  for (std::int64_t length : o.lengths)
    if (length < 1) throw InputError(fmt::format("--lengths: {} is not a positive length", length));
  const auto candidates = match_backends(o.backends.value_or(default_backends(o.preset)));
  std::int64_t index = 0;
  for (const auto& [group, constraints, members] : groups_of(candidates)) {
    std::vector<PlannedCase> cases;
    if (!production_shapes(o.preset)) cases = ladder_cases(o, ladder_lengths(o), group, index);
    if (o.preset == "seed-shapes" || o.preset == "scale") {
      if (!describe(group.first).production_layer) continue;  // the production shapes are the RG-LRU layers'
      cases = production_shape_cases(o, group, index);
    }
    if (!(constraints == BackendConstraints{})) {  // fitted; clamping may make two cases one
      std::vector<PlannedCase> fitted;
      for (PlannedCase c : cases) {
        c.request = fit_into(c.request, constraints);
        const std::string text = to_string(c.request);
        if (std::none_of(fitted.begin(), fitted.end(),
                         [&](const PlannedCase& d) { return to_string(d.request) == text; }))
          fitted.push_back(std::move(c));
      }
      cases = std::move(fitted);
    }
    for (PlannedCase& c : cases) c.backends = members;
    plan.backends.insert(plan.backends.end(), members.begin(), members.end());
    plan.backend_runs += static_cast<std::int64_t>(cases.size() * members.size());
    plan.cases.insert(plan.cases.end(), cases.begin(), cases.end());
  }
  if (plan.cases.empty())
    throw InputError(fmt::format("preset {} has no case for the backends '{}'", o.preset,
                                 o.backends.value_or(default_backends(o.preset))));
  if (o.preset == "scale") require_index_limit_suspects(plan);
  keep_shard(plan, o.shard);
  return plan;
}

namespace {

//! What the report's numbers do not say about foreign backends: cases their constraints excluded, gradients
//! a forward-only backend does not compute, determinism a backend declared it lacks.
std::vector<std::string> foreign_scope(const ReportPlan& plan,
                                       const std::map<std::string, std::vector<std::string>>& outside) {
  std::vector<std::string> lines;
  for (const BackendInfo* b : plan.backends) {
    if (const auto it = outside.find(b->name); it != outside.end())
      lines.push_back(fmt::format("{} was not run on {} case(s) outside its constraints: {}.", b->name,
                                  it->second.size(), fmt::join(it->second, "; ")));
    if (!b->computes(Direction::backward))
      lines.push_back(fmt::format("{} computes the forward pass only: its gradients were not checked.", b->name));
    if (!b->deterministic)
      lines.push_back(
          fmt::format("{} is declared nondeterministic: run-to-run differences were not checked.", b->name));
  }
  return lines;
}

//! The foreign providers of the planned backends, in the plan's order: how each was loaded and what its worker
//! said of itself (BackendInfo::runtime and provenance; a plugin says neither).
std::vector<ProviderEntry> providers_of(const ReportPlan& plan) {
  const auto said = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
  std::vector<ProviderEntry> providers;
  for (const BackendInfo* b : plan.backends) {
    if (b->provider.empty() ||
        std::any_of(providers.begin(), providers.end(), [&](const ProviderEntry& p) { return p.name == b->provider; }))
      continue;
    providers.push_back({b->provider, b->loaded_by, said(b->runtime), said(b->provenance.package),
                         said(b->provenance.version), said(b->provenance.commit)});
  }
  return providers;
}

ReferenceOptions reference_options(const PlannedCase& planned, const ReportOptions& o) {
  ReferenceOptions r;
  r.precision = planned.precision;
  r.threads = o.threads;
  r.sample = planned.sample;
  r.stop = o.stop;
  r.strict_bounds = planned.notes || o.policy.strict;
  return r;
}

//! A reference costs about this many backend runs of its case on the host (measured at the seed shapes).
constexpr double reference_weight = 3;

double element_steps(const CaseRequest& r) {
  return static_cast<double>(r.shape.batch) * static_cast<double>(r.shape.length) * static_cast<double>(r.shape.width);
}

std::string case_id(std::int64_t index) { return fmt::format("c{}", index); }

//! The report's entry of the planned case with plan index `index`, before its reference says what it verified.
CaseEntry case_entry(const PlannedCase& planned, std::int64_t index) {
  CaseEntry entry;
  entry.id = case_id(index);
  entry.request = planned.request;
  entry.repro = to_string(planned.request);
  return entry;
}

//! What the case's reference verified, in its entry: how many elements, and how the tiered reference got them.
void record_verification(CaseEntry& entry, const Case& c, const ReferenceResult& reference) {
  entry.elements_total = output_elements(c);
  entry.elements_verified = verified_elements(c, reference);
  entry.fraction_verified = static_cast<double>(entry.elements_verified) / static_cast<double>(entry.elements_total);
  if (reference.tiers)
    entry.tiers = ReferenceTierCounts{
        entry.elements_verified - reference.tiers->uncertified_elements, reference.tiers->uncertified_elements,
        static_cast<std::int64_t>(reference.tiers->float128_blocks.size()), reference.blocks_computed};
}

//! A case's reference, started with the case and taken when first needed. With the cuda executor it is
//! computed on its own thread while the backends run on the device (both take minutes at the production
//! shapes); the runs are judged once it is there. On the host both compete for the same cores (measured: no
//! faster at the seed shapes), so it is computed when first needed, after the runs.
class CaseReference {
 public:
  CaseReference(const Case& c, ReferenceOptions options, Executor executor)
      : computing_(std::async(executor == Executor::cuda ? std::launch::async : std::launch::deferred,
                              [&c, options = std::move(options)] { return compute_reference(c, options); })) {}

  bool taken() const { return result_.has_value(); }
  const ReferenceResult& get() {
    if (!result_) result_ = computing_.get();
    return *result_;
  }

 private:
  std::future<ReferenceResult> computing_;
  std::optional<ReferenceResult> result_;
};

//! One run of a report's plan: the report it fills, the progress it tells, and the cases each backend's
//! constraints kept it from (the scope says them).
class ReportRun {
 public:
  ReportRun(const ReportOptions& o, const std::function<void(const ReportProgress&)>& progress)
      : o_(o), plan_(plan_report(o)), report_(header(o, plan_)), progress_callback_(progress) {
    progress_.runs_total = plan_.backend_runs;
    progress_.cases = static_cast<std::int64_t>(plan_.cases.size());
    for (const PlannedCase& c : plan_.cases) {
      const double runs = reference_weight + 1 + static_cast<double>(c.backends.size());  // with the baseline
      progress_.work_total += element_steps(c.request) * runs;
    }
  }

  //! With --max-reference-seconds, refuses the plan before anything runs, like a case too large for memory.
  void refuse_slow_references() const {
    if (o_.max_reference_seconds <= 0) return;
    for (const PlannedCase& planned : plan_.cases)
      require_reference_within(make_case(planned.request), reference_options(planned, o_), o_.max_reference_seconds);
  }

  //! The planned cases in turn, until the plan ends or the caller stops it. A case interrupted halfway leaves
  //! no rows: a report row always has its case.
  void run_cases() {
    for (const PlannedCase& planned : plan_.cases) {
      if (stopped()) break;
      try {
        run_case(planned);
      } catch (const Interrupted&) {
        const std::string id = case_id(progress_.case_index);
        std::erase_if(report_.rows, [&](const Row& r) { return r.case_id == id; });
        break;
      }
    }
  }

  //! The report: what an interruption left out, what the foreign backends' numbers do not say, the verdict.
  Report finish() && {
    if (stopped()) {
      report_.interrupted = fmt::format("{} of {} planned cases were run.", progress_.case_index, plan_.cases.size());
      report_.scope.insert(report_.scope.begin(), "Interrupted: " + *report_.interrupted);
    }
    for (const std::string& line : foreign_scope(plan_, outside_)) report_.scope.push_back(line);
    report_.providers = providers_of(plan_);
    summarise(report_);
    return std::move(report_);
  }

 private:
  bool stopped() const { return o_.stop && o_.stop->load(); }

  void tell(std::string activity) {
    progress_.activity = std::move(activity);
    progress_.elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (progress_callback_) progress_callback_(progress_);
  }

  //! One case: its reference, every backend that fits it checked against it, their rows, its entry.
  void run_case(const PlannedCase& planned) {
    const Case c = make_case(planned.request);
    CaseEntry entry = case_entry(planned, progress_.case_index);
    tell(fmt::format("reference and runs of {} ({} {})", entry.id, to_string(c.architecture), to_string(c.shape)));
    CaseReference reference(c, reference_options(planned, o_), plan_.executor);
    const auto reference_ready = [&]() -> const ReferenceResult& { return take(reference, c, entry); };
    const auto judged = [&](const BackendResult& result) { collect_rows(result, c, entry); };
    check_backends(c, fitting_backends(planned, c, entry), plan_.executor, reference_ready, o_.policy, judged,
                   /*diagnose=*/true);
    take(reference, c, entry);  // also when no run needed it (every backend outside its constraints or failing to run)
    report_.cases.push_back(std::move(entry));
    ++progress_.case_index;
  }

  //! The case's reference; taken the first time, it counts as done and fills the case's verification.
  const ReferenceResult& take(CaseReference& reference, const Case& c, CaseEntry& entry) {
    if (reference.taken()) return reference.get();
    const ReferenceResult& result = reference.get();
    progress_.work_done += element_steps(entry.request) * (reference_weight + 1);  // with the baseline
    record_verification(entry, c, result);
    return result;
  }

  //! The case's backends whose constraints it fits; each other one counts as done, its case noted for the scope.
  std::vector<const BackendInfo*> fitting_backends(const PlannedCase& planned, const Case& c, const CaseEntry& entry) {
    std::vector<const BackendInfo*> fitting;
    for (const BackendInfo* b : planned.backends) {
      if (const std::string why = b->constraints.violated_by(c); !why.empty()) {
        outside_[b->name].push_back(fmt::format("{} ({})", entry.id, why));
        ++progress_.runs_done;
        progress_.work_done += element_steps(entry.request);
        continue;
      }
      fitting.push_back(b);
    }
    return fitting;
  }

  //! One backend's judged run on the case: its device timing (cuda executor) and its rows, one per pass.
  void collect_rows(const BackendResult& result, const Case& c, const CaseEntry& entry) {
    const BackendInfo& backend = find_backend(result.backend);
    std::optional<BackendTiming> timing;
    if (plan_.executor == Executor::cuda && result.error.empty() && backend.time)
      timing = time_backend(backend, c, o_.timing_warmup, o_.timing_repeats);
    for (Row& row : rows_of(result, backend, entry, timing)) report_.rows.push_back(std::move(row));
    ++progress_.runs_done;
    progress_.work_done += element_steps(entry.request);
    tell(result.backend);
  }

  const ReportOptions& o_;
  const ReportPlan plan_;
  Report report_;
  const std::function<void(const ReportProgress&)>& progress_callback_;
  ReportProgress progress_;
  const Clock::time_point start_ = Clock::now();
  std::map<std::string, std::vector<std::string>> outside_;  //!< backend -> the cases outside its constraints
};

}  // namespace

Report run_report(const ReportOptions& o, const std::function<void(const ReportProgress&)>& progress) {
  ReportRun run(o, progress);
  run.refuse_slow_references();
  run.run_cases();
  return std::move(run).finish();
}

}  // namespace scancheck::reports
