/* SPDX-License-Identifier: MIT */
/* decode_check.h - decoder properties shared by fuzz_decode and fuzz_gen:
 * everything one can ask of a section through the public API, with the
 * answers checked against each other.
 *
 *   - sfu_section_init is deterministic, and reduced builds (versions,
 *     byte orders, ABIs, FLEX compiled out) give the full build's answers
 *     on everything they support and refuse the rest where they should;
 *   - sfu_section_validate gives exactly the first error that walking the
 *     section with sfu_fde_get / sfu_fre_get / sfu_row_from_fre finds;
 *   - after a clean validate, no lookup reports a corrupt section;
 *   - a row found for pc belongs to an FDE that covers pc, starts at or
 *     before the PC offset, and is the last such FRE of that FDE;
 *   - sfu_fre_get at arbitrary offsets stays in bounds and moves forward;
 *   - sfu_section_check_code blames the first FDE (table order) that does
 *     not decode, leaves the code range or starts inside the one before.
 * Any crash, hang or out-of-bounds read is caught by the sanitizers. */
#ifndef DECODE_CHECK_H
#define DECODE_CHECK_H

#include <stdint.h>
#include <string.h>

#include "fz.h"
#include "model.h"
#include "wc.h"

#define DC_MAX_PCS 2048

static inline int dc_is_section_error(int err)
{
	return (err >= SFU_E_EMPTY && err <= SFU_E_FRE_START) || err == SFU_E_FDE_WRAP;
}

/* The first error of the section, computed with the per-item API in the
 * order sfu_section_validate documents. */
static inline int dc_validate_by_hand(const struct wc_core *core, const sfu_section *sec, uint32_t *bad)
{
	uint32_t i, k, total = 0;
	uint64_t prev_start = 0, prev_size = 0;
	for (i = 0; i < sec->num_fdes; i++) {
		sfu_fde fde;
		uint32_t off, prev = 0, budget;
		int err = core->fde_get(sec, i, &fde);
		if (!err && fde.start + fde.size < fde.start)
			err = SFU_E_FDE_WRAP;
		if (!err && (sec->flags & SFU_F_FDE_SORTED) && i && fde.start < prev_start)
			err = SFU_E_UNSORTED;
		/* Sorted means in order and apart: a function starts at or after
		 * the end of the one before. */
		if (!err && (sec->flags & SFU_F_FDE_SORTED) && i && fde.start - prev_start < prev_size)
			err = SFU_E_OVERLAP;
		prev_start = fde.start;
		prev_size = fde.size;
		off = fde.fre_off;
		/* The contract keeps validation linear: an FDE whose FREs would
		 * take the running total past the header's count is a count
		 * error, after its FREs within the count were checked. */
		budget = err || fde.num_fres < sec->num_fres - total ? fde.num_fres : sec->num_fres - total;
		for (k = 0; !err && k < budget; k++) {
			sfu_fre fre;
			sfu_row row;
			err = core->fre_get(sec, &fde, off, &fre);
			if (err)
				break;
			if (k && fre.start < prev)
				err = SFU_E_FRE_ORDER;
			else if (fde.pctype == SFU_FDE_PCTYPE_INC && fre.start > fde.size)
				err = SFU_E_FRE_START;
			else
				err = core->row_from_fre(sec, &fde, &fre, &row);
			prev = fre.start;
			off = fre.next;
		}
		if (!err && budget < fde.num_fres)
			err = SFU_E_FRE_COUNT;
		if (err) {
			*bad = i;
			return err;
		}
		total += fde.num_fres;
	}
	*bad = i;
	return total == sec->num_fres ? SFU_OK : SFU_E_FRE_COUNT;
}

/* Field by field: struct copies need not copy padding. */
static inline int dc_sec_eq(const sfu_section *a, const sfu_section *b)
{
	return a->data == b->data && a->size == b->size && a->addr == b->addr && a->fde_base == b->fde_base &&
	       a->fre_base == b->fre_base && a->fre_len == b->fre_len && a->num_fdes == b->num_fdes &&
	       a->num_fres == b->num_fres && a->version == b->version && a->flags == b->flags && a->abi == b->abi &&
	       a->big == b->big && a->fixed_fp == b->fixed_fp && a->fixed_ra == b->fixed_ra &&
	       a->aux_len == b->aux_len && a->layout->fde_size == b->layout->fde_size &&
	       a->layout->rules == b->layout->rules && a->pcrel == b->pcrel && a->end == b->end;
}

