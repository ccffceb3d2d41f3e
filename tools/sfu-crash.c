/* SPDX-License-Identifier: MIT */
/* sfu-crash - read sfu crash records (crash/sfu_crash.h) out of a
 * memory dump or a serial log, on the host; make an ELF core file of an
 * extended record that gdb opens.
 *
 *   sfu-crash [--at OFFSET] DUMP    a raw memory dump (QEMU's pmemsave, a
 *                                   debugger's dump of the retained RAM,
 *                                   or QEMU's dump-guest-memory ELF file):
 *                                   the record at byte OFFSET, or without
 *                                   --at every record found (magic at a
 *                                   4-byte boundary)
 *   sfu-crash --log LOG             the record's lines in a serial log:
 *                                   the wire lines sfu_dump_record_wire
 *                                   prints ("sfu-record 1/15 B1NG...
 *                                   fa661407", crash/sfu_record.h), or the
 *                                   hex lines of older firmware
 *                                   ("  crash record +000: 53 46 ...");
 *                                   a line missing, damaged or out of
 *                                   order refuses the record
 *   sfu-crash --core OUT IMAGE [--at OFFSET | --log] INPUT
 *                                   the one extended record of INPUT as an
 *                                   ELF core file OUT for `gdb IMAGE OUT`
 *
 * For each record: whether it is valid, and if so the crash and its frames
 * in the dump format tools/sfu-symbolize reads ("  #N 0xADDR [marker]"), so
 *     sfu-crash dump.bin | tools/sfu-symbolize IMAGE
 * names them; an extended record's threads follow, each frame with its PC
 * and SP.  A corrupt or half-written record is reported as such and never
 * printed as a trace.  Exit status: 0 if every record found is valid, 1 if
 * one is corrupt, truncated or of an unknown shape, 2 if none was found,
 * 3 on a usage or I/O error.
 *
 * THE CORE FILE (--core)
 *   ET_CORE of the record's machine (EM_AARCH64 or EM_X86_64), as Linux
 *   writes one: a PT_NOTE segment with an NT_PRPSINFO (IMAGE's file name
 *   as the program and its command line, so gdb pairs the two) and one
 *   NT_PRSTATUS per thread, the crashed one first with its signal (the
 *   one Linux would send for the fault, decoded from the record's
 *   syndrome words; SIGABRT for a panic) and after it an NT_SIGINFO (the
 *   signal, its si_code, the faulting address: gdb's $_siginfo), each
 *   NT_PRSTATUS in that architecture's elf_prstatus
 *   layout (pr_reg at 112: x86_64 user_regs_struct, 27 registers; aarch64
 *   user_pt_regs, x0-x30 sp pc pstate), for an aarch64 record with a PAC
 *   mask an NT_AUXV saying HWCAP_PACA and, after each NT_PRSTATUS, an
 *   NT_ARM_PAC_MASK (gdb strips signed return addresses with it; a thread
 *   without one cannot be unwound), and one PT_LOAD per stack window
 *   (read-write, at the window's address).  The code comes from IMAGE
 *   (gdb reads what the core lacks from the executable), so no NT_FILE: a
 *   static image has nothing to map.  A register the record does not know
 *   is 0 in the core (elf_prstatus has no way to say "unknown"): the tool
 *   names those registers on stderr.
 *   Refused, with a message and no OUT: no extended record, a corrupt,
 *   truncated or malformed one, one of another machine than IMAGE, one
 *   whose build-id is not IMAGE's (or either has none).  Exit status then:
 *   1 (the record), 2 (none), 3 (usage, I/O), 4 (IMAGE is another image).
 */
#define SFU_IMPLEMENTATION
#define SFU_STATIC
#define SFU_ERROR_STRINGS 1
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sfu_crash.h"
#include "sfu_tool.h"
/* Both CPUs' fault decoders (pure functions of the record's words). */
#include "../port/aarch64/sfu_fault_aarch64.h"
#include "../port/x86_64/sfu_fault_x86_64.h"

static const char help[] =
	"usage: sfu-crash [--at OFFSET] DUMP | sfu-crash --log LOG\n"
	"       sfu-crash --core OUT IMAGE [--at OFFSET | --log] INPUT\n"
	"Read sfu crash records (crash/sfu_crash.h) out of a memory dump (raw, or QEMU's\n"
	"dump-guest-memory ELF), or out of a serial log, and print each\n"
	"valid one in the dump format sfu-symbolize reads; a corrupt or half-written record is\n"
	"reported, never printed.  With --core, write the one extended record as an ELF core\n"
	"file OUT that `gdb IMAGE OUT` opens; refused (no OUT) for a bad record or another image.\n"
	"  --at OFFSET   only the record at byte OFFSET of DUMP (default: every one found)\n"
	"  --log LOG     read the records from a serial log's \"sfu-record K/N ...\" wire lines\n"
	"                (or the \"crash record +NNN:\" hex lines of older firmware)\n"
	"  --core OUT IMAGE   the core file, checked against IMAGE's machine and build-id\n"
	"  --help, --version\n"
	"Exit status: 0 every record valid, 1 one corrupt, truncated or unknown, 2 none found,\n"
	"3 usage or I/O error, 4 (--core) the record is of another image.\n";

static const char *machine_name(unsigned m)
{
	return m == SFU_CRASH_EM_AARCH64 ? "aarch64" : m == SFU_CRASH_EM_X86_64 ? "x86_64" : "unknown machine";
}

static const char *state_name(unsigned s)
{
	static const char *names[] = { "unknown", "crashed", "running", "ready", "blocked", "suspended" };
	return s < sizeof names / sizeof names[0] ? names[s] : "?";
}

static const char *cut_name(unsigned c)
{
	static const char *names[] = { "the last CFA the walk computed", "cut: the budget ran out",
		                       "cut: the port refused a read", "the next frame is on another stack" };
	return c < sizeof names / sizeof names[0] ? names[c] : "?";
}

