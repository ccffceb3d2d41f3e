/* harness.c - sfu against DWARF unwinders on live stacks.
 *
 *   unwind sync  NAME          probes deep in every frame shape: sfu from
 *                              registers captured in the probe against
 *                              libgcc's _Unwind_Backtrace from the same probe;
 *                              traps (SIGILL) in chosen functions: sfu from
 *                              the ucontext against libgcc through the
 *                              signal frame
 *   unwind async NAME N SECS   a timer interrupts the busy shapes until N
 *                              samples (or SECS seconds); every sample is
 *                              compared like a trap
 *   unwind step  NAME          x86_64: single-steps (EFLAGS.TF) one pass over
 *                              every shape and compares at every instruction
 *   unwind bkpt  NAME          aarch64: a BRK on every instruction of the
 *                              shapes, compared at its first execution, then
 *                              put back (exact PCs under QEMU too)
 *   unwind info                what .sframe this binary has
 *
 * Each case prints "ok <case>: ..." or "FAIL <case>: ...".  NAME is the
 * case prefix, e.g. sid/x86_64/O2.  See README.md for what is compared and
 * how mismatches are classified.
 *
 * Everything that runs in a signal handler here is async-signal-safe: no
 * malloc, no stdio, tables built at start-up.  libgcc's _Unwind_Backtrace is
 * called from the handler; it is warmed up before any signal (its first
 * call may allocate in static programs). */
#define _GNU_SOURCE
#define SFU_IMPLEMENTATION
#define SFU_STATIC
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../../port/host/sfu_port_host.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unwind.h>

#if UT_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "ut.h"

#define UT_MAXF 128

/* ---- traces -------------------------------------------------------------- */

typedef struct ut_trace {
	int n;   /* frames */
	int err; /* sfu: why the walk stopped */
	uint64_t pc[UT_MAXF], sp[UT_MAXF];
	uint8_t exact[UT_MAXF]; /* pc is exact (not a return address) */
	uint8_t how[UT_MAXF];   /* sfu: enum sfu_how */
} ut_trace;

static sfu_host_mem ut_mem;        /* the main thread's snapshot */
static sfu_host_mem ut_tmem;       /* the probe thread's (the "thread" case) */
static const sfu_host_mem *ut_memp = &ut_mem; /* the walking thread's */
static sfu_section ut_secs[SFU_HOST_MAX_SECTIONS];
static size_t ut_nsecs;

static void ut_sfu_trace(const sfu_regs *r, ut_trace *t, uint32_t *traps)
{
	sfu_host_ctx ctx;
	sfu_port port;
	sfu_frame f[UT_MAXF];
	size_t n = 0, k;
	sfu_host_port(&port, &ctx, ut_memp);
	t->err = sfu_backtrace(ut_secs, ut_nsecs, &port, r, f, UT_MAXF, &n);
	for (k = 0; k < n; k++) {
		t->pc[k] = f[k].pc;
		t->sp[k] = f[k].sp;
		t->how[k] = f[k].how;
		t->exact[k] = k == 0 || f[k].how == SFU_HOW_TRAP;
	}
	t->n = (int)n;
	if (traps)
		*traps = ctx.traps;
}

/* libgcc: IP and CFA of each frame.  _Unwind_GetCFA of the context for
 * frame k is the CFA of frame k-1, i.e. frame k's SP (x86_64 and aarch64
 * both define the CFA as the caller's SP after the call). */
static _Unwind_Reason_Code ut_gcc_cb(struct _Unwind_Context *ctx, void *arg)
{
	ut_trace *t = (ut_trace *)arg;
	int before = 0;
	if (t->n == UT_MAXF)
		return _URC_END_OF_STACK;
	t->pc[t->n] = (uint64_t)_Unwind_GetIPInfo(ctx, &before);
	t->sp[t->n] = (uint64_t)_Unwind_GetCFA(ctx);
	t->exact[t->n] = (uint8_t)(before != 0);
	t->how[t->n] = 0;
	t->n++;
	return _URC_NO_REASON;
}

#if UT_LIBUNWIND
static void ut_lu_walk(unw_cursor_t *cur, ut_trace *t)
{
	t->n = 0;
	do {
		unw_word_t ip = 0, sp = 0;
		if (unw_get_reg(cur, UNW_REG_IP, &ip) || unw_get_reg(cur, UNW_REG_SP, &sp))
			break;
		t->pc[t->n] = ip;
		t->sp[t->n] = sp;
		t->exact[t->n] = t->n == 0;
		t->n++;
	} while (t->n < UT_MAXF && unw_step(cur) > 0);
}
#endif

/* ---- where a PC is: symbols, sections, mappings (built at start-up) -------- */

typedef struct ut_sym {
	uint64_t lo, hi;
	const char *name;
} ut_sym;

static ut_sym *ut_syms;
static size_t ut_nsyms;
static uint64_t ut_bias;
static struct {
	uint64_t lo, hi;
	const char *name;
} ut_exesec[16];
static size_t ut_nexesec;
static struct {
	uint64_t lo, hi;
	char name[48];
} ut_maps[256];
static size_t ut_nmaps;
static const ut_sym *ut_main;
static const ut_sym *ut_stop; /* where comparisons end: main, or a thread's start routine */
static unsigned ut_version; /* SFrame version of the executable */

static int ut_sym_cmp(const void *a, const void *b)
{
	const ut_sym *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static const ut_sym *ut_sym_at(uint64_t pc)
{
	size_t lo = 0, hi = ut_nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ut_syms[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= ut_syms[lo - 1].hi)
		return NULL;
	return &ut_syms[lo - 1];
}

static const char *ut_exesec_at(uint64_t pc)
{
	size_t i;
	for (i = 0; i < ut_nexesec; i++)
		if (pc >= ut_exesec[i].lo && pc < ut_exesec[i].hi)
			return ut_exesec[i].name;
	return NULL;
}

static const char *ut_map_at(uint64_t pc)
{
	size_t i;
	const char *sec = ut_exesec_at(pc);
	if (sec)
		return sec;
	for (i = 0; i < ut_nmaps; i++)
		if (pc >= ut_maps[i].lo && pc < ut_maps[i].hi)
			return ut_maps[i].name;
	return "unmapped";
}

static int ut_own(const ut_sym *s)
{
	return s && (!strncmp(s->name, "sh_", 3) || !strncmp(s->name, "ut_", 3) || !strcmp(s->name, "main") ||
	             !strncmp(s->name, "main.", 5));
}

static int ut_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	ut_bias = info->dlpi_addr; /* the first object is the executable */
	return 1;
}

