/* SPDX-License-Identifier: Apache-2.0 */
/** @file
 * A C99 plugin (include/scancheck/plugin.h) whose scan backends each honour or break the ABI in one chosen
 * way, for plugin_host_test.sh. Provider "quirky"; every backend is scan@fp32 and computes the scan
 * (recurrences.md section 1) unless its variant says otherwise:
 *     sequential         correct                                                      -> pass
 *     refuses_odd_batch  returns 1 with a message when B is odd                       -> error, the message
 *     skips_h_last       never writes h_last                                          -> error, never written
 *     overruns_h         writes one element past the end of h                         -> error, guard overwritten
 *     writes_input       writes into its input a                                      -> error, input written
 *     forward_only       declares the forward pass, checks it gets no gradient tensor -> pass, forward only
 *     prints_to_stdout   printf()s to stdout, then computes                           -> pass (stdout is the log)
 *     aborts             abort()                                                      -> fault
 *     constrained        declares constraints and refuses any case outside them       -> pass (cases stay inside)
 *     nondeterministic   declares itself nondeterministic                             -> hello says so
 *     on_device          kDLCUDA: checks its views are device views with a stream, refuses -> error
 * It is compiled as C99 with -Wpedantic: the header must stay plain C.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scancheck/plugin.h>

enum quirk {
  SEQUENTIAL, REFUSES_ODD_BATCH, SKIPS_H_LAST, OVERRUNS_H, WRITES_INPUT, FORWARD_ONLY, PRINTS_TO_STDOUT, ABORTS,
  CONSTRAINED, NONDETERMINISTIC, ON_DEVICE
};

static float* values(const DLTensor* t) { return t ? (float*)t->data : NULL; }

static void scan(const scancheck_case* c, int write_h_last) {
  const int64_t B = c->batch, L = c->length, W = c->width;
  const float* a = values(scancheck_find_input(c, "a"));
  const float* b = values(scancheck_find_input(c, "b"));
  const float* h0 = values(scancheck_find_input(c, "h0"));
  const float* dh = values(scancheck_find_input(c, "dh"));
  const float* dh_last = values(scancheck_find_input(c, "dh_last"));
  float* h = values(scancheck_find_output(c, "h"));
  float* h_last = values(scancheck_find_output(c, "h_last"));
  float* da = values(scancheck_find_output(c, "da"));
  float* db = values(scancheck_find_output(c, "db"));
  float* dh0 = values(scancheck_find_output(c, "dh0"));
  int64_t bi, w, t;
  for (bi = 0; bi < B; ++bi) {
    for (w = 0; w < W; ++w) {
      const float initial = h0 ? h0[bi * W + w] : 0.0f;
      float state = initial, g;
      for (t = 0; t < L; ++t) {
        state = a[(bi * L + t) * W + w] * state + b[(bi * L + t) * W + w];
        h[(bi * L + t) * W + w] = state;
      }
      if (write_h_last) h_last[bi * W + w] = state;
      if (!db) continue;
      g = dh_last ? dh_last[bi * W + w] : 0.0f;
      for (t = L - 1; t >= 0; --t) {
        g = dh[(bi * L + t) * W + w] + (t + 1 < L ? a[(bi * L + t + 1) * W + w] * g : g);
        db[(bi * L + t) * W + w] = g;
        da[(bi * L + t) * W + w] = g * (t > 0 ? h[(bi * L + t - 1) * W + w] : initial);
      }
      dh0[bi * W + w] = a[bi * L * W + w] * g;
    }
  }
}

static int run(const scancheck_backend* self, const scancheck_case* c, void* stream, char* error, size_t error_size) {
  const enum quirk quirk = (enum quirk)(size_t)self->user_data;
  size_t i;
  switch (quirk) {
    case REFUSES_ODD_BATCH:
      if (c->batch % 2 == 1) {
        snprintf(error, error_size, "B = %lld: this kernel needs an even batch\nand this second line is dropped",
                 (long long)c->batch);
        return 1;
      }
      break;
    case FORWARD_ONLY:
      if (c->output_count != 2 || scancheck_find_output(c, "db") || !scancheck_find_output(c, "h_last")) {
        snprintf(error, error_size, "a forward-only backend got %zu outputs", c->output_count);
        return 1;
      }
      break;
    case PRINTS_TO_STDOUT:
      printf("this line would break the protocol if it reached scancheck\n");
      fflush(stdout);
      break;
    case ABORTS: abort();
    case CONSTRAINED:
      if (c->width % 4 != 0 || c->length > 40 || c->batch > 2 || (c->heads != 1 && c->heads != 2) || c->has_h0 ||
          c->has_dh_last || scancheck_find_input(c, "h0") || scancheck_find_input(c, "dh_last")) {
        snprintf(error, error_size, "outside the constraints: B=%lld L=%lld W=%lld H=%lld h0=%d dh_last=%d",
                 (long long)c->batch, (long long)c->length, (long long)c->width, (long long)c->heads, c->has_h0,
                 c->has_dh_last);
        return 1;
      }
      break;
    case ON_DEVICE:
      for (i = 0; i < c->input_count; ++i)
        if (c->inputs[i].tensor.device.device_type != kDLCUDA) {
          snprintf(error, error_size, "input %s is not a kDLCUDA view", c->inputs[i].name);
          return 1;
        }
      snprintf(error, error_size, "a device run reached the plugin with %s stream", stream ? "a" : "no");
      return 1;
    default: break;
  }
  /* Every view is what the header promises: float32 (segment_pos aside), compact, aligned. */
  for (i = 0; i < c->input_count + c->output_count; ++i) {
    const scancheck_tensor* t = i < c->input_count ? &c->inputs[i] : &c->outputs[i - c->input_count];
    if (t->tensor.dtype.code != kDLFloat || t->tensor.dtype.bits != 32 || t->tensor.strides ||
        ((size_t)t->tensor.data) % 256 != 0 || t->tensor.device.device_type != kDLCPU) {
      snprintf(error, error_size, "tensor %s is not a compact aligned float32 host view", t->name);
      return 1;
    }
  }
  scan(c, quirk != SKIPS_H_LAST);
  if (quirk == OVERRUNS_H) {
    float* h = values(scancheck_find_output(c, "h"));
    h[c->batch * c->length * c->width] = 1.0f;
  }
  if (quirk == WRITES_INPUT) values(scancheck_find_input(c, "a"))[0] += 1.0f;
  return 0;
}

