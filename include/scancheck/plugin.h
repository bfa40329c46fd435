/* SPDX-License-Identifier: Apache-2.0 */
/** @file
 * scancheck's C ABI for plugins: a compiled library (C, C++, CUDA, Rust, Zig) that declares backends of
 * the linear recurrences and runs them on scancheck's cases, so that they are checked against the exact
 * reference, fuzzed, shrunk and reported like scancheck's own. The contract is docs/foreign-backends.md ("C ABI
 * plugins") and the math of every tensor docs/recurrences.md, both in scancheck's repository. Tensors travel as
 * DLPack `DLTensor` views (dlpack/dlpack.h, DLPack 0.6 or later).
 *
 * A plugin exports one function, `scancheck_plugin` (SCANCHECK_PLUGIN_ENTRY), that returns its provider
 * table: the same fields as a worker's hello answer, and per backend a run function. Minimal plugin:
 *
 *     static int run(const scancheck_backend* self, const scancheck_case* c, void* stream,
 *                    char* error, size_t error_size) {
 *       const DLTensor* a = scancheck_find_input(c, "a");   // [B, L, W] float32
 *       const DLTensor* h = scancheck_find_output(c, "h");  // [B, L, W] float32, to be written
 *       ...
 *       return 0;
 *     }
 *     static const scancheck_backend backends[] = {
 *       {.variant = "sequential", .architecture = SCANCHECK_SCAN, .io_dtype = SCANCHECK_FLOAT32,
 *        .device_type = kDLCPU, .run = run},
 *     };
 *     static const scancheck_provider provider = {
 *       .abi_version = SCANCHECK_PLUGIN_ABI_VERSION, .name = "mykernels",
 *       .backend_count = sizeof backends / sizeof backends[0], .backends = backends};
 *     SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin(void) { return &provider; }
 *
 * and is run with `scancheck fuzz --plugin ./mykernels.so --backends 'mykernels:*'`.
 *
 * Conventions of this header:
 * - A zero field means the worker protocol's default (every constraint off, both passes, deterministic),
 *   so a table written with designated initializers states only what differs. The exceptions, which must
 *   be set, are `variant`, `device_type` and `run`.
 * - Ownership: scancheck owns every buffer it passes (tensor data, shapes, names, the case, the error
 *   buffer, the stream); they are valid only during the call and a plugin must neither free nor keep
 *   them. The plugin owns its table: it and everything it points to (names, head lists) must stay valid
 *   and unchanged while the library is loaded (static storage is the natural choice).
 * - Versioning: `abi_version` is the first field of the table in every version, so scancheck can read it
 *   from any plugin; a version it does not know is refused as bad input (exit 2). Version 1 is this header.
 * - Threads: scancheck calls a plugin's run functions one at a time (never concurrently), though not
 *   always from the same thread.
 * - Isolation: by default (`--plugin`) the plugin runs in a separate plugin-host process, so a segfault,
 *   an abort, an illegal memory access or a hang becomes a `fault` or `timeout` row and the run goes on;
 *   `--plugin-in-process` loads it into scancheck itself: faster, but a crash ends scancheck.
 */
#ifndef SCANCHECK_PLUGIN_H_
#define SCANCHECK_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <dlpack/dlpack.h>

/** The ABI version this header describes; a plugin puts it in `scancheck_provider.abi_version`. */
#define SCANCHECK_PLUGIN_ABI_VERSION 1

/** The name of the exported entry point, for dlsym. */
#define SCANCHECK_PLUGIN_ENTRY "scancheck_plugin"

#ifdef __cplusplus
#define SCANCHECK_PLUGIN_EXTERN_C extern "C"
#else
#define SCANCHECK_PLUGIN_EXTERN_C
#endif

/** Marks the entry point: C linkage, visible even when the library hides its other symbols. */
#if defined(_WIN32)
#define SCANCHECK_PLUGIN_EXPORT SCANCHECK_PLUGIN_EXTERN_C __declspec(dllexport)
#else
#define SCANCHECK_PLUGIN_EXPORT SCANCHECK_PLUGIN_EXTERN_C __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The recurrences (docs/recurrences.md); values of `architecture` fields. */
enum {
  SCANCHECK_SCAN = 0,         /**< h_t = a_t h_{t-1} + b_t, real (section 1) */
  SCANCHECK_COMPLEX_SCAN = 1, /**< the same, complex, merged [Re | Im] layout (section 1) */
  SCANCHECK_RGLRU = 2,        /**< RecurrentGemma's RG-LRU layer (section 2) */
  SCANCHECK_COMPLEX_RGLRU = 3 /**< the RG-LRU with complex decays, merged layout (section 3) */
};

/** The io dtypes; values of `io_dtype` fields. Tensors are float32 either way: a bfloat16 case holds
 * bf16-representable values in its float32 activations, and the backend rounds where its kernel would. */
