/* SPDX-License-Identifier: MIT */
/* wc.h - walk checker: a fake stack behind an sfu_port, fuzz-controlled
 * trap and strip_ra hooks, a builder of consistent call chains on real or
 * generated sections, and the walk properties every harness and the
 * property tests assert.  Host-side test code (libc); see wc_core.h for the
 * core configurations it drives.
 *
 * The properties (wc_check_walk):
 *   - the walk stops with a reason (a defined error code, never SFU_OK),
 *     within SFU_DEPTH_CAP frames and within the caller's buffer;
 *   - every stack read goes through the port; a read the port refuses
 *     (outside the stack image it was given, unaligned, or the one the
 *     harness chose to refuse) is the last read and the walk then stops
 *     with SFU_E_READ; SFU_E_READ never appears without a refusal;
 *   - a frame reached through SFrame comes from a lookup PC that has SFrame
 *     coverage (sfu_find_row_n succeeds on it), its CFA is aligned, the
 *     stack pointer never goes down and stays on the stack it was on
 *     (several may be declared: sfu_port.stacks); a frame reached through a
 *     trap frame comes from a PC with no coverage and a trap hook that
 *     matched, and may be on another declared stack; a trap the hook says
 *     ran in user mode is the last frame and the walk ends with
 *     SFU_END_USER;
 *   - a walk ends as complete only where the end is known: an outermost
 *     row (RA undefined), a frame of a function named as an entry (its
 *     FDE starts at one, or its PC is one; no frame before the last is
 *     one), a return address of 0 whose caller SP lies within the port's
 *     top bytes of the current stack's top (SFU_END), a zeroed trap frame
 *     there (SFU_END_NEVER_RAN); the same zero anywhere else stops with
 *     SFU_E_ZERO_RA; a user-mode trap frame whose SP is on a declared
 *     stack is walked on;
 *   - the same walk twice gives the same frames, the same reads and the
 *     same hook calls, and sfu_backtrace agrees with cursor_init/step;
 *   - every other way to the same answer gives the same walk, read for read:
 *     the row cache (small and roomy, cold and warm), the general rules
 *     instead of compact rows (SFU_COMPACT 0), each kind of index, an index
 *     and the cache together; and every lookup of the walk gives the same
 *     row compact and general, indexed and not.
 * Trap frames may hand over registers in a kernel's own order (dwarf_map).
 * A chain built by wc_chain_build is also walked back exactly. */
#ifndef WC_H
#define WC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wc_core.h"
#include "../common/rows.h"

#define WC_MAX_WORDS 4096 /* stack image, 8-byte words */
#define WC_MAX_TRAPS 4
#define WC_MAX_DWARF 40
#define WC_MAX_FRAMES 320 /* > every SFU_DEPTH_CAP the harnesses build */
#define WC_MAX_CODE 256
#define WC_MAX_CHAIN 40
#define WC_MAX_STACKS 4
#define WC_MAX_ENTRIES 4

/* ---- deterministic PRNG (splitmix64) ------------------------------------ */

struct wc_rng {
	uint64_t s;
};