/* Symbols and sections of the executable, from /proc/self/exe. */
static int ut_load_self(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	static uint8_t *img; /* kept: symbol names point into it */
	long len;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	size_t i, j;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	img = malloc((size_t)len);
	if (!img || fread(img, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	dl_iterate_phdr(ut_phdr_cb, NULL);
	eh = (const Elf64_Ehdr *)img;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const char *nm = (const char *)img + sh[eh->e_shstrndx].sh_offset + sh[i].sh_name;
		if ((sh[i].sh_flags & SHF_EXECINSTR) && ut_nexesec < 16) {
			ut_exesec[ut_nexesec].lo = sh[i].sh_addr + ut_bias;
			ut_exesec[ut_nexesec].hi = sh[i].sh_addr + ut_bias + sh[i].sh_size;
			ut_exesec[ut_nexesec].name = nm;
			ut_nexesec++;
		}
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		{
			const Elf64_Sym *sy = (const Elf64_Sym *)(img + sh[i].sh_offset);
			const char *str = (const char *)img + sh[sh[i].sh_link].sh_offset;
			size_t n = sh[i].sh_size / sizeof *sy;
			ut_syms = calloc(n, sizeof *ut_syms);
			if (!ut_syms)
				return -1;
			for (j = 0; j < n; j++) {
				if (ELF64_ST_TYPE(sy[j].st_info) != STT_FUNC || sy[j].st_shndx == SHN_UNDEF || !sy[j].st_value)
					continue;
				ut_syms[ut_nsyms].lo = sy[j].st_value + ut_bias;
				ut_syms[ut_nsyms].hi = sy[j].st_value + ut_bias + sy[j].st_size;
				ut_syms[ut_nsyms].name = str + sy[j].st_name;
				ut_nsyms++;
			}
		}
	}
	qsort(ut_syms, ut_nsyms, sizeof *ut_syms, ut_sym_cmp);
	/* Size-0 symbols (assembly) extend to the next symbol; aliases of one
	 * address keep one entry. */
	for (i = 0, j = 0; i < ut_nsyms; i++) {
		if (j && ut_syms[j - 1].lo == ut_syms[i].lo) {
			if (ut_syms[i].hi > ut_syms[j - 1].hi)
				ut_syms[j - 1].hi = ut_syms[i].hi;
			if (ut_own(&ut_syms[i]))
				ut_syms[j - 1].name = ut_syms[i].name;
			continue;
		}
		ut_syms[j++] = ut_syms[i];
	}
	ut_nsyms = j;
	for (i = 0; i < ut_nsyms; i++) {
		size_t k;
		if (ut_syms[i].hi != ut_syms[i].lo)
			continue;
		ut_syms[i].hi = i + 1 < ut_nsyms ? ut_syms[i + 1].lo : ut_syms[i].lo + 1;
		for (k = 0; k < ut_nexesec; k++) /* not past its section (_init and .plt) */
			if (ut_syms[i].lo >= ut_exesec[k].lo && ut_syms[i].lo < ut_exesec[k].hi &&
			    ut_syms[i].hi > ut_exesec[k].hi)
				ut_syms[i].hi = ut_exesec[k].hi;
	}
	for (i = 0; i < ut_nsyms; i++)
		if (!strcmp(ut_syms[i].name, "main"))
			ut_main = &ut_syms[i];
	ut_stop = ut_main;
	return ut_main ? 0 : -1;
}

/* Executable mappings with their file names, for naming PCs outside the
 * executable's .sframe coverage. */
static void ut_load_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	if (!f)
		return;
	while (fgets(line, sizeof line, f) && ut_nmaps < 256) {
		unsigned long lo, hi;
		char perms[8], path[400] = "";
		const char *base;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %399s", &lo, &hi, perms, path) < 3 || perms[2] != 'x')
			continue;
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		ut_maps[ut_nmaps].lo = lo;
		ut_maps[ut_nmaps].hi = hi;
		base = *base ? base : "anonymous";
		{
			size_t k;
			for (k = 0; base[k] && k + 1 < sizeof ut_maps[ut_nmaps].name; k++)
				ut_maps[ut_nmaps].name[k] = base[k];
			ut_maps[ut_nmaps].name[k] = 0;
		}
		ut_nmaps++;
	}
	fclose(f);
}

/* ---- verdicts ---------------------------------------------------------------- */

/* Why two traces differ.  `detail` points to a start-up string (symbol,
 * section or mapping name), so recording a cause in a signal handler
 * formats nothing. */
enum ut_cat {
	UT_C_DSO,       /* frame in another object, which has no .sframe */
	UT_C_EXE_LIBC,  /* frame in libc/crt code linked into the executable */
	UT_C_PLT,       /* frame in a PLT section that .sframe does not cover */
	UT_C_GAS_SKIP,  /* own realigned (DRAP) function: gas V1/V2 emit no FDE */
	UT_C_STALE_FP,  /* gcc DRAP epilogue CFI: FP rule stale after leave */
	UT_C_STALE_FP2, /* the same, where both unwinders follow it and skip a frame */
	UT_C_UNSAFE,    /* caller frame whose rule needs a register SFrame does not restore */
	UT_C_LONGJMP,   /* sample in glibc's __longjmp: libgcc crashes on its CFI, not compared */
	UT_C_LU_DIFF,   /* libunwind alone differs from sfu and libgcc */
	UT_C_LU_REF,    /* libunwind alone stops before main */
	UT_C_OWN_NOFDE, /* own function without an FDE: unexplained */
	UT_C_STOP,      /* sfu stopped where it had an FDE: unexplained */
	UT_C_DIFF,      /* a frame differs: unexplained */
	UT_C_REF,       /* the reference did not reach main: unexplained */
	UT_C_TRAP,      /* sfu through sfu_host_trap differs from sfu from the ucontext */
	UT_C_CONT,      /* consecutive single steps: the caller frames jumped */
	UT_C_NOREF_SIG  /* libgcc found no signal frame */
};

static const char *const ut_cat_text[] = {
	"no .sframe in", "libc/crt code in the executable, no .sframe:", "PLT section without SFrame FDE:",
	"gas skips DRAP/realigned CFI (no FDE before V3):",
	"stale FP rule after leave in gcc's DRAP epilogue CFI, sfu reads FP eagerly and stops (libgcc reads it lazily, never):",
	"stale FP rule after leave in gcc's DRAP epilogue CFI, sfu and libgcc both follow it and skip the caller:",
	"caller frame whose FLEX rule needs a register other than SP/FP (valid only in the topmost frame: sfu stops, DESIGN.md):",
	"glibc's aarch64 __longjmp CFI (CFA = x0, the jmp_buf) crashes libgcc, not compared:",
	"libunwind alone differs from sfu and libgcc at", "libunwind alone stops before main, in",
	"UNEXPLAINED own function without FDE:",
	"UNEXPLAINED sfu stopped with an FDE at", "UNEXPLAINED frames differ, stepping out of", "UNEXPLAINED reference did not reach main,",
	"UNEXPLAINED trap path differs at",
	"UNEXPLAINED callers changed between two consecutive instructions at", "UNEXPLAINED libgcc found no signal frame at"
};