/* Register names by the record's numbering. */
static const char *reg_name(unsigned machine, unsigned i)
{
	static const char *x64[SFU_CRASH_X64_NREGS] = { "r15", "r14", "r13", "r12", "rbp", "rbx", "r11",
		                                        "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi",
		                                        "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss",
		                                        "fs_base", "gs_base", "ds", "es", "fs", "gs" };
	static const char *a64[SFU_CRASH_A64_NREGS] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
		                                        "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16",
		                                        "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24",
		                                        "x25", "x26", "x27", "x28", "x29", "x30", "sp", "pc",
		                                        "pstate" };
	if (machine == SFU_CRASH_EM_X86_64 && i < SFU_CRASH_X64_NREGS)
		return x64[i];
	if (machine == SFU_CRASH_EM_AARCH64 && i < SFU_CRASH_A64_NREGS)
		return a64[i];
	return "?";
}

static const char *status_text(int st)
{
	switch (st) {
	case SFU_CRASH_EMPTY:
		return "none (no magic)";
	case SFU_CRASH_CORRUPT:
		return "corrupt (checksum mismatch): not a trace";
	case SFU_CRASH_UNKNOWN:
		return "unknown version or shape: not a trace";
	case SFU_CRASH_SHORT:
		return "truncated (the record is longer than the input holds): not a trace";
	default:
		return "valid";
	}
}

/* The cause of a fault record, decoded from its words by its machine's
 * decoder (port/sfu_fault.h) into line (n bytes) and *f; false if the
 * record has no syndrome or its machine no decoder. */
static int fault_of(const struct sfu_crash *c, unsigned machine, char *line, size_t n, struct sfu_fault *f)
{
	unsigned known = SFU_FAULT_CODE | (c->flags & SFU_CRASH_ADDR_KNOWN ? SFU_FAULT_ADDR : 0u);

	memset(f, 0, sizeof *f);
	if (n)
		line[0] = 0;
	if (c->kind != SFU_CRASH_FAULT || !(c->flags & SFU_CRASH_CODE_KNOWN))
		return 0;
	if (machine == SFU_CRASH_EM_AARCH64)
		return sfu_aarch64_fault(c->code, c->addr, known, line, n, f) != 0;
	if (machine == SFU_CRASH_EM_X86_64)
		return sfu_x86_64_fault(c->code, c->addr, known, line, n, f) != 0;
	return 0;
}

static void hex(FILE *f, const uint8_t *p, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* The threads of an extended record (already checked). */
static void show_ext(const uint8_t *p, size_t size)
{
	struct sfu_crash_info info;
	struct sfu_crash_tinfo t;
	sfu_frame f;
	unsigned i, k, r;

	if (sfu_crash_info_read(p, size, &info) != SFU_CRASH_VALID)
		return;
	printf("extended: %s, %u bytes of a %u-byte budget, %u thread%s", machine_name(info.machine), info.total,
	       info.budget, info.nthreads, info.nthreads == 1 ? "" : "s");
	if (info.dropped)
		printf(" (%u more dropped: no room)", info.dropped);
	printf(", build-id ");
	hex(stdout, info.id, info.idlen);
	if (info.pac)
		printf(", PAC mask 0x%016llx", (unsigned long long)info.pac);
	printf("\n");
	for (i = 0; i < info.nthreads && sfu_crash_thread_read(p, &info, i, &t); i++) {
		if (t.stop == SFU_OK)
			printf("thread %u \"%s\" %s%s: %u frames, goes on through a trap frame in thread %u\n", i + 1, t.name,
			       state_name(t.state), i == info.crashed ? " (the crash)" : "", t.nframes, i + 2);
		else
			printf("thread %u \"%s\" %s%s: %u frames, stopped: %s (%s)\n", i + 1, t.name, state_name(t.state),
			       i == info.crashed ? " (the crash)" : "", t.nframes, sfu_strerror(t.stop), sfu_errname(t.stop));
		printf("  registers known:");
		for (r = 0; r < SFU_CRASH_MAX_REGS; r++)
			if (t.valid >> r & 1u)
				printf(" %s=0x%llx", reg_name(info.machine, r), (unsigned long long)t.regs[r]);
		printf("\n  stack window 0x%llx, %u of %u bytes, %u whole frame%s (%s)\n",
		       (unsigned long long)t.window, t.kept, t.wanted, t.whole, t.whole == 1 ? "" : "s", cut_name(t.cut));
		for (k = 0; k < t.nframes; k++) {
			sfu_crash_thread_frame(p, &t, k, &f);
			printf("    #%u pc 0x%016llx sp 0x%016llx%s\n", k, (unsigned long long)f.pc, (unsigned long long)f.sp,
			       k >= t.whole && k > 0 ? " (its stack not in the window)" : "");
		}
	}
}

/* Print one record; returns its status. */
static int show(const uint8_t *p, size_t size, const char *where, const char *damage)
{
	struct sfu_crash c;
	sfu_frame f, next;
	unsigned i;
	int st = sfu_crash_read(p, size, &c);

	if (damage[0]) {
		printf("record %s: %s: not a trace\n", where, damage);
		return SFU_CRASH_CORRUPT;
	}
	if (st == SFU_CRASH_EMPTY && size >= 4 && size < SFU_CRASH_SIZE && memcmp(p, "SFUC", 4) == 0) {
		printf("record %s: truncated (%zu bytes, the header alone is %u): not a trace\n", where, size,
		       SFU_CRASH_SIZE);
		return SFU_CRASH_SHORT;
	}
	if (st != SFU_CRASH_VALID) {
		printf("record %s: %s\n", where, status_text(st));
		return st;
	}
	printf("record %s: valid\n", where);
	printf("crash: boot %u, %s \"%s\" at pc 0x%llx\n", c.boot,
	       c.kind == SFU_CRASH_PANIC ? "panic" : c.kind == SFU_CRASH_FAULT ? "fault" : "kind ?", c.msg,
	       (unsigned long long)c.pc);
	{
		struct sfu_crash_info info;
		struct sfu_fault fa;
		char line[SFU_FAULT_LINE];

		if (sfu_crash_info_read(p, size, &info) == SFU_CRASH_VALID && fault_of(&c, info.machine, line, sizeof line, &fa))
			printf("  fault: %s\n", line);
		else if (c.flags & SFU_CRASH_ADDR_VALID)
			printf("  fault address 0x%llx  code 0x%llx\n", (unsigned long long)c.addr, (unsigned long long)c.code);
	}
	for (i = 0; i < c.nframes; i++) {
		sfu_crash_frame(&c, i, &f);
		sfu_crash_frame(&c, i + 1, &next);
		printf("  #%u 0x%016llx%s\n", i, (unsigned long long)f.pc,
		       (f.flags & SFU_FRAME_USER)                        ? " (user)"
		       : i > 0 && (f.flags & SFU_FRAME_EXACT)            ? " (interrupted)"
		       : i + 1 < c.nframes && next.how == SFU_HOW_TRAP ? " (exception)"
		                                                         : "");
	}
	printf("backtrace: %u frames, stopped: %s (%s)\n", c.nframes, sfu_strerror(c.stop), sfu_errname(c.stop));
	show_ext(p, size);
	return st;
}

/* ---- input: the records of a dump, a QEMU ELF dump or a log --------------------- */

struct rec {
	const uint8_t *p; /* the record's first byte */
	size_t size;      /* bytes from there to the end of its region */
	char where[64];
	char damage[160]; /* a log's wire lines: why they do not give it whole */
};

struct input {
	uint8_t *buf; /* the file, or the bytes of the log's records */
	size_t n;
	struct rec *recs;
	size_t nrecs;
	Elf *elf; /* a dump-guest-memory file: its PT_LOADs are the regions */
};

static void die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "sfu-crash: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(code);
}

