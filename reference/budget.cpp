// SPDX-License-Identifier: Apache-2.0
#include "reference/budget.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/generate.hpp"

namespace scancheck {
namespace {

using Clock = std::chrono::steady_clock;

//! Seconds per element-step (one t of one channel of one batch entry), on one thread, timed on cases of
//! the same kind, doubled in length until one takes 50 ms so that timer and set-up costs do not count.
double seconds_per_element(const Case& c, const ReferenceOptions& options) {
  using Kind = std::tuple<Architecture, DType, SqrtGradient, Precision, bool, bool>;
  static std::mutex mutex;
  static std::map<Kind, double> timed;
  const Kind kind{c.architecture,    c.io_dtype,     c.sqrt_gradient,
                  options.precision, options.bounds, options.strict_bounds};
  std::lock_guard lock(mutex);
  if (const auto it = timed.find(kind); it != timed.end()) return it->second;
  ReferenceOptions one_thread = options;
  one_thread.threads = 1;
  one_thread.sample.reset();
  one_thread.stop = nullptr;
  double per_element = 0;
  for (std::int64_t length = 64;; length *= 2) {
    CaseRequest request;
    request.architecture = c.architecture;
    request.shape = Shape{1, length, 8, 1};
    request.io_dtype = c.io_dtype;
    request.sqrt_gradient = c.sqrt_gradient;
    const Case small = make_case(request);
    const auto start = Clock::now();
    (void)compute_reference(small, one_thread);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    per_element = seconds / static_cast<double>(length * 8);
    if (seconds > 0.05 || length >= 65536) break;
  }
  return timed[kind] = per_element;
}

}  // namespace

double estimated_reference_seconds(const Case& c, const ReferenceOptions& options) {
  const std::int64_t blocks_total = c.shape.batch * c.shape.heads;
  const std::int64_t blocks = options.sample ? static_cast<std::int64_t>(options.sample->size()) : blocks_total;
  const double element_steps = static_cast<double>(c.shape.batch) * static_cast<double>(c.shape.length) *
                               static_cast<double>(c.shape.width) * static_cast<double>(blocks) /
                               static_cast<double>(blocks_total);
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t threads = std::min<std::int64_t>(options.threads > 0 ? options.threads : hardware, blocks);
  return seconds_per_element(c, options) * element_steps / static_cast<double>(std::max<std::int64_t>(threads, 1));
}

void require_reference_within(const Case& c, const ReferenceOptions& options, double budget_seconds) {
  const double estimate = estimated_reference_seconds(c, options);
  if (estimate > budget_seconds)
    throw InputError(fmt::format(
        "the {} reference of {} {} would take about {:.3g} s here, over --max-reference-seconds {:g} "
        "(sample blocks, lower the precision or raise the budget)",
        to_string(options.precision), to_string(c.architecture), to_string(c.shape), estimate, budget_seconds));
}

}  // namespace scancheck