static inline uint64_t wc_next(struct wc_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform-enough in [0, n); 0 when n == 0. */
static inline uint64_t wc_below(struct wc_rng *r, uint64_t n)
{
	return n ? wc_next(r) % n : 0;
}

/* ---- the environment of one walk ----------------------------------------- */

struct wc_trap {
	uint64_t pc, sp; /* where the hook matches */
	int any_sp;      /* match pc alone */
	int user;        /* answer SFU_TRAP_USER (else SFU_TRAP_KERNEL) */
	int empty;       /* answer SFU_TRAP_EMPTY: a zeroed frame */
	sfu_regs out;    /* what it returns; out.dwarf points into dwarf[] */
	uint64_t dwarf[WC_MAX_DWARF];
	/* With a map (env.use_map): the registers handed over in another
	 * order, block[(map[i] - 1) / 8] = dwarf[i], some not saved (map[i]
	 * 0; wc_finish). */
	uint64_t block[WC_MAX_DWARF];
};

enum wc_strip { WC_STRIP_ID, WC_STRIP_AND, WC_STRIP_OR, WC_STRIP_CONST, WC_STRIP_ZERO, WC_STRIP_MODES };

struct wc_env {
	const struct wc_core *core;
	const sfu_section *secs;
	size_t nsecs;
	/* The stack image: words[i] lives at img_lo + 8 i. */
	uint64_t img_lo;
	size_t nwords;
	uint64_t words[WC_MAX_WORDS];
	/* Bounds declared to the core (sfu_port.stack_lo/hi, .stacks). */
	uint64_t stack_lo, stack_hi;
	size_t nstacks;
	sfu_stack stacks[WC_MAX_STACKS];
	/* Where a whole trace ends (sfu_port.entries, .top). */
	size_t nentries;
	uint64_t entries[WC_MAX_ENTRIES];
	uint32_t top;
	/* Registers handed over through a dwarf_map (wc_map): the start
	 * registers' and every trap frame's. */
	int use_map;
	uint16_t map[WC_MAX_DWARF]; /* byte offset + 1; 0: not saved */
	uint64_t block[WC_MAX_DWARF];
	uint32_t refuse_at; /* refuse the Nth port read (1-based); 0: never */
	int use_trap, use_strip;
	unsigned ntraps;
	struct wc_trap traps[WC_MAX_TRAPS];
	unsigned strip_mode;
	uint64_t strip_mask;
	sfu_regs regs; /* regs.dwarf points at dwarf[] when set */
	uint64_t dwarf[WC_MAX_DWARF];
	size_t max_frames;
};

/* What the port saw during one walk. */
struct wc_log {
	uint32_t reads, refused, last_refused, outside, unaligned; /* last_refused: its read number */
	uint64_t hash;
	uint32_t trap_calls, trap_hits, strip_calls, trap_user, trap_empty;
	uint64_t empty_end; /* the last zeroed trap frame's end (its out.sp) */
	const char *bad; /* a violation seen inside a hook */
};

struct wc_ctx {
	const struct wc_env *env;
	struct wc_log log;
};

static inline uint64_t wc_img_hi(const struct wc_env *e)
{
	return e->img_lo + 8u * (uint64_t)e->nwords; /* one past the end */
}

/* Make sure the image does not wrap around the address space. */
static inline void wc_fix_image(struct wc_env *e)
{
	if (e->nwords > WC_MAX_WORDS)
		e->nwords = WC_MAX_WORDS;
	e->img_lo &= ~(uint64_t)7;
	if (e->img_lo > UINT64_MAX - 8u * (uint64_t)WC_MAX_WORDS - 8u)
		e->img_lo = UINT64_MAX - 8u * (uint64_t)WC_MAX_WORDS - 8u;
	e->img_lo &= ~(uint64_t)7;
}

/* Not static: core_cache.c calls it through SFU_READ.  (wc.h is included
 * by one translation unit of each program.) */
int wc_port_read(void *vctx, uint64_t addr, uint64_t *out);
int wc_port_read(void *vctx, uint64_t addr, uint64_t *out)
{
	struct wc_ctx *c = (struct wc_ctx *)vctx;
	const struct wc_env *e = c->env;
	c->log.reads++;
	c->log.hash = (c->log.hash ^ addr) * 0x100000001b3ull;
	if (addr & 7u) {
		c->log.unaligned++;
		c->log.refused++;
		c->log.last_refused = c->log.reads;
		return 1;
	}
	if (e->refuse_at && c->log.reads == e->refuse_at) {
		c->log.refused++;
		c->log.last_refused = c->log.reads;
		return 1;
	}
	if (addr < e->img_lo || addr >= wc_img_hi(e)) {
		c->log.outside++;
		c->log.refused++;
		c->log.last_refused = c->log.reads;
		return 1;
	}
	*out = e->words[(addr - e->img_lo) / 8u];
	return 0;
}

static inline uint64_t wc_port_strip(void *vctx, uint64_t ra)
{
	struct wc_ctx *c = (struct wc_ctx *)vctx;
	const struct wc_env *e = c->env;
	c->log.strip_calls++;
	switch (e->strip_mode) {
	case WC_STRIP_AND: return ra & e->strip_mask;
	case WC_STRIP_OR: return ra | e->strip_mask;
	case WC_STRIP_CONST: return e->strip_mask;
	case WC_STRIP_ZERO: return 0;
	default: return ra;
	}
}

static inline int wc_user_is_kernel(const struct wc_env *e, uint64_t pc, uint64_t sp);

static inline int wc_port_trap(void *vctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
	struct wc_ctx *c = (struct wc_ctx *)vctx;
	const struct wc_env *e = c->env;
	sfu_row row;
	unsigned i;
	c->log.trap_calls++;
	/* The core asks only where the lookup PC (pc, or pc - 1 for a return
	 * address) has no SFrame info. */
	if (e->core->find_row_n(e->secs, e->nsecs, pc, &row) != SFU_E_NOINFO &&
	    e->core->find_row_n(e->secs, e->nsecs, pc - 1u, &row) != SFU_E_NOINFO)
		c->log.bad = "trap hook called for a PC that has SFrame info";
	for (i = 0; i < e->ntraps && i < WC_MAX_TRAPS; i++) {
		const struct wc_trap *t = &e->traps[i];
		if (t->pc == pc && (t->any_sp || t->sp == sp)) {
			*out = t->out;
			out->dwarf = e->use_map ? t->block : t->dwarf;
			out->dwarf_map = e->use_map ? e->map : NULL;
			if (out->ndwarf > WC_MAX_DWARF)
				out->ndwarf = WC_MAX_DWARF;
			c->log.trap_hits++;
			if (t->empty) {
				c->log.trap_empty++;
				c->log.empty_end = t->out.sp;
				return SFU_TRAP_EMPTY;
			}
			/* (A user-mode frame whose SP or PC is the kernel's is
			 * walked on; one with PC 0 stops the walk.) */
			c->log.trap_user += (uint32_t)(t->user != 0 && !wc_user_is_kernel(e, t->out.pc, t->out.sp));
			return t->user ? SFU_TRAP_USER : SFU_TRAP_KERNEL;
		}
	}
	return SFU_TRAP_NONE;
}

/* A kernel's register order: register i at byte offset map[i] - 1 of the
 * block, every eleventh one not saved. */
static inline void wc_map(struct wc_env *e)
{
	unsigned i;
	for (i = 0; i < WC_MAX_DWARF; i++)
		e->map[i] = (uint16_t)(i % 11u == 5u ? 0u : 8u * ((i * 7u + 3u) % WC_MAX_DWARF) + 1u);
}

/* Before walking: with a map, lay every register set out in its order. */
static inline void wc_finish(struct wc_env *e)
{
	unsigned i, k;
	if (!e->use_map)
		return;
	wc_map(e);
	for (k = 0; k < e->ntraps && k < WC_MAX_TRAPS; k++)
		for (i = 0; i < WC_MAX_DWARF; i++)
			if (e->map[i] != 0)
				e->traps[k].block[(e->map[i] - 1u) / 8] = e->traps[k].dwarf[i];
	if (e->regs.dwarf == e->dwarf) {
		for (i = 0; i < WC_MAX_DWARF; i++)
			if (e->map[i] != 0)
				e->block[(e->map[i] - 1u) / 8] = e->dwarf[i];
		e->regs.dwarf = e->block;
		e->regs.dwarf_map = e->map;
	}
}

/* The stacks as the core sees them: which one holds sp (-1: [stack_lo,
 * stack_hi], checked first; 0..: stacks[]; -2: none), and whether any is
 * declared at all. */
static inline int wc_bounded(const struct wc_env *e)
{
	return e->stack_lo || e->stack_hi || e->nstacks;
}

static inline int wc_stack_of(const struct wc_env *e, uint64_t sp)
{
	size_t j;
	if ((e->stack_lo || e->stack_hi) && sp >= e->stack_lo && sp <= e->stack_hi)
		return -1;
	for (j = 0; j < e->nstacks; j++)
		if (sp >= e->stacks[j].lo && sp <= e->stacks[j].hi)
			return (int)j;
	return -2;
}

static inline int wc_on_stack(const struct wc_env *e, int st, uint64_t sp)
{
	if (!wc_bounded(e))
		return 1;
	if (st == -1)
		return sp >= e->stack_lo && sp <= e->stack_hi;
	return st >= 0 && sp >= e->stacks[st].lo && sp <= e->stacks[st].hi;
}

/* A user-mode context whose SP lies on a declared stack, or whose PC the
 * sections describe: kernel code, walked on (sfu.h, THE END OF A STACK);
 * (a PC of 0: no context, the walk stops: 1 too, it ends no walk as
 * user mode). */
static inline int wc_user_is_kernel(const struct wc_env *e, uint64_t pc, uint64_t sp)
{
	sfu_fde f;
	size_t i;
	if (pc == 0 || (wc_bounded(e) && wc_stack_of(e, sp) != -2))
		return 1;
	for (i = 0; i < e->nsecs; i++)
		if (e->core->find_fde(&e->secs[i], pc, &f, NULL) == SFU_OK)
			return 1;
	return 0;
}

/* The top (hi) of stack st (wc_stack_of's numbering). */
static inline uint64_t wc_stack_hi_of(const struct wc_env *e, int st)
{
	return st == -1 ? e->stack_hi : st >= 0 ? e->stacks[st].hi : 0;
}

/* The end rule: a return address of 0 (or a zeroed trap frame) whose
 * caller SP is sp, on stack st, is where the stack started: within the
 * port's top bytes (0: SFU_TOP_FRAME) of that stack's top. */
static inline int wc_zero_end(const struct wc_env *e, int st, uint64_t sp)
{
	uint64_t hi = wc_stack_hi_of(e, st), top = e->top ? e->top : (uint64_t)SFU_TOP_FRAME;
	return wc_bounded(e) && st != -2 && sp <= hi && hi - sp <= top;
}

/* Is the frame at pc (looked up at lookup) in a function named as an
 * entry: the FDE covering lookup starts at one, or pc is one? */
static inline int wc_is_entry(const struct wc_env *e, uint64_t pc, uint64_t lookup)
{
	sfu_fde f;
	size_t i;
	int found = 0;
	for (i = 0; i < e->nsecs && !found; i++)
		found = e->core->find_fde(&e->secs[i], lookup, &f, NULL) == SFU_OK;
	for (i = 0; i < e->nentries; i++)
		if (e->entries[i] == pc || (found && e->entries[i] == f.start))
			return 1;
	return 0;
}

static inline void wc_port_make(const struct wc_env *e, struct wc_ctx *ctx, sfu_port *p)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->env = e;
	ctx->log.hash = 0xcbf29ce484222325ull;
	p->read = wc_port_read;
	p->strip_ra = e->use_strip ? wc_port_strip : NULL;
	p->trap = e->use_trap ? wc_port_trap : NULL;
	p->ctx = ctx;
	p->stack_lo = e->stack_lo;
	p->stack_hi = e->stack_hi;
	p->stacks = e->nstacks ? e->stacks : NULL;
	p->nstacks = e->nstacks;
	p->entries = e->nentries ? e->entries : NULL;
	p->nentries = e->nentries;
	p->top = e->top;
}

/* ---- the walk and its properties -------------------------------------- */

struct wc_result {
	int rc;
	size_t n;
	sfu_frame frames[WC_MAX_FRAMES];
	struct wc_log log;
};

static inline void wc_run_other(const struct wc_env *e, const struct wc_core *core, const sfu_section *secs,
                                size_t nsecs, void *cache, struct wc_result *r);

static inline void wc_run(const struct wc_env *e, struct wc_result *r)
{
	wc_run_other(e, e->core, e->secs, e->nsecs, NULL, r);
}