static void add_rec(struct input *in, const uint8_t *p, size_t size, const char *fmt, unsigned long long a)
{
	in->recs = realloc(in->recs, (in->nrecs + 1) * sizeof *in->recs);
	if (!in->recs)
		die(3, "out of memory");
	in->recs[in->nrecs].p = p;
	in->recs[in->nrecs].size = size;
	in->recs[in->nrecs].damage[0] = 0;
	snprintf(in->recs[in->nrecs].where, sizeof in->recs[0].where, fmt, a);
	in->nrecs++;
}

static void input_free(struct input *in)
{
	if (in->elf)
		elf_end(in->elf);
	free(in->recs);
	free(in->buf);
}

static void read_all(FILE *f, struct input *in)
{
	size_t cap = 0;
	for (;;) {
		size_t r;
		if (in->n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			in->buf = realloc(in->buf, cap);
			if (!in->buf)
				die(3, "out of memory");
		}
		r = fread(in->buf + in->n, 1, cap - in->n, f);
		if (r == 0)
			break;
		in->n += r;
	}
	if (ferror(f))
		die(3, "read error");
}

/* Records in [p, p + n): at `at` (>= 0), or every magic at a 4-byte
 * boundary.  base names the region's addresses in the messages. */
static void scan(struct input *in, const uint8_t *p, size_t n, long at, const char *fmt, unsigned long long base)
{
	size_t off;
	if (at >= 0) {
		if ((size_t)at < n)
			add_rec(in, p + at, n - (size_t)at, fmt, base + (unsigned long long)at);
		return;
	}
	for (off = 0; off + 4 <= n; off += 4)
		if (p[off] == 'S' && p[off + 1] == 'F' && p[off + 2] == 'U' && p[off + 3] == 'C')
			add_rec(in, p + off, n - off, fmt, base + off);
}

/* A raw dump, or QEMU's dump-guest-memory ELF (ET_CORE): its PT_LOAD
 * segments, each searched at its guest-physical address. */
static void from_dump(struct input *in, const char *path, long at)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	GElf_Ehdr eh;
	size_t i, nph;

	if (!f)
		die(3, "%s: %s", path, strerror(errno));
	read_all(f, in);
	if (f != stdin)
		fclose(f);
	if (in->n >= 4 && memcmp(in->buf, ELFMAG, 4) == 0) {
		in->elf = elf_memory((char *)in->buf, in->n);
		if (!in->elf || !gelf_getehdr(in->elf, &eh) || eh.e_type != ET_CORE || elf_getphdrnum(in->elf, &nph))
			die(3, "%s: an ELF file but not a memory dump (ET_CORE): %s", path, elf_errmsg(-1));
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(in->elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0)
				continue;
			if (ph.p_offset > in->n || ph.p_filesz > in->n - ph.p_offset)
				die(3, "%s: PT_LOAD %zu runs past the file (a truncated dump)", path, i);
			scan(in, in->buf + ph.p_offset, ph.p_filesz, at, "at physical 0x%llx", ph.p_paddr);
		}
		return;
	}
	scan(in, in->buf, in->n, at, "at +0x%llx", 0);
}

static void put_byte(struct input *in, size_t *cap, unsigned b)
{
	if (in->n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		in->buf = realloc(in->buf, *cap);
		if (!in->buf)
			die(3, "out of memory");
	}
	in->buf[in->n++] = (uint8_t)b;
}

/* The wire form's decoder (crash/sfu_record.h, ON THE WIRE): the lines of
 * one record, "sfu-record K/N PAYLOAD CRC", K = 1 .. N in order, each
 * line's CRC-32 over its text up to the payload's end.  A missing,
 * repeated or damaged line, or a token stream that does not decode
 * whole, is said (why) and the record is left with the bytes decoded so
 * far (refused then as truncated or corrupt, never a trace). */
struct wire {
	unsigned line, lines; /* the last line read, of how many (0: none open) */
	int bad;              /* a line was missing or damaged */
	char why[160];
	size_t start;         /* the record's first byte in the input */
	uint8_t tok[3 * 4096];/* token bytes not yet decoded */
	size_t ntok;
};

static int b64(int c)
{
	const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", *p;
	return c && (p = strchr(a, c)) != NULL ? (int)(p - a) : -1;
}

