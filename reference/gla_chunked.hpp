// SPDX-License-Identifier: Apache-2.0
//! @file
//! fla's chunked algorithm for gated linear attention, evaluated in float32 on one (sequence, head): a
//! correct float32 order of the family, beside the recurrent one (gla_sequence<float>), for the
//! distribution rule's ensemble (`scancheck gla verify`) and the bounds' tests. Per chunk of C steps:
//!
//!     G_t      = g_{c0} + ... + g_t                      a float32 prefix sum restarting at every chunk
//!     o_t      = scale ((q_t exp(G_t))^T S + sum_{s <= t} (sum_i q_t[i] k_s[i] exp(G_t[i] - G_s[i])) v_s)
//!     S_next   = exp(G_last) S + sum_s (k_s exp(G_last - G_s)) v_s^T
//!
//! and the backward by the same pieces in reverse (dS the cotangent of the state leaving a chunk), dg by the
//! suffix-sum identity dg_t = sum_{r >= t} (q_r dq_r - k_r dk_r) + sum_j dht ht.
#pragma once

#include <cstdint>

#include "reference/gla_sequence.hpp"

namespace scancheck::ref {

struct ChunkedSchedule {
  std::int64_t chunk = 64;
  //! false: the carried state is not decayed by its chunk's last gate, a wrong kernel for the tests.
  bool decays_carried_state = true;
};

GlaSequenceOutputs<float> gla_chunked_sequence(const GlaSequenceInputs<float>&, const ChunkedSchedule&);

}  // namespace scancheck::ref
