/* SPDX-License-Identifier: MIT */
/* sfu-crash - read sfu crash records (port/common/sfu_crash.h) out of a
 * memory dump or a serial log, on the host.
 *
 *   sfu-crash [--at OFFSET] DUMP    a raw memory dump (QEMU's pmemsave, a
 *                                   debugger's dump of the retained RAM):
 *                                   the record at byte OFFSET, or without
 *                                   --at every record found (magic at a
 *                                   4-byte boundary)
 *   sfu-crash --log LOG             the hex lines the example firmware
 *                                   prints ("  crash record +000: 53 46 ...")
 *
 * For each record: whether it is valid, and if so the crash and its frames
 * in the dump format tools/sfu-symbolize reads ("  #N 0xADDR [marker]"), so
 *     sfu-crash dump.bin | tools/sfu-symbolize IMAGE
 * names them.  A corrupt or half-written record is reported as such and
 * never printed as a trace.  Exit status: 0 if every record found is
 * valid, 1 if one is corrupt or of an unknown shape, 2 if none was found,
 * 3 on a usage or I/O error.
 */
#define SFU_IMPLEMENTATION
#define SFU_STATIC
#define SFU_ERROR_STRINGS 1
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfu_crash.h"
#include "sfu_tool.h"

static const char help[] =
	"usage: sfu-crash [--at OFFSET] DUMP | sfu-crash --log LOG\n"
	"Read sfu crash records (port/common/sfu_crash.h) out of a memory dump, or out of the\n"
	"hex lines a firmware printed, and print each valid one in the dump format\n"
	"sfu-symbolize reads; a corrupt or half-written record is reported, never printed.\n"
	"  --at OFFSET   only the record at byte OFFSET of DUMP (default: every one found)\n"
	"  --log LOG     read the record from a serial log's \"crash record +NNN:\" lines\n"
	"  --help, --version\n"
	"Exit status: 0 every record valid, 1 one corrupt or unknown, 2 none found, 3 usage or\n"
	"I/O error.\n";

static const char *err_name(int err)
{
	switch (err) {
#define X(name, value, text) \
	case name:               \
		return #name;
		SFU_ERRORS(X)
#undef X
	default:
		return "?";
	}
}

/* Print one record; returns its status. */
static int show(const uint8_t *p, size_t size, const char *where)
{
	struct sfu_crash c;
	sfu_frame f, next;
	unsigned i;
	int st = sfu_crash_read(p, size, &c);

	switch (st) {
	case SFU_CRASH_EMPTY:
		printf("record %s: none (no magic)\n", where);
		return st;
	case SFU_CRASH_CORRUPT:
		printf("record %s: corrupt (checksum mismatch): not a trace\n", where);
		return st;
	case SFU_CRASH_UNKNOWN:
		printf("record %s: unknown version or shape: not a trace\n", where);
		return st;
	}
	printf("record %s: valid\n", where);
	printf("crash: boot %u, %s \"%s\" at pc 0x%llx\n", c.boot,
	       c.kind == SFU_CRASH_PANIC ? "panic" : c.kind == SFU_CRASH_FAULT ? "fault" : "kind ?", c.msg,
	       (unsigned long long)c.pc);
	if (c.flags & SFU_CRASH_ADDR_VALID)
		printf("  fault address 0x%llx  code 0x%llx\n", (unsigned long long)c.addr, (unsigned long long)c.code);
	for (i = 0; i < c.nframes; i++) {
		sfu_crash_frame(&c, i, &f);
		sfu_crash_frame(&c, i + 1, &next);
		printf("  #%u 0x%016llx%s\n", i, (unsigned long long)f.pc,
		       (f.flags & SFU_FRAME_USER)                        ? " (user)"
		       : i > 0 && (f.flags & SFU_FRAME_EXACT)            ? " (interrupted)"
		       : i + 1 < c.nframes && next.how == SFU_HOW_TRAP ? " (exception)"
		                                                         : "");
	}
	printf("backtrace: %u frames, stopped: %s (%s)\n", c.nframes, sfu_strerror(c.stop), err_name(c.stop));
	return st;
}

static int tally(int st, int *worst)
{
	if (st == SFU_CRASH_CORRUPT || st == SFU_CRASH_UNKNOWN)
		*worst = 1;
	return st != SFU_CRASH_EMPTY;
}

/* The firmware's hex lines: "crash record +OFF: hh hh ...".  A line at
 * +000 starts a record. */
static int from_log(FILE *in)
{
	static uint8_t rec[SFU_CRASH_SIZE];
	char line[1024], where[64];
	size_t have = 0;
	int found = 0, worst = 0, open = 0, n = 0;

	while (fgets(line, sizeof line, in)) {
		char *p = strstr(line, "crash record +");
		unsigned long off;
		char *e;

		if (!p)
			continue;
		off = strtoul(p + 14, &e, 16);
		if (*e != ':')
			continue;
		if (off == 0) {
			if (open)
				found += tally(show(rec, have, where), &worst);
			memset(rec, 0, sizeof rec);
			have = 0;
			open = 1;
			snprintf(where, sizeof where, "%d of the log", ++n);
		}
		if (!open || off != have)
			continue; /* a gap: the record stays short, and is refused */
		for (p = e + 1;;) {
			unsigned long b;
			while (*p == ' ')
				p++;
			if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
				break;
			b = strtoul(p, &e, 16);
			if (e != p + 2 || have == sizeof rec)
				break;
			rec[have++] = (uint8_t)b;
			p = e;
		}
	}
	if (open)
		found += tally(show(rec, have, where), &worst);
	if (!found)
		printf("no crash record in the log\n");
	return found ? worst : 2;
}

static int from_dump(FILE *in, long at)
{
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, off;
	char where[64];
	int found = 0, worst = 0;

	for (;;) {
		size_t r;
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			buf = realloc(buf, cap);
			if (!buf)
				return 3;
		}
		r = fread(buf + n, 1, cap - n, in);
		if (r == 0)
			break;
		n += r;
	}
	if (at >= 0) {
		snprintf(where, sizeof where, "at +0x%lx", at);
		found = (size_t)at < n ? tally(show(buf + at, n - (size_t)at, where), &worst) : 0;
	} else {
		for (off = 0; off + 4 <= n; off += 4) {
			if (buf[off] != 'S' || buf[off + 1] != 'F' || buf[off + 2] != 'U' || buf[off + 3] != 'C')
				continue;
			snprintf(where, sizeof where, "at +0x%zx", off);
			found += tally(show(buf + off, n - off, where), &worst);
		}
	}
	free(buf);
	if (!found)
		printf("no crash record in the dump\n");
	return found ? worst : 2;
}

int main(int argc, char **argv)
{
	long at = -1;
	int log = 0, rc;
	FILE *in;

	sfu_tool_args(argc, argv, "sfu-crash", help);
	while (argc > 2 && argv[1][0] == '-') {
		if (strcmp(argv[1], "--log") == 0) {
			log = 1;
			argv++, argc--;
		} else if (strcmp(argv[1], "--at") == 0 && argc > 3) {
			at = strtol(argv[2], NULL, 0);
			argv += 2, argc -= 2;
		} else {
			break;
		}
	}
	if (argc != 2 || argv[1][0] == '-' || at < -1) {
		fprintf(stderr, "usage: sfu-crash [--at OFFSET] DUMP | sfu-crash --log LOG\n");
		return 3;
	}
	in = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "rb");
	if (!in) {
		perror(argv[1]);
		return 3;
	}
	rc = log ? from_log(in) : from_dump(in, at);
	if (in != stdin)
		fclose(in);
	return rc;
}
