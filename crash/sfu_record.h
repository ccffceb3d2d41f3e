/* SPDX-License-Identifier: MIT */
/* sfu_record.h - the crash record written by the dump itself: give the
 * description a buffer, and every dump (sfu_dump_stack, _regs, _trap, and
 * every thread's) also writes sfu_crash.h's extended record into it, as it
 * walks; after a reset, one call prints the kept record.
 *
 * USAGE (sfu_dump.h includes this file: nothing more to include)
 *
 *       static uint8_t crash_record[16384] __attribute__((section(".noinit")));
 *       static const struct sfu_dump dump = {
 *           SFU_DUMP_PUTC_FIELDS(&dump_state, board_putc, NULL, 0),
 *           SFU_DUMP_RECORD(crash_record, sizeof crash_record) };
 *
 *       ... at boot:     sfu_dump_record_print(&dump);
 *
 *   The buffer: RAM no loader and no boot code clears (retained RAM, a
 *   NOLOAD section) keeps the record across a warm reset; any RAM keeps it
 *   for a debugger or a memory dump.  The image's identity (its GNU
 *   build-id) comes from the linker: link with --build-id and INCLUDE
 *   build-id.ld (linker/) in the script, which defines __build_id_start
 *   and __build_id_end around the note (weak references: without them the
 *   record names no image, and sfu-crash --core refuses to pair it).
 *
 * WHAT EACH DUMP WRITES
 *   sfu_dump_stack, _regs, _trap start a new record: the trace part (the
 *   dump's frames, up to 32), then one thread block (sfu_crash.h) per
 *   stretch of the walk that runs on one context: the registers it
 *   started from, its frames and the stack window from its first SP to
 *   the last CFA the walk computed on it.  Where the walk crosses a trap
 *   frame into the code the interrupt or exception stopped, a new block
 *   starts there, with every register the frame holds: a debugger unwinds
 *   each block by itself (the vector code between them has no unwind
 *   tables).  The block that crashed comes first in a core (sfu-crash):
 *   the walk's first one for a panic, the interrupted code's for a fault
 *   (sfu_dump_cause, sfu_dump_trap).  sfu_dump_stack's own frame is in the
 *   trace but not in a block: the block starts at its caller.
 *   sfu_dump_threads (and _iter) add a block per thread to the record of
 *   the dump before it (or start one).  The record is valid after every
 *   walk (its checksums written last): a fault in a later thread's walk
 *   leaves the ones before it readable.  What does not fit is cut, the
 *   windows first: each block takes what the ones before it left.
 *
 * ON THE WIRE
 *   sfu_dump_record_wire prints the record for a serial log in a few
 *   dozen lines: its bytes compressed (zero runs, repeated words), in
 *   base64, 76 characters a line, each line numbered and checked:
 *       sfu-record 1/12 AAAAUwBGAFUAQwIAlAEAAAAAAQAiAAAAAAAA... 5e1f0a2c
 *   tools/sfu-crash --log reads it back (and the older hex lines).
 *
 *       line     "sfu-record K/N " then at most 76 payload characters, a
 *                space and the CRC-32 (sfu_crash.h's) of the text from
 *                "sfu-record" to the payload's end, 8 hex digits
 *       payload  base64 (RFC 4648, '=' padding on the last line only) of
 *                the token stream
 *       tokens   0x00-0x3f: n + 1 literal bytes follow (1..64)
 *                0x40-0x7f: n + 1 zero bytes (1..64)
 *                0x80-0xbf: 64 * (n + 1) zero bytes (64..4096)
 *                0xc0-0xff: the 8 bytes before, n + 1 times more
 *                (n: the low 6 bits); the stream decodes to exactly the
 *                record's bytes, whose own checksums then hold
 *
 * STACK AND CODE
 *   Everything here runs on the dump's crash path, compiled like it
 *   (SFU_CODEGEN): bytes written one by one into the buffer, nothing
 *   copied as a struct, no array on the stack; the windows are read
 *   through the walk's port.  `make size` prints the dump path's stack
 *   with the record.
 */
/* Included by sfu_dump.h (first, for the knobs it sets before sfu.h). */
#ifndef SFU_DUMP_H
#include "sfu_dump.h"
#endif
#ifndef SFU_RECORD_H
#define SFU_RECORD_H

#include "sfu_crash.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfu_dump;

/* The dump's events, for sfu_dump_record_event (the description's
 * record_fn): a crash dump starts a record; a threads dump adds to it;
 * each walk starts (n: its first frames not to record), reaches frame n,
 * ends after n frames with err. */
#define SFU_DUMP_REC_OPEN 0u
#define SFU_DUMP_REC_THREADS 1u
#define SFU_DUMP_REC_WALK 2u
#define SFU_DUMP_REC_FRAME 3u
#define SFU_DUMP_REC_END 4u

/* The writer: what SFU_DUMP_RECORD puts in the description's record_fn. */
SFU_DEF void sfu_dump_record_event(const struct sfu_dump *d, unsigned ev, unsigned n, int err);