/* PCs worth asking about: the given ones, and around every FDE and FRE. */
static inline size_t dc_interesting_pcs(const struct wc_core *core, const sfu_section *sec, const uint64_t *given,
                                        size_t ngiven, uint64_t *pcs)
{
	size_t n = 0, g;
	uint32_t i, k;
	for (g = 0; g < ngiven && n < DC_MAX_PCS; g++)
		pcs[n++] = given[g];
	for (i = 0; i < sec->num_fdes && i < 64 && n + 8 < DC_MAX_PCS; i++) {
		sfu_fde fde;
		uint32_t off;
		if (core->fde_get(sec, i, &fde))
			continue;
		pcs[n++] = fde.start - 1u;
		pcs[n++] = fde.start;
		pcs[n++] = fde.start + fde.size - 1u;
		pcs[n++] = fde.start + fde.size;
		if (ngiven && fde.size)
			pcs[n++] = fde.start + given[i % ngiven] % fde.size;
		off = fde.fre_off;
		for (k = 0; k < fde.num_fres && k < 16 && n + 3 < DC_MAX_PCS; k++) {
			sfu_fre fre;
			if (core->fre_get(sec, &fde, off, &fre))
				break;
			pcs[n++] = fde.start + fre.start - 1u;
			pcs[n++] = fde.start + fre.start;
			pcs[n++] = fde.start + fre.start + 1u;
			off = fre.next;
		}
	}
	return n;
}

/* SFU_OPT_START_PCREL moves every function start by its field's offset
 * (nothing else), unless the section already says PCREL; unknown options
 * are refused. */
static inline void dc_check_opts(const uint8_t *data, size_t size, uint64_t addr, const sfu_section *plain)
{
	const struct wc_core *core = &wc_core_default;
	sfu_section sec;
	uint32_t i;
	int err = core->section_init_opt(&sec, data, size, addr, SFU_OPT_START_PCREL);
	FZ_REQUIRE(core->section_init_opt(&sec, data, size, addr, 0x80u) == SFU_E_ARG || size == 0,
	           "sfu_section_init_opt accepted an unknown option");
	err = core->section_init_opt(&sec, data, size, addr, SFU_OPT_START_PCREL);
	FZ_REQUIRE(err == SFU_OK, "SFU_OPT_START_PCREL rejects a section sfu_section_init accepts (%d)", err);
	FZ_REQUIRE(sec.pcrel && sec.num_fdes == plain->num_fdes && sec.fde_base == plain->fde_base &&
	               sec.fre_base == plain->fre_base && sec.end == plain->end,
	           "SFU_OPT_START_PCREL changed more than the start addresses");
	for (i = 0; i < sec.num_fdes && i < 32; i++) {
		sfu_fde a, b;
		int ea = core->fde_get(plain, i, &a), eb = core->fde_get(&sec, i, &b);
		FZ_REQUIRE(ea == eb, "SFU_OPT_START_PCREL changed whether FDE %u decodes", i);
		if (ea)
			continue;
		FZ_REQUIRE(b.start == a.start + (plain->pcrel ? 0u : (uint64_t)plain->fde_base + (uint64_t)i * plain->layout->fde_size) &&
		               b.size == a.size && b.num_fres == a.num_fres && b.fre_off == a.fre_off,
		           "SFU_OPT_START_PCREL: FDE %u start is not relative to its field", i);
	}
}

/* sfu_section_split on the span: sections in order, inside the span, only
 * zero bytes between and after them, each one re-initialisable from its
 * own bytes, at most `max`.  Returns how many it found. */
static inline size_t dc_check_split(const uint8_t *data, size_t size, uint64_t addr, sfu_section *secs, size_t max)
{
	const struct wc_core *core = &wc_core_default;
	size_t n = 99, k, at = 0, j;
	int err = core->section_split(secs, max, &n, data, size, addr, 0), flagless = 0;
	/* Several sections, one without the PC-relative flag: refused without
	 * an option saying how they were linked; the section found last (the
	 * second or later) is filled.  Then as told: section-relative. */
	if (err == SFU_E_LINKED) {
		FZ_REQUIRE(n >= 1 && n < max, "SFU_E_LINKED with %zu sections found", n);
		for (k = 0; k <= n; k++)
			flagless |= !(secs[k].flags & SFU_F_FDE_FUNC_START_PCREL);
		FZ_REQUIRE(flagless, "SFU_E_LINKED, yet every section has the PC-relative flag");
		err = core->section_split(secs, max, &n, data, size, addr, SFU_OPT_START_SECREL);
		FZ_REQUIRE(err != SFU_E_LINKED, "SFU_E_LINKED despite SFU_OPT_START_SECREL");
	} else if (err == SFU_OK && n > 1) {
		for (k = 0; k < n; k++)
			FZ_REQUIRE(secs[k].flags & SFU_F_FDE_FUNC_START_PCREL,
			           "sfu_section_split took %zu sections with no option, section %zu without the flag", n, k);
	}
	FZ_REQUIRE(n <= max, "sfu_section_split found more sections than it was given room for");
	FZ_REQUIRE(err == SFU_OK || err == SFU_E_FULL || err == SFU_E_EMPTY || err == SFU_E_ARG || dc_is_section_error(err),
	           "sfu_section_split returned %d", err);
	FZ_REQUIRE(err != SFU_OK || n >= 1, "sfu_section_split: success with no section");
	for (k = 0; k < n; k++) {
		sfu_section again;
		size_t off = (size_t)(secs[k].data - data);
		FZ_REQUIRE(secs[k].data >= data && off >= at && secs[k].size <= size - off,
		           "sfu_section_split: section %zu outside the span or overlapping the previous one", k);
		for (j = at; j < off; j++)
			FZ_REQUIRE(data[j] == 0, "sfu_section_split skipped a non-zero byte between sections");
		FZ_REQUIRE(secs[k].addr == addr + off, "sfu_section_split: wrong run-time address for section %zu", k);
		FZ_REQUIRE(secs[k].size == secs[k].end && secs[k].end >= SFU_HDR_SIZE,
		           "sfu_section_split: section %zu size is not its end", k);
		FZ_REQUIRE(core->section_init(&again, secs[k].data, secs[k].size, secs[k].addr) == SFU_OK &&
		               dc_sec_eq(&again, &secs[k]),
		           "sfu_section_split: section %zu does not stand on its own bytes", k);
		at = off + secs[k].size;
	}
	if (err == SFU_OK)
		for (j = at; j < size; j++)
			FZ_REQUIRE(data[j] == 0, "sfu_section_split succeeded with non-zero bytes after the last section");
	return err == SFU_OK ? n : 0;
}

