/* SPDX-License-Identifier: MIT */
/* ut_main.c - sfu against DWARF unwinders on live stacks.
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
 * how mismatches are classified, ut_harness.h for which file does what. */
#include "ut_harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	ut_load_bias();
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
	ut_signals_install();
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