static inline unsigned wc_align_of(unsigned abi);

/* The last step of a walk (from the frame regs, full and exact as given,
 * its row lookup lr and row; empty: a zeroed trap frame was met) stopped
 * with rc: does the stop follow the end rule?  SFU_END only at an
 * outermost row, an entry, or a zero at the top of the current stack (the
 * cursor's); SFU_E_ZERO_RA for the zero anywhere else; SFU_END_NEVER_RAN
 * for a zeroed trap frame at the top.  Where the caller's SP cannot be
 * computed here (a rule on another register), only the codes are
 * checked. */
static inline const char *wc_end_agrees(const struct wc_env *e, const sfu_cursor *cp, int rc, int lr,
                                        const sfu_row *row, const sfu_regs *regs, uint8_t full, uint8_t exact,
                                        int empty, uint64_t empty_end)
{
	uint64_t sp = 0, lookup = exact ? regs->pc : regs->pc - 1u, top = e->top ? e->top : (uint64_t)SFU_TOP_FRAME;
	int known = 1, at_top, entry, undef = lr == SFU_OK && row->ra.kind == SFU_RULE_UNDEF;
	if (rc != SFU_END && rc != SFU_E_ZERO_RA && rc != SFU_END_NEVER_RAN)
		return NULL;
	entry = regs->pc != 0 && wc_is_entry(e, regs->pc, lookup);
	if (rc == SFU_END_NEVER_RAN && !empty)
		return "SFU_END_NEVER_RAN without a zeroed trap frame";
	if (empty)
		sp = empty_end; /* the zeroed frame's end, as the hook gave it */
	else if (regs->pc == 0 && full && rc == SFU_END)
		return "SFU_END from PC 0 with no return address (no context at all)";
	else if (regs->pc == 0 && full)
		return NULL; /* (PC 0, RA 0: SFU_E_ZERO_RA, wherever it lies) */
	else if (regs->pc == 0)
		sp = regs->sp;
	else if (lr != SFU_OK)
		sp = regs->fp + 16u; /* the frame-pointer fallback */
	else if (row->cfa.kind == SFU_RULE_OFF && (row->cfa.base == SFU_REG_SP || row->cfa.base == SFU_REG_FP))
		sp = (row->cfa.base == SFU_REG_SP ? regs->sp : regs->fp) + (uint64_t)(int64_t)row->cfa.off +
		     (uint64_t)(int64_t)row->sp_from_cfa;
	else
		known = 0;
	at_top = cp->bounded && sp <= cp->stack_hi && cp->stack_hi - sp <= top;
	if (rc == SFU_END && !undef && !entry && !empty && known && !at_top)
		return "SFU_END from a return address of 0 that is not at the top of the stack";
	if (rc == SFU_E_ZERO_RA && (entry || undef))
		return "SFU_E_ZERO_RA at an entry or an outermost row";
	if (rc == SFU_E_ZERO_RA && known && at_top)
		return "SFU_E_ZERO_RA for a return address of 0 at the top of the stack";
	if (rc == SFU_END_NEVER_RAN && (!at_top || empty_end <= regs->sp))
		return "SFU_END_NEVER_RAN away from the top of the stack";
	if (empty && rc == SFU_E_ZERO_RA && at_top && empty_end > regs->sp)
		return "SFU_E_ZERO_RA for a zeroed trap frame that ends at the top of the stack";
	return NULL;
}

/* The same walk through the cursor API, step by step, with the refusal
 * rules: a read the port refuses is the last read of its step, and the
 * step then fails with SFU_E_READ, except for the read of a saved FP (a
 * DEREF FP rule: compilers leave stale ones in epilogues), which makes the
 * caller's FP unknown; a later frame whose CFA is FP-based must then stop
 * with SFU_E_UNSAFE before reading anything. */
static inline const char *wc_cursor_agrees(const struct wc_env *e, const struct wc_result *r)
{
	struct wc_ctx ctx;
	sfu_port port;
	/* Builds differ in the cursor's tail (SFU_CACHE adds a field): room
	 * for any of them, the common prefix read through sfu_cursor. */
	union {
		sfu_cursor c;
		uint64_t room[64];
	} cu;
	sfu_cursor *cp = &cu.c;
	size_t k = 0, max = e->max_frames < WC_MAX_FRAMES ? e->max_frames : WC_MAX_FRAMES;
	int rc, fp_unknown = 0, was_unknown, last_lr = SFU_E_NOINFO, last_empty = 0;
	sfu_row last_row;
	sfu_regs last_regs;
	uint8_t last_full = 0, last_exact = 0;
	const char *why;
	memset(&last_row, 0, sizeof last_row);
	memset(&last_regs, 0, sizeof last_regs);
	wc_port_make(e, &ctx, &port);
	if (e->core->cursor_init(cp, e->secs, e->nsecs, &port, &e->regs) != SFU_OK)
		return "sfu_cursor_init failed where sfu_backtrace did not";
	for (;;) {
		sfu_row row;
		int lr;
		uint32_t reads0, refused0;
		memset(&row, 0, sizeof row);
		if (k == max) {
			rc = SFU_E_FULL;
			break;
		}
		if (k >= r->n || r->frames[k].pc != cp->regs.pc || r->frames[k].sp != cp->regs.sp ||
		    r->frames[k].cfa != cp->cfa || r->frames[k].how != cp->how)
			return "cursor walk and sfu_backtrace give different frames";
		k++;
		lr = cp->regs.pc ? e->core->find_row_n(e->secs, e->nsecs, cp->exact ? cp->regs.pc : cp->regs.pc - 1u, &row)
		                 : SFU_E_NOINFO;
		reads0 = ctx.log.reads;
		refused0 = ctx.log.refused;
		was_unknown = fp_unknown;
		last_lr = lr;
		last_row = row;
		last_regs = cp->regs;
		last_full = cp->full;
		last_exact = cp->exact;
		last_empty = (int)ctx.log.trap_empty;
		rc = e->core->cursor_step(cp);
		last_empty = (int)ctx.log.trap_empty != last_empty;
		if (getenv("WC_TRACE"))
			fprintf(stderr, "  step %zu: lookup %d cfa %u/%x%+d ra %u/%x%+d fp %u/%x%+d -> rc %d, %u reads, %u refused, fp %s\n",
			        k, lr, row.cfa.kind, row.cfa.base, row.cfa.off, row.ra.kind, row.ra.base, row.ra.off, row.fp.kind,
			        row.fp.base, row.fp.off, rc, ctx.log.reads - reads0, ctx.log.refused - refused0,
			        fp_unknown ? "unknown" : "known");
		if (ctx.log.refused != refused0) {
			if (ctx.log.refused - refused0 > 1 || ctx.log.last_refused != ctx.log.reads)
				return "the core read on after the port refused a read";
			if (rc != SFU_E_READ && !(lr == SFU_OK && row.fp.kind == SFU_RULE_DEREF))
				return "the port refused a read (not a saved FP) and the walk did not stop with SFU_E_READ";
			if (rc == SFU_OK)
				fp_unknown = 1;
		} else if (rc == SFU_E_READ) {
			return "SFU_E_READ without a refused read in that step";
		}
		/* (DEPTH: the step did nothing; an entry ends the walk before
		 * any rule is applied.) */
		if (was_unknown && lr == SFU_OK && rc != SFU_E_DEPTH &&
		    !(rc == SFU_END && last_regs.pc && wc_is_entry(e, last_regs.pc, last_exact ? last_regs.pc : last_regs.pc - 1u))) {
			int ra_fp = row.ra.kind != SFU_RULE_SAME && row.ra.kind != SFU_RULE_UNDEF && row.ra.base == SFU_REG_FP;
			int fp_fp = row.fp.kind != SFU_RULE_SAME && row.fp.base == SFU_REG_FP;
			/* (An outermost row ends the walk whatever its CFA.) */
			if (row.cfa.base == SFU_REG_FP && row.ra.kind != SFU_RULE_UNDEF &&
			    (rc != SFU_E_UNSAFE || ctx.log.reads != reads0))
				return "a CFA based on an FP lost to a refused read did not stop with SFU_E_UNSAFE";
			if ((ra_fp || fp_fp) && rc == SFU_OK)
				return "a rule based on an FP lost to a refused read was used";
		}
		if (rc != SFU_OK)
			break;
		/* Where the caller's FP comes from now. */
		if (cp->how == SFU_HOW_TRAP)
			fp_unknown = 0;
		else if (ctx.log.refused == refused0 && lr == SFU_OK && row.fp.kind != SFU_RULE_SAME)
			fp_unknown = 0;
		else if (lr != SFU_OK)
			fp_unknown = 0; /* frame-pointer fallback: read from the stack */
	}
	if (k != r->n || rc != r->rc)
		return "cursor walk and sfu_backtrace stop differently";
	if (ctx.log.reads != r->log.reads || ctx.log.hash != r->log.hash)
		return "cursor walk and sfu_backtrace read differently";
	why = wc_end_agrees(e, cp, rc, last_lr, &last_row, &last_regs, last_full, last_exact, last_empty,
	                    ctx.log.empty_end);
	return why;
}