/* The answer sfu_section_check_code must give for [lo, hi), and the FDE it
 * must blame, by the API's decode of each FDE: that FDE's error, or
 * SFU_E_CODE_RANGE for code outside the range (an end past hi or past
 * 2^64) or a start inside the previous FDE's code (not an identical FDE). */
static inline int dc_model_code(const struct wc_core *core, const sfu_section *sec, uint64_t lo, uint64_t hi,
                                uint32_t *at)
{
	uint64_t plo = 0, phi = 0;
	uint32_t i;
	for (i = 0; i < sec->num_fdes; i++) {
		sfu_fde f;
		int err = core->fde_get(sec, i, &f);
		uint64_t end = f.start + f.size;
		if (!err && (f.start < lo || f.start >= hi || end < f.start || end > hi))
			err = SFU_E_CODE_RANGE;
		if (!err && i > 0 && f.start >= plo && f.start < phi && !(f.start == plo && end == phi))
			err = SFU_E_CODE_RANGE;
		if (err) {
			*at = i;
			return err;
		}
		plo = f.start;
		phi = end;
	}
	return SFU_OK;
}

/* sfu_section_check_code on the smallest range holding every FDE that
 * decodes, and on that range less its first byte, less its last. */
static inline void dc_check_code(const sfu_section *sec)
{
	const struct wc_core *core = &wc_core_default;
	uint64_t lo = UINT64_MAX, hi = 0, r[3][2];
	uint32_t i, bad, at;
	int k, want, err;
	for (i = 0; i < sec->num_fdes; i++) {
		sfu_fde f;
		uint64_t len;
		if (core->fde_get(sec, i, &f))
			continue;
		len = f.size ? f.size : 1u;
		if (f.start > UINT64_MAX - len)
			continue; /* past 2^64: no range holds it */
		lo = f.start < lo ? f.start : lo;
		hi = f.start + len > hi ? f.start + len : hi;
	}
	if (lo >= hi) {
		lo = 0x1000;
		hi = 0x2000;
	}
	r[0][0] = lo, r[0][1] = hi;
	r[1][0] = lo + 1, r[1][1] = hi;
	r[2][0] = lo, r[2][1] = hi - 1;
	for (k = 0; k < 3; k++) {
		if (r[k][0] >= r[k][1])
			continue;
		bad = at = 0xffffffffu;
		want = dc_model_code(core, sec, r[k][0], r[k][1], &at);
		err = core->section_check_code(sec, r[k][0], r[k][1], &bad);
		FZ_REQUIRE(err == want && (err == SFU_OK || bad == at),
		           "sfu_section_check_code [%#llx, %#llx): %d at FDE %u, the model says %d at FDE %u",
		           (unsigned long long)r[k][0], (unsigned long long)r[k][1], err, bad, want, at);
	}
	FZ_REQUIRE(core->section_check_code(sec, hi, hi, NULL) == SFU_E_ARG, "sfu_section_check_code on an empty range");
}

/* What a reduced build (versions, byte orders, ABIs compiled out) must
 * say where the full build says `full`: the same, except a refusal of
 * what it does not read, at the point of sfu_section_init that checks it. */
static inline int dc_expect_init(const struct wc_core *r, const uint8_t *data, size_t size, int full)
{
	int big;
	unsigned v, abi;
	if (size < 4 || full == SFU_E_ARG)
		return full;
	if (!(data[0] == 0xe2 && data[1] == 0xde) && !(data[0] == 0xde && data[1] == 0xe2))
		return full;
	big = data[0] == 0xde;
	if (big ? !r->big : !r->little)
		return SFU_E_MAGIC;
	v = data[SFU_HDR_VERSION];
	if (v < 1 || v > 3)
		return full;
	if (!(v == 1 ? r->v1 : v == 2 ? r->v2 : r->v3))
		return SFU_E_VERSION;
	if (full == SFU_E_TRUNC_HDR || full == SFU_E_FLAGS)
		return full;
	abi = data[SFU_HDR_ABI];
	if ((abi == SFU_ABI_AMD64_LE && !r->amd64) || (abi == SFU_ABI_S390X_BE && !r->s390x) ||
	    ((abi == SFU_ABI_AARCH64_LE || abi == SFU_ABI_AARCH64_BE) && !r->aarch64))
		return SFU_E_ABI;
	return full;
}

