// SPDX-License-Identifier: Apache-2.0
//! @file
//! The premise of the order-free bound (reference/order_free_bound.hpp, docs/reference.md "Every evaluation
//! order"), checked on the schedules' own program bodies rather than argued: each schedule's launch sequence
//! (backends/kernels/affine_scan/schedules.hpp) runs over a field that records, for every term b_s of every
//! state h_t, how many roundings of multiplications and of additions it went through. For every schedule,
//! length and direction:
//!   1. each term took exactly t - s multiplications (t + 1 for h0's), whatever the grouping;
//!   2. each took at most (t - s + 1) + D(L) additions, D(L) = extra_additions(L);
//!   3. every term is present once (the order computes the recurrence at all).
//! The largest excess over the sequential order's t - s + 1 is printed per schedule: what D(L) must cover.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/kernels/affine_scan/schedules.hpp"
#include "backends/variant.hpp"
#include "reference/order_free_bound.hpp"

namespace scancheck {
namespace {

//! A value of the recurrence: a product of decays (no terms), or a sum of terms, each with the roundings it
//! has been through. Exact constants (one, zero) take part in no rounding.
struct Chains {
  struct Count {
    int multiplications = 0, additions = 0;
  };
  bool product = true;  //!< a product of decays, or the exact one; else a sum of terms
  bool exact = true;    //!< one or zero, exactly
  int product_roundings = 0;
  std::map<int, Count> terms;  //!< term s (h0 is -1) -> its roundings so far

  static Chains decay() { return {true, false, 0, {}}; }
  static Chains term(int s) { return {false, false, 0, {{s, {}}}}; }

  friend Chains operator*(const Chains& x, const Chains& y) {
    if (x.product && y.product) {
      if (x.exact) return y;
      if (y.exact) return x;
      return {true, false, x.product_roundings + y.product_roundings + 1, {}};
    }
    const Chains& factor = x.product ? x : y;
    Chains sum = x.product ? y : x;
    EXPECT_TRUE(factor.product) << "a product of two sums: not a scan";
    if (factor.exact || sum.terms.empty()) return sum;
    for (auto& [s, count] : sum.terms) count.multiplications += factor.product_roundings + 1;
    return sum;
  }
  friend Chains operator+(const Chains& x, const Chains& y) {
    EXPECT_TRUE(!x.product || x.exact) << "a decay added";
    EXPECT_TRUE(!y.product || y.exact) << "a decay added";
    if (x.terms.empty()) return y;  // adding the exact zero rounds nothing
    if (y.terms.empty()) return x;
    Chains sum{false, false, 0, {}};
    for (const Chains* operand : {&x, &y})
      for (const auto& [s, count] : operand->terms) {
        EXPECT_FALSE(sum.terms.count(s)) << "term " << s << " added twice";
        sum.terms[s] = {count.multiplications, count.additions + 1};
      }
    return sum;
  }
};

//! The scan of one channel whose decays and inputs are symbolic; emits record each step's state.
template <bool Reverse>
struct SymbolicScan {
  using field = Chains;
  static constexpr bool reverse = Reverse;
  kernels::ScanGeometry g;
  bool with_initial;
  std::vector<Chains>* states;  // [L], step order

  kernels::Step<Chains> step(std::int64_t, std::int64_t s, std::int64_t) const {
    return {Chains::decay(), Chains::term(static_cast<int>(s))};
  }
  Chains initial(std::int64_t, std::int64_t) const {
    return with_initial ? Chains::term(-1) : Chains{false, true, 0, {}};
  }
  void emit(std::int64_t, std::int64_t s, std::int64_t, const Chains& state) const { (*states)[s] = state; }
};

}  // namespace
}  // namespace scancheck

namespace scancheck::kernels {
template <>
inline Chains one<Chains>() {
  return {true, true, 0, {}};
}
template <>
inline Chains zero<Chains>() {
  return {false, true, 0, {}};
}
}  // namespace scancheck::kernels

