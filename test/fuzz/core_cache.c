/* SPDX-License-Identifier: MIT */
/* core/sfu.h with the row cache, the indexes and the inlinable port read
 * (SFU_READ calls the walk checker's port read, as a port would its own). */
#include <stdint.h>
int wc_port_read(void *ctx, uint64_t addr, uint64_t *out);
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#define SFU_CACHE 1
#define SFU_INDEX 1
#define SFU_READ(ctx, addr, out) wc_port_read((ctx), (addr), (out))
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_cache, "cache+index+SFU_READ");