/* Decode the whole tokens of w->tok into in (the rest stays): 0, or -1
 * if a token refers to bytes before the record. */
static int wire_tokens(struct input *in, size_t *cap, struct wire *w, int last)
{
	size_t i = 0, k, n;
	while (i < w->ntok) {
		unsigned t = w->tok[i], m = (t & 63u) + 1u;
		if (t < 0x40) {
			if (i + 1 + m > w->ntok)
				break; /* its literals in the next line */
			for (k = 0; k < m; k++)
				put_byte(in, cap, w->tok[i + 1 + k]);
			i += 1 + m;
			continue;
		}
		n = t < 0x80 ? m : t < 0xc0 ? 64u * m : 8u * m;
		if (t >= 0xc0 && in->n - w->start < 8)
			return -1;
		for (k = 0; k < n; k++)
			put_byte(in, cap, t < 0xc0 ? 0u : in->buf[in->n - 8]);
		i++;
	}
	memmove(w->tok, w->tok + i, w->ntok - i);
	w->ntok -= i;
	return last && w->ntok ? -1 : 0;
}

/* One "sfu-record K/N ..." line (p at "sfu-record"): 1 if it starts a
 * record, 0 otherwise; bad lines mark the record. */
static int wire_line(struct input *in, size_t *cap, struct wire *w, char *p)
{
	unsigned k, n, i;
	char *sp, *e;
	uint32_t crc = 0xffffffffu, want;
	int first = 0, len;

	if (sscanf(p, "sfu-record %u/%u %n", &k, &n, &len) != 2 || k == 0 || k > n)
		return 0;
	sp = p + len;
	e = strchr(sp, ' ');
	if (k == 1) {
		first = 1;
		w->line = 0;
		w->lines = n;
		w->bad = 0;
		w->why[0] = 0;
		w->ntok = 0;
		w->start = in->n;
	}
	if (w->lines == 0 || w->bad)
		return first;
	if (n != w->lines || k != w->line + 1) {
		snprintf(w->why, sizeof w->why, "line %u of %u missing (line %u/%u follows line %u)", w->line + 1, w->lines, k, n, w->line);
		w->bad = 1;
		return first;
	}
	if (!e || (e - sp) > 76 || ((e - sp) & 3) || sscanf(e, " %8x", &want) != 1) {
		snprintf(w->why, sizeof w->why, "line %u of %u malformed", k, n);
		w->bad = 1;
		return first;
	}
	for (i = 0; p + i < e; i++) {
		unsigned c = (unsigned char)p[i], b;
		crc ^= c;
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	if ((crc ^ 0xffffffffu) != want) {
		snprintf(w->why, sizeof w->why, "line %u of %u damaged (its checksum does not match)", k, n);
		w->bad = 1;
		return first;
	}
	for (; sp < e; sp += 4) {
		int a = b64(sp[0]), b = b64(sp[1]), c = sp[2] == '=' ? 0 : b64(sp[2]), d = sp[3] == '=' ? 0 : b64(sp[3]);
		if (a < 0 || b < 0 || c < 0 || d < 0 || w->ntok + 3 > sizeof w->tok) {
			snprintf(w->why, sizeof w->why, "line %u of %u: not base64", k, n);
			w->bad = 1;
			return first;
		}
		w->tok[w->ntok++] = (uint8_t)(a << 2 | b >> 4);
		if (sp[2] != '=')
			w->tok[w->ntok++] = (uint8_t)(b << 4 | c >> 2);
		if (sp[3] != '=')
			w->tok[w->ntok++] = (uint8_t)(c << 6 | d);
	}
	w->line = k;
	if (wire_tokens(in, cap, w, k == n) != 0) {
		snprintf(w->why, sizeof w->why, "line %u of %u: the compressed bytes do not decode", k, n);
		w->bad = 1;
	}
	return first;
}

/* A log's records: where each starts in the input, and why its lines do
 * not give it whole (empty: they do). */
struct log_starts {
	size_t *at, n;
	char (*damage)[160];
};

static void log_start(struct log_starts *s, size_t at)
{
	s->at = realloc(s->at, (s->n + 1) * sizeof *s->at);
	s->damage = realloc(s->damage, (s->n + 1) * sizeof *s->damage);
	if (!s->at || !s->damage)
		die(3, "out of memory");
	s->damage[s->n][0] = 0;
	s->at[s->n++] = at;
}

/* The last record's wire lines stopped before their count: said, unless
 * something else was. */
static void log_short(struct log_starts *s, const struct wire *w)
{
	if (w->lines && w->line < w->lines && !w->bad && s->n && !s->damage[s->n - 1][0])
		snprintf(s->damage[s->n - 1], sizeof s->damage[0], "lines %u to %u of %u missing", w->line + 1,
		         w->lines, w->lines);
}

/* The firmware's lines: the wire form ("sfu-record K/N ..."), or the hex
 * lines of older firmware ("crash record +OFF: hh hh ...").  A first line
 * starts a record; a gap leaves it short (and refused). */
static void from_log(struct input *in, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char line[4096];
	size_t cap = 0, start = 0, i;
	struct log_starts s = { NULL, 0, NULL };
	int open = 0;
	static struct wire w;

	if (!f)
		die(3, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, "crash record +");
		unsigned long off;
		char *e;

		if (!p && (p = strstr(line, "sfu-record ")) != NULL) {
			size_t before = in->n;
			unsigned k1, n1;
			/* A first line ends the record before it: all its lines? */
			if (sscanf(p, "sfu-record %u/%u ", &k1, &n1) == 2 && k1 == 1)
				log_short(&s, &w);
			if (wire_line(in, &cap, &w, p)) {
				log_start(&s, before);
				open = 0;
			}
			if (w.bad && w.why[0] && s.n) {
				snprintf(s.damage[s.n - 1], sizeof s.damage[0], "%s", w.why);
				w.why[0] = 0;
			}
			continue;
		}
		if (!p)
			continue;
		off = strtoul(p + 14, &e, 16);
		if (*e != ':')
			continue;
		if (off == 0) {
			start = in->n;
			open = 1;
			w.lines = 0;
			log_start(&s, start);
		}
		if (!open || off != in->n - start) {
			open = 0; /* a gap: the record stays short, and is refused */
			continue;
		}
		for (p = e + 1;;) {
			unsigned long b;
			while (*p == ' ')
				p++;
			if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
				break;
			b = strtoul(p, &e, 16);
			if (e != p + 2)
				break;
			if (in->n == cap) {
				cap = cap ? 2 * cap : 4096;
				in->buf = realloc(in->buf, cap);
				if (!in->buf)
					die(3, "out of memory");
			}
			in->buf[in->n++] = (uint8_t)b;
			p = e;
		}
	}
	if (f != stdin)
		fclose(f);
	log_short(&s, &w);
	for (i = 0; i < s.n; i++) {
		size_t end = i + 1 < s.n ? s.at[i + 1] : in->n;
		add_rec(in, in->buf + s.at[i], end - s.at[i], "%llu of the log", i + 1);
		memcpy(in->recs[in->nrecs - 1].damage, s.damage[i], sizeof s.damage[i]);
	}
	free(s.at);
	free(s.damage);
}