static int ut_cat_explained(int c)
{
	return c <= UT_C_LU_REF;
}

typedef struct ut_cause {
	int cat, err;
	const char *detail;
	uint64_t pc; /* first example */
	int frame;
	unsigned count;
	/* The first example's traces, for the report. */
	int ns, nr;
	uint64_t spc[12], ssp[12], rpc[12], rsp[12];
} ut_cause;

typedef struct ut_tally {
	unsigned total, same, explained, unexplained;
	unsigned ncauses;
	ut_cause causes[32];
} ut_tally;

static const ut_trace *ut_ex_s, *ut_ex_r; /* traces behind the next ut_note */

static void ut_note(ut_tally *t, int cat, const char *detail, int err, uint64_t pc, int frame)
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
static int ut_find_main(const ut_trace *r)
{
	int k;
	for (k = 0; k < r->n; k++) {
		uint64_t pc = ut_lookup_pc(r, k);
		if (pc >= ut_stop->lo && pc < ut_stop->hi)
			return k;
	}
	return -1;
}

/* sfu could not step out of frame j of s: say why, from where its PC is. */
/* The registers the current signal-path comparison started from (NULL for
 * a synchronous probe). */
static const sfu_regs *ut_first_regs;

/* gcc's x86_64 DRAP epilogue: after `leave` has restored the caller's %rbp,
 * the CFI still says "rbp saved at (rbp + 0)" (no .cfi_restore; gas copies
 * it into the FLEX row), so FP recovery reads through the caller's %rbp.
 * Detected from the row and the registers: a FLEX row recovers FP by
 * dereferencing FP, and FP no longer points into this frame [sp, cfa). */
static int ut_stale_fp(const sfu_regs *r)
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

static int ut_explain_stop(const ut_trace *s, int j, const char **detail)
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

/* The outcome of one comparison. */
typedef struct ut_verdict {
	int cat; /* -1: identical, else enum ut_cat */
	const char *detail;
	int err, frame;
	uint64_t pc;
} ut_verdict;

/* Compare s (sfu) with r (reference) from the first frame up to main's
 * frame in r.  Frames before `from` are compared by function only, frame
 * `from` by PC only when pc_only_first, the rest by PC and SP.  Where sfu
 * stops early, its stop is explained from where its PC is. */
static void ut_judge(const ut_trace *s, const ut_trace *r, int from, int pc_only_first, ut_verdict *v)
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