/* Print the record kept in d's buffer (at boot, after the reset): a
 * valid one as "previous crash: ..." with its trace named by this image
 * and each thread's block, then its wire lines (for tools/sfu-crash); a
 * corrupt or half-written one as such, with its wire lines, never as a
 * trace; then forget it.  Nothing is printed if there is none.  Returns
 * sfu_crash_read's status (SFU_CRASH_EMPTY without a record buffer). */
SFU_DEF int sfu_dump_record_print(const struct sfu_dump *d);

/* Print the record in d's buffer as wire lines (ON THE WIRE): its total
 * size if it checks, else the bytes up to the size its header says (at
 * most the buffer).  Nothing if the buffer has no record. */
SFU_DEF void sfu_dump_record_wire(const struct sfu_dump *d);

#ifdef __cplusplus
}
#endif

#endif /* SFU_RECORD_H */

/* ======================================================================== */
#if defined(SFU_IMPLEMENTATION) && defined(SFU_DUMP_IMPLEMENTATION_DONE)
#ifndef SFU_RECORD_IMPLEMENTATION_DONE
#define SFU_RECORD_IMPLEMENTATION_DONE

SFU_CODEGEN_BEGIN

/* ---- the buffer ------------------------------------------------------------- */

static SFU__DUMP_NOINLINE void sfu__rec_put(const struct sfu_dump *d, uint32_t off, uint64_t v, unsigned size)
{
    unsigned i;

    for (i = 0; i < size; i++)
        if ((size_t)off + i < d->record_size)
            d->record[off + i] = (uint8_t)(v >> (8u * i));
}

static SFU__DUMP_NOINLINE uint64_t sfu__rec_get(const struct sfu_dump *d, uint32_t off, unsigned size)
{
    uint64_t v = 0;
    unsigned i;

    for (i = size; i-- > 0;)
        v = (v << 8) | ((size_t)off + i < d->record_size ? d->record[off + i] : 0u);
    return v;
}

/* Bytes the record may hold, its last checksum included. */
static uint32_t sfu__rec_budget(const struct sfu_dump *d)
{
    return d->record_size > 0xffffffffu ? 0xffffffffu : (uint32_t)d->record_size;
}

/* Room left at off for n bytes, the last checksum kept free. */
static bool sfu__rec_fits(const struct sfu_dump *d, uint32_t off, uint64_t n)
{
    return (uint64_t)off + n + 4u <= sfu__rec_budget(d);
}

/* The image's build-id: the descriptor of the GNU note between
 * d->build_id and d->build_id_end (namesz 4, descsz, type
 * NT_GNU_BUILD_ID 3, "GNU\0"), *len bytes; NULL without one. */
static const volatile uint8_t *sfu__rec_build_id(const struct sfu_dump *d, unsigned *len)
{
    const volatile uint8_t *p = (const volatile uint8_t *)d->build_id;
    size_t n = d->build_id_end > d->build_id ? (size_t)(d->build_id_end - d->build_id) : 0;
    uint32_t namesz, descsz, type;
    unsigned i;

    *len = 0;
    if (p == NULL || n < 16)
        return NULL;
    namesz = descsz = type = 0;
    for (i = 4; i-- > 0;) {
        namesz = namesz << 8 | p[i];
        descsz = descsz << 8 | p[4 + i];
        type = type << 8 | p[8 + i];
    }
    if (namesz != 4 || type != 3 || p[12] != 'G' || p[13] != 'N' || p[14] != 'U' || p[15] != 0 ||
        descsz > SFU_CRASH_ID_MAX || descsz > n - 16)
        return NULL;
    *len = descsz;
    return p + 16;
}

/* ---- registers ----------------------------------------------------------------- */

/* Register i of the record's numbering (sfu_crash.h: the Linux
 * elf_prstatus order) for the frame the cursor is at: *v, and whether it
 * is known.  Always the PC and the SP; the frame pointer unless the frame
 * ran at a lower privilege level; with the full set (the first frame of a
 * walk, a frame out of a trap frame) the link register and every
 * register the set holds (a dwarf_map's saved ones only).  Never a
 * register the walk does not know: it is left out of the block, not
 * stored as 0.  A frame in user mode keeps its PC and SP only: its other
 * registers are the user code's, which a debugger would unwind into the
 * kernel's image. */