static inline unsigned wc_align_of(unsigned abi)
{
	return (abi == SFU_ABI_AARCH64_LE || abi == SFU_ABI_AARCH64_BE) ? 16u : 8u;
}


/* Section arrays with an index of one kind on every section that takes
 * one (built by the index core, wc_core_cache); the memory lives until the
 * next call. */
struct wc_indexed {
	sfu_section secs[8];
	size_t n, built;
	void *mem[8];
};

static inline const char *wc_index(const struct wc_env *e, unsigned kind, struct wc_indexed *x)
{
	const struct wc_core *ic = &wc_core_cache;
	size_t i;
	for (i = 0; i < 8; i++) {
		free(x->mem[i]);
		x->mem[i] = NULL;
	}
	x->n = e->nsecs < 8 ? e->nsecs : 8;
	x->built = 0;
	for (i = 0; i < x->n; i++) {
		size_t bytes = 0;
		int err;
		x->secs[i] = e->secs[i];
		x->secs[i].index = NULL;
		err = ic->index_size(&x->secs[i], kind, &bytes);
		if (err == SFU_E_ARG)
			return "sfu_index_size refused a section sfu_section_init accepted";
		if (err == SFU_OK && ic->section_validate(&x->secs[i], NULL) != SFU_OK)
			return "sfu_index_size accepted a section that does not validate";
		if (err)
			continue;
		x->mem[i] = malloc(bytes ? bytes : 1);
		if (!x->mem[i])
			abort();
		if (ic->index_build(&x->secs[i], kind, x->mem[i], bytes - (bytes ? 1 : 0)) != SFU_E_ARG && bytes)
			return "sfu_index_build took less memory than sfu_index_size asked for";
		if (ic->index_build(&x->secs[i], kind, x->mem[i], bytes) != SFU_OK)
			return "sfu_index_build failed where sfu_index_size succeeded";
		x->built++;
	}
	return NULL;
}

/* Walk e with another core, other sections, a cache (or not). */
static inline void wc_run_other(const struct wc_env *e, const struct wc_core *core, const sfu_section *secs,
                                size_t nsecs, void *cache, struct wc_result *r)
{
	struct wc_ctx ctx;
	sfu_port port;
	size_t max = e->max_frames < WC_MAX_FRAMES ? e->max_frames : WC_MAX_FRAMES;
	wc_port_make(e, &ctx, &port);
	memset(r->frames, 0, sizeof r->frames);
	r->n = 0;
	r->rc = cache ? core->backtrace_cached(secs, nsecs, cache, &port, &e->regs, r->frames, max, &r->n)
	              : core->backtrace(secs, nsecs, &port, &e->regs, r->frames, max, &r->n);
	r->log = ctx.log;
}

static inline int wc_same(const struct wc_result *a, const struct wc_result *b)
{
	return a->rc == b->rc && a->n == b->n && memcmp(a->frames, b->frames, sizeof a->frames) == 0 &&
	       a->log.reads == b->log.reads && a->log.hash == b->log.hash && a->log.trap_calls == b->log.trap_calls &&
	       a->log.strip_calls == b->log.strip_calls;
}

/* Every other way to the same walk (see the top of the file), for a core
 * with the default knobs (the index core and the general one share them). */
static inline const char *wc_other_ways(const struct wc_env *e, const struct wc_result *a)
{
	static struct wc_indexed x[2];
	static struct wc_result b;
	static const unsigned kinds[2] = { SFU_INDEX_FDES, SFU_INDEX_ROWS };
	const struct wc_core *ic = &wc_core_cache;
	unsigned kk, t;
	size_t k;
	const char *why;

	wc_run_other(e, &wc_core_general, e->secs, e->nsecs, NULL, &b);
	if (!wc_same(a, &b))
		return "the general rules walk differently from the compact rows";
	if (e->core != ic) {
		wc_run_other(e, ic, e->secs, e->nsecs, NULL, &b);
		if (!wc_same(a, &b))
			return "the core built with the cache and the indexes walks differently without them";
	}
	for (kk = 0; kk < 2; kk++) {
		why = wc_index(e, kinds[kk], &x[kk]);
		if (why)
			return why;
		wc_run_other(e, ic, x[kk].secs, x[kk].n, NULL, &b);
		if (!wc_same(a, &b))
			return kk ? "a walk with row indexes differs from the walk without"
			          : "a walk with FDE indexes differs from the walk without";
	}
	/* The row index and the cache together, cold and warm. */
	{
		void *cache = ic->cache_new(8);
		for (t = 0; t < 2; t++) {
			wc_run_other(e, ic, x[1].secs, x[1].n, cache, &b);
			if (!wc_same(a, &b))
				return "a walk with the row index and the cache differs from the walk without";
		}
	}
	/* Every lookup of the walk, and its neighbours: compact and general
	 * rows agree, and so do indexed and plain lookups. */
	for (k = 0; k < a->n; k++) {
		uint64_t pc0 = (a->frames[k].flags & SFU_FRAME_EXACT) ? a->frames[k].pc : a->frames[k].pc - 1u;
		int d;
		for (d = -1; d <= 1; d++) {
			uint64_t pc = pc0 + (uint64_t)(int64_t)d;
			sfu__compact_row c, ci;
			sfu_row r;
			int ec = e->core->find_crow(e->secs, e->nsecs, pc, &c);
			int er = e->core->find_row_n(e->secs, e->nsecs, pc, &r);
			if (ec != er)
				return "the walk's lookup and sfu_find_row_n disagree";
			if (ec == SFU_OK && !tr_crow_is_row(&c, &r))
				return (c.flags & SFU__CROW_GENERAL) ? "a row marked general has only default rules"
				                                     : "a compact row is not its general row";
			for (kk = 0; kk < 2; kk++) {
				int ei = ic->find_crow(x[kk].secs, x[kk].n, pc, &ci);
				if (ei != ec || (ec == SFU_OK && !tr_crow_eq(&c, &ci)))
					return "an indexed lookup gives another row";
			}
		}
	}
	return NULL;
}

/* Walk once and check every property; NULL if all hold, else what broke.
 * *out (may be NULL) gets the first walk. */
