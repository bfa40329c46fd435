// SPDX-License-Identifier: Apache-2.0
//! @file
//! fla's chunked algorithm for gated linear attention, evaluated in float32 on one (sequence, head): a
//! correct float32 order of the family, beside the recurrent one (gla_sequence<float>), for the
//! distribution rule's ensemble (`scancheck gla verify`) and the bounds' tests; the built-in chunked kernel
//! (backends/kernels/gla/chunked.hpp) is the same algorithm in parallel, bit for bit
//! (tests/backends/gla_backend_test.cpp), and its mutants live there. Per chunk of C steps:
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
  //! bfloat16 io as fla's chunked kernels have it: the gated queries and keys, the attention entries, the
  //! stored states and their cotangents, and do v^T enter their products rounded to bfloat16 (float32
  //! accumulation; the state is carried in float32). Storing the outputs in bfloat16 is the caller's
  //! (gla_chunked_float32): a scalar gate's dg is stored after its sum over K.
  bool bf16_io = false;
};

GlaSequenceOutputs<float> gla_chunked_sequence(const GlaSequenceInputs<float>&, const ChunkedSchedule&);

}  // namespace scancheck::ref