namespace scancheck {
namespace {

//! One program at a time, buffers of any type: what the bodies need of an executor.
struct SymbolicExecutor {
  static constexpr int lanes = 1;
  std::vector<std::shared_ptr<void>> buffers;

  template <class T>
  T* scratch(std::int64_t n) {
    auto owned = std::make_shared<std::vector<T>>(static_cast<std::size_t>(n), kernels::zero<T>());
    buffers.push_back(owned);
    return owned->data();
  }
  template <class Body>
  void launch(const std::string&, kernels::Grid grid, const Body& body) {
    for (std::int64_t i = 0; i < grid.size(); ++i) body(grid.at(i));
  }
};

struct Excess {
  int additions = -1000;  //!< the largest additions - (t - s + 1) over every term of every state
};

template <bool Reverse>
Excess check_schedule(const Schedule& schedule, std::int64_t length, bool with_initial) {
  std::vector<Chains> states(static_cast<std::size_t>(length));
  SymbolicScan<Reverse> seq{{1, length, 1, 1, 0}, with_initial, &states};
  SymbolicExecutor ex;
  kernels::run_affine_scan(ex, seq, schedule);
  Excess excess;
  const double allowed = ref::extra_additions(length);
  for (std::int64_t t = 0; t < length; ++t) {
    const Chains& h = states[static_cast<std::size_t>(t)];
    EXPECT_EQ(h.terms.size(), static_cast<std::size_t>(t + 1 + (with_initial ? 1 : 0))) << "t = " << t;
    for (const auto& [s, count] : h.terms) {
      SCOPED_TRACE(testing::Message() << "h_" << t << ", term " << s);
      EXPECT_EQ(count.multiplications, t - s);  // h0 (s = -1): t + 1
      EXPECT_LE(count.additions, (t - s + 1) + allowed);
      excess.additions = std::max(excess.additions, static_cast<int>(count.additions - (t - s + 1)));
    }
  }
  return excess;
}

std::vector<Schedule> every_order(std::int64_t chunk) {
  using Kind = Schedule::Kind;
  using Tree = Schedule::Tree;
  return {{Kind::sequential},
          {Kind::chunked, chunk},
          {Kind::hierarchical, chunk, 4},
          {Kind::local, chunk},
          {Kind::tree, chunk, 0, Tree::kogge_stone},
          {Kind::tree, chunk, 0, Tree::blelloch},
          {Kind::tree, chunk, 0, Tree::kogge_stone, true},
          {Kind::tree, 1 << 12, 0, Tree::kogge_stone},  // one tree over the whole sequence
          {Kind::tree, 1 << 12, 0, Tree::blelloch}};
}

TEST(EvaluationOrders, EveryTermTakesItsMultiplicationsAndAtMostDExtraAdditions) {
  for (const std::int64_t chunk : {1, 3, 8, 16})
    for (const Schedule& schedule : every_order(chunk)) {
      int excess = -1000;
      for (const std::int64_t length : {1, 2, 7, 8, 9, 31, 64, 65, 200})
        for (const bool with_initial : {false, true}) {
          SCOPED_TRACE(testing::Message() << to_string(schedule) << " L = " << length << (with_initial ? " h0" : ""));
          excess = std::max({excess, check_schedule<false>(schedule, length, with_initial).additions,
                             check_schedule<true>(schedule, length, with_initial).additions});
        }
      std::printf("%-36s additions beyond t - s + 1, forward and reverse: %d (D(200) = %g)\n",
                  to_string(schedule).c_str(), excess, ref::extra_additions(200));
      // Not vacuous: the sequential order is the one with no excess; the trees need theirs.
      if (schedule.kind == Schedule::Kind::sequential) {
        EXPECT_EQ(excess, 0);
      }
      if (schedule.kind == Schedule::Kind::tree && schedule.chunk > 2) {
        EXPECT_GT(excess, 0) << to_string(schedule);
      }
    }
}

}  // namespace
}  // namespace scancheck
