/* SPDX-License-Identifier: MIT */
/* fz.h - taking typed values off a fuzz input, front to back.  Past the
 * end every value is 0, so any input is a complete description. */
#ifndef FZ_H
#define FZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fz {
	const uint8_t *p;
	size_t n, i;
};

static inline uint64_t fz_bytes(struct fz *f, unsigned k)
{
	uint64_t v = 0;
	unsigned j;
	for (j = 0; j < k; j++)
		v |= (uint64_t)(f->i < f->n ? f->p[f->i++] : 0) << (8 * j);
	return v;
}
static inline uint8_t fz_u8(struct fz *f) { return (uint8_t)fz_bytes(f, 1); }
static inline uint16_t fz_u16(struct fz *f) { return (uint16_t)fz_bytes(f, 2); }
static inline uint32_t fz_u32(struct fz *f) { return (uint32_t)fz_bytes(f, 4); }
static inline uint64_t fz_u64(struct fz *f) { return fz_bytes(f, 8); }
static inline size_t fz_left(const struct fz *f) { return f->n - f->i; }

/* A value in [0, n) from one byte (n <= 256) or two. */
static inline unsigned fz_pick(struct fz *f, unsigned n)
{
	if (n == 0)
		return 0;
	return (n <= 256 ? fz_u8(f) : fz_u16(f)) % n;
}

/* The harness's assertion: print what broke and abort (libFuzzer then
 * saves the input as a crash). */
#define FZ_REQUIRE(cond, ...)                                                 \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "PROPERTY: " __VA_ARGS__);            \
			fprintf(stderr, "\n");                                \
			abort();                                              \
		}                                                             \
	} while (0)

#endif /* FZ_H */