/* ---- the image: machine and build-id -------------------------------------------- */

struct image {
	unsigned machine;
	uint8_t id[64];
	size_t idlen;
	struct {
		uint64_t lo, hi;
	} nobits[64]; /* its allocated sections without contents (.bss, .stack) */
	size_t nnobits;
};

/* [lo, hi) inside one of the image's allocated sections without contents. */
static int in_nobits(const struct image *im, uint64_t lo, uint64_t hi)
{
	size_t i;
	for (i = 0; i < im->nnobits; i++)
		if (lo >= im->nobits[i].lo && hi <= im->nobits[i].hi)
			return 1;
	return 0;
}

static int note_id(Elf_Data *d, struct image *im)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	while (d && off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz <= sizeof im->id) {
			memcpy(im->id, (const char *)d->d_buf + desc_off, nh.n_descsz);
			im->idlen = nh.n_descsz;
			return 1;
		}
		off = next;
	}
	return 0;
}

static void read_image(const char *path, struct image *im)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	GElf_Ehdr eh;
	Elf_Scn *s = NULL;
	size_t i, nph;

	if (fd < 0)
		die(3, "%s: %s", path, strerror(errno));
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		die(3, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
	im->machine = eh.e_machine;
	im->idlen = 0;
	im->nnobits = 0;
	while ((s = elf_nextscn(e, s)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			continue;
		if (sh.sh_type == SHT_NOTE && !im->idlen)
			note_id(elf_getdata(s, NULL), im);
		if (sh.sh_type == SHT_NOBITS && (sh.sh_flags & SHF_ALLOC) && im->nnobits < 64) {
			im->nobits[im->nnobits].lo = sh.sh_addr;
			im->nobits[im->nnobits].hi = sh.sh_addr + sh.sh_size;
			im->nnobits++;
		}
	}
	for (i = 0; !im->idlen && elf_getphdrnum(e, &nph) == 0 && i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE)
			note_id(elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR), im);
	}
	elf_end(e);
	close(fd);
}

/* ---- the core file ---------------------------------------------------------------- */

/* Linux's elf_prstatus and elf_prpsinfo (include/uapi/linux/elfcore.h,
 * the 64-bit layout both machines share up to pr_reg), by byte offset. */
#define PR_INFO_SIGNO 0 /* pr_info.si_signo */
#define PR_CURSIG 12
#define PR_PID 32
#define PR_PPID 36
#define PR_PGRP 40
#define PR_SID 44
#define PR_REG 112
#define PRPS_SIZE 136
#define PRPS_SNAME 1
#define PRPS_PID 24
#define PRPS_FNAME 40
#define PRPS_PSARGS 56
/* NT_SIGINFO (0x53494749, Linux's include/uapi/linux/elf.h): a siginfo_t
 * of 128 bytes, si_signo at 0, si_code at 8, si_addr at 16 (the 64-bit
 * layout, asm-generic/siginfo.h). */
#define NT_SIGINFO_LINUX 0x53494749
#define SI_SIZE 128
#define SI_SIGNO 0
#define SI_CODE 8
#define SI_ADDR 16
#define SFU_SIGABRT_LINUX 6
/* Where the core holds the image's ELF header and build-id (write_core):
 * the last pages of the address space, under no firmware's code or stack. */
#define SFU_CORE_ID_VADDR 0xffffffffffffe000ull

struct buf {
	uint8_t *p;
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->n + n + 8);
	if (!b->p)
		die(3, "out of memory");
	memcpy(b->p + b->n, p, n);
	b->n += n;
	while (b->n & 3) /* notes are 4-byte aligned */
		b->p[b->n++] = 0;
}

static void le(uint8_t *p, uint64_t v, unsigned size)
{
	unsigned i;
	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void note(struct buf *b, const char *name, unsigned type, const uint8_t *desc, size_t n)
{
	uint8_t h[12];
	le(h, strlen(name) + 1, 4);
	le(h + 4, n, 4);
	le(h + 8, type, 4);
	put(b, h, 12);
	put(b, name, strlen(name) + 1);
	put(b, desc, n);
}

/* A section of bytes (name: an offset in shstr below). */
static Elf_Scn *add_scn(Elf *e, const void *p, size_t n, unsigned align, unsigned name, unsigned type, unsigned flags,
                        uint64_t addr)
{
	Elf_Scn *s = elf_newscn(e);
	Elf_Data *d = s ? elf_newdata(s) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(s, &sh))
		return NULL;
	d->d_buf = (void *)p;
	d->d_size = n;
	d->d_align = align;
	d->d_type = ELF_T_BYTE;
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_addralign = align;
	return gelf_update_shdr(s, &sh) ? s : NULL;
}

