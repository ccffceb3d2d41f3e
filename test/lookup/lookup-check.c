/* SPDX-License-Identifier: MIT */
/* lookup-check IMAGE REF: for every row objdump printed for IMAGE (REF is
 * the reference dump text), look up its first byte and its last byte with
 * sfu_find_row_n over all .sframe sections of IMAGE, and the byte after each
 * function; compare what the core returns with what objdump's own decoder
 * printed, parsed back into rules.  The reference is an independent decoder,
 * so this checks lookup *and* row semantics.
 *
 * Prints "ok lookup FILE: N functions, M rows, K probes" or FAIL lines with
 * the first mismatches.  Linked images only: in relocatable objects function
 * addresses overlap. */
#define SFU_IMPLEMENTATION
#define SFU_ERROR_STRINGS 1
#include "../../core/sfu.h"
#include "../../tools/sfu_elf.h"
#include "../common/rows.h"
#include "../common/sframe_text.h"

#include <inttypes.h>

#define MAXSEC 64

static st_text ref; /* objdump's text */
static int failures;
static const char *g_file;

static void fail(const char *fmt, uint64_t pc, const char *a, const char *b)
{
	if (failures++ < 8) {
		printf("FAIL lookup %s: pc 0x%" PRIx64 ": ", g_file, pc);
		printf(fmt, a, b);
		printf("\n");
	}
}

/* Parse "sp+8", "fp-16", "r10+0", "(fp-8)", "c-16" into a rule. */
static int parse_rule(const char *t, sfu_rule *r, unsigned abi)
{
	int deref = 0;
	long off;
	char base[16];
	char buf[48];
	size_t n;
	snprintf(buf, sizeof buf, "%s", t);
	n = strlen(buf);
	if (n >= 3 && strcmp(buf + n - 3, "[s]") == 0)
		buf[n - 3] = 0;
	if (buf[0] == '(') {
		deref = 1;
		memmove(buf, buf + 1, strlen(buf));
		n = strlen(buf);
		if (n && buf[n - 1] == ')')
			buf[n - 1] = 0;
	}
	if (buf[0] == 'c' && (buf[1] == '+' || buf[1] == '-')) {
		r->base = SFU_REG_CFA;
		r->off = (int32_t)strtol(buf + 1, NULL, 10);
		r->kind = SFU_RULE_DEREF;
		return 0;
	}
	if (sscanf(buf, "%15[a-z0-9]%ld", base, &off) != 2)
		return -1;
	r->off = (int32_t)off;
	r->kind = deref ? SFU_RULE_DEREF : SFU_RULE_OFF;
	if (!strcmp(base, "sp"))
		r->base = SFU_REG_SP;
	else if (!strcmp(base, "fp"))
		r->base = SFU_REG_FP;
	else if (base[0] == 'r')
		r->base = (uint16_t)atoi(base + 1);
	else
		return -1;
	(void)abi;
	return 0;
}

static const char *rule_str(const sfu_rule *r, char *buf)
{
	static const char *k[] = { "same", "undef", "off", "deref" };
	sprintf(buf, "%s base %u off %d", r->kind < 4 ? k[r->kind] : "?", (unsigned)r->base, r->off);
	return buf;
}

