// SPDX-License-Identifier: Apache-2.0
//! @file
//! A scancheck plugin in C++ (include/scancheck/plugin.h), provider "cppdemo": the real affine scan
//! (recurrences.md section 1) forward and backward in float32, the way one writes it first: one loop over
//! time per (batch, channel), states in float32.
//!
//!     cppdemo:scan/textbook@fp32            the scan, correct
//!
//! Built with CPPDEMO_MISBEHAVE (the cppdemo_misbehaving module), it adds two variants that go wrong on
//! purpose on long cases (L > 1000), so that scancheck's fault and timeout verdicts can be seen:
//!
//!     cppdemo:scan/segfault_when_long@fp32  writes to an unmapped address: SIGSEGV   (a fault row)
//!     cppdemo:scan/hang_when_long@fp32      never returns                           (a timeout row)
//!
//!     scancheck fuzz --plugin build/cppdemo.so --backends 'cppdemo:*' --cases 200
//!     scancheck check --plugin build/cppdemo_misbehaving.so --arch scan --shape 1,1200,4 --backend 'cppdemo:*'
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

#include <scancheck/plugin.h>

namespace {

enum class Behaviour { correct, segfault_when_long, hang_when_long };

float* values(const DLTensor* t) { return t ? static_cast<float*>(t->data) : nullptr; }

//! Contract (recurrences.md section 1), per batch entry b and channel w, tensors [B, L, W] row-major:
//!   h_t = a_t h_{t-1} + b_t, h_{-1} = h0 (zero when absent); h_last = h_{L-1}
//!   g_{L-1} = dh_{L-1} + dh_last, g_t = dh_t + a_{t+1} g_{t+1}
//!   db_t = g_t, da_t = g_t h_{t-1}, dh0 = a_0 g_0
//! The backward is computed only when its outputs were asked for (a backend declared forward-only gets
//! none).
void scan(const scancheck_case& c) {
  const std::int64_t B = c.batch, L = c.length, W = c.width;
  const float* a = values(scancheck_find_input(&c, "a"));
  const float* b = values(scancheck_find_input(&c, "b"));
  const float* h0 = values(scancheck_find_input(&c, "h0"));  // [B, W] or absent
  const float* dh = values(scancheck_find_input(&c, "dh"));
  const float* dh_last = values(scancheck_find_input(&c, "dh_last"));  // [B, W] or absent
  float* h = values(scancheck_find_output(&c, "h"));
  float* h_last = values(scancheck_find_output(&c, "h_last"));
  float* da = values(scancheck_find_output(&c, "da"));
  float* db = values(scancheck_find_output(&c, "db"));
  float* dh0 = values(scancheck_find_output(&c, "dh0"));
  const auto at = [&](std::int64_t bi, std::int64_t t, std::int64_t w) { return (bi * L + t) * W + w; };
  for (std::int64_t bi = 0; bi < B; ++bi) {
    for (std::int64_t w = 0; w < W; ++w) {
      const float initial = h0 ? h0[bi * W + w] : 0.0f;
      float state = initial;
      for (std::int64_t t = 0; t < L; ++t) {
        state = a[at(bi, t, w)] * state + b[at(bi, t, w)];
        h[at(bi, t, w)] = state;
      }
      h_last[bi * W + w] = state;
      if (!db) continue;  // forward only
      float g = dh_last ? dh_last[bi * W + w] : 0.0f;
      for (std::int64_t t = L - 1; t >= 0; --t) {
        g = dh[at(bi, t, w)] + (t + 1 < L ? a[at(bi, t + 1, w)] * g : g);
        db[at(bi, t, w)] = g;
        da[at(bi, t, w)] = g * (t > 0 ? h[at(bi, t - 1, w)] : initial);
      }
      dh0[bi * W + w] = a[at(bi, 0, w)] * g;
    }
  }
}

int run(const scancheck_backend* self, const scancheck_case* c, void* /*stream*/, char* error, std::size_t error_size) {
  if (c->architecture != SCANCHECK_SCAN) {  // scancheck never sends another, but a plugin may say no
    std::snprintf(error, error_size, "cppdemo runs scan cases only");
    return 1;
  }
  const Behaviour behaviour = *static_cast<const Behaviour*>(self->user_data);
  if (c->length > 1000 && behaviour == Behaviour::segfault_when_long) {
    volatile std::uintptr_t unmapped = 16;  // volatile: the compiler cannot prove the store invalid
    *reinterpret_cast<volatile float*>(unmapped) = 0.0f;
  }
  if (c->length > 1000 && behaviour == Behaviour::hang_when_long)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
  scan(*c);
  return 0;
}

constexpr Behaviour correct = Behaviour::correct, segfaults = Behaviour::segfault_when_long,
                    hangs = Behaviour::hang_when_long;

scancheck_backend backend(const char* variant, const Behaviour& behaviour) {
  scancheck_backend b{};  // zero: both passes, deterministic, no constraints
  b.variant = variant;
  b.architecture = SCANCHECK_SCAN;
  b.io_dtype = SCANCHECK_FLOAT32;
  b.device_type = kDLCPU;
  b.run = run;
  b.user_data = const_cast<Behaviour*>(&behaviour);
  return b;
}

const scancheck_backend backends[] = {
    backend("textbook", correct),
#ifdef CPPDEMO_MISBEHAVE
    backend("segfault_when_long", segfaults),
    backend("hang_when_long", hangs),
#endif
};

const scancheck_provider provider = {SCANCHECK_PLUGIN_ABI_VERSION, "cppdemo", sizeof backends / sizeof backends[0],
                                     backends};

}  // namespace

SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin(void) { return &provider; }
