/* SPDX-License-Identifier: MIT */
/* ut.h - the unit tests' case protocol: begin(), EXPECT(cond, why...) (the
 * first failed expectation of a case is kept), end(name) prints "ok NAME" or
 * "FAIL NAME: why".  Include after core/sfu.h (with SFU_ERROR_STRINGS).
 *
 * Test functions register themselves:
 *
 *     UT_CASE(test_pcmask) { begin(); ... EXPECT(...); end("unit pcmask"); }
 *     int main(void) { return ut_main("unit"); }
 *
 * ut_main runs every UT_CASE of the file in the order they are written
 * (a function may hold several begin/end cases, or call a parameterized
 * one once per parameter) and returns non-zero if a case failed. */
#ifndef UT_H
#define UT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_fail, g_cases, g_failed;
static char g_why[512];

#define EXPECT(cond, ...)                                                   \
	do {                                                                    \
		if (!(cond) && !g_fail) {                                           \
			g_fail = 1;                                                     \
			snprintf(g_why, sizeof g_why, __VA_ARGS__);                     \
		}                                                                   \
	} while (0)

static void begin(void) { g_fail = 0; g_why[0] = 0; }
static void end(const char *name)
{
	g_cases++;
	if (g_fail) {
		g_failed++;
		printf("FAIL %s: %s\n", name, g_why);
	} else {
		printf("ok %s\n", name);
	}
}

static const char *E(int e) { return sfu_strerror(e); }

/* A case of a layout check's rules: what is broken, and the start of the
 * rule the check must answer. */
struct ut_rule {
	const char *what, *rule;
};

/* A description check's refusal (sfu_layout_check, sfu_switch_check,
 * sfu_dump_check): SFU_E_DESC, and a rule that begins with want (the field
 * it names, and as much of the reason as the case means). */
/* A macro's value as a string (a port's register number in a rule). */
#define UT_STR(x) #x
#define UT_XSTR(x) UT_STR(x)

static inline int ut_refused(int err, const char *why, const char *want)
{
	return err == SFU_E_DESC && why != NULL && strncmp(why, want, strlen(want)) == 0;
}

/* A made-up stack for walks: words[0..n) at their own addresses, read
 * through the port (sfu_port.read = ut_stack_read, .ctx = the ut_stack);
 * anything else, or unaligned, is refused. */
struct ut_stack {
	const uint64_t *words;
	size_t n;
};

static inline int ut_stack_read(void *ctx, uint64_t a, uint64_t *o)
{
	const struct ut_stack *st = (const struct ut_stack *)ctx;
	uint64_t lo = (uint64_t)(uintptr_t)st->words;
	if (a < lo || a + 8 > lo + 8 * st->n || (a & 7))
		return -1;
	*o = st->words[(a - lo) / 8];
	return 0;
}

#define UT_MAX_CASES 64
typedef void ut_case_fn(void);
static struct ut_case {
	const char *name;
	ut_case_fn *fn;
	int line;
} ut_cases[UT_MAX_CASES];
static int ut_ncases;

static void ut_register(const char *name, ut_case_fn *fn, int line)
{
	if (ut_ncases == UT_MAX_CASES) {
		fprintf(stderr, "ut.h: more than %d UT_CASEs (%s)\n", UT_MAX_CASES, name);
		exit(2);
	}
	ut_cases[ut_ncases].name = name;
	ut_cases[ut_ncases].fn = fn;
	ut_cases[ut_ncases].line = line;
	ut_ncases++;
}

/* A test function, registered before main runs (constructors run in no
 * promised order: ut_main sorts by line). */
#define UT_CASE(fn)                                                         \
	static void fn(void);                                                   \
	__attribute__((constructor)) static void fn##_register(void)           \
	{                                                                       \
		ut_register(#fn, fn, __LINE__);                                     \
	}                                                                       \
	static void fn(void)

static int ut_by_line(const void *a, const void *b)
{
	return ((const struct ut_case *)a)->line - ((const struct ut_case *)b)->line;
}

/* Run every UT_CASE; with a label, print "LABEL: N cases, F failed" on
 * stderr.  Returns the exit status. */
static int ut_main(const char *label)
{
	int i;
	qsort(ut_cases, (size_t)ut_ncases, sizeof ut_cases[0], ut_by_line);
	for (i = 0; i < ut_ncases; i++)
		ut_cases[i].fn();
	if (label)
		fprintf(stderr, "%s: %d cases, %d failed\n", label, g_cases, g_failed);
	return g_failed != 0;
}

#endif