static const int64_t heads[] = {1, 2};

#define BACKEND(name, quirk) {name, SCANCHECK_SCAN, SCANCHECK_FLOAT32, 0, 0, {0, 0, 0, 0, NULL, 0, 0, 0, 0, 0}, \
                              kDLCPU, run, (void*)(size_t)(quirk)}

static const scancheck_backend backends[] = {
    BACKEND("sequential", SEQUENTIAL),
    BACKEND("refuses_odd_batch", REFUSES_ODD_BATCH),
    BACKEND("skips_h_last", SKIPS_H_LAST),
    BACKEND("overruns_h", OVERRUNS_H),
    BACKEND("writes_input", WRITES_INPUT),
    {"forward_only", SCANCHECK_SCAN, SCANCHECK_FLOAT32, SCANCHECK_PASS_FORWARD, 0, {0, 0, 0, 0, NULL, 0, 0, 0, 0, 0},
     kDLCPU, run, (void*)(size_t)FORWARD_ONLY},
    BACKEND("prints_to_stdout", PRINTS_TO_STDOUT),
    BACKEND("aborts", ABORTS),
    {"constrained", SCANCHECK_SCAN, SCANCHECK_FLOAT32, 0, 0,
     {4, 0, 40, 2, heads, 2, SCANCHECK_SQRT_GRADIENTS_BOUNDED, 1, 1, 1}, kDLCPU, run, (void*)(size_t)CONSTRAINED},
    {"nondeterministic", SCANCHECK_SCAN, SCANCHECK_FLOAT32, 0, 1, {0, 0, 0, 0, NULL, 0, 0, 0, 0, 0}, kDLCPU, run,
     (void*)(size_t)NONDETERMINISTIC},
    {"on_device", SCANCHECK_SCAN, SCANCHECK_FLOAT32, 0, 0, {0, 0, 0, 0, NULL, 0, 0, 0, 0, 0}, kDLCUDA, run,
     (void*)(size_t)ON_DEVICE},
};

static const scancheck_provider provider = {SCANCHECK_PLUGIN_ABI_VERSION, "quirky",
                                            sizeof backends / sizeof backends[0], backends};

SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin(void) { return &provider; }