static SFU__DUMP_NOINLINE bool sfu__rec_reg(const sfu_cursor *c, unsigned i, uint64_t *v)
{
#if SFU__REC_MACHINE == SFU_CRASH_EM_X86_64
    /* user_regs_struct slot -> DWARF number (psABI); 16 rip, 19 rsp. */
    static const signed char dw[SFU_CRASH_X64_NREGS] = { 15, 14, 13, 12, 6, 3, 11, 10, 9, 8, 0, 2, 1, 4, 5,
                                                         -1, 16, -1, -1, 7, -1, -1, -1, -1, -1, -1, -1 };
    int k = i < SFU_CRASH_X64_NREGS ? dw[i] : -1;
#elif SFU__REC_MACHINE == SFU_CRASH_EM_AARCH64
    int k = i < 32u ? (int)i : i == SFU_CRASH_A64_PC ? 32 : -1;
#else
    int k = -1;

    (void)i;
#endif
    uint32_t at;

    if (k < 0)
        return false;
    if (k == SFU_PORT_NREGS || (SFU_PORT_NREGS == 17 && k == 16) || (SFU_PORT_NREGS == 32 && k == 32)) {
        *v = c->regs.pc;
        return true;
    }
    if ((SFU_PORT_NREGS == 17 && k == 7) || (SFU_PORT_NREGS == 32 && k == 31)) {
        *v = c->regs.sp;
        return true;
    }
    if (c->user)
        return false;
    if (k == SFU_PORT_DWARF_FP) {
        *v = c->regs.fp;
        return c->fp_ok != 0;
    }
    if (!c->full)
        return false;
    if (k == SFU_PORT_DWARF_RA) {
        *v = c->regs.ra;
        return true;
    }
    if (c->regs.dwarf == NULL || (size_t)k >= c->regs.ndwarf)
        return false;
    /* A map holds byte offset + 1 (0: not saved), always a whole word. */
    at = c->regs.dwarf_map != NULL ? c->regs.dwarf_map[k] : 8u * (uint32_t)k + 1u;
    if (at == 0 || ((at - 1u) & 7u) != 0)
        return false;
    *v = c->regs.dwarf[(at - 1u) / 8u];
    return true;
}

/* ---- the record's parts ----------------------------------------------------------- */

/* Its message: a fault's line, else the panic's text (sfu_dump_message),
 * else none; 63 bytes at most, NUL-padded. */
static SFU__DUMP_NOINLINE void sfu__rec_msg(const struct sfu_dump *d)
{
    const struct sfu_dump_state *st = d->state;
    const char *m = st->rec.cause ? st->line : st->rec.msg;
    unsigned i;
    bool on = m != NULL;

    for (i = 0; i < SFU_CRASH_MSG; i++) {
        on = on && i + 1u < SFU_CRASH_MSG && m[i] != '\0';
        sfu__rec_put(d, SFU_CRASH_OFF_MSG + i, on ? (uint8_t)m[i] : 0u, 1);
    }
}

/* A new record: the headers, no thread yet.  The magic first, the
 * checksums last (sfu__rec_seal): a record cut short anywhere is
 * CORRUPT, never a trace. */
static SFU__DUMP_NOINLINE void sfu__rec_open(const struct sfu_dump *d)
{
    struct sfu_dump_state *st = d->state;
    const volatile uint8_t *id;
    unsigned i, idlen;

    st->rec.open = 1;
    st->rec.pending = 0;
    st->rec.end = SFU_CRASH_OFF_THREADS;
    st->rec.blk = 0;
    st->rec.nthreads = st->rec.dropped = 0;
    st->rec.crashed = 0;
    sfu__rec_put(d, SFU_CRASH_OFF_MAGIC, SFU_CRASH_MAGIC, 4);
    sfu__rec_put(d, SFU_CRASH_OFF_VERSION, SFU_CRASH_VERSION_EXT, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_SIZE, SFU_CRASH_SIZE, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_BOOT, 0, 4);
    sfu__rec_put(d, SFU_CRASH_OFF_KIND, st->rec.cause ? SFU_CRASH_FAULT : SFU_CRASH_PANIC, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_STOP, 0, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_CODE, st->rec.cause ? st->rec.code : 0, 8);
    sfu__rec_put(d, SFU_CRASH_OFF_ADDR, st->rec.cause ? st->rec.addr : 0, 8);
    sfu__rec_put(d, SFU_CRASH_OFF_PC, 0, 8);
    sfu__rec_put(d, SFU_CRASH_OFF_NFRAMES, 0, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_FLAGS, st->rec.cause ? st->rec.flags : 0, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_TOTAL, 0, 4);
    sfu__rec_msg(d);
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        sfu__rec_put(d, SFU_CRASH_OFF_PCS + 8u * i, 0, 8);
        sfu__rec_put(d, SFU_CRASH_OFF_FRAME + i, 0, 1);
    }
    sfu__rec_put(d, SFU_CRASH_OFF_CRC, 0, 4);
    sfu__rec_put(d, SFU_CRASH_OFF_MACHINE, SFU__REC_MACHINE, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_NTHREADS, 0, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_DROPPED, 0, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_CRASHED, 0, 1);
    id = sfu__rec_build_id(d, &idlen);
    sfu__rec_put(d, SFU_CRASH_OFF_IDLEN, idlen, 1);
    sfu__rec_put(d, SFU_CRASH_OFF_BUDGET, sfu__rec_budget(d), 4);
    for (i = 0; i < SFU_CRASH_ID_MAX; i++)
        sfu__rec_put(d, SFU_CRASH_OFF_ID + i, i < idlen ? id[i] : 0u, 1);
