/* SPDX-License-Identifier: MIT */
/* sfu_format.h - the SFrame on-disk format, in one place.
 *
 * Offsets, sizes, constants and bit accessors for SFrame versions 1, 2 and 3
 * (the SFrame specification, version 1; version 2 with its errata 1 and 2;
 * version 3; sections are numbered as in the version 3 document).  Nothing
 * here reads memory: core/sfu.h reads every field through one
 * bounds-checked cursor, in the section's byte order, and uses these names
 * for where the fields are and what their bits mean.
 *
 * Section layout (all versions, spec 2):
 *
 *   +--------------------+  0
 *   | header (28 bytes)  |  preamble + fixed fields, naturally aligned
 *   +--------------------+  28
 *   | aux header         |  sfh_auxhdr_len bytes, skipped
 *   +--------------------+  hdr_end = 28 + auxhdr_len
 *   | FDE sub-section    |  hdr_end + sfh_fdeoff: num_fdes fixed-size records
 *   +--------------------+
 *   | FRE sub-section    |  hdr_end + sfh_freoff, sfh_fre_len bytes
 *   +--------------------+  (V3: each function's FREs are preceded by its
 *                            5-byte FDE attribute)
 */
#ifndef SFU_FORMAT_H
#define SFU_FORMAT_H

/* ---- Preamble and header (spec 2.1, 2.2) ----------------------------- */

#define SFU_MAGIC 0xdee2u /* sfp_magic; read byte-swapped => foreign order */

#define SFU_VERSION_1 1
#define SFU_VERSION_2 2
#define SFU_VERSION_3 3

/* sfp_flags (spec 2.1.3).  FRAME_POINTER is defined for V1-V2 only;
 * FUNC_START_PCREL for V2 (erratum 1) and V3. */
#define SFU_F_FDE_SORTED 0x1u
#define SFU_F_FRAME_POINTER 0x2u
#define SFU_F_FDE_FUNC_START_PCREL 0x4u

/* sfh_abi_arch (spec 2.2.1). */
#define SFU_ABI_AARCH64_BE 1
#define SFU_ABI_AARCH64_LE 2
#define SFU_ABI_AMD64_LE 3
#define SFU_ABI_S390X_BE 4

/* Header field offsets; the header is the same 28 bytes in V1, V2, V3. */
#define SFU_HDR_MAGIC 0x00       /* uint16 */
#define SFU_HDR_VERSION 0x02     /* uint8 */
#define SFU_HDR_FLAGS 0x03       /* uint8 */
#define SFU_HDR_ABI 0x04         /* uint8 */
#define SFU_HDR_FIXED_FP 0x05    /* int8, CFA-relative; 0 = not fixed */
#define SFU_HDR_FIXED_RA 0x06    /* int8, CFA-relative; 0 = not fixed */
#define SFU_HDR_AUXLEN 0x07      /* uint8 */
#define SFU_HDR_NUM_FDES 0x08    /* uint32 */
#define SFU_HDR_NUM_FRES 0x0c    /* uint32 */
#define SFU_HDR_FRE_LEN 0x10     /* uint32 */
#define SFU_HDR_FDEOFF 0x14      /* uint32, from the end of the (aux) header */
#define SFU_HDR_FREOFF 0x18      /* uint32, from the end of the (aux) header */
#define SFU_HDR_SIZE 28

/* ---- Function descriptor entries (spec 2.3) ------------------------- */

/* V1 (17 bytes, packed):  int32 start, uint32 size, uint32 fre_off,
 *                         uint32 num_fres, uint8 info
 * V2 (20 bytes):          V1 + uint8 rep_size + uint16 padding
 * V3 index (16 bytes):    int64 start, uint32 size, uint32 fre_off
 * V3 attribute (5 bytes, at FRE sub-section + fre_off, unaligned):
 *                         uint16 num_fres, uint8 info, uint8 info2,
 *                         uint8 rep_size; the FREs follow it. */
#define SFU_V1_FDE_SIZE 17
#define SFU_V2_FDE_SIZE 20
#define SFU_V3_FDE_SIZE 16
#define SFU_V3_ATTR_SIZE 5

/* The function start is the first field of every version's record. */
#define SFU_V12_FDE_START 0   /* int32 */
#define SFU_V12_FDE_SIZE_F 4  /* uint32 */
#define SFU_V12_FDE_FREOFF 8  /* uint32 */
#define SFU_V12_FDE_NFRES 12  /* uint32 */
#define SFU_V12_FDE_INFO 16   /* uint8 */
#define SFU_V2_FDE_REPSIZE 17 /* uint8 */

#define SFU_V3_FDE_START 0  /* int64 */
#define SFU_V3_FDE_SIZE_F 8 /* uint32 */
#define SFU_V3_FDE_FREOFF 12 /* uint32 */
#define SFU_V3_ATTR_NFRES 0 /* uint16 */
#define SFU_V3_ATTR_INFO 2  /* uint8 */
#define SFU_V3_ATTR_INFO2 3 /* uint8 */
#define SFU_V3_ATTR_REPSIZE 4 /* uint8 */

/* FDE info byte, all versions (spec 2.3.3):
 *
 *    7        6       5          4          3..0
 *  +--------+------+----------+-----------+----------+
 *  | signal | -    | pauth_key| pc_type   | fre_type |
 *  | (V3)   |      | (aarch64)| 0=INC     | ADDR1/2/4|
 *  +--------+------+----------+-----------+----------+
 */
