// SPDX-License-Identifier: Apache-2.0
//! @file
//! Catalogue part: the schedule passes replaced (schedule_mutations.hpp). Bases: each mutation's schedule
//! (chunk{C} for the tail and the summary, grouped_prefix for the correction), fp32 io where the bug is a
//! rounding (bf16 io would round the states anyway).
#include "backends/mutants/catalogue.hpp"
#include "backends/mutants/schedule_mutations.hpp"

namespace scancheck::mutation {

std::vector<Mutant> schedule_mutants() {
  std::vector<Mutant> all;
  all.push_back(make_mutant<Architecture::scan, DType::bfloat16>(
      "tail_chunk_dropped",
      "The chunked scan launches floor(L / C) chunks, so when C does not divide L the last L mod C steps are never "
      "scanned, forward or backward, and their outputs keep the allocation's zeros.",
      "scan/chunk32@bf16", [] { return TailChunkDropped{}; }));
  all.push_back(make_mutant<Architecture::complex_scan, DType::float32>(
      "hierarchical_correction_skips_last_group",
      "The hierarchical scan's correction pass stops one group short: the last group's chunks start from their "
      "in-group prefix, as if the state entering the group were zero.",
      "complex_scan/grouped_prefix32_hierarchical_chunk16@fp32", [] { return CorrectionSkipsLastGroup{}; }));
  all.push_back(make_mutant<Architecture::scan, DType::float32>(
      "summary_drops_first_decay",
      "Each chunk summary starts its decay product at the chunk's second step, so the carry into the next chunk "
      "misses one factor a (the summary's offset B is unaffected).",
      "scan/chunk64@fp32", [] { return SummaryDropsFirstDecay{}; }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "chunk_states_in_bf16",
      "The state carried between chunks is stored in bfloat16 (rounded at every chunk boundary, both directions) "
      "while the states inside a chunk stay float32.",
      "rglru/fused_chunk32@fp32", [] { return ChunkStatesInBf16{}; }));
  all.push_back(make_mutant<Architecture::scan, DType::float32>(
      "carry_times_previous_product",
      "The chunk-local scan applies the carry with the decay product up to the step before: h_s = local_s + "
      "(a_first ... a_{s-1}) carry, one decay short on every step but a chunk's first.",
      "scan/local_chunk64@fp32", [] { return CarryTimesPreviousProduct{}; }));
  all.push_back(make_mutant<Architecture::complex_scan, DType::float32>(
      "tree_offset_off_by_one",
      "The Kogge-Stone tree of each chunk starts every level at s = d + 1 instead of d, so the steps 1, 2, 4, ... "
      "of a chunk never combine with the step d before them.",
      "complex_scan/tree_chunk32@fp32", [] { return TreeOffsetOffByOne{}; }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "carry_drops_chunks_last_step",
      "The map each chunk hands to the carries is its second-to-last step's, so the state carried into the next "
      "chunk misses the chunk's last element (and the last decay).",
      "rglru/tree_chunk32@fp32", [] { return CarryDropsChunksLastStep{}; }));
  return all;
}

}  // namespace scancheck::mutation