#if SFU__REC_MACHINE == SFU_CRASH_EM_AARCH64
    /* The bits the port's strip clears from a return address (PAC): a
     * debugger strips the windows' signed return addresses with them. */
    sfu__rec_put(d, SFU_CRASH_OFF_PAC, sfu_crash_pac_mask(SFU_PORT_STRIP_RA, NULL), 8);
#else
    sfu__rec_put(d, SFU_CRASH_OFF_PAC, 0, 8);
#endif
    st->rec.cause = 0;
    st->rec.msg = NULL;
}

/* The checksums, last: the trace part's over bytes 0 .. 399, the whole
 * record's over 0 .. 399 and 404 .. end (sfu_crash.h).  After it the
 * record reads VALID, every block written so far in it. */
static SFU__DUMP_NOINLINE void sfu__rec_seal(const struct sfu_dump *d)
{
    const struct sfu_dump_state *st = d->state;
    uint32_t end = st->rec.end;

    sfu__rec_put(d, SFU_CRASH_OFF_TOTAL, end + 4u, 4);
    sfu__rec_put(d, SFU_CRASH_OFF_NTHREADS, st->rec.nthreads, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_DROPPED, st->rec.dropped, 2);
    sfu__rec_put(d, SFU_CRASH_OFF_CRASHED, st->rec.crashed, 1);
    sfu__rec_put(d, SFU_CRASH_OFF_CRC, sfu_crash_crc32(d->record, SFU_CRASH_OFF_CRC), 4);
    sfu__rec_put(d, end, sfu_crash_crc_ext(d->record, end + 4u), 4);
}

/* A block for the context the cursor stands on, at the record's end:
 * its header (the counts written when it ends), its registers.  false,
 * and counted dropped, if not even its first frame fits. */
static SFU__DUMP_NOINLINE bool sfu__rec_begin(const struct sfu_dump *d, const sfu_cursor *c)
{
    struct sfu_dump_state *st = d->state;
    uint32_t b = st->rec.end, off;
    uint64_t valid = 0, v;
    unsigned i, nregs = 0, nr = sfu_crash_nregs(SFU__REC_MACHINE);
    const char *name = st->rec.name != NULL ? st->rec.name : "main";
    bool named = true;

    for (i = 0; i < nr; i++)
        if (sfu__rec_reg(c, i, &v)) {
            valid |= (uint64_t)1 << i;
            nregs++;
        }
    if (!sfu__rec_fits(d, b, SFU_CRASH_T_OFF_REGS + 8u * nregs + SFU_CRASH_T_FRAME)) {
        st->rec.dropped++;
        return false;
    }
    for (i = 0; i < SFU_CRASH_T_NAME; i++) {
        named = named && i + 1u < SFU_CRASH_T_NAME && name[i] != '\0';
        sfu__rec_put(d, b + SFU_CRASH_T_OFF_NAME + i, named ? (uint8_t)name[i] : 0u, 1);
    }
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_STATE, st->rec.state, 1);
    for (i = SFU_CRASH_T_OFF_NFRAMES; i < SFU_CRASH_T_OFF_VALID; i++)
        sfu__rec_put(d, b + i, 0, 1);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_VALID, valid, 8);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_WINDOW, c->regs.sp & ~(uint64_t)7, 8);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_KEPT, 0, 8);
    for (i = 0, off = b + SFU_CRASH_T_OFF_REGS; i < nr; i++)
        if (sfu__rec_reg(c, i, &v)) {
            sfu__rec_put(d, off, v, 8);
            off += 8u;
        }
    st->rec.blk = b;
    st->rec.fr = off;
    st->rec.nf = 0;
    st->rec.full = 0;
    return true;
}

/* Frame k's fields of the open block, read back. */
static uint64_t sfu__rec_frame_word(const struct sfu_dump *d, unsigned k, unsigned field)
{
    const struct sfu_dump_state *st = d->state;

    return sfu__rec_get(d, st->rec.fr - SFU_CRASH_T_FRAME * (st->rec.nf - k) + 8u * field, field == 3 ? 1u : 8u);
}

/* Where frame k's part of the window ends, rounded up to 8, given the end
 * of frame k - 1's (prev): the CFA the walk computed for it, which is
 * frame k + 1's cfa; 0 if there is none (*cut: CUT_NONE, no frame after it;
 * CUT_STACK, frame k + 1 is on another stack or the CFA is not above the
 * window). */
static SFU__DUMP_NOINLINE uint64_t sfu__rec_part_end(const struct sfu_dump *d, unsigned k, uint64_t base,
                                                    uint64_t prev, unsigned *cut)
{
    uint64_t cfa, end;

    *cut = SFU_CRASH_CUT_NONE;
    if (k + 1u >= d->state->rec.nf)
        return 0;
    *cut = SFU_CRASH_CUT_STACK;
    cfa = sfu__rec_frame_word(d, k + 1u, 2);
    if ((sfu__rec_frame_word(d, k + 1u, 3) >> 4) == SFU_HOW_TRAP || cfa > ~(uint64_t)7u)
        return 0;
    end = (cfa + 7u) & ~(uint64_t)7u;
    if (end < prev || end - base > 0x7ffffff8u)
        return 0;
    return end;
}

