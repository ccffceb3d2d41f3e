/* SPDX-License-Identifier: MIT */
/* ut_verdict.c - why two traces differ: each comparison ends identical or
 * with a cause from UT_CATS (ut_harness.h); a tally counts them per case and
 * keeps the first example of each; ut_print_tally prints the case's line.
 * Recording a cause formats nothing (details are start-up strings), so it
 * is safe in a signal handler. */
#include "ut_harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct {
	unsigned char explained, example;
	const char *text;
} ut_cats[UT_NCATS] = {
#define UT_CAT_ROW(name, explained, example, text) [name] = { explained, example, text },
	UT_CATS(UT_CAT_ROW)
#undef UT_CAT_ROW
};

const ut_trace *ut_ex_s, *ut_ex_r;
const sfu_regs *ut_first_regs;

static int ut_cat_explained(int cat)
{
	return ut_cats[cat].explained;
}

void ut_note(ut_tally *t, int cat, const char *detail, int err, uint64_t pc, int frame)
{
	unsigned i;
	int k;
	for (i = 0; i < t->ncauses; i++) {
		ut_cause *c = &t->causes[i];
		if (c->cat == cat && c->detail == detail && c->err == err) {
			c->count++;
			return;
		}
	}
	if (t->ncauses < 32) {
		ut_cause *c = &t->causes[t->ncauses++];
		c->cat = cat;
		c->detail = detail;
		c->err = err;
		c->pc = pc;
		c->frame = frame;
		c->count = 1;
		c->ns = c->nr = 0;
		for (k = 0; ut_ex_s && k < ut_ex_s->n && k < 12; k++, c->ns++) {
			c->spc[k] = ut_ex_s->pc[k];
			c->ssp[k] = ut_ex_s->sp[k];
		}
		for (k = 0; ut_ex_r && k < ut_ex_r->n && k < 12; k++, c->nr++) {
			c->rpc[k] = ut_ex_r->pc[k];
			c->rsp[k] = ut_ex_r->sp[k];
		}
	}
}

static uint64_t ut_lookup_pc(const ut_trace *t, int k)
{
	return t->exact[k] ? t->pc[k] : t->pc[k] - 1;
}

/* Index of main's frame in the reference, or -1. */
int ut_find_main(const ut_trace *r)
{
	int k;
	for (k = 0; k < r->n; k++) {
		uint64_t pc = ut_lookup_pc(r, k);
		if (pc >= ut_stop->lo && pc < ut_stop->hi)
			return k;
	}
	return -1;
}

/* gcc's x86_64 DRAP epilogue: after `leave` has restored the caller's %rbp,
 * the CFI still says "rbp saved at (rbp + 0)" (no .cfi_restore; gas copies
 * it into the FLEX row), so FP recovery reads through the caller's %rbp.
 * Detected from the row and the registers: a FLEX row recovers FP by
 * dereferencing FP, and FP no longer points into this frame [sp, cfa). */
int ut_stale_fp(const sfu_regs *r)
{
	sfu_row row;
	uint64_t base, cfa;
	if (!r || sfu_find_row_n(ut_secs, ut_nsecs, r->pc, &row) != SFU_OK)
		return 0;
	if (!row.flex || row.fp.kind != SFU_RULE_DEREF || row.fp.base != SFU_REG_FP)
		return 0;
	if (row.cfa.base == SFU_REG_SP)
		base = r->sp;
	else if (row.cfa.base == SFU_REG_FP)
		base = r->fp;
	else if (r->dwarf && row.cfa.base < r->ndwarf)
		base = r->dwarf[row.cfa.base];
	else
		return 0;
	cfa = base + (uint64_t)(int64_t)row.cfa.off;
	if (row.cfa.kind == SFU_RULE_DEREF) {
		sfu_host_ctx ctx;
		ctx.mem = &ut_mem;
		if (sfu_host_read(&ctx, cfa, &cfa))
			return 0;
	}
	return r->fp < r->sp || r->fp >= cfa;
}