enum {
  SCANCHECK_FLOAT32 = 0, /**< backend name suffix @fp32 */
  SCANCHECK_BFLOAT16 = 1 /**< backend name suffix @bf16 */
};

/** The sqrt-gradient conventions of the gated layers (docs/recurrences.md section 2); values of
 * `scancheck_case.sqrt_gradient`. */
enum {
  SCANCHECK_SQRT_GRADIENT_BOUNDED = 0, /**< RecurrentGemma's 1/max(2 sqrt q, 1/1000) */
  SCANCHECK_SQRT_GRADIENT_EXACT = 1    /**< 1/(2 sqrt q) */
};

/** Bits of `scancheck_backend.passes`. */
#define SCANCHECK_PASS_FORWARD 1u  /**< h, y, h_last */
#define SCANCHECK_PASS_BACKWARD 2u /**< every gradient; only together with SCANCHECK_PASS_FORWARD */

/** Bits of `scancheck_constraints.sqrt_gradients`. */
#define SCANCHECK_SQRT_GRADIENTS_BOUNDED (1u << SCANCHECK_SQRT_GRADIENT_BOUNDED)
#define SCANCHECK_SQRT_GRADIENTS_EXACT (1u << SCANCHECK_SQRT_GRADIENT_EXACT)

/** What a backend accepts (docs/foreign-backends.md, "constraints"). Generated cases are drawn inside these
 * and shrinking stays inside them; `scancheck run` or `check` on a case outside them is bad input. A
 * zeroed struct accepts every valid case. */
typedef struct scancheck_constraints {
  int64_t width_multiple;  /**< W must be a multiple of it; 0 or 1: any W */
  int64_t max_width;       /**< largest W; 0: no limit */
  int64_t max_length;      /**< largest L; 0: no limit */
  int64_t max_batch;       /**< largest B; 0: no limit */
  const int64_t* heads;    /**< the head counts H it takes (each > 0), `head_count` of them */
  size_t head_count;       /**< 0: any H (then `heads` is ignored) */
  uint32_t sqrt_gradients; /**< SCANCHECK_SQRT_GRADIENTS_* bits it implements (gated kinds); 0: both */
  int32_t no_h0;           /**< nonzero: it takes no initial state (cases come without h0) */
  int32_t no_dh_last;      /**< nonzero: it takes no dh_last (cases come without it) */
  int32_t no_resets;       /**< nonzero: it takes no segment resets (gated kinds: no segment_pos is 0, at any t) */
} scancheck_constraints;

/** A tensor with the name it has in a case directory (docs/recurrences.md): "a", "x", "segment_pos", "h",
 * "d_a_param", ... */
typedef struct scancheck_tensor {
  const char* name; /**< NUL-terminated, owned by scancheck */
  /** A view, owned by scancheck: `data` aligned to 256 bytes, compact row-major (`strides` NULL,
   * `byte_offset` 0), `shape` as in docs/recurrences.md, dtype float32 (kDLFloat, 32 bits, 1 lane) except
   * segment_pos, int32 (kDLInt, 32 bits, 1 lane); `device` is the backend's `device_type` (device_id:
   * the current CUDA device for kDLCUDA, 0 for kDLCPU). */
  DLTensor tensor;
} scancheck_tensor;

/** One case, as a backend's run function receives it. */
typedef struct scancheck_case {
  int32_t architecture;  /**< SCANCHECK_SCAN, ... (always the backend's own) */
  int32_t io_dtype;      /**< SCANCHECK_FLOAT32 or SCANCHECK_BFLOAT16 (always the backend's own) */
  int32_t sqrt_gradient; /**< SCANCHECK_SQRT_GRADIENT_*: the gated layers' convention (scan kinds: bounded) */
  int32_t has_h0;        /**< nonzero: the input h0 exists (else h_{-1} = 0) */
  int32_t has_dh_last;   /**< nonzero: the cotangent dh_last exists (else it is zero) */
  /** The shape: batch B, length L, width W (stored real channels: the merged [Re | Im] width for the
   * complex kinds) and heads H (gate blocks of the RG-LRU; the scan kinds only cut channels into blocks). */
  int64_t batch, length, width, heads;
  /** The inputs and cotangents present, in docs/recurrences.md's order. Scan kinds: a, b [B, L, W], h0 [B, W],
   * dh [B, L, W], dh_last [B, W]. Gated kinds: x [B, L, W], segment_pos [B, L] (int32; a reset where 0),
   * h0 [B, W], a_param [C], input_gate_w [H, W/H, C/H], input_gate_b [H, C/H], a_gate_w, a_gate_b (the
   * same), a_imag_param [C] (complex only), dy [B, L, W], dh_last [B, W]; C is W, or W/2 complex channels.
   * Read-only: a backend that writes into an input fails its run. */
  const scancheck_tensor* inputs;
  size_t input_count; /**< the number of `inputs` */
  /** The outputs of the backend's declared passes, preallocated, in docs/recurrences.md's order. Forward: h (scan
   * kinds) or y (gated kinds) [B, L, W], h_last [B, W]. Backward: scan kinds da, db [B, L, W], dh0 [B, W];
   * gated kinds dx [B, L, W], dh0 [B, W], d_a_param [C], d_input_gate_w, d_input_gate_b, d_a_gate_w,
   * d_a_gate_b (the shapes of their parameters), d_a_imag_param [C] (complex only). dh0 is an output even
   * without h0. Every element must be written: they start as a poison NaN, and one left unwritten, or a
   * write outside a tensor's extent that scancheck detects, fails the run. */
  const scancheck_tensor* outputs;
  size_t output_count; /**< the number of `outputs` */
} scancheck_case;

