/* SPDX-License-Identifier: MIT */
/* sfu_decode.h - the decoding API the tools use: FDEs, FREs and
 * rows one at a time, the lookups in their general form, the section
 * count, the error texts.
 * A part of sfu.h's implementation, included by sfu.h under
 * SFU_IMPLEMENTATION (one translation unit); not a header of its own. */
#ifndef SFU_DECODE_H
#define SFU_DECODE_H
#ifndef SFU_IMPLEMENTATION_DONE
#error "sfu_decode.h is a part of sfu.h: #define SFU_IMPLEMENTATION, then #include \"sfu.h\""
#endif

SFU__FN int sfu_section_count(size_t *n, const void *data, size_t size, uint64_t addr, unsigned opts)
{
	sfu_section tmp;
	if (!n || (!data && size))
		return SFU_E_ARG;
	return sfu__split(NULL, 0, n, data, size, addr, opts, &tmp);
}

static int sfu__fde_get(const sfu_section *s, uint32_t idx, sfu_fde *f)
{
	return sfu__fde_decode(s, SFU__LAY(s), idx, f, SFU__BIG(s));
}

SFU__FN int sfu_fde_get(const sfu_section *sec, uint32_t idx, sfu_fde *f)
{
	if (!sec || !f || idx >= sec->num_fdes)
		return SFU_E_ARG;
	return sfu__fde_get(sec, idx, f);
}

/* The whole header of the FRE at section offset pos. */
SFU__INLINE int sfu__fre_read(const sfu_section *s, uint32_t pos, uint32_t ab, bool big, sfu_fre *fre)
{
	int err = sfu__fre_start(s, pos, ab, big, &fre->start);
	if (!err)
		err = sfu__fre_info(s, pos, ab, fre);
	return err ? err : sfu__fre_in(s, fre);
}

static int sfu__fre_get(const sfu_section *s, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	if (off > s->fre_len)
		return SFU_E_FRE_TRUNC;
	return sfu__fre_read(s, s->fre_base + off, sfu__addr_bytes(fde->fre_type), SFU__BIG(s), fre);
}

SFU__FN int sfu_fre_get(const sfu_section *sec, const sfu_fde *fde, uint32_t off, sfu_fre *fre)
{
	if (!sec || !fde || !fre)
		return SFU_E_ARG;
	return sfu__fre_get(sec, fde, off, fre);
}

SFU__INLINE int32_t sfu__fre_word(const sfu_section *s, const sfu_fre *fre, unsigned i)
{
	if (i >= fre->count)
		return 0;
	/* In bounds: sfu_fre_get checked words + count * wsize. */
	return sfu__wordb(s->data, fre->words + i * fre->wsize, fre->wsize, SFU__BIG(s));
}

SFU__FN int32_t sfu_fre_word(const sfu_section *sec, const sfu_fre *fre, unsigned i)
{
	if (!sec || !fre)
		return 0;
	return sfu__fre_word(sec, fre, i);
}

/* The general form of a row: the compact row's rules written out, or the
 * FLEX rules. */
static int sfu__row_from_fre(const sfu_section *s, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	sfu__compact_row c;
	int err = sfu__crow(s, SFU__LAY(s), fde, fre, SFU__BIG(s), &c);
	if (err)
		return err;
	row->func_start = fde->start;
	row->func_size = fde->size;
	row->fre_start = fre->start;
	row->abi = s->abi;
	row->mangled_ra = (c.flags & SFU__CROW_MANGLED) ? 1u : 0u;
	row->signal = fde->signal;
	row->flex = SFU_FLEX && fde->type == SFU_FDE_TYPE_FLEX;
	row->sp_from_cfa = (int16_t)((c.flags & SFU__CROW_SP_S390X) ? SFU_S390X_SP_VAL_OFFSET : 0);
	if (SFU_FLEX && (c.flags & SFU__CROW_FLEX))
		return sfu__flex_rules(s, fre->words, fre->info, &row->cfa, &row->ra, &row->fp);
	sfu__crow_rules(&c, &row->cfa, &row->ra, &row->fp);
	return SFU_OK;
}

SFU__FN int sfu_row_from_fre(const sfu_section *sec, const sfu_fde *fde, const sfu_fre *fre, sfu_row *row)
{
	if (!sec || !fde || !fre || !row)
		return SFU_E_ARG;
	return sfu__row_from_fre(sec, fde, fre, row);
}

SFU__FN int sfu_find_fde(const sfu_section *sec, uint64_t pc, sfu_fde *fde, uint32_t *idx)
{
	if (!sec || !fde)
		return SFU_E_ARG;
	return sfu__search(sec, pc, fde, idx, NULL);
}

static int sfu__find_row(const sfu_section *s, uint64_t pc, sfu_row *row)
{
	sfu_fde fde;
	sfu_fre fre;
	int err = sfu__search(s, pc, &fde, NULL, &fre);
	return err ? err : sfu__row_from_fre(s, &fde, &fre, row);
}

SFU__FN int sfu_find_row(const sfu_section *sec, uint64_t pc, sfu_row *row)
{
	if (!sec || !row)
		return SFU_E_ARG;
	return sfu__find_row(sec, pc, row);
}

/* First section that covers pc; a corrupt section is reported unless
 * another one covers pc. */
static int sfu__find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row)
{
	size_t i;
	int first_err = SFU_E_NOINFO;
	for (i = 0; i < nsecs; i++) {
		int err = sfu__find_row(&secs[i], pc, row);
		if (err == SFU_OK)
			return SFU_OK;
		if (err != SFU_E_NOINFO && first_err == SFU_E_NOINFO)
			first_err = err;
	}
	return first_err;
}

SFU__FN int sfu_find_row_n(const sfu_section *secs, size_t nsecs, uint64_t pc, sfu_row *row)
{
	if ((!secs && nsecs) || !row)
		return SFU_E_ARG;
	return sfu__find_row_n(secs, nsecs, pc, row);
}

#if SFU_ERROR_STRINGS
/* Every code's name and text, in code order, as one constant: "SFU_OK",
 * "ok", "SFU_E_ARG", "invalid argument", ..., each ended by its NUL.  No
 * table of pointers (one relocation each in a position-independent
 * image); the code below walks the strings, which the codes being 0, 1, 2
 * ... in the list's order allows (checked here). */
static const char sfu__error_strings[] =
#define SFU__STRS(name, value, text) #name "\0" text "\0"
	SFU_ERRORS(SFU__STRS)
#undef SFU__STRS
	;
enum sfu__error_pos {
#define SFU__POS(name, value, text) SFU__POS_##name,
	SFU_ERRORS(SFU__POS)
#undef SFU__POS
	SFU__POS_COUNT
};
#define SFU__DENSE(name, value, text) &&(value) == (int)SFU__POS_##name
typedef char sfu__errors_dense[(1 SFU_ERRORS(SFU__DENSE)) ? 1 : -1]; /* each code's value is its place */
#undef SFU__DENSE

/* String `which` (0 the name, 1 the text) of code err, "?" if unknown. */
static const char *sfu__error_string(int err, unsigned which)
{
	const char *p = sfu__error_strings;
	unsigned k;

	if (err < 0 || err >= SFU_ERROR_COUNT)
		return "?";
	for (k = 2u * (unsigned)err + which; k; k--)
		while (*p++)
			SFU__KEEP_LOOP(p);
	return p;
}

SFU__FN const char *sfu_strerror(int err)
{
	return sfu__error_string(err, 1);
}

SFU__FN const char *sfu_errname(int err)
{
	return sfu__error_string(err, 0);
}
#endif

#endif /* SFU_DECODE_H */