/* A reduced build against the full one (*full: the full build's section,
 * NULL if it refused the bytes): the same answers everywhere, except
 * SFU_E_FDE_TYPE for FLEX FDEs where FLEX is compiled out. */
static inline void dc_check_reduced(const struct wc_core *r, const uint8_t *data, size_t size, uint64_t addr,
                                    const sfu_section *full, const uint64_t *pcs, size_t npcs)
{
	const struct wc_core *core = &wc_core_default;
	sfu_section fs, rs;
	int ef = full ? SFU_OK : core->section_init(&fs, data, size, addr);
	int er = r->section_init(&rs, data, size, addr), want = dc_expect_init(r, data, size, ef);
	uint32_t i, k;
	size_t p;
	FZ_REQUIRE(er == want, "build %s: sfu_section_init says %d, the full build %d (expected %d)", r->name, er, ef, want);
	if (er || !full)
		return;
	FZ_REQUIRE(dc_sec_eq(&rs, full), "build %s: sfu_section_init decodes the header differently", r->name);
	for (i = 0; i < full->num_fdes && i < 64; i++) {
		sfu_fde a, b;
		uint32_t off;
		int ea = core->fde_get(full, i, &a), eb = r->fde_get(&rs, i, &b);
		if (!r->flex && ea != SFU_E_FDE_FREOFF && ea != SFU_E_FDE_TYPE && a.type == SFU_FDE_TYPE_FLEX) {
			FZ_REQUIRE(eb == SFU_E_FDE_TYPE, "build %s: a FLEX FDE gives %d, not SFU_E_FDE_TYPE", r->name, eb);
			continue;
		}
		FZ_REQUIRE(ea == eb, "build %s: sfu_fde_get(%u) says %d, the full build %d", r->name, i, eb, ea);
		if (ea)
			continue;
		FZ_REQUIRE(a.start == b.start && a.size == b.size && a.fre_off == b.fre_off && a.num_fres == b.num_fres &&
		               a.info == b.info && a.info2 == b.info2 && a.rep_size == b.rep_size && a.type == b.type &&
		               a.signal == b.signal,
		           "build %s: sfu_fde_get(%u) decodes the FDE differently", r->name, i);
		off = a.fre_off;
		for (k = 0; k < a.num_fres && k < 64; k++) {
			sfu_fre fa, fb;
			sfu_row ra, rb;
			unsigned w;
			int xa = core->fre_get(full, &a, off, &fa), xb = r->fre_get(&rs, &b, off, &fb);
			FZ_REQUIRE(xa == xb, "build %s: sfu_fre_get says %d, the full build %d", r->name, xb, xa);
			if (xa)
				break;
			FZ_REQUIRE(fa.start == fb.start && fa.next == fb.next && fa.info == fb.info && fa.count == fb.count,
			           "build %s: sfu_fre_get decodes an FRE differently", r->name);
			for (w = 0; w < fa.count; w++)
				FZ_REQUIRE(core->fre_word(full, &fa, w) == r->fre_word(&rs, &fb, w),
				           "build %s: data word %u differs", r->name, w);
			xa = core->row_from_fre(full, &a, &fa, &ra);
			xb = r->row_from_fre(&rs, &b, &fb, &rb);
			FZ_REQUIRE(xa == xb && (xa || tr_row_eq(&ra, &rb)), "build %s: sfu_row_from_fre differs (%d vs %d)",
			           r->name, xb, xa);
			off = fa.next;
		}
	}
	for (p = 0; p < npcs; p++) {
		sfu_row ra, rb;
		int xa = core->find_row(full, pcs[p], &ra), xb = r->find_row(&rs, pcs[p], &rb);
		if (!r->flex && ((xa == SFU_OK && ra.flex) || (xa != SFU_OK && xb == SFU_E_FDE_TYPE)))
			FZ_REQUIRE(xb == SFU_E_FDE_TYPE, "build %s: lookup in a FLEX FDE gives %d", r->name, xb);
		else
			FZ_REQUIRE(xa == xb && (xa || tr_row_eq(&ra, &rb)), "build %s: sfu_find_row(0x%llx) says %d, the full build %d",
			           r->name, (unsigned long long)pcs[p], xb, xa);
	}
}

/* Misuse of the API is SFU_E_ARG, never a crash (once per process). */
static inline int dc_read_zero(void *ctx, uint64_t addr, uint64_t *out)
{
	(void)ctx;
	(void)addr;
	*out = 0;
	return 0;
}

