/* SPDX-License-Identifier: MIT */
/* wc_core.h - one build configuration of core/sfu.h behind a table of
 * function pointers, so a harness can drive several configurations (each
 * compiled with SFU_STATIC in its own translation unit: core_*.c) and
 * compare them.  Types come from the plain include of sfu.h, which is the
 * same in every configuration. */
#ifndef WC_CORE_H
#define WC_CORE_H

#include <stddef.h>
#include <stdint.h>

#define SFU__INTERNAL_TYPES /* the layouts and the compact row, compared below */
#include "sfu.h"

struct wc_core {
	const char *name;
	unsigned depth_cap;   /* SFU_DEPTH_CAP of this build */
	int fp_fallback;      /* SFU_FP_FALLBACK of this build */
	int v1, v2, v3;       /* SFU_V1..3 */
	int little, big;      /* SFU_LITTLE, SFU_BIG */
	int amd64, aarch64, s390x, flex; /* SFU_AMD64, SFU_AARCH64, SFU_S390X, SFU_FLEX */
	int compact;                     /* SFU_COMPACT */
	int (*section_init)(sfu_section *, const void *, size_t, uint64_t);
	int (*section_init_opt)(sfu_section *, const void *, size_t, uint64_t, unsigned);
	int (*section_split)(sfu_section *, size_t, size_t *, const void *, size_t, uint64_t, unsigned);
	int (*section_validate)(const sfu_section *, uint32_t *);
	int (*fde_get)(const sfu_section *, uint32_t, sfu_fde *);
	int (*fre_get)(const sfu_section *, const sfu_fde *, uint32_t, sfu_fre *);
	int32_t (*fre_word)(const sfu_section *, const sfu_fre *, unsigned);
	int (*row_from_fre)(const sfu_section *, const sfu_fde *, const sfu_fre *, sfu_row *);
	int (*find_fde)(const sfu_section *, uint64_t, sfu_fde *, uint32_t *);
	int (*find_row)(const sfu_section *, uint64_t, sfu_row *);
	int (*find_row_n)(const sfu_section *, size_t, uint64_t, sfu_row *);
	/* the walk's lookup, internal (sfu__find_crow_n): each core_*.c
	 * includes the implementation, so the table reaches it */
	int (*find_crow)(const sfu_section *, size_t, uint64_t, sfu__compact_row *);
	int (*cursor_init)(sfu_cursor *, const sfu_section *, size_t, const sfu_port *, const sfu_regs *);
	int (*cursor_step)(sfu_cursor *);
	int (*backtrace)(const sfu_section *, size_t, const sfu_port *, const sfu_regs *, sfu_frame *, size_t,
	                 size_t *);
	/* SFU_CACHE builds: a fresh cache of `slots` entries (static storage,
	 * one at a time) and sfu_backtrace_cached with it; else NULL. */
	void *(*cache_new)(size_t slots);
	int (*backtrace_cached)(const sfu_section *, size_t, void *cache, const sfu_port *, const sfu_regs *,
	                        sfu_frame *, size_t, size_t *);
	/* SFU_INDEX builds: sfu_index_size, sfu_index_build; else NULL. */
	int (*index_size)(const sfu_section *, unsigned, size_t *);
	int (*index_build)(sfu_section *, unsigned, void *, size_t);
	int (*section_check_code)(const sfu_section *, uint64_t, uint64_t, uint32_t *);
};

#if defined(SFU_IMPLEMENTATION) && SFU_CACHE
static void *wc_cache_new(size_t slots)
{
	static sfu_cache_entry ent[64];
	static sfu_cache cache;
	return sfu_cache_init(&cache, ent, slots > 64 ? 64 : slots) == SFU_OK ? &cache : NULL;
}
static int wc_backtrace_cached(const sfu_section *secs, size_t nsecs, void *cache, const sfu_port *port,
                               const sfu_regs *regs, sfu_frame *frames, size_t max, size_t *n)
{
	return sfu_backtrace_cached(secs, nsecs, (sfu_cache *)cache, port, regs, frames, max, n);
}
#define WC_BT_CACHED wc_cache_new, wc_backtrace_cached
#else
#define WC_BT_CACHED NULL, NULL
#endif
#if defined(SFU_IMPLEMENTATION) && SFU_INDEX
#define WC_INDEX sfu_index_size, sfu_index_build
#else
#define WC_INDEX NULL, NULL
#endif

/* In a core_*.c file, after including sfu.h with SFU_STATIC and
 * SFU_IMPLEMENTATION and the configuration knobs. */
#define WC_CORE_DEFINE(var, label)                                                          \
	const struct wc_core var = { label,           SFU_DEPTH_CAP,     SFU_FP_FALLBACK,      \
		                     SFU_V1,          SFU_V2,            SFU_V3,               \
		                     SFU_LITTLE,      SFU_BIG,           SFU_AMD64,            \
		                     SFU_AARCH64,     SFU_S390X,         SFU_FLEX,             \
		                     SFU_COMPACT,                                              \
		                     sfu_section_init,                                         \
		                     sfu_section_init_opt, sfu_section_split,                  \
		                     sfu_section_validate, sfu_fde_get,  sfu_fre_get,          \
		                     sfu_fre_word,                                             \
		                     sfu_row_from_fre, sfu_find_fde,     sfu_find_row,         \
		                     sfu_find_row_n,  sfu__find_crow_n,  sfu_cursor_init,      \
		                     sfu_cursor_step, sfu_backtrace,     WC_BT_CACHED,         \
		                     WC_INDEX,        sfu_section_check_code }

/* The configurations (core_*.c). */
extern const struct wc_core wc_core_default; /* every default */
extern const struct wc_core wc_core_cache;   /* SFU_CACHE 1, SFU_INDEX 1, SFU_READ inlined */
extern const struct wc_core wc_core_general; /* SFU_COMPACT 0: every row through the general rules */
extern const struct wc_core wc_core_fpfb;    /* SFU_FP_FALLBACK 1, SFU_DEPTH_CAP 24 */
extern const struct wc_core wc_core_min;     /* V2+V3, little-endian, no FLEX, no s390x, cap 3 */
extern const struct wc_core wc_core_v3be;    /* V3 only, big-endian only, no amd64 */
extern const struct wc_core wc_core_v1;      /* V1 only, no s390x, no FLEX */

#endif /* WC_CORE_H */