/* End the open block: its window (whole frames, as far as the room and
 * the port's reads allow), its counts and stop code; then the record is
 * sealed.  stop: what the walk ended with (0: it goes on in the next
 * block, through a trap frame). */
static SFU__DUMP_NOINLINE void sfu__rec_close(const struct sfu_dump *d, int stop)
{
    struct sfu_dump_state *st = d->state;
    const sfu_port *port = &st->port.port;
    uint32_t b = st->rec.blk, w = st->rec.fr;
    uint64_t base = sfu__rec_get(d, b + SFU_CRASH_T_OFF_WINDOW, 8), end = base, kept = 0, e, a, v;
    unsigned k, cut = SFU_CRASH_CUT_NONE, whole = 0, wcut = SFU_CRASH_CUT_NONE;
    bool room = true;

    st->rec.blk = 0;
    if (b == 0)
        return;
    /* The window wanted: up to the last CFA the walk computed on this
     * stack; kept: whole frames of it, while they fit and read. */
    for (k = 0; (e = sfu__rec_part_end(d, k, base, end, &wcut)) != 0; k++) {
        if (room && !sfu__rec_fits(d, w, e - base))
            room = false, cut = SFU_CRASH_CUT_BUDGET;
        for (a = base + kept; room && a < e; a += 8u) {
            if (port->read(port->ctx, a, &v) != 0) {
                room = false;
                cut = SFU_CRASH_CUT_READ;
                break;
            }
            sfu__rec_put(d, w + (uint32_t)(a - base), v, 8); /* the targets are little-endian */
        }
        if (room) {
            kept = e - base;
            whole = k + 1u;
        }
        end = e;
    }
    if (cut == SFU_CRASH_CUT_NONE)
        cut = wcut;
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_NFRAMES, st->rec.nf, 1);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_STOP, (uint16_t)(st->rec.full ? SFU_E_FULL : stop), 2);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_WHOLE, whole, 1);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_CUT, cut, 1);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_KEPT, kept, 4);
    sfu__rec_put(d, b + SFU_CRASH_T_OFF_WANTED, end - base, 4);
    st->rec.end = w + (uint32_t)kept;
    st->rec.nthreads++;
    sfu__rec_seal(d);
}

/* The thread block's state from a thread table's text (display only). */
static uint8_t sfu__rec_state(const char *s)
{
    if (s == NULL)
        return SFU_CRASH_T_UNKNOWN;
    switch (s[0]) {
    case 'r': return s[1] == 'u' ? SFU_CRASH_T_RUNNING : SFU_CRASH_T_READY;
    case 'p': return SFU_CRASH_T_READY; /* preempted */
    case 'b': case 'w': case 'p' + 1: return SFU_CRASH_T_BLOCKED; /* blocked, waiting */
    case 's': return s[1] == 'u' ? SFU_CRASH_T_SUSPENDED : SFU_CRASH_T_BLOCKED; /* suspended, sleeping */
    default: return SFU_CRASH_T_UNKNOWN;
    }
}

/* Frame n of the walk, the cursor at it. */
static SFU__DUMP_NOINLINE void sfu__rec_frame(const struct sfu_dump *d, unsigned n)
{
    struct sfu_dump_state *st = d->state;
    const sfu_cursor *c = &st->c;
    unsigned flags = (c->exact ? SFU_FRAME_EXACT : 0u) | (c->user ? SFU_FRAME_USER : 0u);

    if (st->rec.crash && n < SFU_CRASH_MAX_FRAMES) {
        sfu__rec_put(d, SFU_CRASH_OFF_PCS + 8u * n, c->regs.pc, 8);
        sfu__rec_put(d, SFU_CRASH_OFF_FRAME + n, flags | (unsigned)c->how << 4, 1);
        if (n == 0)
            sfu__rec_put(d, SFU_CRASH_OFF_PC, c->regs.pc, 8);
    }
    if (n < st->rec.skip || st->rec.stopped)
        return;
    /* Into the code a trap frame stopped: a block of its own, from the
     * frame's registers.  The one a fault's cause names is the crash. */
    if (st->rec.blk != 0 && c->how == SFU_HOW_TRAP) {
        bool cause = st->rec.cause_frame != 0 && (uint64_t)(uintptr_t)c->regs.dwarf == st->rec.cause_frame;

        sfu__rec_close(d, SFU_OK);
        if (cause) {
            sfu__rec_put(d, st->rec.first + SFU_CRASH_T_OFF_STATE, SFU_CRASH_T_RUNNING, 1);
            st->rec.crashed = (uint8_t)st->rec.nthreads;
            st->rec.state = SFU_CRASH_T_CRASHED;
        } else if (st->rec.state == SFU_CRASH_T_CRASHED) {
            st->rec.state = SFU_CRASH_T_RUNNING;
        }
    }
    if (st->rec.blk == 0) {
        if (!sfu__rec_begin(d, c)) {
            st->rec.stopped = 1;
            return;
        }
        if (st->rec.first == 0)
            st->rec.first = st->rec.blk;
    }
    if (st->rec.nf >= SFU_CRASH_MAX_FRAMES || st->rec.full)
        return;
    if (!sfu__rec_fits(d, st->rec.fr, SFU_CRASH_T_FRAME)) {
        st->rec.full = 1;
        return;
    }
    sfu__rec_put(d, st->rec.fr, c->regs.pc, 8);
    sfu__rec_put(d, st->rec.fr + 8u, c->regs.sp, 8);
    sfu__rec_put(d, st->rec.fr + 16u, c->cfa, 8);
    sfu__rec_put(d, st->rec.fr + 24u, flags | (unsigned)c->how << 4, 1);
    st->rec.fr += SFU_CRASH_T_FRAME;
    st->rec.nf++;
}