/* sfu could not step out of frame j of s: say why, from where its PC is. */
int ut_explain_stop(const ut_trace *s, int j, const char **detail)
{
	uint64_t pc = ut_lookup_pc(s, j);
	const ut_sym *sym = ut_sym_at(pc);
	const char *sec = ut_exesec_at(pc);
	sfu_fde fde;
	size_t i;
	int has_fde = 0;
	for (i = 0; i < ut_nsecs && !has_fde; i++)
		has_fde = sfu_find_fde(&ut_secs[i], pc, &fde, NULL) == SFU_OK;
	if (!sec) {
		*detail = ut_map_at(pc);
		return UT_C_DSO;
	}
	if (has_fde && j == 0 && (s->err == SFU_E_READ || s->err == SFU_E_ALIGN) && ut_stale_fp(ut_first_regs)) {
		*detail = sym ? sym->name : sec;
		return UT_C_STALE_FP;
	}
	if (has_fde && j > 0 && s->err == SFU_E_UNSAFE) {
		*detail = sym ? sym->name : sec;
		return UT_C_UNSAFE;
	}
	if (has_fde || s->err != SFU_E_NOINFO) {
		*detail = sym ? sym->name : sec;
		return UT_C_STOP;
	}
	if (!strncmp(sec, ".plt", 4)) {
		*detail = sec;
		return UT_C_PLT;
	}
	if (ut_own(sym)) {
		*detail = sym->name;
		return !strncmp(sym->name, "sh_realign", 10) && ut_version < 3 ? UT_C_GAS_SKIP : UT_C_OWN_NOFDE;
	}
	*detail = sym ? sym->name : sec;
	return UT_C_EXE_LIBC;
}

/* Compare s (sfu) with r (reference) from the first frame up to main's
 * frame in r.  Frames before `from` are compared by function only, frame
 * `from` by PC only when pc_only_first, the rest by PC and SP.  Where sfu
 * stops early, its stop is explained from where its PC is. */
void ut_judge(const ut_trace *s, const ut_trace *r, int from, int pc_only_first, ut_verdict *v)
{
	int km = ut_find_main(r), k;
	v->cat = -1;
	v->detail = "";
	v->err = 0;
	for (k = 0;; k++) {
		if (k >= s->n) {
			v->cat = ut_explain_stop(s, k - 1, &v->detail);
			v->err = s->err;
			v->frame = k - 1;
			v->pc = s->pc[k - 1];
			return;
		}
		if (k >= r->n) {
			v->cat = UT_C_REF;
			v->detail = r->n ? ut_map_at(r->pc[r->n - 1]) : "nothing";
			v->frame = k;
			v->pc = s->pc[k];
			return;
		}
		if (k < from) {
			const ut_sym *a = ut_sym_at(ut_lookup_pc(s, k)), *b = ut_sym_at(ut_lookup_pc(r, k));
			if (a != b || !a)
				break;
		} else if (s->pc[k] != r->pc[k] || (s->sp[k] != r->sp[k] && !(k == from && pc_only_first))) {
			break;
		}
		if (k == km)
			return;
	}
	{
		/* Name the frame whose row produced the wrong caller. */
		int j = k ? k - 1 : 0;
		uint64_t pc = ut_lookup_pc(r, j);
		const ut_sym *sym = ut_sym_at(pc);
		v->cat = UT_C_DIFF;
		v->detail = sym ? sym->name : ut_map_at(pc);
		v->frame = k;
		v->pc = r->pc[j];
	}
}

void ut_record(ut_tally *t, const ut_verdict *v, const ut_trace *s, const ut_trace *r)
{
	t->total++;
	if (v->cat < 0) {
		t->same++;
		return;
	}
	ut_ex_s = s;
	ut_ex_r = r;
	ut_note(t, v->cat, v->detail, v->err, v->pc, v->frame);
	if (ut_cat_explained(v->cat))
		t->explained++;
	else
		t->unexplained++;
}