static void ut_record(ut_tally *t, const ut_verdict *v, const ut_trace *s, const ut_trace *r)
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
__attribute__((unused)) static void ut_second_opinion(ut_verdict *v, const ut_verdict *first)
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
		printf("%s %u x [%s %s", i ? ";" : " --", c->count, ut_cat_text[c->cat], c->detail);
		if (c->cat >= UT_C_LU_DIFF)
			printf(" (frame %d, pc %#" PRIx64 " %s+%#" PRIx64 ", sfu: %s)", c->frame, c->pc,
			       s ? s->name : ut_map_at(c->pc), s ? c->pc - s->lo : 0, sfu_strerror(c->err));
		printf("]");
	}
	printf("\n");
	/* The first example of every unexplained cause, frame by frame. */
	for (i = 0; i < t->ncauses; i++) {
		const ut_cause *c = &t->causes[i];
		int k;
		if (ut_cat_explained(c->cat) && c->cat != UT_C_LU_DIFF && c->cat != UT_C_LU_REF)
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

/* What the program was doing, for a crash report. */
static const char *volatile ut_phase = "start-up";
static const char *ut_case = "";
static volatile uint64_t ut_sample_pc; /* the interrupted PC being compared */

/* ---- the signal path: trap, timer sample, single step ------------------------- */

static ut_tally ut_t_gcc, ut_t_trap, ut_t_lu;
static ut_trace ut_s, ut_r, ut_c;
#if UT_LIBUNWIND
static ut_trace ut_l;
#endif
static volatile unsigned ut_samples;
/* Distinct interrupted PCs (open addressing, no allocation). */
static uint64_t ut_pcset[16384];
static unsigned ut_npcs;

static void ut_pc_seen(uint64_t pc)
{
	unsigned h = (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 50), n;
	for (n = 0; n < 16384u; n++, h = (h + 1u) & 16383u) {
		if (ut_pcset[h] == pc)
			return;
		if (!ut_pcset[h]) {
			ut_pcset[h] = pc;
			ut_npcs++;
			return;
		}
	}
}
static volatile int ut_expect_trap;
static unsigned ut_trap_bad_pc;
#if defined(__x86_64__)
static uint64_t ut_step_end_pc;
#endif
static unsigned ut_rng = 12345;
static timer_t ut_timer;
static int ut_timer_kind; /* 0 none, 1 POSIX timer, 2 ITIMER_PROF */
static long ut_period_us = 150;

static void ut_rearm(void)
{
	long us;
	ut_rng ^= ut_rng << 13;
	ut_rng ^= ut_rng >> 17;
	ut_rng ^= ut_rng << 5;
	us = ut_period_us / 2 + (long)(ut_rng % (unsigned)ut_period_us);
	if (ut_timer_kind == 1) {
		struct itimerspec its;
		memset(&its, 0, sizeof its);
		its.it_value.tv_nsec = us * 1000;
		timer_settime(ut_timer, 0, &its, NULL);
	}
}

/* Single-stepping gives an oracle that does not trust any unwind table:
 * between two consecutive instructions the caller frames (up to main) stay
 * the same, gain one frame (a call: the new caller is the old top frame) or
 * lose one (a return: the new top frame is the old caller, at its return
 * address).  Anything else means the walk is wrong, even where libgcc
 * agrees with it (both read the same compiler CFI). */
static ut_tally ut_t_cont;
static ut_trace ut_prev;
static int ut_prev_ok, ut_prev_stale, ut_stepping;

static int ut_frames_eq(const ut_trace *a, int ia, const ut_trace *b, int ib, int n)
{
	int k;
	for (k = 0; k < n; k++)
		if (a->pc[ia + k] != b->pc[ib + k] || a->sp[ia + k] != b->sp[ib + k])
			return 0;
	return 1;
}

static void ut_continuity(const ut_trace *n, const sfu_regs *regs)
{
	int kn = ut_find_main(n), kp, ok;
	if (kn < 0) {
		ut_prev_ok = 0; /* not a complete walk (libc, PLT): no oracle */
		return;
	}
	if (ut_prev_ok) {
		const ut_trace *p = &ut_prev;
		kp = ut_find_main(p);
		ok = (kn == kp && ut_frames_eq(n, 1, p, 1, kn)) ||
		     (kn == kp + 1 && ut_frames_eq(n, 2, p, 1, kp) && n->sp[1] == p->sp[0] &&
		      ut_sym_at(n->pc[1] - 1) == ut_sym_at(p->pc[0])) ||
		     (kn + 1 == kp && ut_frames_eq(n, 1, p, 2, kn) && n->pc[0] == p->pc[1] && n->sp[0] == p->sp[1]);
		ut_t_cont.total++;
		if (ok) {
			ut_t_cont.same++;
		} else {
			const ut_sym *sym = ut_sym_at(n->pc[0]);
			/* The wrong walk may be either side of the transition. */
			int cat = ut_stale_fp(regs) || ut_prev_stale ? UT_C_STALE_FP2 : UT_C_CONT;
			ut_ex_s = n;
			ut_ex_r = p;
			ut_note(&ut_t_cont, cat, sym ? sym->name : ut_map_at(n->pc[0]), 0, n->pc[0], 0);
			if (ut_cat_explained(cat))
				ut_t_cont.explained++;
			else
				ut_t_cont.unexplained++;
		}
	}
	ut_prev = *n;
	ut_prev_ok = 1;
	ut_prev_stale = ut_stale_fp(regs);
}

/* Compare everything for one interrupted context. */
static void ut_compare_signal(const ucontext_t *uc, const sfu_regs *hregs)
{
	sfu_regs regs;
	uint64_t dw[SFU_HOST_NDWARF];
	uint32_t traps = 0;
	int j, k, no_ref = 0;
	ut_verdict vg;

	vg.cat = UT_C_NOREF_SIG;
	sfu_host_from_ucontext(uc, &regs, dw);
	ut_first_regs = &regs;
	ut_phase = "sfu from the ucontext";
	ut_sfu_trace(&regs, &ut_s, NULL);
	ut_phase = "the signal handler";

	/* A PC without SFrame info outside the test's own code (libc, vDSO,
	 * PLT without FDE): sfu ends at frame 0 by design and the sample is
	 * classified from the PC alone.  The references are not run there:
	 * there is nothing to compare, and glibc 2.42's aarch64 __longjmp CFI
	 * (CFA = x0, the jmp_buf) sends libgcc through the jmp_buf as if it
	 * were a stack, into a crash. */
	if (ut_sym_at(regs.pc) && !strcmp(ut_sym_at(regs.pc)->name, "__longjmp") &&
	    ut_s.err != SFU_E_NOINFO) {
		/* With a section for libc too (sfu-gen), the same __longjmp
		 * samples get here with sfu's walk: libgcc still cannot be run. */
		vg.detail = ut_sym_at(regs.pc)->name;
		vg.cat = UT_C_LONGJMP;
		vg.err = ut_s.err;
		vg.frame = 0;
		vg.pc = regs.pc;
		ut_record(&ut_t_gcc, &vg, &ut_s, NULL);
		no_ref = 1;
	} else if (ut_s.n == 1 && ut_s.err == SFU_E_NOINFO && !ut_own(ut_sym_at(regs.pc))) {
		vg.detail = "";
		vg.cat = ut_explain_stop(&ut_s, 0, &vg.detail);
		vg.err = ut_s.err;
		vg.frame = 0;
		vg.pc = regs.pc;
		ut_record(&ut_t_gcc, &vg, &ut_s, NULL);
		no_ref = 1;
	} else {
		ut_phase = "libgcc _Unwind_Backtrace from the signal handler";
		ut_r.n = 0;
		_Unwind_Backtrace(ut_gcc_cb, &ut_r);
		ut_phase = "the signal handler";
		/* libgcc walked from the handler: drop the frames up to the signal
		 * trampoline; the first frame flagged "IP before instruction" is the
		 * interrupted one. */
		for (j = 0; j < ut_r.n && !ut_r.exact[j]; j++)
			;
		if (j == ut_r.n || ut_r.pc[j] != regs.pc) {
			ut_t_gcc.total++;
			ut_t_gcc.unexplained++;
			ut_ex_s = &ut_s;
			ut_ex_r = &ut_r;
			ut_note(&ut_t_gcc, UT_C_NOREF_SIG, ut_map_at(regs.pc), 0, regs.pc, 0);
		} else {
			ut_trace *r = &ut_r;
			for (k = j; k < r->n; k++) {
				r->pc[k - j] = r->pc[k];
				r->sp[k - j] = r->sp[k];
				r->exact[k - j] = r->exact[k];
			}
			r->n -= j;
			/* Frame 0: the PC only (libgcc's CFA for it is where its signal
			 * frame rule put it, not the SP); then PC and SP. */
			ut_judge(&ut_s, r, 0, 1, &vg);
			ut_record(&ut_t_gcc, &vg, &ut_s, r);
		}
	}

	/* sfu from the handler's own registers, across the signal frame by
	 * sfu_host_trap: from the trap frame on it must be the same walk. */
	ut_phase = "sfu from the handler (sfu_host_trap)";
	ut_sfu_trace(hregs, &ut_c, &traps);
	ut_phase = "the signal handler";
	ut_t_trap.total++;
	ut_ex_s = &ut_s;
	ut_ex_r = &ut_c;
	for (j = 0; j < ut_c.n && ut_c.how[j] != SFU_HOW_TRAP; j++)
		;
	if (j == ut_c.n || ut_c.n - j != ut_s.n || ut_c.err != ut_s.err) {
		ut_t_trap.unexplained++;
		ut_note(&ut_t_trap, UT_C_TRAP, j == ut_c.n ? "no trap frame" : "frame count or stop reason", ut_c.err,
		        ut_c.n ? ut_c.pc[ut_c.n - 1] : 0, ut_c.n - 1);
	} else {
		for (k = 0; k < ut_s.n; k++)
			if (ut_c.pc[j + k] != ut_s.pc[k] || ut_c.sp[j + k] != ut_s.sp[k])
				break;
		if (k < ut_s.n) {
			ut_t_trap.unexplained++;
			ut_note(&ut_t_trap, UT_C_TRAP, "a frame", 0, ut_s.pc[k], k);
		} else {
			ut_t_trap.same++;
		}
	}

#if UT_LIBUNWIND
	{
		unw_cursor_t cur;
		ut_phase = "libunwind";
		if (no_ref) {
			ut_record(&ut_t_lu, &vg, &ut_s, NULL);
		} else if (unw_init_local2(&cur, (unw_context_t *)(uintptr_t)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
			ut_verdict vl;
			ut_lu_walk(&cur, &ut_l);
			ut_phase = "the signal handler";
			ut_judge(&ut_s, &ut_l, 0, 0, &vl);
			ut_second_opinion(&vl, &vg);
			ut_record(&ut_t_lu, &vl, &ut_s, &ut_l);
		} else {
			ut_t_lu.total++;
			ut_t_lu.unexplained++;
			ut_ex_s = &ut_s;
			ut_ex_r = NULL;
			ut_note(&ut_t_lu, UT_C_REF, "unw_init_local2 failed", 0, regs.pc, 0);
		}
	}
#endif
	(void)no_ref;
	if (ut_stepping)
		ut_continuity(&ut_s, &regs);
	ut_first_regs = NULL;
}


static void ut_put(const char *a)
{
	ssize_t r = write(1, a, strlen(a));
	(void)r;
}

static void ut_puthex(uint64_t v)
{
	char b[19];
	int i;
	b[0] = '0';
	b[1] = 'x';
	for (i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	b[18] = 0;
	ut_put(b);
}

/* A crash is a verdict too: name the case, the phase and the PC. */
static void ut_on_crash(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = (ucontext_t *)ucv;
	uint64_t pc;
	const ut_sym *sym;
#if defined(__x86_64__)
	pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#else
	pc = uc->uc_mcontext.pc;
#endif
	sym = ut_sym_at(pc);
	ut_put("FAIL ");
	ut_put(ut_case);
	ut_put(sig == SIGSEGV ? ": SIGSEGV" : ": SIGBUS");
	ut_put(" in ");
	ut_put(ut_phase);
	ut_put(" at pc ");
	ut_puthex(pc);
	ut_put(sym ? " " : "");
	ut_put(sym ? sym->name : "");
	ut_put(", address ");
	ut_puthex((uint64_t)(uintptr_t)si->si_addr);
	if (ut_sample_pc) {
		sym = ut_sym_at(ut_sample_pc);
		ut_put(", sample pc ");
		ut_puthex(ut_sample_pc);
		ut_put(sym ? " " : "");
		ut_put(sym ? sym->name : "");
	}
	ut_put("\n");
	_exit(3);
}

/* Breakpoint mode (aarch64): a BRK on every instruction of the workload's
 * own functions; each one is compared the first time it runs, then the
 * original instruction is put back and executed. */
typedef struct ut_bp {
	uint64_t addr;
	uint32_t orig;
	uint8_t hit;
} ut_bp;
static ut_bp *ut_bps;
static size_t ut_nbps;
static int ut_bkpt_on;

static ut_bp *ut_bp_at(uint64_t pc)
{
	size_t lo = 0, hi = ut_nbps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ut_bps[mid].addr < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ut_nbps && ut_bps[lo].addr == pc ? &ut_bps[lo] : NULL;
}

static void ut_poke(uint64_t addr, uint32_t insn)
{
	*(volatile uint32_t *)(uintptr_t)addr = insn;
	__builtin___clear_cache((char *)(uintptr_t)addr, (char *)(uintptr_t)addr + 4);
}

static void ut_on_signal(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = (ucontext_t *)ucv;
	sfu_regs hregs;
	int saved = errno;
	(void)si;
	SFU_HOST_CAPTURE(&hregs);
#if defined(__x86_64__)
	ut_sample_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#else
	ut_sample_pc = uc->uc_mcontext.pc;
#endif
	ut_phase = "the signal handler";
#if defined(__x86_64__)
	if (sig == SIGTRAP && (uint64_t)uc->uc_mcontext.gregs[REG_RIP] == ut_step_end_pc) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~0x100; /* stop single-stepping */
		errno = saved;
		return;
	}
#endif
	if (sig == SIGTRAP && ut_bkpt_on) {
		ut_bp *bp = ut_bp_at(ut_sample_pc);
		if (!bp) {
			ut_put("FAIL ");
			ut_put(ut_case);
			ut_put(": SIGTRAP at a PC without a breakpoint\n");
			_exit(3);
		}
		ut_compare_signal(uc, &hregs);
		bp->hit = 1;
		ut_poke(bp->addr, bp->orig); /* then run it for real */
		ut_pc_seen(ut_sample_pc);
		ut_samples++;
		ut_phase = "the workload";
		ut_sample_pc = 0;
		errno = saved;
		return;
	}
	ut_compare_signal(uc, &hregs);
	ut_pc_seen(ut_sample_pc);
	ut_samples++;
	if (sig == SIGILL) {
		/* Resume after the trap instruction; a SIGILL we did not plant
		 * would loop, so count it and stop trusting the run. */
		if (!ut_expect_trap)
			ut_trap_bad_pc++;
#if defined(__x86_64__)
		uc->uc_mcontext.gregs[REG_RIP] += UT_TRAP_LEN;
#else
		uc->uc_mcontext.pc += UT_TRAP_LEN;
#endif
	}
	if (sig == SIGPROF)
		ut_rearm();
	ut_phase = "the workload";
	ut_sample_pc = 0;
	errno = saved;
}

static void ut_install(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = ut_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGPROF);
	sigaddset(&sa.sa_mask, SIGILL);
	sigaddset(&sa.sa_mask, SIGTRAP);
	sigaction(sig, &sa, NULL);
}

/* ---- the synchronous probe ---------------------------------------------------- */

ut_hook_fn *volatile ut_hook;
static ut_tally ut_t_sync, ut_t_sync_lu;
static uint64_t ut_seen_noret_ra;

/* Frame 0 is this function for both unwinders, at different PCs (sfu: the
 * capture; libgcc: the return address of _Unwind_Backtrace), so it is
 * compared by function; every frame after it by PC and SP. */
UT_NOINLINE static void ut_probe(int site)
{
	sfu_regs regs;
	int k;
	(void)site;
	SFU_HOST_CAPTURE(&regs);
	ut_r.n = 0;
	_Unwind_Backtrace(ut_gcc_cb, &ut_r);
	ut_sfu_trace(&regs, &ut_s, NULL);
	ut_verdict vg;
	ut_judge(&ut_s, &ut_r, 1, 0, &vg);
	ut_record(&ut_t_sync, &vg, &ut_s, &ut_r);
	for (k = 1; k < ut_r.n; k++)
		if (ut_r.pc[k] == (uint64_t)(uintptr_t)sh_noret_next)
			ut_seen_noret_ra = ut_r.pc[k];
#if UT_LIBUNWIND
	{
		unw_context_t uc;
		unw_cursor_t cur;
		unw_getcontext(&uc);
		if (unw_init_local(&cur, &uc) == 0) {
			ut_verdict vl;
			ut_lu_walk(&cur, &ut_l);
			ut_judge(&ut_s, &ut_l, 1, 0, &vl);
			ut_second_opinion(&vl, &vg);
			ut_record(&ut_t_sync_lu, &vl, &ut_s, &ut_l);
		}
	}
#endif
}

UT_NOINLINE static void ut_busy(int site)
{
	int i;
	for (i = 0; i < 8; i++)
		sh_sink += (unsigned long)(i * site) ^ (sh_sink >> 3);
}

UT_NOINLINE static void ut_hook_trap_leaf(int site)
{
	ut_expect_trap = 1;
	sh_sink += (unsigned long)sh_leaf_trap(site);
	ut_expect_trap = 0;
}

UT_NOINLINE static void ut_hook_trap_fp(int site)
{
	ut_expect_trap = 1;
	sh_sink += (unsigned long)sh_fp_trap(site);
	ut_expect_trap = 0;
}

UT_NOINLINE static void ut_hook_trap_realign(int site)
{
	ut_expect_trap = 1;
	sh_sink += (unsigned long)sh_realign_trap(site);
	ut_expect_trap = 0;
}

UT_NOINLINE static int ut_run_noret(int n)
{
	if (setjmp(ut_noret_jb) == 0)
		sh_noret_caller(n);
	return n;
}

/* The probe on another thread's stack: the port must bound reads by that
 * thread's stack (its own sfu_host_mem_init), and comparisons end at the
 * thread's start routine instead of main. */
UT_NOINLINE static void *ut_thread_main(void *arg)
{
	int n = (int)(intptr_t)arg;
	if (sfu_host_mem_init(&ut_tmem) != 0)
		return NULL;
	ut_memp = &ut_tmem;
	ut_stop = ut_sym_at((uint64_t)(uintptr_t)ut_thread_main);
	sh_mixed(n);
	ut_stop = ut_main;
	ut_memp = &ut_mem;
	return arg;
}

UT_NOINLINE static int ut_run_thread(int n)
{
	pthread_t t;
	void *ret = NULL;
	if (pthread_create(&t, NULL, ut_thread_main, (void *)(intptr_t)n) != 0 || pthread_join(t, &ret) != 0)
		return -1;
	return (int)(intptr_t)ret;
}

UT_NOINLINE static int ut_run_variadic(int n) { return sh_variadic(4, n, n + 1, 2, 3); }
UT_NOINLINE static int ut_run_recurse(int n) { return sh_recurse(24, n); }
UT_NOINLINE static int ut_run_fptr(int n) { return sh_fptr(n) + sh_fptr(n + 1) + sh_fptr(n + 2); }

typedef struct ut_scenario {
	const char *name;
	int (*run)(int);
	ut_hook_fn *hook; /* NULL: the probe */
} ut_scenario;

static const ut_scenario ut_scenarios[] = {
	{ "fp-kept", sh_fp_chain, NULL },
	{ "fp-omitted", sh_nofp_chain, NULL },
	{ "alloca", sh_alloca, NULL },
	{ "vla", sh_vla, NULL },
	{ "variadic", ut_run_variadic, NULL },
	{ "bigframe", sh_bigframe, NULL },
	{ "tailcall", sh_tail_a, NULL },
	{ "recursion", ut_run_recurse, NULL },
	{ "fptr", ut_run_fptr, NULL },
	{ "noreturn", ut_run_noret, NULL },
	{ "realign", sh_realign_chain, NULL },
	{ "mixed", sh_mixed, NULL },
	{ "thread", ut_run_thread, NULL },
	{ "trap-leaf", sh_mixed, ut_hook_trap_leaf },
	{ "trap-fp", sh_fptr, ut_hook_trap_fp },
	{ "trap-realign", ut_run_recurse, ut_hook_trap_realign },
};
#define UT_NSCEN (sizeof ut_scenarios / sizeof ut_scenarios[0])

static void ut_reset(void)
{
	memset(&ut_t_sync, 0, sizeof ut_t_sync);
	memset(&ut_t_sync_lu, 0, sizeof ut_t_sync_lu);
	memset(&ut_t_gcc, 0, sizeof ut_t_gcc);
	memset(&ut_t_trap, 0, sizeof ut_t_trap);
	memset(&ut_t_lu, 0, sizeof ut_t_lu);
	ut_samples = 0;
	memset(ut_pcset, 0, sizeof ut_pcset);
	ut_npcs = 0;
}

static int ut_sync(const char *name)
{
	size_t i;
	char full[256];
	int fails = 0;
	for (i = 0; i < UT_NSCEN; i++) {
		const ut_scenario *sc = &ut_scenarios[i];
		ut_reset();
		ut_seen_noret_ra = 0;
		ut_trap_bad_pc = 0;
		ut_hook = sc->hook ? sc->hook : ut_probe;
		sc->run(5);
		ut_hook = ut_busy;
		snprintf(full, sizeof full, "%s/%s", name, sc->name);
		if (sc->hook) {
			/* Traps: compared in the signal handler. */
			char extra[128] = "";
			if (ut_trap_bad_pc) {
				ut_t_gcc.unexplained++;
				snprintf(extra, sizeof extra, "%u unexpected SIGILL", ut_trap_bad_pc);
			}
			ut_print_tally("sync", full, &ut_t_gcc, extra);
			fails += ut_t_gcc.unexplained || !ut_t_gcc.total;
			snprintf(full, sizeof full, "%s/%s/trap-path", name, sc->name);
			ut_print_tally("sync", full, &ut_t_trap, "sfu across the signal frame by sfu_host_trap");
			fails += ut_t_trap.unexplained || !ut_t_trap.total;
#if UT_LIBUNWIND
			snprintf(full, sizeof full, "%s/%s/libunwind", name, sc->name);
			ut_print_tally("sync", full, &ut_t_lu, "");
			fails += ut_t_lu.unexplained || !ut_t_lu.total;
#endif
			continue;
		}
		if (!strcmp(sc->name, "noreturn")) {
			/* The point of this case: the return address is the first
			 * byte of the next function. */
#if defined(__clang__)
			/* clang pads after a noreturn call whatever -falign-functions
			 * says: the return address falls in the padding, never on the
			 * next function (the gcc suites cover that case). */
			if (!ut_seen_noret_ra)
				ut_print_tally("sync", full, &ut_t_sync, "layout: clang pads after the noreturn call");
			else
#endif
			if (!ut_seen_noret_ra) {
				ut_t_sync.unexplained++;
				ut_print_tally("sync", full, &ut_t_sync,
				               "layout: no return address equal to sh_noret_next (the case tests nothing)");
			} else {
				ut_print_tally("sync", full, &ut_t_sync, "a return address is sh_noret_next+0");
			}
		} else {
			ut_print_tally("sync", full, &ut_t_sync, "");
		}
		fails += ut_t_sync.unexplained || !ut_t_sync.total;
#if UT_LIBUNWIND
		snprintf(full, sizeof full, "%s/%s/libunwind", name, sc->name);
		ut_print_tally("sync", full, &ut_t_sync_lu, "");
		fails += ut_t_sync_lu.unexplained || !ut_t_sync_lu.total;
#endif
	}
	return fails;
}

/* ---- the asynchronous run ---------------------------------------------------------- */

UT_NOINLINE static void ut_workload(unsigned i)
{
	switch (i % 9u) {
	case 0: sh_mixed((int)(i & 15)); break;
	case 1: sh_fptr((int)i); break;
	case 2: sh_recurse(6, (int)i); break;
	case 3: sh_bigframe((int)i); break;
	case 4: sh_variadic(4, (int)i, 1, 2, 3); break;
	case 5:
		/* setjmp/longjmp is libc code without .sframe, and slow under
		 * QEMU: one round in eight, so it does not eat the samples. */
		if ((i / 9u) % 8u == 0)
			ut_run_noret((int)i);
		else
			sh_vla((int)i);
		break;
	case 6: sh_tail_a((int)i); break;
	case 7: sh_realign_chain((int)i); break;
	default: sh_sink += sh_leaf(i, 50); break;
	}
}

static double ut_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ut_arm(int prof)
{
	if (!prof) {
		struct sigevent sev;
		memset(&sev, 0, sizeof sev);
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGPROF;
		if (timer_create(CLOCK_MONOTONIC, &sev, &ut_timer) == 0) {
			ut_timer_kind = 1;
			ut_rearm();
			return 0;
		}
	}
	{
		struct itimerval it;
		memset(&it, 0, sizeof it);
		it.it_interval.tv_usec = 1000;
		it.it_value.tv_usec = 1000;
		ut_timer_kind = 2;
		return setitimer(ITIMER_PROF, &it, NULL);
	}
}

static void ut_disarm(void)
{
	struct itimerval it;
	memset(&it, 0, sizeof it);
	if (ut_timer_kind == 1)
		timer_delete(ut_timer);
	else
		setitimer(ITIMER_PROF, &it, NULL);
	ut_timer_kind = 0;
}

static int ut_async(const char *name, unsigned want, double secs, unsigned min, int prof)
{
	double t0 = ut_now(), el;
	unsigned i = 0;
	char extra[160], full[256];
	int fails = 0;
	ut_reset();
	ut_hook = ut_busy;
	if (ut_arm(prof) != 0) {
		printf("FAIL async %s: cannot arm a timer: %s\n", name, strerror(errno));
		return 1;
	}
	ut_phase = "the workload";
	while (ut_samples < want) {
		ut_workload(i++);
		if ((i & 63u) == 0 && ut_now() - t0 > secs)
			break;
	}
	ut_disarm();
	el = ut_now() - t0;
	snprintf(extra, sizeof extra, "%u distinct PCs, %s, %.1f s, %u workload rounds", ut_npcs,
	         ut_timer_kind == 2 || prof ? "ITIMER_PROF" : "CLOCK_MONOTONIC timer", el, i);
	if (ut_t_gcc.total < min) {
		ut_t_gcc.unexplained++;
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", fewer than %u samples", min);
	}
	snprintf(full, sizeof full, "%s", name);
	ut_print_tally("async", full, &ut_t_gcc, extra);
	fails += ut_t_gcc.unexplained > 0;
	snprintf(full, sizeof full, "%s/trap-path", name);
	ut_print_tally("async", full, &ut_t_trap, "sfu across the signal frame by sfu_host_trap");
	fails += ut_t_trap.unexplained || !ut_t_trap.total;
#if UT_LIBUNWIND
	snprintf(full, sizeof full, "%s/libunwind", name);
	ut_print_tally("async", full, &ut_t_lu, "unw_init_local2(UNW_INIT_SIGNAL_FRAME)");
	fails += ut_t_lu.unexplained || !ut_t_lu.total;
#endif
	return fails;
}

