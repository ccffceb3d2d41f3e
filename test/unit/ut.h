/* ut.h - the unit tests' case protocol: begin(), EXPECT(cond, why...) (the
 * first failed expectation of a case is kept), end(name) prints "ok NAME" or
 * "FAIL NAME: why".  Include after core/sfu.h (with SFU_ERROR_STRINGS). */
#ifndef UT_H
#define UT_H

#include <stdio.h>

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

#endif