typedef struct scancheck_backend scancheck_backend;

/** Runs `self` forward (and backward, if declared) on `run_case`, writing every output.
 * @param self        the table entry being run (its `user_data` is the plugin's)
 * @param run_case    the case, its inputs and its outputs, in the backend's `device_type` memory
 * @param stream      kDLCUDA backends: the cudaStream_t to launch on (scancheck synchronizes it after the
 *                    call returns); kDLCPU backends: NULL
 * @param error       a zeroed buffer of `error_size` (>= 256) bytes for a one-line message when it fails
 * @return 0 on success; anything else is an `error` row with the message (the run was refused or failed
 *         while the process stays healthy; crash or hang instead and the row is a fault or timeout). */
typedef int (*scancheck_run_fn)(const scancheck_backend* self, const scancheck_case* run_case, void* stream,
                                char* error, size_t error_size);

/** One backend: the fields of a worker's hello answer (docs/foreign-backends.md, "Worker protocol") plus
 * where its tensors live and its run function. Its name is provider:architecture/variant@dtype. */
struct scancheck_backend {
  const char* variant;               /**< [A-Za-z0-9_.+-]+, e.g. "triton_chunk64" (required) */
  int32_t architecture;              /**< SCANCHECK_SCAN, ... */
  int32_t io_dtype;                  /**< SCANCHECK_FLOAT32 or SCANCHECK_BFLOAT16 */
  uint32_t passes;                   /**< SCANCHECK_PASS_FORWARD, or FORWARD | BACKWARD; 0: both. A forward-only
                                          backend is judged on its forward outputs alone. */
  int32_t nondeterministic;          /**< nonzero exempts it from the bitwise-determinism property (atomics) */
  scancheck_constraints constraints; /**< the cases it accepts; zeroed: every valid case */
  int32_t device_type;               /**< kDLCPU (host memory) or kDLCUDA (device memory and a stream) (required) */
  scancheck_run_fn run;              /**< required */
  void* user_data;                   /**< the plugin's, passed back through `self`; scancheck never touches it */
};

/** The provider table the entry point returns. */
typedef struct scancheck_provider {
  uint32_t abi_version;              /**< SCANCHECK_PLUGIN_ABI_VERSION: first in every version */
  const char* name;                  /**< the provider, [a-z0-9_-]+, e.g. "mykernels" */
  size_t backend_count;              /**< at least 1 */
  const scancheck_backend* backends; /**< `backend_count` of them, names unique; run in any order */
} scancheck_provider;

/** The entry point's type: `SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin(void);`.
 * scancheck calls it once, right after loading the library. */
typedef const scancheck_provider* (*scancheck_plugin_fn)(void);

/** The tensor named `name` in `list` of `count`, or NULL. */
static inline const scancheck_tensor* scancheck_find_tensor(const scancheck_tensor* list, size_t count,
                                                            const char* name) {
  size_t i;
  for (i = 0; i < count; ++i)
    if (strcmp(list[i].name, name) == 0) return &list[i];
  return NULL;
}

/** The input or cotangent `name` of the case, or NULL when the case has none (an absent h0 or dh_last). */
static inline const DLTensor* scancheck_find_input(const scancheck_case* c, const char* name) {
  const scancheck_tensor* t = scancheck_find_tensor(c->inputs, c->input_count, name);
  return t ? &t->tensor : NULL;
}

/** The output `name` of the case, or NULL when the backend's passes do not include it. The view is
 * const, the data it points to is the backend's to write. */
static inline const DLTensor* scancheck_find_output(const scancheck_case* c, const char* name) {
  const scancheck_tensor* t = scancheck_find_tensor(c->outputs, c->output_count, name);
  return t ? &t->tensor : NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* SCANCHECK_PLUGIN_H_ */