static void write_core(const char *out, const char *image, const struct image *im, const uint8_t *p,
                       const struct sfu_crash *c, const struct sfu_crash_info *info)
{
	uint8_t *padded[256];
	size_t npadded = 0;
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;
	unsigned nregs = sfu_crash_nregs(info->machine), prsize = PR_REG + 8 * nregs + 8, i, j, r, nload = 0, k;
	struct sfu_crash_tinfo t;
	struct buf notes = { NULL, 0 };
	uint8_t ps[PRPS_SIZE], pr[PR_REG + 8 * SFU_CRASH_MAX_REGS + 8], mask[16], si[SI_SIZE];
	char line[SFU_FAULT_LINE];
	struct sfu_fault fa;
	int pac, signo, si_code = SFU_SI_KERNEL;
	uint64_t si_addr = 0;
	Elf *e;
	Elf_Scn *s;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	int fd;
	static const char shstr[] = "\0.note\0.stack\0.shstrtab\0.build-id";
	uint8_t idhdr[64 + 56 + 16 + SFU_CRASH_ID_MAX];
	size_t idhdr_len = 64 + 56 + 16 + ((info->idlen + 3u) & ~3u);

	/* NT_PRPSINFO: the program is IMAGE.  gdb takes the core for IMAGE's
	 * only if its command line (pr_psargs) names IMAGE's file ("core file
	 * may not match specified executable file" otherwise): the image's
	 * file name, as Linux writes a program's command line; the crash's
	 * message and cause are in NT_SIGINFO's signal and this tool's text. */
	memset(ps, 0, sizeof ps);
	ps[PRPS_SNAME] = 'R';
	le(ps + PRPS_PID, 1, 4);
	memcpy(ps + PRPS_FNAME, base, strlen(base) < 15 ? strlen(base) : 15);
	snprintf((char *)ps + PRPS_PSARGS, 80, "%s", base);
	note(&notes, "CORE", NT_PRPSINFO, ps, sizeof ps);
	/* The crashed thread's signal, as Linux would send it for the fault
	 * (port/sfu_fault.h: SIGSEGV for a data abort or a #PF, SIGILL for an
	 * undefined instruction, ...) or SIGABRT for a panic; and its siginfo
	 * (NT_SIGINFO after its NT_PRSTATUS: gdb's $_siginfo, the fault
	 * address in si_addr). */
	signo = SFU_SIGABRT_LINUX;
	if (fault_of(c, info->machine, line, sizeof line, &fa) && fa.signo != 0) {
		signo = fa.signo;
		si_code = fa.code;
		si_addr = fa.addr_valid ? fa.addr : 0;
	}
	memset(si, 0, sizeof si);
	le(si + SI_SIGNO, (uint64_t)signo, 4);
	le(si + SI_CODE, (uint64_t)(int64_t)si_code, 4);
	le(si + SI_ADDR, si_addr, 8);
	/* The header of the identity segment (see below): ELF64, little-endian,
	 * the record's machine, one PT_NOTE holding NT_GNU_BUILD_ID. */
	memset(idhdr, 0, sizeof idhdr);
	memcpy(idhdr, "\177ELF\2\1\1", 7);
	le(idhdr + 16, ET_EXEC, 2);
	le(idhdr + 18, info->machine, 2);
	le(idhdr + 20, EV_CURRENT, 4);
	le(idhdr + 32, 64, 8);   /* e_phoff */
	le(idhdr + 52, 64, 2);   /* e_ehsize */
	le(idhdr + 54, 56, 2);   /* e_phentsize */
	le(idhdr + 56, 1, 2);    /* e_phnum */
	le(idhdr + 58, 64, 2);   /* e_shentsize */
	le(idhdr + 64, PT_NOTE, 4);
	le(idhdr + 64 + 4, PF_R, 4);
	le(idhdr + 64 + 8, 120, 8);  /* p_offset */
	le(idhdr + 64 + 32, 16 + ((info->idlen + 3u) & ~3u), 8); /* p_filesz */
	le(idhdr + 64 + 40, 16 + ((info->idlen + 3u) & ~3u), 8); /* p_memsz */
	le(idhdr + 64 + 48, 4, 8);   /* p_align */
	le(idhdr + 120, 4, 4);
	le(idhdr + 124, info->idlen, 4);
	le(idhdr + 128, NT_GNU_BUILD_ID, 4);
	memcpy(idhdr + 132, "GNU", 4);
	memcpy(idhdr + 136, info->id, info->idlen);
	/* aarch64 return addresses signed by pointer authentication: gdb
	 * strips them with the mask of an NT_ARM_PAC_MASK note, which it
	 * reads when the auxiliary vector's AT_HWCAP says HWCAP_PACA (Linux's
	 * arm64 core files, arch/arm64/include/uapi/asm/hwcap.h).  The mask
	 * is a register set of each thread, like NT_PRSTATUS: gdb takes a
	 * note to belong to the thread of the NT_PRSTATUS before it, so one
	 * follows every thread's (a thread without one has no PAC registers:
	 * "Register 69 is not available", and its backtrace stops). */
	pac = info->machine == SFU_CRASH_EM_AARCH64 && info->pac != 0;
	if (pac) {
		uint8_t auxv[32];
		le(auxv, 16, 8);                 /* AT_HWCAP */
		le(auxv + 8, (uint64_t)1 << 30, 8); /* HWCAP_PACA */
		le(auxv + 16, 0, 8);             /* AT_NULL */
		le(auxv + 24, 0, 8);
		note(&notes, "CORE", 6, auxv, sizeof auxv); /* NT_AUXV */
		le(mask, info->pac, 8);          /* data_mask */
		le(mask + 8, info->pac, 8);      /* insn_mask */
	}
	/* One NT_PRSTATUS per thread, the crashed one first (gdb's current
	 * thread); LWP ids are the threads' numbers in the record, from 1. */
	for (k = 0; k < info->nthreads; k++) {
		i = k == 0 ? info->crashed : k <= info->crashed ? k - 1 : k;
		sfu_crash_thread_read(p, info, i, &t);
		memset(pr, 0, sizeof pr);
		/* Every thread's, as Linux writes the dump's signal in each (bfd
		 * takes the core's signal from the last NT_PRSTATUS it reads). */
		le(pr + PR_INFO_SIGNO, (uint64_t)signo, 4);
		le(pr + PR_CURSIG, (uint64_t)signo, 2);
		le(pr + PR_PID, i + 1, 4);
		le(pr + PR_PPID, 0, 4);
		le(pr + PR_PGRP, 1, 4);
		le(pr + PR_SID, 1, 4);
		for (r = 0; r < nregs; r++)
			le(pr + PR_REG + 8 * r, t.regs[r], 8);
		note(&notes, "CORE", NT_PRSTATUS, pr, prsize);
		if (i == info->crashed)
			note(&notes, "CORE", NT_SIGINFO_LINUX, si, sizeof si);
		if (pac)
			note(&notes, "LINUX", 0x406, mask, sizeof mask); /* NT_ARM_PAC_MASK */
		if (t.kept)
			nload++;
		if (t.valid != ((uint64_t)1 << nregs) - 1) {
			fprintf(stderr, "sfu-crash: thread %u \"%s\": unknown to the record, 0 in the core:", i + 1, t.name);
			for (r = 0; r < nregs; r++)
				if (!(t.valid >> r & 1u))
					fprintf(stderr, " %s", reg_name(info->machine, r));
			fprintf(stderr, "\n");
		}
	}

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(3, "%s: %s", out, strerror(errno));
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e || !gelf_newehdr(e, ELFCLASS64) || !gelf_getehdr(e, &eh))
		goto fail;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_CORE;
	eh.e_machine = info->machine;
	eh.e_version = EV_CURRENT;
	if (!gelf_update_ehdr(e, &eh) || !gelf_newphdr(e, 2 + nload))
		goto fail;
	/* The segments' bytes live in sections (libelf lays them out); the
	 * program headers then point at them.  gdb reads a core by its
	 * program headers only. */
	if (!add_scn(e, notes.p, notes.n, 4, 1, SHT_NOTE, 0, 0))
		goto fail;
	/* The image's identity where gdb looks for it: a Linux core maps the
	 * program's first page, its ELF header, whose build-id note bfd finds
	 * through the first loadable segment.  A firmware's header is in no
	 * memory, so a small ELF header and the record's build-id note (the
	 * image's: checked above) stand at the top page of the address space,
	 * read-only, where no code or stack is; without it gdb compares the
	 * 15 characters of pr_fname with the image's whole file name and
	 * warns that the core may not match it. */
	if (!add_scn(e, idhdr, idhdr_len, 8, 24, SHT_PROGBITS, SHF_ALLOC, SFU_CORE_ID_VADDR))
		goto fail;
	/* gdb reads the stack through a cache of 64-byte lines, and a line
	 * the core holds only part of is read whole from the executable where
	 * the image has a section without contents (its .bss, .stack: zeros),
	 * losing the window's bytes in it.  Where such a section lies around
	 * a window, the window's segment is widened to whole 64-byte lines
	 * with the zeros gdb would read there from the image anyway. */
	for (i = 0; i < info->nthreads; i++) {
		uint64_t lo, hi;
		sfu_crash_thread_read(p, info, i, &t);
		if (!t.kept)
			continue;
		lo = t.window & ~(uint64_t)63;
		hi = (t.window + t.kept + 63) & ~(uint64_t)63;
		if (lo < t.window && !in_nobits(im, lo, t.window))
			lo = t.window;
		if (hi > t.window + t.kept && !in_nobits(im, t.window + t.kept, hi))
			hi = t.window + t.kept;
		padded[npadded] = calloc(1, hi - lo);
		if (!padded[npadded])
			die(3, "out of memory");
		/* The widening must not hide another window's bytes behind
		 * zeros: windows of one stack can touch (a fault taken in a
		 * handler, its handler's block right below the interrupted
		 * one's), and gdb reads an address from the first segment that
		 * holds it.  Their bytes go in the padding too. */
		for (j = 0; j < info->nthreads; j++) {
			struct sfu_crash_tinfo o;
			uint64_t olo, ohi;
			sfu_crash_thread_read(p, info, j, &o);
			olo = o.window > lo ? o.window : lo;
			ohi = o.window + o.kept < hi ? o.window + o.kept : hi;
			if (j != i && o.kept && olo < ohi)
				memcpy(padded[npadded] + (olo - lo), p + o.window_off + (olo - o.window), ohi - olo);
		}
		memcpy(padded[npadded] + (t.window - lo), p + t.window_off, t.kept);
		if (!add_scn(e, padded[npadded++], hi - lo, 8, 7, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, lo))
			goto fail;
	}
	if (!(s = add_scn(e, shstr, sizeof shstr, 1, 14, SHT_STRTAB, 0, 0)))
		goto fail;
	if (!gelf_getehdr(e, &eh)) /* again: gelf_newphdr set e_phnum */
		goto fail;
	eh.e_shstrndx = (Elf64_Half)elf_ndxscn(s);
	if (!gelf_update_ehdr(e, &eh) || elf_update(e, ELF_C_NULL) < 0)
		goto fail;
	for (i = 0, s = NULL; (s = elf_nextscn(e, s)) != NULL && gelf_getshdr(s, &sh);) {
		if (sh.sh_type != SHT_NOTE && sh.sh_type != SHT_PROGBITS)
			continue;
		memset(&ph, 0, sizeof ph);
		ph.p_type = sh.sh_type == SHT_NOTE ? PT_NOTE : PT_LOAD;
		ph.p_flags = sh.sh_type == SHT_NOTE ? 0 : sh.sh_flags & SHF_WRITE ? PF_R | PF_W : PF_R;
		ph.p_offset = sh.sh_offset;
		ph.p_vaddr = sh.sh_addr;
		ph.p_filesz = ph.p_memsz = sh.sh_size;
		ph.p_align = sh.sh_addralign;
		if (!gelf_update_phdr(e, (int)i++, &ph))
			goto fail;
	}
	if (elf_update(e, ELF_C_WRITE) < 0)
		goto fail;
	elf_end(e);
	free(notes.p);
	while (npadded)
		free(padded[--npadded]);
	if (close(fd) != 0)
		die(3, "%s: %s", out, strerror(errno));
	return;
