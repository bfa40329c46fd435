// SPDX-License-Identifier: Apache-2.0
//! @file
//! Mutants of the built-in chunked gated linear attention kernel (backends/kernels/gla/chunked.hpp): the
//! production launch sequence (backends/gla_run.hpp) on the mutant executor, with the view of every chunked
//! body replaced by a decorator that hides one of its decisions (a gate read a step late inside a chunk,
//! the carried state not decayed by its chunk's last gate, a dropped tail chunk, dg without the final
//! state's cotangent, dq from the next chunk's state, dk's intra-chunk term without the scale, the output
//! without its diagonal, the state's cotangent carried back undecayed). The recurrent kernels and every
//! other launch run unchanged. Test-only, as the rest of backends/mutants. C++17.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/gla_run.hpp"
#include "backends/mutants/mutant_executor.hpp"

namespace scancheck::mutation {

// ---- the chunked bodies over another view -------------------------------------------------------------------

template <class Body, template <class> class Template>
inline constexpr bool is_view_body_v = false;
template <template <class> class Template, class View>
inline constexpr bool is_view_body_v<Template<View>, Template> = true;

//! A chunked body with its view replaced by decorate(view); any other body as it is.
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkGates<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkGates<decltype(v)>{v, b.G};
}
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkStates<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkStates<decltype(v)>{v, b.column, b.states, b.ht};
}
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkOutput<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkOutput<decltype(v)>{v, b.states, b.o};
}
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkCotangents<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkCotangents<decltype(v)>{v, b.column, b.cotangent, b.dh0};
}
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkKeyGradients<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkKeyGradients<decltype(v)>{v, b.states, b.cotangent, b.dq32, b.dk32, b.dq, b.dk};
}
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkValueGradients<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkValueGradients<decltype(v)>{v, b.cotangent, b.dv};
}
template <class View, class Decorate>
auto map_view(const kernels::GlaChunkGateIdentity<View>& b, const Decorate& decorate) {
  auto v = decorate(b.view);
  return kernels::GlaChunkGateIdentity<decltype(v)>{v, b.ht, b.dq32, b.dk32, b.dg_keys};
}
template <class Body, class Decorate>
const Body& map_view(const Body& b, const Decorate&) {
  return b;
}

// ---- the decorators ---------------------------------------------------------------------------------------

template <class V>
struct GateOneStepLate : V {
  SC_HD float log_gate(std::int64_t n, std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) const {
    const bool first = (t - this->spans.begin[n]) % this->chunking.chunk == 0;
    return V::log_gate(n, b, first ? t : t - 1, h, i);
  }
};
template <class V>
struct CarriedStateUndecayed : V {
  SC_HD float state_carry(std::int64_t, const kernels::GlaChunkSpan&, std::int64_t, std::int64_t) const { return 1; }
};
template <class V>
struct TailChunkDropped : V {
  SC_HD std::int64_t chunk_count(std::int64_t n) const {
    return (this->spans.end[n] - this->spans.begin[n]) / this->chunking.chunk;
  }
};
template <class V>
struct DgWithoutFinalState : V {
  SC_HD float final_state_term(const float*, std::int64_t, std::int64_t, std::int64_t) const { return 0; }
};
template <class V>
struct BackwardWithoutScale : V {
  SC_HD float key_gradient_scale() const { return 1; }
};
template <class V>
struct DiagonalDropped : V {
  SC_HD bool attends(std::int64_t t, std::int64_t s) const { return s < t; }
};
template <class V>
struct Dh0Undecayed : V {
  SC_HD float cotangent_carry(std::int64_t, const kernels::GlaChunkSpan&, std::int64_t, std::int64_t) const {
    return 1;
  }
};
//! dq reads the state leaving its chunk (the next one's entering state, ht after the last chunk).
template <class V>
struct DqFromNextState : V {
  const float* ht;
  SC_HD float query_state(const float* states, std::int64_t n, std::int64_t index, std::int64_t h, std::int64_t i,
                          std::int64_t j) const {
    if (index + 1 < this->chunk_count(n)) return V::query_state(states, n, index + 1, h, i, j);
    return ht[kernels::gla_state(this->geo, n, h, i, j)];
  }
};

//! A mutation decorating the view of every chunked launch with Decorator.
template <template <class> class Decorator>
struct ViewMutation : Unchanged {
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    ex.launch(name, grid, map_view(body, [](const auto& v) { return Decorator<std::decay_t<decltype(v)>>{v}; }));
  }
};

//! DqFromNextState needs ht, which the states launch writes: it remembers where.
struct DqFromNextStateMutation : Unchanged {
  const float* ht = nullptr;
  template <class Exec, class Body>
  void launch(Exec& ex, const std::string& name, kernels::Grid grid, const Body& body) {
    if constexpr (is_view_body_v<Body, kernels::GlaChunkStates>) ht = body.ht;
    if constexpr (is_view_body_v<Body, kernels::GlaChunkKeyGradients>)
      return ex.launch(name, grid, map_view(body, [&](const auto& v) {
                         return DqFromNextState<std::decay_t<decltype(v)>>{v, ht};
                       }));
    ex.launch(name, grid, body);
  }
};

//! One mutant: its name and the run of the chunked kernel with it (host executor, one thread).
struct GlaMutant {
  std::string name;
  std::function<void(const backends::GlaArrays&, const backends::GlaSchedule&)> run;
};

template <class Mutation>
GlaMutant gla_mutant(std::string name) {
  return {std::move(name), [](const backends::GlaArrays& io, const backends::GlaSchedule& schedule) {
            MutantExecutor<Mutation> ex(Mutation{});
            backends::run_gla(ex, io, schedule);
          }};
}

//! Every mutant of the chunked kernel.
inline std::vector<GlaMutant> gla_mutants() {
  return {gla_mutant<ViewMutation<GateOneStepLate>>("gate_one_step_late"),
          gla_mutant<ViewMutation<CarriedStateUndecayed>>("carried_state_undecayed"),
          gla_mutant<ViewMutation<TailChunkDropped>>("tail_chunk_dropped"),
          gla_mutant<ViewMutation<DgWithoutFinalState>>("dg_without_final_state"),
          gla_mutant<DqFromNextStateMutation>("dq_from_next_state"),
          gla_mutant<ViewMutation<BackwardWithoutScale>>("backward_without_scale"),
          gla_mutant<ViewMutation<DiagonalDropped>>("diagonal_dropped"),
          gla_mutant<ViewMutation<Dh0Undecayed>>("dh0_undecayed")};
}

}  // namespace scancheck::mutation