/* A second reference (libunwind) disagreeing where sfu and libgcc agree is
 * the second reference's own doing: say so, with where it happened. */
void ut_second_opinion(ut_verdict *v, const ut_verdict *first)
{
	if (v->cat >= 0 && !ut_cat_explained(v->cat) && (first->cat < 0 || ut_cat_explained(first->cat)))
		v->cat = v->cat == UT_C_REF ? UT_C_LU_REF : UT_C_LU_DIFF;
}

/* One case line.  The unit of a synchronous case is a probe (or a trap),
 * of an asynchronous one a timer sample, of a single-step one an
 * instruction. */
static void ut_print_tally(const char *verb, const char *name, const ut_tally *t, const char *extra)
{
	unsigned i;
	int ok = t->unexplained == 0 && t->total > 0;
	const char *unit = !strcmp(verb, "async")                           ? "samples"
	                   : strstr(name, "/continuity")                   ? "transitions"
	                   : !strcmp(verb, "step") || !strcmp(verb, "bkpt") ? "instructions"
	                                                                    : "probes";
	char one[16];
	if (t->total == 1) { /* "1 probe" */
		snprintf(one, sizeof one, "%s", unit);
		one[strlen(one) - 1] = 0;
		unit = one;
	}
	printf("%s %s %s: %u %s, %u identical", ok ? "ok" : "FAIL", verb, name, t->total, unit, t->same);
	if (t->explained)
		printf(", %u explained", t->explained);
	if (t->unexplained)
		printf(", %u UNEXPLAINED", t->unexplained);
	if (extra && *extra)
		printf(", %s", extra);
	for (i = 0; i < t->ncauses; i++) {
		const ut_cause *c = &t->causes[i];
		const ut_sym *s = ut_sym_at(c->pc);
		printf("%s %u x [%s %s", i ? ";" : " --", c->count, ut_cats[c->cat].text, c->detail);
		if (ut_cats[c->cat].example)
			printf(" (frame %d, pc %#" PRIx64 " %s+%#" PRIx64 ", sfu: %s)", c->frame, c->pc,
			       s ? s->name : ut_map_at(c->pc), s ? c->pc - s->lo : 0, sfu_strerror(c->err));
		printf("]");
	}
	printf("\n");
	/* The first example of every cause that shows one, frame by frame. */
	for (i = 0; i < t->ncauses; i++) {
		const ut_cause *c = &t->causes[i];
		int k;
		if (!ut_cats[c->cat].example)
			continue;
		printf("#   example of cause %u: sfu | reference (pc sp)\n", i + 1);
		for (k = 0; k < c->ns || k < c->nr; k++) {
			const ut_sym *a = k < c->ns ? ut_sym_at(c->spc[k] - (k > 0)) : NULL;
			const ut_sym *b = k < c->nr ? ut_sym_at(c->rpc[k] - (k > 0)) : NULL;
			printf("#   %2d  ", k);
			if (k < c->ns)
				printf("%#14" PRIx64 " %#14" PRIx64 " %-22s", c->spc[k], c->ssp[k], a ? a->name : ut_map_at(c->spc[k]));
			else
				printf("%-60s", "-");
			if (k < c->nr)
				printf(" | %#14" PRIx64 " %#14" PRIx64 " %s", c->rpc[k], c->rsp[k], b ? b->name : ut_map_at(c->rpc[k]));
			printf("\n");
		}
	}
}

/* The line of case NAME/SUFFIX (NAME alone if SUFFIX is NULL); 1 if the
 * case fails: an unexplained cause, or fewer than `min` comparisons. */
int ut_report(const char *verb, const char *name, const char *suffix, const ut_tally *t, unsigned min,
              const char *extra)
{
	char full[256];
	if (suffix)
		snprintf(full, sizeof full, "%s/%s", name, suffix);
	else
		snprintf(full, sizeof full, "%s", name);
	ut_print_tally(verb, full, t, extra);
	return t->unexplained || t->total < min;
}