/* The events (SFU_DUMP_REC_*).  A dump that starts a record invalidates
 * the one before at once (its magic cleared) and writes the headers at
 * its first frame: a dump that walks nothing (a description the check
 * refuses) leaves no record, never an empty one. */
SFU__DUMP_FN void sfu_dump_record_event(const struct sfu_dump *d, unsigned ev, unsigned n, int err)
{
    struct sfu_dump_state *st = d->state;

    if (d->record == NULL || SFU__REC_MACHINE == 0u)
        return;
    switch (ev) {
    case SFU_DUMP_REC_OPEN:
        sfu__rec_put(d, SFU_CRASH_OFF_MAGIC, 0, 4);
        st->rec.open = 0;
        st->rec.pending = 1;
        st->rec.crash = 1;
        break;
    case SFU_DUMP_REC_THREADS:
        if (!st->rec.open) {
            st->rec.pending = 1;
            st->rec.crash = 0;
        }
        break;
    case SFU_DUMP_REC_WALK:
        st->rec.skip = (uint8_t)n;
        st->rec.blk = st->rec.first = 0;
        st->rec.stopped = 0;
        st->rec.state = st->rec.crash ? SFU_CRASH_T_CRASHED : sfu__rec_state(st->rec.state_text);
        break;
    case SFU_DUMP_REC_FRAME:
        if (st->rec.pending)
            sfu__rec_open(d);
        sfu__rec_frame(d, n);
        break;
    default: /* SFU_DUMP_REC_END */
        if (st->rec.open && st->rec.crash) {
            sfu__rec_put(d, SFU_CRASH_OFF_NFRAMES, n < SFU_CRASH_MAX_FRAMES ? n : SFU_CRASH_MAX_FRAMES, 2);
            sfu__rec_put(d, SFU_CRASH_OFF_STOP, (uint16_t)err, 2);
        }
        if (st->rec.blk != 0)
            sfu__rec_close(d, err);
        else if (st->rec.open)
            sfu__rec_seal(d);
        st->rec.crash = 0;
        st->rec.cause_frame = 0;
        st->rec.name = st->rec.state_text = NULL;
        break;
    }
}

/* ---- on the wire -------------------------------------------------------------------- */

#define SFU__WIRE_LINE 76u /* payload characters a line: whole base64 groups */

/* The wire encoder's state: the base64 group, the line (its CRC runs
 * over the text as it goes out).  A counting pass (emit false) first
 * gives the number of lines each line names. */
struct sfu__wire {
    const struct sfu_dump *d;
    uint32_t total;      /* the record's bytes */
    uint32_t chars;      /* payload characters (the counting pass) */
    uint32_t lines, line, col, crc;
    uint32_t acc, nacc;  /* bytes of the base64 group */
    bool emit;
};

static SFU__DUMP_NOINLINE void sfu__wire_text(struct sfu__wire *w, const char *s, size_t n)
{
    size_t i;

    sfu__dump_put(w->d, s, n);
    for (i = 0; i < n; i++)
        w->crc = sfu__crash_crc_byte(w->crc, (unsigned char)s[i]);
}

/* " XXXXXXXX\n": the line's CRC, and the line ends. */
static SFU__DUMP_NOINLINE void sfu__wire_eol(struct sfu__wire *w)
{
    uint32_t crc = w->crc ^ 0xffffffffu;
    char hex[10];
    unsigned i;

    hex[0] = ' ';
    for (i = 0; i < 8; i++)
        hex[1 + i] = "0123456789abcdef"[(crc >> (28u - 4u * i)) & 15u];
    hex[9] = '\n';
    sfu__dump_put(w->d, hex, sizeof hex);
    w->col = 0;
}

/* One payload character: a line opens with "sfu-record K/N " and closes
 * after SFU__WIRE_LINE of them. */
static SFU__DUMP_NOINLINE void sfu__wire_out(struct sfu__wire *w, char ch)
{
    char num[24];
    unsigned i = sizeof num, v;

    if (!w->emit) {
        w->chars++;
        return;
    }
    if (w->col == 0) {
        w->line++;
        w->crc = 0xffffffffu;
        num[--i] = ' ';
        for (v = w->lines; i > 12; v /= 10u) {
            num[--i] = (char)('0' + v % 10u);
            if (v < 10u)
                break;
        }
        num[--i] = '/';
        for (v = w->line; i > 1; v /= 10u) {
            num[--i] = (char)('0' + v % 10u);
            if (v < 10u)
                break;
        }
        sfu__wire_text(w, "sfu-record ", 11);
        sfu__wire_text(w, &num[i], sizeof num - i);
    }
    sfu__wire_text(w, &ch, 1);
    if (++w->col == SFU__WIRE_LINE)
        sfu__wire_eol(w);
}