static inline void dc_check_args(void)
{
	static int done;
	static const uint8_t hdr[SFU_HDR_SIZE] = { 0xe2, 0xde, 3, 0, SFU_ABI_AMD64_LE, 0, (uint8_t)-8 };
	const struct wc_core *c = &wc_core_default;
	sfu_section sec, many[2];
	sfu_fde fde;
	sfu_fre fre;
	sfu_row row;
	sfu_frame fr[2];
	sfu_regs regs;
	sfu_port port, noread;
	union {
		sfu_cursor cur;
		uint64_t room[64];
	} cu;
	size_t n;
	if (done)
		return;
	done = 1;
	memset(&regs, 0, sizeof regs);
	memset(&port, 0, sizeof port);
	port.read = dc_read_zero;
	noread = port;
	noread.read = NULL;
	FZ_REQUIRE(c->section_init(&sec, hdr, sizeof hdr, 0) == SFU_OK, "the empty V3 header is refused");
	FZ_REQUIRE(c->section_init(NULL, hdr, sizeof hdr, 0) == SFU_E_ARG, "sfu_section_init(NULL section)");
	FZ_REQUIRE(c->section_init(&many[0], NULL, 5, 0) == SFU_E_ARG, "sfu_section_init(NULL data)");
	FZ_REQUIRE(sizeof(size_t) < 8 || c->section_init(&many[0], hdr, (size_t)0x80000000u * 2u, 0) == SFU_E_ARG,
	           "sfu_section_init with 4 GiB");
	FZ_REQUIRE(c->section_split(many, 2, NULL, hdr, sizeof hdr, 0, 0) == SFU_E_ARG, "sfu_section_split(NULL n)");
	FZ_REQUIRE(c->section_split(NULL, 2, &n, hdr, sizeof hdr, 0, 0) == SFU_E_ARG, "sfu_section_split(NULL secs)");
	FZ_REQUIRE(c->section_validate(NULL, NULL) == SFU_E_ARG, "sfu_section_validate(NULL)");
	FZ_REQUIRE(c->fde_get(&sec, 0, &fde) == SFU_E_ARG, "sfu_fde_get past num_fdes");
	FZ_REQUIRE(c->fde_get(NULL, 0, &fde) == SFU_E_ARG && c->fde_get(&sec, 0, NULL) == SFU_E_ARG,
	           "sfu_fde_get(NULL)");
	(void)fre;
	FZ_REQUIRE(c->find_fde(NULL, 0, &fde, NULL) == SFU_E_ARG && c->find_fde(&sec, 0, NULL, NULL) == SFU_E_ARG,
	           "sfu_find_fde(NULL)");
	FZ_REQUIRE(c->find_row(NULL, 0, &row) == SFU_E_ARG && c->find_row(&sec, 0, NULL) == SFU_E_ARG,
	           "sfu_find_row(NULL)");
	FZ_REQUIRE(c->find_row_n(NULL, 1, 0, &row) == SFU_E_ARG && c->find_row_n(&sec, 1, 0, NULL) == SFU_E_ARG,
	           "sfu_find_row_n(NULL)");
	FZ_REQUIRE(c->find_row_n(NULL, 0, 0, &row) == SFU_E_NOINFO, "sfu_find_row_n over no sections");
	FZ_REQUIRE(c->cursor_init(NULL, &sec, 1, &port, &regs) == SFU_E_ARG &&
	               c->cursor_init(&cu.cur, &sec, 1, NULL, &regs) == SFU_E_ARG &&
	               c->cursor_init(&cu.cur, &sec, 1, &noread, &regs) == SFU_E_ARG &&
	               c->cursor_init(&cu.cur, &sec, 1, &port, NULL) == SFU_E_ARG &&
	               c->cursor_init(&cu.cur, NULL, 1, &port, &regs) == SFU_E_ARG,
	           "sfu_cursor_init with a NULL argument");
	FZ_REQUIRE(c->cursor_step(NULL) == SFU_E_ARG, "sfu_cursor_step(NULL)");
	FZ_REQUIRE(c->backtrace(&sec, 1, &port, &regs, fr, 2, NULL) == SFU_E_ARG &&
	               c->backtrace(&sec, 1, &port, &regs, NULL, 2, &n) == SFU_E_ARG &&
	               c->backtrace(&sec, 1, NULL, &regs, fr, 2, &n) == SFU_E_ARG,
	           "sfu_backtrace with a NULL argument");
	FZ_REQUIRE(c->backtrace(&sec, 1, &port, &regs, NULL, 0, &n) == SFU_E_FULL && n == 0,
	           "sfu_backtrace with no room: SFU_E_FULL and no frame");
	{
		sfu__compact_row cr;
		size_t bytes;
		uint64_t mem[8];
		FZ_REQUIRE(c->find_crow(NULL, 0, 0, &cr) == SFU_E_NOINFO, "the walk's lookup with no section");
		FZ_REQUIRE(wc_core_cache.index_size(NULL, SFU_INDEX_ROWS, &bytes) == SFU_E_ARG &&
		               wc_core_cache.index_size(&sec, SFU_INDEX_ROWS, NULL) == SFU_E_ARG &&
		               wc_core_cache.index_size(&sec, 9, &bytes) == SFU_E_ARG &&
		               wc_core_cache.index_build(NULL, SFU_INDEX_ROWS, mem, sizeof mem) == SFU_E_ARG &&
		               wc_core_cache.index_build(&sec, SFU_INDEX_ROWS, NULL, sizeof mem) == SFU_E_ARG,
		           "sfu_index_size/sfu_index_build misuse");
		FZ_REQUIRE(wc_core_cache.index_build(&sec, SFU_INDEX_NONE, NULL, 0) == SFU_OK && !sec.index,
		           "SFU_INDEX_NONE");
	}
}