static inline const char *wc_check_walk(const struct wc_env *e, struct wc_result *out)
{
	static struct wc_result a, b; /* large: keep them off the stack */
	const struct wc_core *core = e->core;
	size_t max = e->max_frames < WC_MAX_FRAMES ? e->max_frames : WC_MAX_FRAMES;
	size_t k;
	int exact = 1, full = 1, st;
	const char *why;

	wc_run(e, &a);
	if (out)
		*out = a;
	if (a.log.bad)
		return a.log.bad;
	if (a.rc == SFU_OK || a.rc < 0 || a.rc >= SFU_ERROR_COUNT)
		return "walk returned SFU_OK or an undefined code";
	if (a.n > max)
		return "walk wrote past the caller's buffer";
	if (a.n > core->depth_cap)
		return "walk went past SFU_DEPTH_CAP frames";
	if (max && a.n == 0)
		return "walk reported no frame at all";
	if (a.rc == SFU_E_FULL && a.n != max)
		return "SFU_E_FULL with room left in the buffer";
	if (a.rc == SFU_E_DEPTH && a.n != core->depth_cap)
		return "SFU_E_DEPTH before SFU_DEPTH_CAP frames";
	/* Refusals are checked step by step in wc_cursor_agrees. */
	if (a.rc == SFU_E_READ && !a.log.refused)
		return "SFU_E_READ without a refused read";
	if (a.log.strip_calls > a.n)
		return "strip_ra called more than once per step";
	if (a.log.trap_hits > a.n)
		return "more trap hits than frames";

	if (a.log.trap_user > 1)
		return "the walk went on after a frame that ran in user mode";
	if (a.log.trap_empty > 1 || (a.log.trap_empty && a.rc != SFU_END_NEVER_RAN && a.rc != SFU_E_ZERO_RA))
		return "the walk went on after a zeroed trap frame";
	if (a.rc == SFU_END_NEVER_RAN && !a.log.trap_empty)
		return "SFU_END_NEVER_RAN without a zeroed trap frame";
	/* A function named as an entry is the last frame. */
	for (k = 0; k < a.n && e->nentries; k++) {
		const sfu_frame *f = &a.frames[k];
		if (f->pc == 0 || !wc_is_entry(e, f->pc, sfu_frame_lookup_pc(f)))
			continue;
		if (k + 1 < a.n)
			return "the walk went on past a function named as an entry";
		if (a.rc != SFU_END && a.rc != SFU_E_DEPTH && a.rc != SFU_END_USER && a.rc != SFU_E_STACK_BOUNDS)
			return "a walk that reached a function named as an entry did not end there";
	}

	/* Frame by frame.  The first frame's stack: if it is on none of the
	 * declared ones, the first step says so. */
	if (a.n) {
		if (a.frames[0].pc != e->regs.pc || a.frames[0].sp != e->regs.sp || a.frames[0].how != SFU_HOW_START ||
		    a.frames[0].cfa != 0)
			return "frame 0 is not the starting registers";
	}
	st = wc_stack_of(e, e->regs.sp);
	if (a.n && wc_bounded(e) && st == -2 && !(a.n == 1 && (a.rc == SFU_E_STACK_BOUNDS || a.rc == SFU_E_FULL)))
		return "a first frame on no declared stack did not stop the walk with SFU_E_STACK_BOUNDS";
	for (k = 1; k < a.n; k++) {
		const sfu_frame *p = &a.frames[k - 1], *f = &a.frames[k];
		uint64_t lookup = exact ? p->pc : p->pc - 1u;
		sfu_row row;
		int lr = core->find_row_n(e->secs, e->nsecs, lookup, &row);
		/* RA 0 ends the walk unreported; only an interrupted context
		 * (a call through a null pointer) may have PC 0. */
		if (f->pc == 0 && f->how != SFU_HOW_TRAP)
			return "a frame with PC 0 was reported (RA 0 ends the walk)";
		/* A frame that ran in user mode is the last; nothing is known of
		 * its stack. */
		if (f->flags & SFU_FRAME_USER) {
			if (f->how != SFU_HOW_TRAP || k + 1 != a.n || a.rc != SFU_END_USER)
				return "a user-mode frame that is not the last trap frame of a walk ending with SFU_END_USER";
			if (wc_user_is_kernel(e, f->pc, f->sp))
				return "a user-mode frame whose SP or PC is the kernel's ended the walk";
		} else if (f->how == SFU_HOW_TRAP) {
			/* A trap frame may lead to any declared stack. */
			st = wc_stack_of(e, f->sp);
			if (wc_bounded(e) && st == -2)
				return "a trap frame's SP is on no declared stack";
		} else if (!wc_on_stack(e, st, f->sp)) {
			return "a frame left its stack other than through a trap frame";
		}
		if (a.rc == SFU_END_USER && !(a.frames[a.n - 1].flags & SFU_FRAME_USER))
			return "SFU_END_USER without a user-mode frame";
		/* The stack only moves toward its base, except across a trap
		 * frame (exception stacks are separate stacks). */
		if (f->how != SFU_HOW_TRAP && (f->sp < p->sp || (f->sp == p->sp && !full)))
			return "the stack pointer went the wrong way";
		switch (f->how) {
		case SFU_HOW_SFRAME:
			if (lr != SFU_OK)
				return "frame reached via SFrame from a lookup PC with no SFrame row";
			if (f->cfa & (wc_align_of(row.abi) - 1u))
				return "frame reached via SFrame with a misaligned CFA";
			if (f->sp != f->cfa + (uint64_t)(int64_t)row.sp_from_cfa)
				return "frame SP does not follow from its CFA";
			exact = row.signal;
			full = 0;
			break;
		case SFU_HOW_TRAP:
			if (!e->use_trap)
				return "trap frame without a trap hook";
			if (lr != SFU_E_NOINFO)
				return "trap frame from a lookup PC that has SFrame info";
			if (exact)
				return "trap frame from an exact PC (the hook is for return addresses)";
			if (f->sp == 0 && !(f->flags & SFU_FRAME_USER))
				return "trap frame with no stack pointer";
			exact = 1;
			full = 1;
			break;
		case SFU_HOW_NULL_CALL:
			/* Out of PC 0 with all registers known: the caller's
			 * return address is at [SP] (amd64) or in the link
			 * register, SP + 8 or unchanged. */
			if (p->pc != 0 || !full)
				return "null-call frame from a PC other than 0, or without full registers";
			if (f->sp != p->sp + (e->secs && e->nsecs && e->secs[0].abi == SFU_ABI_AMD64_LE ? 8u : 0u))
				return "null-call frame with the wrong SP";
			exact = 0;
			full = 0;
			break;
		case SFU_HOW_FP:
			if (!core->fp_fallback)
				return "frame-pointer frame with SFU_FP_FALLBACK off";
			if (lr != SFU_E_NOINFO)
				return "frame-pointer frame from a lookup PC that has SFrame info";
			exact = 0;
			full = 0;
			break;
		default:
			return "frame with an undefined how";
		}
	}

	/* Determinism and API agreement. */
	wc_run(e, &b);
	if (b.rc != a.rc || b.n != a.n || memcmp(a.frames, b.frames, sizeof a.frames) != 0)
		return "the same walk twice gave different frames";
	if (b.log.reads != a.log.reads || b.log.hash != a.log.hash || b.log.trap_calls != a.log.trap_calls ||
	    b.log.strip_calls != a.log.strip_calls)
		return "the same walk twice read or called hooks differently";
	why = wc_cursor_agrees(e, &a);
	if (why)
		return why;
	/* A row cache changes nothing but speed: a tiny one (collisions) and
	 * a roomy one, each walked twice (the second walk hits). */
	if (core->backtrace_cached) {
		static const size_t slots[2] = { 2, 64 };
		unsigned s, t;
		for (s = 0; s < 2; s++) {
			void *cache = core->cache_new(slots[s]);
			if (!cache)
				return "sfu_cache_init refused a valid cache";
			for (t = 0; t < 2; t++) {
				struct wc_ctx ctx;
				sfu_port port;
				wc_port_make(e, &ctx, &port);
				memset(b.frames, 0, sizeof b.frames);
				b.n = 0;
				b.rc = core->backtrace_cached(e->secs, e->nsecs, cache, &port, &e->regs, b.frames, max, &b.n);
				if (b.rc != a.rc || b.n != a.n || memcmp(a.frames, b.frames, sizeof a.frames) != 0) {
					if (getenv("FUZZ_VERBOSE")) {
						size_t k;
						fprintf(stderr, "  uncached rc %d, %zu frames; cached (%zu slots, walk %u) rc %d, %zu frames\n",
						        a.rc, a.n, slots[s], t + 1, b.rc, b.n);
						for (k = 0; k < a.n || k < b.n; k++)
							fprintf(stderr, "  #%zu %016llx sp %016llx how %u | %016llx sp %016llx how %u\n", k,
							        (unsigned long long)a.frames[k].pc, (unsigned long long)a.frames[k].sp,
							        a.frames[k].how, (unsigned long long)b.frames[k].pc,
							        (unsigned long long)b.frames[k].sp, b.frames[k].how);
					}
					return "a walk with the row cache differs from the walk without";
				}
				if (ctx.log.reads != a.log.reads || ctx.log.hash != a.log.hash)
					return "a walk with the row cache reads differently";
			}
		}
	}
	if (core == &wc_core_default || core == &wc_core_cache)
		return wc_other_ways(e, &a);
	return NULL;
}