static const char sfu__wire_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* One byte of the token stream into the base64 groups. */
static SFU__DUMP_NOINLINE void sfu__wire_byte(struct sfu__wire *w, unsigned b)
{
    w->acc = w->acc << 8 | (b & 0xffu);
    if (++w->nacc < 3)
        return;
    sfu__wire_out(w, sfu__wire_b64[(w->acc >> 18) & 63u]);
    sfu__wire_out(w, sfu__wire_b64[(w->acc >> 12) & 63u]);
    sfu__wire_out(w, sfu__wire_b64[(w->acc >> 6) & 63u]);
    sfu__wire_out(w, sfu__wire_b64[w->acc & 63u]);
    w->acc = w->nacc = 0;
}

/* The last group, padded with '=', and the last line closed. */
static SFU__DUMP_NOINLINE void sfu__wire_flush(struct sfu__wire *w)
{
    if (w->nacc != 0) {
        uint32_t a = w->acc << (8u * (3u - w->nacc));

        sfu__wire_out(w, sfu__wire_b64[(a >> 18) & 63u]);
        sfu__wire_out(w, sfu__wire_b64[(a >> 12) & 63u]);
        sfu__wire_out(w, w->nacc == 2 ? sfu__wire_b64[(a >> 6) & 63u] : '=');
        sfu__wire_out(w, '=');
    }
    if (w->emit && w->col != 0)
        sfu__wire_eol(w);
}

/* n literal bytes of the record from i. */
static SFU__DUMP_NOINLINE void sfu__wire_literals(struct sfu__wire *w, uint32_t i, uint32_t n)
{
    uint32_t k;

    if (n == 0)
        return;
    sfu__wire_byte(w, n - 1u);
    for (k = 0; k < n; k++)
        sfu__wire_byte(w, w->d->record[i + k]);
}

/* The token stream of the record's bytes (ON THE WIRE): runs of 3 zeros
 * or more, an aligned word repeating the one before, else literals. */
static SFU__DUMP_NOINLINE void sfu__wire_tokens(struct sfu__wire *w)
{
    const volatile uint8_t *p = w->d->record;
    uint32_t i = 0, n = w->total, z, r, k, lit = 0;

    while (i < n) {
        for (z = 0; i + z < n && p[i + z] == 0; z++)
            ;
        r = 0;
        if (z < 3 && i >= 8 && (i & 7u) == 0) {
            for (; r < 64 && i + 8u * r + 8u <= n; r++) {
                for (k = 0; k < 8 && p[i + 8u * r + k] == p[i - 8u + k]; k++)
                    ;
                if (k < 8)
                    break;
            }
        }
        if (z < 3 && r == 0) {
            if (++lit == 64) {
                sfu__wire_literals(w, i + 1u - lit, lit);
                lit = 0;
            }
            i++;
            continue;
        }
        sfu__wire_literals(w, i - lit, lit);
        lit = 0;
        if (r != 0) {
            sfu__wire_byte(w, 0xc0u + r - 1u);
            i += 8u * r;
            continue;
        }
        i += z;
        for (; z >= 64; z -= 64u * k) {
            k = z / 64u > 64u ? 64u : z / 64u;
            sfu__wire_byte(w, 0x80u + k - 1u);
        }
        if (z != 0)
            sfu__wire_byte(w, 0x40u + z - 1u);
    }
    sfu__wire_literals(w, n - lit, lit);
}

SFU__DUMP_FN void sfu_dump_record_wire(const struct sfu_dump *d)
{
    struct sfu__wire w;
    uint32_t total;

    if (d == NULL || d->record == NULL || d->record_size < SFU_CRASH_SIZE ||
        sfu__rec_get(d, SFU_CRASH_OFF_MAGIC, 4) != SFU_CRASH_MAGIC)
        return;
    /* The record's size as its header says (an extended one), within the
     * buffer; a PC-only one is SFU_CRASH_SIZE bytes. */
    total = sfu__rec_get(d, SFU_CRASH_OFF_VERSION, 2) == SFU_CRASH_VERSION_EXT
                ? (uint32_t)sfu__rec_get(d, SFU_CRASH_OFF_TOTAL, 4)
                : SFU_CRASH_SIZE;
    if (total < SFU_CRASH_SIZE)
        total = SFU_CRASH_SIZE;
    if (total > sfu__rec_budget(d))
        total = sfu__rec_budget(d);
    w.d = d;
    w.total = total;
    w.chars = w.lines = w.line = w.col = w.crc = w.acc = w.nacc = 0;
    w.emit = false;
    sfu__wire_tokens(&w);
    sfu__wire_flush(&w);
    w.lines = (w.chars + SFU__WIRE_LINE - 1u) / SFU__WIRE_LINE;
    w.acc = w.nacc = 0;
    w.emit = true;
    sfu__wire_tokens(&w);
    sfu__wire_flush(&w);
}

