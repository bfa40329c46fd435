// SPDX-License-Identifier: Apache-2.0
//! @file
//! The mutant catalogue, joined from its parts (catalogue.hpp). Bases are spread over the four
//! architectures, both io dtypes, every schedule kind and the gated flags, each chosen so its bug can show.
#include "backends/mutants/mutants.hpp"

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "backends/mutants/catalogue.hpp"
#include "core/error.hpp"

namespace scancheck {
namespace {

std::vector<Mutant> catalogue() {
  std::vector<Mutant> all;
  for (auto part : {mutation::schedule_mutants, mutation::sequence_mutants, mutation::gated_kernel_mutants})
    for (Mutant& m : part()) all.push_back(std::move(m));
  std::set<std::string> names;
  for (const Mutant& m : all)
    if (!names.insert(m.name).second) throw std::logic_error("two mutants are named " + m.name);
  return all;
}

}  // namespace

const std::vector<Mutant>& mutants() {
  static const std::vector<Mutant> all = catalogue();
  return all;
}

const Mutant& find_mutant(const std::string& name) {
  for (const Mutant& m : mutants())
    if (m.name == name) return m;
  throw InputError(fmt::format("unknown mutant '{}'", name));
}

}  // namespace scancheck