/* ---- code ranges (for picking PCs and return addresses) ------------------ */

struct wc_code {
	size_t n;
	uint64_t start[WC_MAX_CODE];
	uint32_t size[WC_MAX_CODE];
};

static inline void wc_code_collect(const struct wc_core *core, const sfu_section *secs, size_t nsecs,
                                   struct wc_code *code)
{
	size_t s;
	uint32_t i;
	code->n = 0;
	for (s = 0; s < nsecs; s++) {
		for (i = 0; i < secs[s].num_fdes && code->n < WC_MAX_CODE; i++) {
			sfu_fde f;
			if (core->fde_get(&secs[s], i, &f) != SFU_OK || f.size == 0)
				continue;
			code->start[code->n] = f.start;
			code->size[code->n] = f.size;
			code->n++;
		}
	}
}

/* Name up to `max` entries among the functions of code (some not the
 * start of any: a return address planted at an exit routine), and a top
 * of 0 (the default) or a few words. */
static inline void wc_pick_entries(struct wc_env *e, const struct wc_code *code, struct wc_rng *r, size_t max)
{
	size_t k;
	e->nentries = max > WC_MAX_ENTRIES ? WC_MAX_ENTRIES : max;
	for (k = 0; k < e->nentries; k++) {
		if (code->n && wc_below(r, 4))
			e->entries[k] = code->start[wc_below(r, code->n)];
		else if (code->n)
			e->entries[k] = code->start[wc_below(r, code->n)] + 1u + wc_below(r, 16);
		else
			e->entries[k] = wc_next(r);
	}
	e->top = wc_below(r, 2) ? 0u : 8u * (uint32_t)wc_below(r, 64);
}

/* A PC with an SFrame row, or 0 after a few tries. */
static inline uint64_t wc_pick_covered(const struct wc_env *e, const struct wc_code *code, struct wc_rng *r)
{
	int tries;
	for (tries = 0; tries < 16 && code->n; tries++) {
		size_t k = (size_t)wc_below(r, code->n);
		uint64_t pc = code->start[k] + wc_below(r, code->size[k]);
		sfu_row row;
		if (pc && e->core->find_row_n(e->secs, e->nsecs, pc, &row) == SFU_OK)
			return pc;
	}
	return 0;
}

/* A return target: a PC whose row can be unwound from a frame that is not
 * the topmost (RA saved, CFA on SP or FP), as after a call instruction;
 * any covered PC if none is found. */
static inline uint64_t wc_pick_return(const struct wc_env *e, const struct wc_code *code, struct wc_rng *r)
{
	int tries;
	uint64_t any = 0;
	for (tries = 0; tries < 24; tries++) {
		uint64_t pc = wc_pick_covered(e, code, r);
		sfu_row row;
		if (!pc)
			continue;
		any = pc;
		if (e->core->find_row_n(e->secs, e->nsecs, pc, &row) == SFU_OK && row.ra.kind != SFU_RULE_SAME &&
		    (row.cfa.base == SFU_REG_SP || row.cfa.base == SFU_REG_FP) &&
		    (row.ra.kind == SFU_RULE_UNDEF || row.ra.base == SFU_REG_CFA) &&
		    (row.fp.kind == SFU_RULE_SAME || row.fp.base == SFU_REG_CFA))
			return pc;
	}
	return any;
}

/* A PC with no SFrame info at pc (nor at pc - 1), or 0. */
static inline uint64_t wc_pick_uncovered(const struct wc_env *e, const struct wc_code *code, struct wc_rng *r)
{
	int tries;
	for (tries = 0; tries < 16; tries++) {
		uint64_t pc;
		sfu_row row;
		if (code->n && (tries & 1) == 0) {
			size_t k = (size_t)wc_below(r, code->n);
			pc = code->start[k] + code->size[k] + wc_below(r, 64);
		} else {
			pc = wc_next(r) & 0x0000fffffffffff0ull;
		}
		if (pc > 1 && e->core->find_row_n(e->secs, e->nsecs, pc, &row) == SFU_E_NOINFO &&
		    e->core->find_row_n(e->secs, e->nsecs, pc - 1u, &row) == SFU_E_NOINFO)
			return pc;
	}
	return 0;
}

/* ---- chain builder --------------------------------------------------------
 * Build, on the stack image of e, a call chain the core should walk back
 * exactly: start registers, then for each frame the saved RA/FP slots its
 * SFrame row says to read, chosen so that the next frame is a return address
 * into code with SFrame info (or, now and then, a PC with none that a trap
 * hook entry turns back into registers).  Values not yet decided (the frame
 * pointer until a row uses it, the link register) are kept as pointers to
 * where they will be written.  The chain ends cleanly with an RA of 0 or an
 * outermost row, or stops where it cannot be continued (a rule the walk
 * rightly refuses); either way chain.n frames are known. */

struct wc_chain {
	size_t n;                          /* frames known */
	uint64_t pc[WC_MAX_CHAIN + 2], sp[WC_MAX_CHAIN + 2], cfa[WC_MAX_CHAIN + 2];
	uint8_t how[WC_MAX_CHAIN + 2];
	int clean;    /* the walk must stop with `stop` after exactly n frames */
	int end_user; /* ... with SFU_END_USER: the last frame ran in user mode */
	int stop;     /* SFU_END, SFU_END_USER, SFU_END_NEVER_RAN, or SFU_E_ZERO_RA
	               * (a return address of 0 away from the stack's top) */
};

struct wc_val {
	uint64_t v;
	uint64_t *slot; /* non-NULL: not decided yet, will be written here */
};

struct wc_builder {
	struct wc_env *e;
	struct wc_rng *r;
	uint8_t used[WC_MAX_WORDS]; /* 1: slot written, 2: reserved, undecided */
	uint8_t dset[WC_MAX_DWARF]; /* register of the current full frame decided */
	uint64_t pac_mask;          /* bits the strip hook keeps */
};

static inline int wc_slot(struct wc_builder *b, uint64_t addr, size_t *idx)
{
	if ((addr & 7u) || addr < b->e->img_lo || addr >= wc_img_hi(b->e))
		return 0;
	*idx = (size_t)((addr - b->e->img_lo) / 8u);
	return 1;
}

/* A fresh stack address for a frame pointer or a DEREF base: somewhere in
 * the upper half of the image. */
static inline uint64_t wc_rand_stack(struct wc_builder *b)
{
	size_t n = b->e->nwords;
	return b->e->img_lo + 8u * (n / 2u + (size_t)wc_below(b->r, n / 2u ? n / 2u : 1u));
}

/* Decide an undecided value. */
static inline void wc_settle(struct wc_builder *b, struct wc_val *x, uint64_t v)
{
	if (x->slot) {
		uint64_t *w0 = b->e->words;
		*x->slot = v;
		if (x->slot >= w0 && x->slot < w0 + b->e->nwords)
			b->used[x->slot - w0] = 1;
		x->slot = NULL;
	}
	x->v = v;
}

