/* SPDX-License-Identifier: MIT */
/* sframe_text.h - `objdump --sframe` text, read back, for the tests that
 * take binutils' own decoder as the reference (test/lookup, test/unwind's
 * rows_check).  objdump 2.40 (V1) to 2.47 (V3) print:
 *
 *       Version: SFRAME_VERSION_3
 *       CFA fixed RA offset: -8                  (amd64 only)
 *       Num FDEs: 22
 *       Num FREs: 55
 *       func idx [4]: pc = 0x40080040, size = 48 bytes
 *       STARTPC[m]      CFA       FP        RA   ([m]: a PC-mask FDE)
 *       0000000040080044  sp+48     c-48      c-40
 *       0000000040080000  RA undefined           (the outermost frame)
 *
 * The columns' texts are kept as printed ("sp+8", "(fp-8)", "c-16", "u",
 * "f", "U", "r10+0", a "[s]" suffix on a signed RA); each test reads them
 * its own way.  Host C. */
#ifndef TEST_SFRAME_TEXT_H
#define TEST_SFRAME_TEXT_H

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct st_row {
	uint64_t pc;   /* the row's first address */
	int undefined; /* "RA undefined": the outermost frame */
	char cfa[48], fp[48], ra[48];
} st_row;

typedef struct st_func {
	uint64_t pc, size;
	int mask;            /* PC-mask FDE: row starts are offsets */
	size_t first, nrows; /* its rows: rows[first .. first + nrows) */
} st_func;

typedef struct st_text {
	unsigned version, num_fdes, num_fres; /* 0 where not printed */
	int fixed_ra;                         /* "CFA fixed RA offset", 0 if absent */
	st_func *funcs;
	size_t nfuncs;
	st_row *rows;
	size_t nrows;
} st_text;

/* objdump prints the columns with %-10s: a CFA text of 10 characters or
 * more runs into the FP column ("sp+1048592u").  Split the CFA where its
 * shape ends, [(]name[+-]digits[)], then FP and RA at the blanks. */
static inline int st__split(const char *p, st_row *r)
{
	const char *q;
	char rest[128];
	while (*p == ' ')
		p++;
	q = p;
	if (*q == '(')
		q++;
	while (isalnum((unsigned char)*q))
		q++;
	if (*q != '+' && *q != '-')
		return -1;
	q++;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q == ')')
		q++;
	if ((size_t)(q - p) >= sizeof r->cfa)
		return -1;
	memcpy(r->cfa, p, (size_t)(q - p));
	r->cfa[q - p] = 0;
	snprintf(rest, sizeof rest, "%s", q);
	return sscanf(rest, "%47s %47s", r->fp, r->ra) == 2 ? 0 : -1;
}

/* arr with room for element n (*cap elements of size bytes allocated,
 * doubled when full), or NULL if the memory is not there (arr is kept). */
static inline void *st__room(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	void *p;
	if (n < *cap)
		return arr;
	p = realloc(arr, (*cap ? 2 * *cap : first) * size);
	if (p)
		*cap = *cap ? 2 * *cap : first;
	return p;
}

/* Read the text at path into *t (st_free releases it).  Returns 0, or -1
 * if the file cannot be read or a row is not in a known form. */
static inline int st_read(const char *path, st_text *t)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t capfuncs = 0, caprows = 0;
	int rc = 0;
	memset(t, 0, sizeof *t);
	if (!f)
		return -1;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		unsigned long long pc, size;
		char *p = line;
		while (*p == ' ')
			p++;
		if (sscanf(p, "Version: SFRAME_VERSION_%u", &t->version) == 1 ||
		    sscanf(p, "CFA fixed RA offset: %d", &t->fixed_ra) == 1 || sscanf(p, "Num FDEs: %u", &t->num_fdes) == 1 ||
		    sscanf(p, "Num FREs: %u", &t->num_fres) == 1)
			continue;
		if (sscanf(p, "func idx [%*u]: pc = %llx, size = %llu bytes", &pc, &size) == 2) {
			st_func *fn;
			fn = (st_func *)st__room(t->funcs, t->nfuncs, &capfuncs, sizeof *fn, 256);
			if (!fn) {
				rc = -1;
				break;
			}
			t->funcs = fn;
			fn = &t->funcs[t->nfuncs++];
			memset(fn, 0, sizeof *fn);
			fn->pc = pc;
			fn->size = size;
			fn->first = t->nrows;
			continue;
		}
		if (!strncmp(p, "STARTPC", 7)) {
			if (t->nfuncs && strstr(p, "[m]"))
				t->funcs[t->nfuncs - 1].mask = 1;
			continue;
		}
		if (t->nfuncs && strspn(p, "0123456789abcdef") == 16 && p[16] == ' ') {
			st_row *r;
			r = (st_row *)st__room(t->rows, t->nrows, &caprows, sizeof *r, 1024);
			if (!r) {
				rc = -1;
				break;
			}
			t->rows = r;
			r = &t->rows[t->nrows];
			memset(r, 0, sizeof *r);
			r->pc = strtoull(p, NULL, 16);
			if (strstr(p, "RA undefined"))
				r->undefined = 1;
			else if (st__split(p + 16, r) != 0)
				rc = -1;
			t->nrows++;
			t->funcs[t->nfuncs - 1].nrows++;
		}
	}
	fclose(f);
	return rc;
}

static inline void st_free(st_text *t)
{
	free(t->funcs);
	free(t->rows);
	memset(t, 0, sizeof *t);
}

#endif /* TEST_SFRAME_TEXT_H */
