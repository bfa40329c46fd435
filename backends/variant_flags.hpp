// SPDX-License-Identifier: Apache-2.0
//! @file
//! The flags of a built-in variant (docs/architecture.md, "Backends and the execution model"): which stages of a
//! gated layer its kernels fuse. Their names and order in backend names are backends/variant.hpp's.
//! C++17 (the launch sequences include it).
#pragma once

namespace scancheck::backends {

struct VariantFlags {
  bool fused = false;         //!< gates and normalisation computed inside the scan kernels
  bool fused_output = false;  //!< the merged complex layout read and written by the scan kernels
  bool fused_write = false;   //!< the forward writes the chunk-entry states the backward replays from
  bool shared_sfu = false;    //!< one exp and one sincos per element shared by |a| and q

  friend bool operator==(const VariantFlags& x, const VariantFlags& y) {
    return x.fused == y.fused && x.fused_output == y.fused_output && x.fused_write == y.fused_write &&
           x.shared_sfu == y.shared_sfu;
  }
};

}  // namespace scancheck::backends