/* Evaluate rule `ru` of the frame (sp, *fp, dwarf) so that the result is
 * `want` where the rule leaves a choice.  want_free: no preference; then a
 * DEREF slot not yet used is returned undecided (res->slot set).
 * Returns 0 if the chain cannot go on through this rule. */
static inline int wc_eval(struct wc_builder *b, const sfu_rule *ru, uint64_t sp, struct wc_val *fp,
                          uint64_t *dwarf, uint64_t cfa, uint64_t want, int want_free, struct wc_val *res)
{
	uint64_t base, addr, off = (uint64_t)(int64_t)ru->off;
	size_t idx;

	switch (ru->base) {
	case SFU_REG_SP: base = sp; break;
	case SFU_REG_CFA: base = cfa; break;
	case SFU_REG_FP:
		if (fp->slot)
			wc_settle(b, fp, (ru->kind == SFU_RULE_OFF && !want_free ? want : wc_rand_stack(b)) - off);
		base = fp->v;
		break;
	default:
		if (!dwarf || ru->base >= WC_MAX_DWARF || (b->e->use_map && b->e->map[ru->base] == 0))
			return 0; /* the walk must refuse: SFU_E_UNSAFE */
		if (!b->dset[ru->base]) {
			dwarf[ru->base] = (ru->kind == SFU_RULE_OFF && !want_free ? want : wc_rand_stack(b)) - off;
			b->dset[ru->base] = 1;
		}
		base = dwarf[ru->base];
		break;
	}
	addr = base + off;
	res->slot = NULL;
	if (ru->kind == SFU_RULE_OFF) {
		res->v = addr;
		return 1;
	}
	if (ru->kind != SFU_RULE_DEREF)
		return 0;
	if (!wc_slot(b, addr, &idx))
		return 0; /* the walk must stop: SFU_E_READ or SFU_E_ALIGN */
	if (b->used[idx] == 2) {
		/* The undecided frame pointer's slot: decide it now. */
		if (fp->slot != &b->e->words[idx])
			return 0;
		wc_settle(b, fp, want_free ? wc_rand_stack(b) : want);
		res->v = fp->v;
		return 1;
	}
	if (b->used[idx]) {
		res->v = b->e->words[idx];
		return 1;
	}
	if (want_free) {
		b->used[idx] = 2;
		res->slot = &b->e->words[idx];
		res->v = 0;
		return 1;
	}
	b->used[idx] = 1;
	b->e->words[idx] = want;
	res->v = want;
	return 1;
}

/* Build a chain of up to `len` frames on e (regs, words, traps).  The
 * strip hook, if on, must be WC_STRIP_ID or WC_STRIP_AND with
 * 0x0000ffffffffffff (mangled RAs get random top bits). */
