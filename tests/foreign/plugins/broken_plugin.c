/* SPDX-License-Identifier: Apache-2.0 */
/** @file
 * Plugins that scancheck must refuse at load (plugin_host_test.sh), one library per kind, chosen when it is
 * compiled (-DBROKEN_<KIND>):
 *     BROKEN_ABI_VERSION  a table of ABI version 7                    -> "ABI version 7", exit 2
 *     BROKEN_NO_ENTRY     exports scancheck_plugin_v2, not the entry   -> "no entry point", exit 2
 *     BROKEN_MALFORMED    the table selected by $SCANCHECK_TEST_MALFORMED is wrong in one field -> exit 2
 */
#include <stdlib.h>
#include <string.h>

#include <scancheck/plugin.h>

static int run(const scancheck_backend* self, const scancheck_case* c, void* stream, char* error, size_t size) {
  (void)self, (void)c, (void)stream, (void)error, (void)size;
  return 1;
}

static const int64_t no_heads[] = {0};
static scancheck_backend backends[2];
static scancheck_provider provider;

static const scancheck_provider* table(void) {
  const char* kind = getenv("SCANCHECK_TEST_MALFORMED");
  memset(backends, 0, sizeof backends);
  backends[0].variant = "ok";
  backends[0].architecture = SCANCHECK_SCAN;
  backends[0].io_dtype = SCANCHECK_FLOAT32;
  backends[0].device_type = kDLCPU;
  backends[0].run = run;
  backends[1] = backends[0];
  backends[1].variant = "second";
  provider.abi_version = SCANCHECK_PLUGIN_ABI_VERSION;
  provider.name = "broken";
  provider.backend_count = 2;
  provider.backends = backends;
#ifdef BROKEN_ABI_VERSION
  provider.abi_version = 7;
#endif
  if (!kind) return &provider;
  if (!strcmp(kind, "null_table")) return NULL;
  if (!strcmp(kind, "null_name")) provider.name = NULL;
  if (!strcmp(kind, "bad_name")) provider.name = "Bad Name";
  if (!strcmp(kind, "no_backends")) provider.backend_count = 0;
  if (!strcmp(kind, "null_run")) backends[1].run = NULL;
  if (!strcmp(kind, "bad_device")) backends[1].device_type = kDLOpenCL;
  if (!strcmp(kind, "bad_architecture")) backends[1].architecture = 9;
  if (!strcmp(kind, "bad_passes")) backends[1].passes = SCANCHECK_PASS_BACKWARD;
  if (!strcmp(kind, "duplicate")) backends[1].variant = "ok";
  if (!strcmp(kind, "bad_variant")) backends[1].variant = "a/b";
  if (!strcmp(kind, "null_heads")) backends[1].constraints.head_count = 2;
  if (!strcmp(kind, "zero_head")) {
    backends[1].constraints.heads = no_heads;
    backends[1].constraints.head_count = 1;
  }
  return &provider;
}

#ifdef BROKEN_NO_ENTRY
SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin_v2(void) { return table(); }
#else
SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin(void) { return table(); }
#endif