/* Compact rows against general rows, and indexed lookups against plain
 * ones, at every interesting PC: an index builds exactly where the section
 * validates and its FDEs are in address order without overlap, within
 * 4 GiB; what it answers is what the search answers. */
static inline void dc_check_compact_and_index(const sfu_section *sec, int verr, const uint64_t *pcs, size_t npcs)
{
	static const unsigned kinds[2] = { SFU_INDEX_FDES, SFU_INDEX_ROWS };
	const struct wc_core *core = &wc_core_default, *ic = &wc_core_cache;
	sfu_section ix[2];
	void *mem[2] = { NULL, NULL };
	int built[2] = { 0, 0 };
	unsigned k;
	size_t p;

	for (k = 0; k < 2; k++) {
		size_t bytes = 0;
		int err = ic->index_size(sec, kinds[k], &bytes);
		ix[k] = *sec;
		ix[k].index = NULL;
		FZ_REQUIRE(err != SFU_OK || verr == SFU_OK, "an index was sized for a section that does not validate (%d)", verr);
		FZ_REQUIRE(err == SFU_OK || err == SFU_E_NOINDEX || err == verr,
		           "sfu_index_size says %d, sfu_section_validate %d", err, verr);
		if (err)
			continue;
		mem[k] = malloc(bytes + 8u);
		if (!mem[k])
			abort();
		err = ic->index_build(&ix[k], kinds[k], mem[k], bytes);
		FZ_REQUIRE(err == SFU_OK, "sfu_index_build failed (%d) where sfu_index_size succeeded", err);
		/* An index needs the memory it asked for, aligned. */
		FZ_REQUIRE(ic->index_build(&ix[k], kinds[k], (uint8_t *)mem[k] + 4, bytes) == SFU_E_ARG && !ix[k].index,
		           "sfu_index_build took misaligned memory");
		FZ_REQUIRE(!bytes || ic->index_build(&ix[k], kinds[k], mem[k], bytes - 1u) == SFU_E_ARG,
		           "sfu_index_build took less memory than it asked for");
		FZ_REQUIRE(ic->index_build(&ix[k], kinds[k], mem[k], bytes) == SFU_OK, "sfu_index_build does not rebuild");
		built[k] = 1;
	}
	for (p = 0; p < npcs; p++) {
		sfu__compact_row c, ci;
		sfu_row r, ri;
		sfu_fde f, fi;
		uint32_t i0 = 0, i1 = 0;
		int ec = core->find_crow(sec, 1, pcs[p], &c), er = core->find_row_n(sec, 1, pcs[p], &r);
		int ef = core->find_fde(sec, pcs[p], &f, &i0);
		FZ_REQUIRE(ec == er, "the walk's lookup says %d, sfu_find_row_n %d at 0x%llx", ec, er, (unsigned long long)pcs[p]);
		FZ_REQUIRE(ec != SFU_OK || tr_crow_is_row(&c, &r), "the compact row (flags 0x%x) is not the general row at 0x%llx",
		           c.flags, (unsigned long long)pcs[p]);
		for (k = 0; k < 2; k++) {
			int e1, e2, e3;
			if (!built[k])
				continue;
			e1 = ic->find_crow(&ix[k], 1, pcs[p], &ci);
			e2 = ic->find_row_n(&ix[k], 1, pcs[p], &ri);
			e3 = ic->find_fde(&ix[k], pcs[p], &fi, &i1);
			FZ_REQUIRE(e1 == ec && (ec || tr_crow_eq(&c, &ci)), "index kind %u: compact row %d (0x%x), plain %d (0x%x)",
			           kinds[k], e1, ci.flags, ec, c.flags);
			FZ_REQUIRE(e2 == er && (er || tr_row_eq(&r, &ri)), "index kind %u: general row %d, plain %d", kinds[k], e2, er);
			FZ_REQUIRE(e3 == ef && (ef || (i1 == i0 && fi.start == f.start)), "index kind %u: FDE %d/%u, plain %d/%u",
			           kinds[k], e3, i1, ef, i0);
		}
	}
	free(mem[0]);
	free(mem[1]);
}