/* ---- at the next boot ------------------------------------------------------------------ */

/* "thread N NAME (STATE)" and the frames of each block of a record that
 * checked (its own frame: the thread's decoded block is large). */
static SFU__DUMP_NOINLINE void sfu__rec_print_threads(const struct sfu_dump *d)
{
    static const char *const states[] = { "unknown", "crashed", "running", "ready", "blocked", "suspended" };
    struct sfu_crash_info info;
    struct sfu_crash_tinfo t;
    sfu_frame f, next;
    unsigned i, k;

    if (sfu_crash_info_read(d->record, d->record_size, &info) != SFU_CRASH_VALID)
        return;
    for (i = 0; i < info.nthreads && sfu_crash_thread_read(d->record, &info, i, &t); i++) {
        sfu_dump_str(d, "thread ");
        sfu_dump_dec(d, i + 1u);
        sfu_dump_str(d, " ");
        sfu_dump_str(d, t.name);
        sfu_dump_str(d, " (");
        sfu_dump_str(d, t.state < 6u ? states[t.state] : "?");
        sfu_dump_str(d, i == info.crashed ? ", the crash)\nbacktrace:\n" : ")\nbacktrace:\n");
        for (k = 0; k < t.nframes; k++) {
            sfu_crash_thread_frame(d->record, &t, k, &f);
            sfu_crash_thread_frame(d->record, &t, k + 1u, &next);
            sfu_dump_frame(d, k, &f, k + 1u < t.nframes && next.how == SFU_HOW_TRAP);
        }
        if (t.stop != SFU_OK) {
            sfu_dump_stop(d, t.nframes, t.stop);
        } else {
            sfu_dump_str(d, "backtrace: ");
            sfu_dump_dec(d, t.nframes);
            sfu_dump_str(d, t.nframes == 1 ? " frame, then through the trap frame: thread "
                                           : " frames, then through the trap frame: thread ");
            sfu_dump_dec(d, i + 2u);
            sfu_dump_str(d, "\n");
        }
    }
}

/* The record's status, and for a valid one its crash and trace part:
 * "previous crash: ..." and the trace (its own frame: the decoded trace
 * part is large; the fault's line goes into the state's, free at boot). */
static SFU__DUMP_NOINLINE int sfu__rec_print_trace(const struct sfu_dump *d)
{
    struct sfu_crash c;
    sfu_frame f, next;
    unsigned i;
    int st = sfu_crash_read(d->record, d->record_size, &c);

    if (st == SFU_CRASH_EMPTY)
        return st;
    if (st != SFU_CRASH_VALID) {
        sfu_dump_str(d, st == SFU_CRASH_CORRUPT ? "previous crash record is corrupt (checksum mismatch): not shown\n"
                        : st == SFU_CRASH_SHORT ? "previous crash record is longer than its buffer: not shown\n"
                                                : "previous crash record of an unknown version or shape: not shown\n");
        return st;
    }
    sfu_dump_str(d, "previous crash: ");
    sfu_dump_str(d, c.kind == SFU_CRASH_FAULT ? "fault: " : "panic: ");
#ifdef SFU_PORT_FAULT_TEXT
    if (c.kind == SFU_CRASH_FAULT && (c.flags & SFU_CRASH_CODE_KNOWN)) {
        struct sfu_fault fa;

        (void)SFU_PORT_FAULT_TEXT(c.code, c.addr,
                                  SFU_FAULT_CODE | ((c.flags & SFU_CRASH_ADDR_KNOWN) ? SFU_FAULT_ADDR : 0u),
                                  d->state->line, sizeof d->state->line, &fa);
        sfu_dump_str(d, d->state->line);
    } else
#endif
    {
        sfu_dump_str(d, c.msg);
    }
    sfu_dump_str(d, "\nbacktrace:\n");
    for (i = 0; i < c.nframes; i++) {
        sfu_crash_frame(&c, i, &f);
        sfu_crash_frame(&c, i + 1u, &next);
        sfu_dump_frame(d, i, &f, i + 1u < c.nframes && next.how == SFU_HOW_TRAP);
    }
    sfu_dump_stop(d, c.nframes, c.stop);
    return st;
}

SFU__DUMP_FN int sfu_dump_record_print(const struct sfu_dump *d)
{
    int st;

    if (d == NULL || d->record == NULL || d->state == NULL)
        return SFU_CRASH_EMPTY;
    st = sfu__rec_print_trace(d);
    if (st == SFU_CRASH_EMPTY)
        return st;
    if (st == SFU_CRASH_VALID)
        sfu__rec_print_threads(d);
    sfu_dump_record_wire(d);
    sfu_crash_clear(d->record, d->record_size);
    return st;
}

SFU_CODEGEN_END

#endif /* SFU_RECORD_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
