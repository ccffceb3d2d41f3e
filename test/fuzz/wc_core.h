/* wc_core.h - one build configuration of core/sfu.h behind a table of
 * function pointers, so a harness can drive several configurations (each
 * compiled with SFU_STATIC in its own translation unit: core_*.c) and
 * compare them.  Types come from the plain include of sfu.h, which is the
 * same in every configuration. */
#ifndef WC_CORE_H
#define WC_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "sfu.h"

struct wc_core {
	const char *name;
	unsigned depth_cap;   /* SFU_DEPTH_CAP of this build */
	int fp_fallback;      /* SFU_FP_FALLBACK of this build */
	int v1, v2, v3;       /* SFU_V1..3 */
	int little, big;      /* SFU_LITTLE, SFU_BIG */
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
	int (*cursor_init)(sfu_cursor *, const sfu_section *, size_t, const sfu_port *, const sfu_regs *);
	int (*cursor_step)(sfu_cursor *);
	int (*backtrace)(const sfu_section *, size_t, const sfu_port *, const sfu_regs *, sfu_frame *, size_t,
	                 size_t *);
};

/* In a core_*.c file, after including sfu.h with SFU_STATIC and
 * SFU_IMPLEMENTATION and the configuration knobs. */
#define WC_CORE_DEFINE(var, label)                                                          \
	const struct wc_core var = { label,           SFU_DEPTH_CAP,     SFU_FP_FALLBACK,      \
		                     SFU_V1,          SFU_V2,            SFU_V3,               \
		                     SFU_LITTLE,      SFU_BIG,           sfu_section_init,     \
		                     sfu_section_init_opt, sfu_section_split,                  \
		                     sfu_section_validate, sfu_fde_get,  sfu_fre_get,          \
		                     sfu_fre_word,                                             \
		                     sfu_row_from_fre, sfu_find_fde,     sfu_find_row,         \
		                     sfu_find_row_n,  sfu_cursor_init,   sfu_cursor_step,      \
		                     sfu_backtrace }

/* The configurations (core_default.c, core_fpfb.c, core_min.c). */
extern const struct wc_core wc_core_default; /* every default */
extern const struct wc_core wc_core_fpfb;    /* SFU_FP_FALLBACK 1, SFU_DEPTH_CAP 24 */
extern const struct wc_core wc_core_min;     /* V2+V3 only, little-endian only, cap 3 */

#endif /* WC_CORE_H */