/* Check one section (data, size, addr) with the default core, and the
 * reduced ones against it.  `given` are extra PCs. */
static inline void dc_check_section(const uint8_t *data, size_t size, uint64_t addr, const uint64_t *given,
                                    size_t ngiven)
{
	static uint64_t pcs[DC_MAX_PCS];
	const struct wc_core *core = &wc_core_default;
	sfu_section sec, sec2, pair[2];
	uint32_t bad = 0xffffffffu, bad2 = 0xffffffffu, i;
	int err, err2, verr, herr;
	size_t n, p;

	dc_check_args();
	memset(&sec, 0, sizeof sec);
	memset(&sec2, 0, sizeof sec2);
	err = core->section_init(&sec, data, size, addr);
	err2 = core->section_init(&sec2, data, size, addr);
	FZ_REQUIRE(err == err2 && (err || dc_sec_eq(&sec, &sec2)), "sfu_section_init is not deterministic");
	FZ_REQUIRE(err == SFU_OK || dc_is_section_error(err) || err == SFU_E_ARG,
	           "sfu_section_init returned %d, not a section error", err);

	if (err) {
		dc_check_reduced(&wc_core_min, data, size, addr, NULL, NULL, 0);
		dc_check_reduced(&wc_core_v3be, data, size, addr, NULL, NULL, 0);
		dc_check_reduced(&wc_core_v1, data, size, addr, NULL, NULL, 0);
		return;
	}
	dc_check_opts(data, size, addr, &sec);
	dc_check_code(&sec);

	/* validate == walking every FDE and FRE by hand. */
	verr = core->section_validate(&sec, &bad);
	FZ_REQUIRE(verr == SFU_OK || dc_is_section_error(verr), "sfu_section_validate returned %d", verr);
	herr = dc_validate_by_hand(core, &sec, &bad2);
	FZ_REQUIRE(verr == herr, "sfu_section_validate says %d, the FDE/FRE API says %d", verr, herr);
	FZ_REQUIRE(verr == SFU_OK || bad == bad2, "sfu_section_validate blames FDE %u, the API FDE %u", bad, bad2);

	/* Every row against the spec model (model.h), from the data words as
	 * the core reads them. */
	for (i = 0; i < sec.num_fdes && i < 64; i++) {
		sfu_fde fde;
		uint32_t k, off;
		if (core->fde_get(&sec, i, &fde))
			continue;
		off = fde.fre_off;
		for (k = 0; k < fde.num_fres && k < 64; k++) {
			struct sfm_fre in;
			sfu_fre fre;
			sfu_row row, want;
			unsigned w;
			int er, ec;
			if (core->fre_get(&sec, &fde, off, &fre))
				break;
			memset(&in, 0, sizeof in);
			in.version = sec.version;
			in.abi = sec.abi;
			in.fixed_ra = sec.fixed_ra;
			in.flex = fde.type == SFU_FDE_TYPE_FLEX;
			in.signal = fde.signal;
			in.func_start = fde.start;
			in.func_size = fde.size;
			in.start = fre.start;
			in.base_sp = SFU_FRE_INFO_BASE_REG(fre.info) == SFU_BASE_REG_SP;
			in.mangled = (uint8_t)SFU_FRE_INFO_MANGLED_RA(fre.info);
			in.count = fre.count;
			in.wsize = fre.wsize;
			in.pcmask = fde.pctype == SFU_FDE_PCTYPE_MASK;
			in.fde_nfres = fde.num_fres;
			for (w = 0; w < fre.count; w++)
				in.w[w] = core->fre_word(&sec, &fre, w);
			er = sfm_expect_row(&in, &want);
			ec = core->row_from_fre(&sec, &fde, &fre, &row);
			FZ_REQUIRE(ec == er, "sfu_row_from_fre: %d, the spec model says %d (V%u abi %u %s, %u words of %u bytes)",
			           ec, er, sec.version, sec.abi, in.flex ? "FLEX" : "DEFAULT", fre.count, fre.wsize);
			FZ_REQUIRE(ec != SFU_OK || tr_row_eq(&row, &want),
			           "sfu_row_from_fre: rules differ from the spec model (V%u abi %u %s, %u words of %u bytes)",
			           sec.version, sec.abi, in.flex ? "FLEX" : "DEFAULT", fre.count, fre.wsize);
			off = fre.next;
		}
	}

	/* FREs at arbitrary offsets, for every FDE that decodes. */
	for (i = 0; i < sec.num_fdes && i < 32; i++) {
		sfu_fde fde;
		uint32_t k;
		if (core->fde_get(&sec, i, &fde))
			continue;
		FZ_REQUIRE(fde.fre_off <= sec.fre_len && fde.fre_type <= SFU_FRE_TYPE_ADDR4,
		           "sfu_fde_get accepted an FDE outside the FRE sub-section");
		for (k = 0; k < 8; k++) {
			sfu_fre fre;
			uint32_t off = k < 4 ? sec.fre_len - k : (uint32_t)(ngiven ? given[k % ngiven] : k * 7u) % (sec.fre_len + 9u);
			if (core->fre_get(&sec, &fde, off, &fre) == SFU_OK) {
				FZ_REQUIRE(fre.next > off && fre.next <= sec.fre_len, "sfu_fre_get went out of its sub-section");
				FZ_REQUIRE(fre.count <= SFU_FRE_MAX_WORDS && (fre.wsize == 1 || fre.wsize == 2 || fre.wsize == 4),
				           "sfu_fre_get made an impossible FRE");
			}
		}
	}

	/* Lookups. */
	n = dc_interesting_pcs(core, &sec, given, ngiven, pcs);
	pair[0] = sec;
	pair[1] = sec;
	for (p = 0; p < n; p++) {
		uint64_t pc = pcs[p];
		sfu_row row, row2;
		sfu_fde fde;
		uint32_t idx;
		int r = core->find_row(&sec, pc, &row);
		int rf = core->find_fde(&sec, pc, &fde, &idx);
		FZ_REQUIRE(r == SFU_OK || r == SFU_E_NOINFO || dc_is_section_error(r), "sfu_find_row returned %d", r);
		if (verr == SFU_OK)
			FZ_REQUIRE(r == SFU_OK || r == SFU_E_NOINFO,
			           "sfu_find_row reports a corrupt section (%d) after a clean validate", r);
		FZ_REQUIRE(core->find_row_n(pair, 2, pc, &row2) == r, "sfu_find_row_n disagrees with sfu_find_row");
		if (rf == SFU_OK) {
			FZ_REQUIRE(idx < sec.num_fdes && pc - fde.start < (uint64_t)fde.size,
			           "sfu_find_fde returned an FDE that does not cover the PC");
		} else {
			FZ_REQUIRE(r == rf, "sfu_find_row (%d) and sfu_find_fde (%d) disagree", r, rf);
		}
		if (r != SFU_OK)
			continue;
		FZ_REQUIRE(rf == SFU_OK && row.func_start == fde.start && row.func_size == fde.size,
		           "row found in a different FDE than sfu_find_fde's");
		{
			/* The row is the last FRE at or before the PC offset. */
			/* PC types (spec 2.3.3.1): INC, MASK with a repeat size (pc
			 * offset modulo it), and V1 MASK, where FRE starts are masks
			 * matching when (offset & start) == start, the last match
			 * winning (V1 spec; what ld 2.40's .plt FDEs need). */
			uint32_t pcoff = (uint32_t)(pc - fde.start), off = fde.fre_off, k;
			int mask_v1 = fde.pctype == SFU_FDE_PCTYPE_MASK && sec.version == SFU_VERSION_1;
			sfu_fre fre, best;
			sfu_row want;
			int have = 0;
			if (fde.pctype == SFU_FDE_PCTYPE_MASK && fde.rep_size)
				pcoff %= fde.rep_size;
			FZ_REQUIRE(row.fre_start <= pcoff, "row starts after the PC");
			memset(&best, 0, sizeof best);
			for (k = 0; k < fde.num_fres; k++) {
				if (core->fre_get(&sec, &fde, off, &fre) != SFU_OK) {
					/* The lookup reads no more of the first FRE past the
					 * PC offset than its start. */
					uint32_t at = sec.fre_base + off, ab = fde.fre_type == 0 ? 1u : fde.fre_type == 1 ? 2u : 4u, v = 0, j;
					FZ_REQUIRE(!mask_v1 && off <= sec.fre_len && ab <= sec.fre_len - off,
					           "FRE of a found row does not decode");
					for (j = 0; j < ab; j++)
						v |= (uint32_t)sec.data[at + (sec.big ? ab - 1u - j : j)] << (8u * j);
					FZ_REQUIRE(v > pcoff, "FRE of a found row does not decode");
					break;
				}
				off = fre.next;
				if (mask_v1) {
					if ((pcoff & fre.start) == fre.start) {
						best = fre;
						have = 1;
					}
					continue;
				}
				if (fre.start > pcoff)
					break;
				best = fre;
				have = 1;
			}
			if (!have) {
				FZ_REQUIRE(fde.num_fres == 0 && sec.version == SFU_VERSION_3 && row.ra.kind == SFU_RULE_UNDEF,
				           "a row was found where no FRE starts at or before the PC");
			} else {
				FZ_REQUIRE(core->row_from_fre(&sec, &fde, &best, &want) == SFU_OK && tr_row_eq(&row, &want),
				           "sfu_find_row did not return the FRE the PC type selects");
			}
		}
	}
	dc_check_compact_and_index(&sec, verr, pcs, n);
	/* Reduced builds read what they support exactly as the full one. */
	dc_check_reduced(&wc_core_min, data, size, addr, &sec, pcs, n);
	dc_check_reduced(&wc_core_v3be, data, size, addr, &sec, pcs, n);
	dc_check_reduced(&wc_core_v1, data, size, addr, &sec, pcs, n);
}

#endif /* DECODE_CHECK_H */