/* The row objdump printed, as rules. */
static int expected(const st_row *rr, unsigned abi, sfu_rule *cfa, sfu_rule *fp, sfu_rule *ra, int *mangled)
{
	memset(cfa, 0, sizeof *cfa);
	memset(fp, 0, sizeof *fp);
	memset(ra, 0, sizeof *ra);
	*mangled = 0;
	if (rr->undefined) {
		ra->kind = SFU_RULE_UNDEF;
		return 0;
	}
	if (parse_rule(rr->cfa, cfa, abi))
		return -1;
	if (!strcmp(rr->fp, "u"))
		fp->kind = SFU_RULE_SAME;
	else if (parse_rule(rr->fp, fp, abi))
		return -1;
	*mangled = strstr(rr->ra, "[s]") != NULL;
	if (!strncmp(rr->ra, "f", 1) || (!strncmp(rr->ra, "U", 1) && abi == SFU_ABI_AMD64_LE)) {
		ra->kind = SFU_RULE_DEREF; /* the header's fixed offset */
		ra->base = SFU_REG_CFA;
		ra->off = ref.fixed_ra;
	} else if (!strncmp(rr->ra, "u", 1) || !strncmp(rr->ra, "U", 1)) {
		ra->kind = SFU_RULE_SAME;
	} else if (parse_rule(rr->ra, ra, abi)) {
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct elf e;
	sfu_section secs[MAXSEC];
	uint8_t *owned[MAXSEC];
	unsigned nsec = 0, k;
	size_t i, j, probes = 0;
	char err[512];
	struct sfu_elf_sframe sf;

	if (argc != 3) {
		fprintf(stderr, "usage: lookup-check IMAGE REF\n");
		return 2;
	}
	g_file = argv[1];
	if (sfu_elf_open(argv[1], &e, err, sizeof err)) {
		printf("FAIL lookup %s: %s\n", argv[1], err);
		return 1;
	}
	for (k = 0; nsec < MAXSEC && sfu_elf_sframe_get(&e, k, 1, &sf) == 1; k++) {
		int rc = sfu_section_init(&secs[nsec], sf.bytes, (size_t)sf.size, sf.addr);
		if (rc == SFU_E_EMPTY) {
			free(sf.bytes);
			continue;
		}
		owned[nsec] = sf.bytes;
		if (rc) {
			printf("FAIL lookup %s: section %u: %s\n", argv[1], k, sfu_strerror(rc));
			return 1;
		}
		nsec++;
	}
	if (st_read(argv[2], &ref) != 0 || ref.nfuncs == 0) {
		printf("FAIL lookup %s: no functions in reference %s, or a row in no known form\n", argv[1], argv[2]);
		return 1;
	}
	for (i = 0; i < ref.nfuncs; i++) {
		const st_func *fn = &ref.funcs[i];
		uint64_t end = fn->pc + fn->size;
		if (fn->size == 0 || fn->mask)
			continue; /* PLT-style rows are offsets; covered by unit tests.
			           * (GNU ld's x86_64 .plt.got FDE among them is read by
			           * the core as SP+8 where objdump prints the bytes'
			           * SP+16, on purpose: SFU_FIX_LD_PLTGOT, checked
			           * against ld's .eh_frame by test/gen's plt-got cases.) */
		for (j = 0; j < fn->nrows; j++) {
			const st_row *rr = &ref.rows[fn->first + j];
			uint64_t last = (j + 1 < fn->nrows ? ref.rows[fn->first + j + 1].pc : end) - 1;
			uint64_t probe[2] = { rr->pc, last };
			sfu_rule cfa, fp, ra;
			int mangled, p;
			if (rr->pc >= end || last < rr->pc)
				continue; /* empty row (next starts at the same PC) */
			if (expected(rr, secs[0].abi, &cfa, &fp, &ra, &mangled)) {
				fail("cannot parse reference row '%s %s'", rr->pc, rr->cfa, rr->fp);
				continue;
			}
			for (p = 0; p < 2; p++) {
				sfu_row row;
				char a[64], b[64];
				int rc = sfu_find_row_n(secs, nsec, probe[p], &row);
				probes++;
				if (rc) {
					fail("%s%s", probe[p], "lookup failed: ", sfu_strerror(rc));
					continue;
				}
				if (row.func_start != fn->pc || row.func_start + row.fre_start != rr->pc) {
					fail("%s%s", probe[p], "found another row", "");
					continue;
				}
				if (ra.kind == SFU_RULE_UNDEF) {
					if (row.ra.kind != SFU_RULE_UNDEF)
						fail("RA: want undefined, got %s%s", probe[p], rule_str(&row.ra, a), "");
					continue;
				}
				if (!tr_rule_same(&row.cfa, &cfa))
					fail("CFA: got %s, want %s", probe[p], rule_str(&row.cfa, a), rule_str(&cfa, b));
				if (!tr_rule_same(&row.fp, &fp))
					fail("FP: got %s, want %s", probe[p], rule_str(&row.fp, a), rule_str(&fp, b));
				if (!tr_rule_same(&row.ra, &ra))
					fail("RA: got %s, want %s", probe[p], rule_str(&row.ra, a), rule_str(&ra, b));
				if (row.mangled_ra != mangled)
					fail("mangled RA %s%s", probe[p], mangled ? "expected" : "unexpected", "");
			}
		}
		/* The byte after the function: another function's row or no info. */
		{
			sfu_row row;
			int covered = 0, rc;
			for (j = 0; j < ref.nfuncs; j++)
				if (ref.funcs[j].size && end - ref.funcs[j].pc < ref.funcs[j].size)
					covered = 1;
			rc = sfu_find_row_n(secs, nsec, end, &row);
			probes++;
			if (covered ? rc != SFU_OK || row.func_start == fn->pc : rc != SFU_E_NOINFO)
				fail("byte after the function: %s%s", end, sfu_strerror(rc), covered ? " (another function starts here)" : "");
		}
	}
	for (k = 0; k < nsec; k++)
		free(owned[k]);
	sfu_elf_close(&e);
	if (!failures)
		printf("ok lookup %s: %zu functions, %zu rows, %zu probes\n", argv[1], ref.nfuncs, ref.nrows, probes);
	else if (failures > 8)
		printf("FAIL lookup %s: %d mismatches in all\n", argv[1], failures);
	st_free(&ref);
	return failures != 0;
}