fail:
	unlink(out);
	die(3, "%s: libelf: %s", out, elf_errmsg(-1));
}

/* The one extended record of the input, checked against the image, as a
 * core file. */
static int make_core(struct input *in, const char *out, const char *image)
{
	struct image im;
	struct sfu_crash c;
	struct sfu_crash_info info;
	const struct rec *use = NULL;
	size_t i;
	int st, nvalid = 0;

	read_image(image, &im);
	for (i = 0; i < in->nrecs; i++) {
		const struct rec *r = &in->recs[i];
		st = sfu_crash_read(r->p, r->size, &c);
		if (r->damage[0])
			fprintf(stderr, "sfu-crash: record %s: %s: no core\n", r->where, r->damage);
		else if (st == SFU_CRASH_SHORT)
			fprintf(stderr, "sfu-crash: record %s: truncated: it says %u bytes, the input holds %zu\n", r->where,
			        (unsigned)sfu__crash_get(r->p, SFU_CRASH_OFF_TOTAL, 4), r->size);
		else if (r->size < SFU_CRASH_SIZE)
			fprintf(stderr, "sfu-crash: record %s: truncated: %zu bytes, the header alone is %u\n", r->where,
			        r->size, SFU_CRASH_SIZE);
		else if (st != SFU_CRASH_VALID)
			fprintf(stderr, "sfu-crash: record %s: %s\n", r->where, status_text(st));
		else if (sfu_crash_info_read(r->p, r->size, &info) != SFU_CRASH_VALID)
			fprintf(stderr, "sfu-crash: record %s: a PC-only record (version 1): no registers, no stack; "
			        "no core (sfu-crash without --core prints its trace)\n", r->where);
		else {
			nvalid++;
			use = r;
		}
	}
	if (in->nrecs == 0) {
		fprintf(stderr, "sfu-crash: no crash record in the input\n");
		return 2;
	}
	if (nvalid == 0) {
		fprintf(stderr, "sfu-crash: no valid extended record: no core written\n");
		return 1;
	}
	if (nvalid > 1) {
		fprintf(stderr, "sfu-crash: %d valid extended records: choose one with --at\n", nvalid);
		return 1;
	}
	sfu_crash_read(use->p, use->size, &c);
	sfu_crash_info_read(use->p, use->size, &info);
	if (info.machine != im.machine) {
		fprintf(stderr, "sfu-crash: the record is of %s (e_machine %u), %s is %s (e_machine %u): no core written\n",
		        machine_name(info.machine), info.machine, image, machine_name(im.machine), im.machine);
		return 4;
	}
	if (info.idlen == 0 || im.idlen == 0) {
		fprintf(stderr, "sfu-crash: %s: cannot tell whether the record belongs to %s: %s; no core written\n",
		        use->where, image,
		        info.idlen == 0 ? "the record names no image (no build-id)"
		                        : "it has no GNU build-id note (link with --build-id)");
		return 4;
	}
	if (info.idlen != im.idlen || memcmp(info.id, im.id, im.idlen) != 0) {
		fprintf(stderr, "sfu-crash: the record is of another image: its build-id ");
		hex(stderr, info.id, info.idlen);
		fprintf(stderr, ", %s's ", image);
		hex(stderr, im.id, (unsigned)im.idlen);
		fprintf(stderr, ": no core written\n");
		return 4;
	}
	write_core(out, image, &im, use->p, &c, &info);
	printf("core %s: %s, %u thread%s, record %s (%u bytes)\n", out, machine_name(info.machine), info.nthreads,
	       info.nthreads == 1 ? "" : "s", use->where, info.total);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: sfu-crash [--at OFFSET] DUMP\n"
	                "       sfu-crash --log LOG\n"
	                "       sfu-crash --core OUT IMAGE [--at OFFSET | --log] INPUT\n");
	return 3;
}