static inline void wc_chain_build(struct wc_env *e, const struct wc_code *code, struct wc_rng *r, size_t len,
                                  int allow_traps, struct wc_chain *ch)
{
	static struct wc_builder b;
	struct wc_val fp, ra_reg;
	uint64_t pc, sp, *dwarf;
	int exact = 1, full = 1, st;
	size_t i;

	memset(&b, 0, sizeof b);
	if (e->use_map)
		wc_map(e);
	b.e = e;
	b.r = r;
	b.pac_mask = 0x0000ffffffffffffull;
	ch->n = 0;
	ch->clean = 0;
	ch->end_user = 0;
	ch->stop = SFU_END;
	if (len > WC_MAX_CHAIN)
		len = WC_MAX_CHAIN;
	if (len > e->core->depth_cap - 1u)
		len = e->core->depth_cap - 1u;
	if (e->nwords < 64 || !code->n || len == 0)
		return;
	pc = wc_pick_covered(e, code, r);
	if (!pc)
		return;
	sp = e->img_lo + 16u * (uint64_t)wc_below(r, e->nwords / 16u);
	if (e->nstacks && e->stacks[0].hi > e->stacks[0].lo + 16u) /* start on the first declared stack */
		sp = (e->stacks[0].lo + 8u * wc_below(r, (e->stacks[0].hi - e->stacks[0].lo) / 16u) + 15u) & ~(uint64_t)15;
	st = wc_stack_of(e, sp);
	if (wc_bounded(e) && st == -2)
		return;
	e->regs.pc = pc;
	e->regs.sp = sp;
	e->regs.fp = 0;
	e->regs.ra = 0;
	e->regs.dwarf = e->dwarf;
	e->regs.ndwarf = WC_MAX_DWARF;
	dwarf = e->dwarf;
	fp.v = 0;
	fp.slot = &e->regs.fp;
	ra_reg.v = 0;
	ra_reg.slot = &e->regs.ra;
	ch->pc[0] = pc;
	ch->sp[0] = sp;
	ch->cfa[0] = 0;
	ch->how[0] = SFU_HOW_START;
	ch->n = 1;

	while (ch->n <= len) {
		sfu_row row;
		struct wc_val cfa, ra, nfp;
		uint64_t next_pc, next_sp, want_cfa, sfc;
		int last = ch->n == len, trap_hop = 0;
		unsigned align;

		if (wc_is_entry(e, pc, exact ? pc : pc - 1u)) {
			ch->clean = 1; /* a function named as an entry */
			break;
		}
		if (e->core->find_row_n(e->secs, e->nsecs, exact ? pc : pc - 1u, &row) != SFU_OK)
			break;
		if (row.ra.kind == SFU_RULE_UNDEF) {
			ch->clean = 1; /* outermost frame */
			break;
		}
		align = wc_align_of(row.abi);
		sfc = (uint64_t)(int64_t)row.sp_from_cfa;
		/* CFA: such that the caller's SP is a little above this SP; for
		 * the last frame, now and then at the top of its stack, where a
		 * return address of 0 is the end. */
		want_cfa = sp + (full ? 0u : 8u) + 8u * wc_below(r, 48) - sfc;
		if (last && wc_bounded(e) && st != -2 && wc_below(r, 2)) {
			uint64_t hi = wc_stack_hi_of(e, st), top = e->top ? e->top : (uint64_t)SFU_TOP_FRAME;
			uint64_t c = hi - sfc - 8u * wc_below(r, top / 8u + 2u);
			if (c - sfc > sp && c < wc_img_hi(e) - 64u)
				want_cfa = c & ~(uint64_t)(align - 1u);
		}
		want_cfa = (want_cfa + align - 1u) & ~(uint64_t)(align - 1u);
		if (want_cfa >= wc_img_hi(e) - 64u || want_cfa < e->img_lo)
			break;
		if (!wc_eval(&b, &row.cfa, sp, &fp, full ? dwarf : NULL, 0, want_cfa, 0, &cfa) || cfa.slot)
			break;
		next_sp = cfa.v + sfc;
		if (cfa.v & (align - 1u))
			break;
		if (next_sp < sp || (next_sp == sp && !full) || !wc_on_stack(e, st, next_sp))
			break;
		/* Where this frame returns to. */
		if (last) {
			next_pc = 0;
		} else if (allow_traps && !row.signal && ch->n + 2u <= len && e->ntraps < WC_MAX_TRAPS &&
		           wc_below(r, 6) == 0) {
			/* (Out of a signal frame the caller's PC is exact: code the
			 * signal interrupted, never a call into a handler, so the
			 * core does not ask the trap hook there.) */
			next_pc = wc_pick_uncovered(e, code, r);
			trap_hop = next_pc != 0;
			if (!trap_hop)
				next_pc = wc_pick_return(e, code, r);
		} else {
			next_pc = wc_pick_return(e, code, r);
		}
		if (!last && !next_pc)
			break;
		/* A return address is looked up at ra - 1, except out of a
		 * signal frame. */
		if (next_pc && !row.signal)
			next_pc += 1u;
		/* RA: the port strips what a mangled row gives, wherever it
		 * comes from. */
		{
			uint64_t stored = next_pc;
			if (row.mangled_ra && e->use_strip && e->strip_mode == WC_STRIP_AND && next_pc) {
				if (next_pc & ~b.pac_mask)
					break; /* code above the PAC bits: stripping would change it */
				stored = next_pc | (wc_next(r) & ~b.pac_mask);
			}
			if (row.ra.kind == SFU_RULE_SAME) {
				if (!full)
					break; /* the walk must refuse: SFU_E_UNSAFE */
				if (ra_reg.slot)
					wc_settle(&b, &ra_reg, stored);
				else if (ra_reg.v != stored)
					break;
			} else {
				if (!wc_eval(&b, &row.ra, sp, &fp, full ? dwarf : NULL, cfa.v, stored, 0, &ra))
					break;
				if (ra.v != stored)
					break; /* slot already holds another value */
			}
		}
		/* FP */
		if (row.fp.kind == SFU_RULE_SAME)
			nfp = fp;
		else if (!wc_eval(&b, &row.fp, sp, &fp, full ? dwarf : NULL, cfa.v, 0, 1, &nfp))
			break;
		if (next_pc == 0) {
			/* RA 0 ends the walk, that frame not reported: whole only
			 * at the top of the stack. */
			ch->clean = 1;
			ch->stop = wc_zero_end(e, st, next_sp) ? SFU_END : SFU_E_ZERO_RA;
			break;
		}
		ch->pc[ch->n] = next_pc;
		ch->sp[ch->n] = next_sp;
		ch->cfa[ch->n] = cfa.v;
		ch->how[ch->n] = SFU_HOW_SFRAME;
		ch->n++;
		pc = next_pc;
		sp = next_sp;
		fp = nfp;
		exact = row.signal;
		full = 0;
		dwarf = NULL;
		ra_reg.slot = NULL;
		ra_reg.v = 0;

		if (trap_hop) {
			/* The hook turns (pc, sp) into the interrupted context: an
			 * exact PC with every register known. */
			struct wc_trap *t = &e->traps[e->ntraps];
			uint64_t tpc = wc_pick_covered(e, code, r);
			uint64_t tsp = sp + 8u * (1u + wc_below(r, 32));
			int user = wc_below(r, 4) == 0, empty = wc_below(r, 8) == 0;
			/* User code mostly where the kernel's code is not (it ends
			 * the walk there); else at a covered PC (the kernel's:
			 * walked on). */
			if (user && wc_below(r, 3)) {
				uint64_t u = wc_pick_uncovered(e, code, r);
				if (u)
					tpc = u;
			}
			size_t j;
			if (wc_is_entry(e, pc, pc - 1u)) {
				ch->clean = 1; /* the stub itself named as an entry */
				break;
			}
			if (e->nstacks > 1 && wc_below(r, 2)) {
				/* An exception stack: another declared one. */
				const sfu_stack *o = &e->stacks[wc_below(r, e->nstacks)];
				if (o->hi > o->lo + 64u)
					tsp = o->lo + 8u * (1u + wc_below(r, (o->hi - o->lo) / 16u));
			}
			if (!tpc || tsp >= wc_img_hi(e) - 64u || tsp < e->img_lo || (wc_bounded(e) && wc_stack_of(e, tsp) == -2))
				break;
			for (j = 0; j < e->ntraps; j++)
				if (e->traps[j].pc == pc)
					goto stop; /* an earlier entry would match first */
			memset(t, 0, sizeof *t);
			t->pc = pc;
			t->sp = sp;
			t->user = user;
			if (empty) {
				/* A zeroed frame: nothing was saved there; the hook
				 * gives its end, now and then at the stack's top. */
				uint64_t end = tsp;
				if (wc_bounded(e) && st != -2 && wc_below(r, 2))
					end = wc_stack_hi_of(e, st) - 8u * wc_below(r, 12);
				t->empty = 1;
				t->out.sp = end;
				e->ntraps++;
				e->use_trap = 1;
				ch->clean = 1;
				ch->stop = end > sp && wc_zero_end(e, st, end) ? SFU_END_NEVER_RAN : SFU_E_ZERO_RA;
				break;
			}
			t->out.pc = tpc;
			t->out.sp = tsp;
			t->out.ndwarf = WC_MAX_DWARF;
			for (j = 0; j < WC_MAX_DWARF; j++)
				t->dwarf[j] = wc_next(r);
			e->ntraps++;
			e->use_trap = 1;
			if (fp.slot)
				wc_settle(&b, &fp, wc_rand_stack(&b));
			fp.v = 0;
			fp.slot = &t->out.fp;
			ra_reg.slot = &t->out.ra;
			dwarf = t->dwarf;
			memset(b.dset, 0, sizeof b.dset);
			pc = tpc;
			sp = tsp;
			exact = 1;
			full = 1;
			ch->pc[ch->n] = tpc;
			ch->sp[ch->n] = tsp;
			ch->cfa[ch->n] = tsp;
			ch->how[ch->n] = SFU_HOW_TRAP;
			ch->n++;
			st = wc_stack_of(e, tsp);
			if (user && !wc_user_is_kernel(e, tpc, tsp)) {
				/* User-mode code off every declared stack, at a PC
				 * the sections do not describe: the last frame.
				 * (Else the kernel's, walked on.) */
				ch->clean = 1;
				ch->end_user = 1;
				ch->stop = SFU_END_USER;
				break;
			}
		}
	}
stop:
	/* Undecided values: anything plausible. */
	if (fp.slot)
		wc_settle(&b, &fp, wc_rand_stack(&b));
	if (ra_reg.slot)
		wc_settle(&b, &ra_reg, wc_next(r));
	for (i = 0; i < e->nwords; i++)
		if (b.used[i] == 2)
			e->words[i] = wc_rand_stack(&b);
}

/* The walk of a chain: its first chain.n frames, and SFU_END if clean. */
static inline const char *wc_check_chain(const struct wc_chain *ch, const struct wc_result *r)
{
	size_t k;
	if (r->n < ch->n)
		return "chain: the walk stopped before the end of a consistent chain";
	for (k = 0; k < ch->n; k++)
		if (r->frames[k].pc != ch->pc[k] || r->frames[k].sp != ch->sp[k] ||
		    (k && r->frames[k].cfa != ch->cfa[k]) || r->frames[k].how != ch->how[k])
			return "chain: the walk left a consistent chain";
	if (ch->clean && (r->rc != ch->stop || r->n != ch->n))
		return ch->end_user           ? "chain: a chain into user mode did not end with SFU_END_USER"
		       : ch->stop == SFU_END  ? "chain: a chain that ends where its end is known did not end with SFU_END"
		                              : "chain: a chain that ends at a zero did not stop as the end rule says";
	return NULL;
}

/* Chain and walk side by side, for a human reading a finding. */
static inline void wc_print(FILE *out, const struct wc_chain *ch, const struct wc_result *r)
{
	size_t k, n = ch->n > r->n ? ch->n : r->n;
	fprintf(out, "  chain %zu frames%s; walk rc %d, %zu frames, %u reads\n", ch->n, ch->clean ? " (clean)" : "", r->rc,
	        r->n, r->log.reads);
	for (k = 0; k < n; k++)
		fprintf(out, "  #%zu chain %016llx sp %016llx cfa %016llx how %u | walk %016llx sp %016llx cfa %016llx how %u\n",
		        k, (unsigned long long)(k < ch->n ? ch->pc[k] : 0), (unsigned long long)(k < ch->n ? ch->sp[k] : 0),
		        (unsigned long long)(k < ch->n ? ch->cfa[k] : 0), k < ch->n ? ch->how[k] : 0,
		        (unsigned long long)(k < r->n ? r->frames[k].pc : 0), (unsigned long long)(k < r->n ? r->frames[k].sp : 0),
		        (unsigned long long)(k < r->n ? r->frames[k].cfa : 0), k < r->n ? r->frames[k].how : 0);
}

#endif /* WC_H */