#define SFU_FDE_INFO_FRE_TYPE(i) ((unsigned)(i) & 0xfu)
#define SFU_FDE_INFO_PCTYPE(i) (((unsigned)(i) >> 4) & 0x1u)
#define SFU_FDE_INFO_PAUTH_KEY(i) (((unsigned)(i) >> 5) & 0x1u)
#define SFU_FDE_INFO_SIGNAL(i) (((unsigned)(i) >> 7) & 0x1u) /* V3 only */

/* V3 info2 byte: bits 0..4 FDE type, 5..7 unused. */
#define SFU_FDE_INFO2_TYPE(i) ((unsigned)(i) & 0x1fu)

#define SFU_FDE_PCTYPE_INC 0
#define SFU_FDE_PCTYPE_MASK 1
#define SFU_FDE_TYPE_DEFAULT 0
#define SFU_FDE_TYPE_FLEX 1

#define SFU_FRE_TYPE_ADDR1 0
#define SFU_FRE_TYPE_ADDR2 1
#define SFU_FRE_TYPE_ADDR4 2

/* ---- Frame row entries (spec 2.4) ----------------------------------- */

/* An FRE is: start offset (1, 2 or 4 bytes by fre_type), info byte, then
 * N data words of S bytes each.  FRE info byte (spec 2.4.1):
 *
 *      7          6..5        4..1         0
 *  +----------+-----------+-----------+--------------+
 *  | mangled  | word size | word count| CFA base reg |
 *  | RA       | 0:1 1:2 2:4| 0..15    | 0=FP 1=SP    |
 *  +----------+-----------+-----------+--------------+
 *
 * A word count of zero means the RA is undefined: outermost frame (V2
 * erratum 2, V3). */
#define SFU_FRE_INFO_BASE_REG(i) ((unsigned)(i) & 0x1u)
#define SFU_FRE_INFO_COUNT(i) (((unsigned)(i) >> 1) & 0xfu)
#define SFU_FRE_INFO_WSIZE(i) (((unsigned)(i) >> 5) & 0x3u)
#define SFU_FRE_INFO_MANGLED_RA(i) (((unsigned)(i) >> 7) & 0x1u)

#define SFU_BASE_REG_FP 0
#define SFU_BASE_REG_SP 1

#define SFU_FRE_WSIZE_1B 0
#define SFU_FRE_WSIZE_2B 1
#define SFU_FRE_WSIZE_4B 2

#define SFU_FRE_MAX_WORDS 15

/* ---- Default FDE interpretation (spec 3.1) -------------------------- */

/* Word 0: CFA = base + w0.  amd64: word 1 = FP offset from the CFA, the RA
 * is at sfh_cfa_fixed_ra_offset.  aarch64: word 1 = RA, word 2 = FP, both
 * CFA-relative.  s390x: word 0 is stored scaled and adjusted; word 1 = RA
 * (0 = not saved), word 2 = FP; in V2 an odd RA/FP word is a DWARF register
 * number (value >> 1) holding the RA/FP. */
#define SFU_S390X_SP_VAL_OFFSET (-160)        /* SP = CFA - 160 */
#define SFU_S390X_CFA_OFFSET_ADJUSTMENT (-160)
#define SFU_S390X_CFA_OFFSET_ALIGNMENT_FACTOR 8
#define SFU_S390X_CFA_DECODE(w) \
	((w) * SFU_S390X_CFA_OFFSET_ALIGNMENT_FACTOR - SFU_S390X_CFA_OFFSET_ADJUSTMENT)
#define SFU_S390X_RA_OFFSET_INVALID 0
#define SFU_V2_S390X_WORD_IS_REGNUM(w) (((w) & 1) != 0)
#define SFU_V2_S390X_WORD_REGNUM(w) ((w) >> 1)

/* ---- Flexible FDE interpretation (V3, spec 3.2) --------------------- */

/* Pairs of (control, offset) words for CFA, RA, FP in that order; a single
 * zero control word is padding for an entity with no rule.  Control word:
 *
 *    ...3        2      1         0
 *  +---------+------+---------+-------+
 *  | regnum  |  -   | deref_p | reg_p |
 *  +---------+------+---------+-------+
 *
 * value = (deref_p ? *(base + off) : base + off),
 * base = reg_p ? register[regnum] : CFA. */
#define SFU_FLEX_REG_P(c) ((unsigned long)(c) & 0x1u)
#define SFU_FLEX_DEREF_P(c) (((unsigned long)(c) >> 1) & 0x1u)
#define SFU_FLEX_REGNUM(c) ((unsigned long)(c) >> 3)

/* DWARF numbers of the stack and frame pointer per ABI (psABI register
 * maps): FLEX rules on these are safe in any frame, rules on any other
 * register only where the full register set is known. */
#define SFU_DWARF_AMD64_SP 7   /* %rsp */
#define SFU_DWARF_AMD64_FP 6   /* %rbp */
#define SFU_DWARF_AMD64_RA 16  /* return address column */
#define SFU_DWARF_AARCH64_SP 31
#define SFU_DWARF_AARCH64_FP 29
#define SFU_DWARF_AARCH64_LR 30
#define SFU_DWARF_S390X_SP 15
#define SFU_DWARF_S390X_FP 11
#define SFU_DWARF_S390X_RA 14

#endif /* SFU_FORMAT_H */