int main(int argc, char **argv)
{
	struct input in;
	const char *core = NULL, *image = NULL;
	long at = -1;
	int log = 0, found = 0, worst = 0;
	size_t i;

	memset(&in, 0, sizeof in);
	sfu_tool_args(argc, argv, "sfu-crash", help);
	while (argc > 2 && argv[1][0] == '-' && argv[1][1] == '-') {
		if (strcmp(argv[1], "--log") == 0) {
			log = 1;
			argv++, argc--;
		} else if (strcmp(argv[1], "--at") == 0 && argc > 3) {
			char *e;
			at = strtol(argv[2], &e, 0);
			if (*e || at < 0)
				return usage();
			argv += 2, argc -= 2;
		} else if (strcmp(argv[1], "--core") == 0 && argc > 4) {
			core = argv[2];
			image = argv[3];
			argv += 3, argc -= 3;
		} else {
			return usage();
		}
	}
	if (argc != 2 || (log && at >= 0))
		return usage();
	if (elf_version(EV_CURRENT) == EV_NONE)
		die(3, "libelf: %s", elf_errmsg(-1));
	if (log)
		from_log(&in, argv[1]);
	else
		from_dump(&in, argv[1], at);
	if (core) {
		worst = make_core(&in, core, image);
		input_free(&in);
		return worst;
	}
	for (i = 0; i < in.nrecs; i++) {
		int st = show(in.recs[i].p, in.recs[i].size, in.recs[i].where, in.recs[i].damage);
		if (st != SFU_CRASH_EMPTY)
			found++;
		if (st == SFU_CRASH_CORRUPT || st == SFU_CRASH_UNKNOWN || st == SFU_CRASH_SHORT)
			worst = 1;
	}
	if (!found)
		printf("no crash record in the %s\n", log ? "log" : "dump");
	input_free(&in);
	return found ? worst : 2;
}