/* ---- single-stepping (x86_64) --------------------------------------------------------- */

UT_NOINLINE void ut_step_end(void)
{
	__asm__ volatile("" ::: "memory");
}

#if defined(__x86_64__)
UT_NOINLINE static void ut_step_pass(void)
{
	unsigned i;
	/* Set TF: a SIGTRAP after every instruction from the one after popfq
	 * until ut_step_end, where the handler clears it. */
	__asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "cc", "memory");
	for (i = 0; i < 9; i++)
		ut_workload(i);
	ut_step_end();
}
#endif

/* The workload side of the harness, where breakpoints may go. */
__attribute__((unused)) static int ut_bkpt_target(const ut_sym *s)
{
	return !strncmp(s->name, "sh_", 3) || !strcmp(s->name, "ut_workload") || !strncmp(s->name, "ut_run_", 7) ||
	       !strcmp(s->name, "ut_busy");
}

static int ut_bkpt(const char *name)
{
#if defined(__aarch64__)
	size_t i, n = 0, hit = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char extra[160], full[256];
	int fails = 0;
	unsigned k;
	ut_hook = ut_busy;
	for (k = 0; k < 9; k++)
		ut_workload(k);
	for (i = 0; i < ut_nsyms; i++)
		if (ut_bkpt_target(&ut_syms[i]))
			n += (size_t)(ut_syms[i].hi - ut_syms[i].lo) / 4u;
	ut_bps = calloc(n ? n : 1, sizeof *ut_bps);
	if (!ut_bps) {
		printf("FAIL bkpt %s: out of memory\n", name);
		return 1;
	}
	for (i = 0; i < ut_nsyms; i++) {
		uint64_t a;
		if (!ut_bkpt_target(&ut_syms[i]))
			continue;
		a = ut_syms[i].lo & ~(uint64_t)(pg - 1);
		if (mprotect((void *)(uintptr_t)a, (size_t)(ut_syms[i].hi - a), PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
			printf("FAIL bkpt %s: mprotect: %s\n", name, strerror(errno));
			return 1;
		}
		for (a = ut_syms[i].lo; a + 4 <= ut_syms[i].hi; a += 4) {
			ut_bps[ut_nbps].addr = a;
			ut_bps[ut_nbps].orig = *(const uint32_t *)(uintptr_t)a;
			ut_nbps++;
		}
	}
	ut_reset();
	ut_bkpt_on = 1;
	for (i = 0; i < ut_nbps; i++)
		ut_poke(ut_bps[i].addr, 0xd4200000u); /* brk #0 */
	ut_phase = "the workload";
	for (k = 0; k < 9; k++)
		ut_workload(k); /* k = 5 takes the noreturn path */
	for (i = 0; i < ut_nbps; i++) {
		if (!ut_bps[i].hit)
			ut_poke(ut_bps[i].addr, ut_bps[i].orig);
		hit += ut_bps[i].hit;
	}
	ut_bkpt_on = 0;
	snprintf(extra, sizeof extra, "%zu of %zu instruction slots of the workload's functions reached", hit, ut_nbps);
	ut_print_tally("bkpt", name, &ut_t_gcc, extra);
	fails += ut_t_gcc.unexplained || ut_t_gcc.total < 200;
	snprintf(full, sizeof full, "%s/trap-path", name);
	ut_print_tally("bkpt", full, &ut_t_trap, "sfu across the signal frame by sfu_host_trap");
	fails += ut_t_trap.unexplained || !ut_t_trap.total;
	return fails;
#else
	printf("FAIL bkpt %s: breakpoint mode is implemented for aarch64 only (x86_64 uses step)\n", name);
	return 1;
#endif
}

static int ut_step(const char *name)
{
#if defined(__x86_64__)
	char full[256];
	int fails = 0;
	unsigned i;
	ut_hook = ut_busy;
	for (i = 0; i < 9; i++)
		ut_workload(i); /* resolve PLT slots first: no ld.so in the pass */
	ut_reset();
	ut_step_end_pc = (uint64_t)(uintptr_t)ut_step_end;
	memset(&ut_t_cont, 0, sizeof ut_t_cont);
	ut_prev_ok = 0;
	ut_stepping = 1;
	ut_step_pass();
	ut_stepping = 0;
	{
		char extra[128];
		snprintf(extra, sizeof extra, "%u distinct PCs, every instruction of one pass over the shapes", ut_npcs);
		ut_print_tally("step", name, &ut_t_gcc, extra);
	}
	fails += ut_t_gcc.unexplained || ut_t_gcc.total < 1000;
	snprintf(full, sizeof full, "%s/trap-path", name);
	ut_print_tally("step", full, &ut_t_trap, "sfu across the signal frame by sfu_host_trap");
	fails += ut_t_trap.unexplained || !ut_t_trap.total;
	snprintf(full, sizeof full, "%s/continuity", name);
	ut_print_tally("step", full, &ut_t_cont, "consecutive instructions: callers kept, pushed or popped by one");
	fails += ut_t_cont.unexplained || ut_t_cont.total < 1000;
#if UT_LIBUNWIND
	snprintf(full, sizeof full, "%s/libunwind", name);
	ut_print_tally("step", full, &ut_t_lu, "");
	fails += ut_t_lu.unexplained || !ut_t_lu.total;
#endif
	return fails;
#else
	printf("FAIL step %s: single-stepping is implemented for x86_64 only\n", name);
	return 1;
#endif
}

/* ---- start-up ---------------------------------------------------------------------- */

/* UT_SFRAME_FILE: the executable's section made by tools/sfu-gen
 * (`sfu-gen --raw FILE --addr 0 EXE`: start offsets relative to link-time
 * address 0), instead of its PT_GNU_SFRAME.  The bytes may sit anywhere:
 * the section is given its address, load bias + 0. */
static int ut_load_gen(const char *path, const char *name)
{
	static uint8_t *buf; /* kept for the run */
	FILE *f = fopen(path, "rb");
	long len;
	int err;
	if (!f) {
		printf("FAIL init %s: cannot open UT_SFRAME_FILE %s\n", name, path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (!buf || len <= 0 || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		printf("FAIL init %s: cannot read UT_SFRAME_FILE %s\n", name, path);
		return -1;
	}
	fclose(f);
	dl_iterate_phdr(ut_phdr_cb, NULL);
	err = sfu_section_split(ut_secs, SFU_HOST_MAX_SECTIONS, &ut_nsecs, buf, (size_t)len, ut_bias, 0);
	if (err != SFU_OK) {
		printf("FAIL init %s: UT_SFRAME_FILE %s: %s\n", name, path, sfu_strerror(err));
		return -1;
	}
	return 0;
}

static int ut_init(const char *name)
{
	size_t i;
	int err;
	const char *gen = getenv("UT_SFRAME_FILE");
	if (sfu_host_mem_init(&ut_mem) != 0) {
		printf("FAIL init %s: sfu_host_mem_init: cannot read /proc/self/maps or the stack bounds\n", name);
		return -1;
	}
	if (gen && *gen) {
		if (ut_load_gen(gen, name) != 0)
			return -1;
	} else {
		err = sfu_host_find_sframe(ut_secs, SFU_HOST_MAX_SECTIONS, &ut_nsecs);
		if (err != SFU_OK) {
			printf("FAIL init %s: sfu_host_find_sframe: %s (no PT_GNU_SFRAME?)\n", name, sfu_strerror(err));
			return -1;
		}
	}
	for (i = 0; i < ut_nsecs; i++) {
		uint32_t bad = 0;
		err = sfu_section_validate(&ut_secs[i], &bad);
		if (err != SFU_OK) {
			printf("FAIL init %s: .sframe %zu invalid at FDE %u: %s\n", name, i, bad, sfu_strerror(err));
			return -1;
		}
	}
	ut_version = ut_secs[0].version;
	if (ut_load_self() != 0) {
		printf("FAIL init %s: cannot read symbols of /proc/self/exe\n", name);
		return -1;
	}
	ut_load_maps();
	/* Warm libgcc up outside any signal handler. */
	ut_r.n = 0;
	_Unwind_Backtrace(ut_gcc_cb, &ut_r);
	ut_install(SIGILL);
	ut_install(SIGPROF);
	ut_install(SIGTRAP);
	{
		static char altstack[64 * 1024];
		stack_t ss;
		struct sigaction sa;
		ss.ss_sp = altstack;
		ss.ss_size = sizeof altstack;
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = ut_on_crash;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
	}
	ut_hook = ut_busy;
	return 0;
}

static void ut_info(void)
{
	size_t i;
	printf("# .sframe sections: %zu\n", ut_nsecs);
	for (i = 0; i < ut_nsecs; i++)
		printf("#   [%zu] at %#" PRIx64 ": version %u, flags %#x, abi %u, %u FDEs, %u FREs\n", i, ut_secs[i].addr,
		       ut_secs[i].version, ut_secs[i].flags, ut_secs[i].abi, ut_secs[i].num_fdes, ut_secs[i].num_fres);
	printf("# stack [%#" PRIx64 ", %#" PRIx64 "), %u readable mappings%s\n", ut_mem.stack_lo, ut_mem.stack_hi,
	       ut_mem.nmaps, ut_mem.truncated ? " (truncated)" : "");
	printf("# main at %#" PRIx64 "+%#" PRIx64 ", load bias %#" PRIx64 ", %zu symbols\n", ut_main->lo,
	       ut_main->hi - ut_main->lo, ut_bias, ut_nsyms);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "info";
	const char *name = argc > 2 ? argv[2] : "unnamed";
	int fails;
	static char casename[256];
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(casename, sizeof casename, "%s %s", mode, name);
	ut_case = casename;
	if (ut_init(name) != 0)
		return 1;
	if (!strcmp(mode, "info")) {
		ut_info();
		return 0;
	}
	if (!strcmp(mode, "sync"))
		fails = ut_sync(name);
	else if (!strcmp(mode, "async") || !strcmp(mode, "async-prof")) {
		unsigned want = argc > 3 ? (unsigned)atoi(argv[3]) : 5000;
		double secs = argc > 4 ? atof(argv[4]) : 20;
		unsigned min = argc > 5 ? (unsigned)atoi(argv[5]) : want;
		if (argc > 6)
			ut_period_us = atol(argv[6]);
		fails = ut_async(name, want, secs, min, !strcmp(mode, "async-prof"));
	} else if (!strcmp(mode, "step"))
		fails = ut_step(name);
	else if (!strcmp(mode, "bkpt"))
		fails = ut_bkpt(name);
	else {
		fprintf(stderr, "usage: %s info | sync NAME | async NAME [N SECS MIN PERIOD_US] | step NAME | bkpt NAME\n",
		        argv[0]);
		return 2;
	}
	return fails ? 1 : 0;
}
