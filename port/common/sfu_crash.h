/* SPDX-License-Identifier: MIT */
/* sfu_crash.h - a crash record that survives a warm reset.
 *
 * A panic handler walks the stack, writes this record into RAM that the
 * image does not initialize (a NOLOAD region no loader and no BSS clear
 * touches), and resets; the next boot reads it back, prints the previous
 * crash with its backtrace symbolized, and clears it.  Nobody needs to be
 * watching the serial port when the crash happens.
 *
 * Freestanding like the rest of sfu: <stdint.h>, <stddef.h>, <stdbool.h>
 * and core/sfu.h (for sfu_frame); no globals, no heap; everything static
 * inline.  Every field is written and read byte by byte, little-endian,
 * whatever the CPU: no struct is laid over the bytes, so a host tool reads
 * a record out of a memory dump with nothing but the table below
 * (tools/sfu-crash does).
 *
 * THE RECORD (version 1), SFU_CRASH_SIZE = 404 bytes, little-endian
 *
 *   offset size  field
 *   0      4     magic: the bytes 'S' 'F' 'U' 'C' (0x43554653 as a u32)
 *   4      2     version: 1
 *   6      2     size: 404, the whole record, checksum included
 *   8      4     boot: the boot counter of the boot that crashed
 *   12     2     kind: SFU_CRASH_PANIC 1, SFU_CRASH_FAULT 2
 *   14     2     stop: the sfu error code the walk ended with (SFU_END ...)
 *   16     8     code: the fault's syndrome (ESR_EL1, the x86 vector and
 *                error code as vector << 32 | error), 0 for a panic
 *   24     8     addr: the fault address (FAR_EL1, CR2); valid if flags bit 0
 *   32     8     pc: the PC of the crash (the faulting instruction; for a
 *                panic, where the registers were captured)
 *   40     2     nframes: frames stored, 0 .. 32
 *   42     2     flags: bit 0 addr is valid; other bits 0
 *   44     4     reserved, 0
 *   48     64    msg: the panic message or the fault's name, NUL-padded
 *                (truncated to 63 bytes: always NUL-terminated)
 *   112    256   pcs[32]: the frames' PCs, u64 each, innermost first
 *   368    32    frame[32]: per frame, sfu_frame.flags in bits 0-3
 *                (SFU_FRAME_EXACT 1: the PC is the instruction itself,
 *                look it up as it is; otherwise a return address, look it
 *                up at PC - 1; SFU_FRAME_USER 2) and sfu_frame.how in bits
 *                4-7 (SFU_HOW_TRAP 3: this frame was reached through a
 *                trap frame, so the frame before it is the vector code)
 *   400    4     crc: CRC-32 (IEEE 802.3, reflected 0xEDB88320, initial and
 *                final value 0xFFFFFFFF: zlib's crc32) of bytes 0 .. 399
 *
 * Frames past nframes, and their PCs, are 0.  The writer fills the record
 * in order, magic first and crc last: a record that a reset or a second
 * fault interrupted has the magic but not the matching checksum, and a
 * reader reports it as SFU_CRASH_CORRUPT, never as a trace.  Memory that
 * was never written (power-on garbage, zeros) almost never has the magic:
 * SFU_CRASH_EMPTY; if it does, the checksum catches it.
 *
 * Use
 *   struct sfu_crash c;
 *   sfu_crash_init(&c, boot, SFU_CRASH_PANIC, msg, pc);
 *   sfu_crash_frames(&c, frames, n, stop);       // from sfu_backtrace
 *   sfu_crash_write(&c, retained, SFU_CRASH_SIZE);
 *   ... reset; next boot:
 *   switch (sfu_crash_read(retained, SFU_CRASH_SIZE, &c)) { ... }
 *   sfu_crash_clear(retained, SFU_CRASH_SIZE);
 */
#ifndef SFU_CRASH_H
#define SFU_CRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfu.h"

#define SFU_CRASH_MAGIC 0x43554653u /* "SFUC" */
#define SFU_CRASH_VERSION 1u
#define SFU_CRASH_SIZE 404u
#define SFU_CRASH_MAX_FRAMES 32u
#define SFU_CRASH_MSG 64u

/* Byte offsets of the fields (the table above). */
#define SFU_CRASH_OFF_MAGIC 0u
#define SFU_CRASH_OFF_VERSION 4u
#define SFU_CRASH_OFF_SIZE 6u
#define SFU_CRASH_OFF_BOOT 8u
#define SFU_CRASH_OFF_KIND 12u
#define SFU_CRASH_OFF_STOP 14u
#define SFU_CRASH_OFF_CODE 16u
#define SFU_CRASH_OFF_ADDR 24u
#define SFU_CRASH_OFF_PC 32u
#define SFU_CRASH_OFF_NFRAMES 40u
#define SFU_CRASH_OFF_FLAGS 42u
#define SFU_CRASH_OFF_RESERVED 44u
#define SFU_CRASH_OFF_MSG 48u
#define SFU_CRASH_OFF_PCS 112u
#define SFU_CRASH_OFF_FRAME 368u
#define SFU_CRASH_OFF_CRC 400u

/* kind */
#define SFU_CRASH_PANIC 1u
#define SFU_CRASH_FAULT 2u
/* flags */
#define SFU_CRASH_ADDR_VALID 0x1u

/* What sfu_crash_read finds. */
enum sfu_crash_status {
    SFU_CRASH_VALID = 0,   /* a complete record: *out holds it */
    SFU_CRASH_EMPTY = 1,   /* no magic: nothing was recorded (or it was cleared) */
    SFU_CRASH_CORRUPT = 2, /* the magic, but the checksum does not match:
                            * half-written or damaged; not a trace */
    SFU_CRASH_UNKNOWN = 3  /* the checksum matches but the version, size or
                            * a field is out of range (another writer) */
};

/* A record, decoded. */
struct sfu_crash {
    uint32_t boot;
    uint16_t kind, stop, nframes, flags;
    uint64_t code, addr, pc;
    char msg[SFU_CRASH_MSG];
    uint64_t pcs[SFU_CRASH_MAX_FRAMES];
    uint8_t frame[SFU_CRASH_MAX_FRAMES]; /* flags | how << 4 */
};

SFU_CODEGEN_BEGIN

/* CRC-32 (IEEE, as zlib's crc32(0, p, n)), bit by bit: no table, so
 * nothing to initialize on the crash path. */
static inline uint32_t sfu_crash_crc32(const volatile uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    size_t i;
    unsigned k;

    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xffffffffu;
}

static inline void sfu__crash_put(volatile uint8_t *p, unsigned off, uint64_t v, unsigned size)
{
    unsigned i;

    for (i = 0; i < size; i++)
        p[off + i] = (uint8_t)(v >> (8u * i));
}

static inline uint64_t sfu__crash_get(const volatile uint8_t *p, unsigned off, unsigned size)
{
    uint64_t v = 0;
    unsigned i;

    for (i = size; i-- > 0;)
        v = (v << 8) | p[off + i];
    return v;
}

/* Start a record: everything zero but these. */
static inline void sfu_crash_init(struct sfu_crash *c, uint32_t boot, unsigned kind, const char *msg, uint64_t pc)
{
    unsigned i;

    c->boot = boot;
    c->kind = (uint16_t)kind;
    c->stop = 0;
    c->nframes = 0;
    c->flags = 0;
    c->code = c->addr = 0;
    c->pc = pc;
    for (i = 0; i < SFU_CRASH_MSG; i++)
        c->msg[i] = 0;
    for (i = 0; msg && msg[i] && i + 1u < SFU_CRASH_MSG; i++)
        c->msg[i] = msg[i];
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        c->pcs[i] = 0;
        c->frame[i] = 0;
    }
}

/* The walk's frames (the first SFU_CRASH_MAX_FRAMES of them) and the code
 * it stopped with. */
static inline void sfu_crash_frames(struct sfu_crash *c, const sfu_frame *f, size_t n, int stop)
{
    size_t i;

    if (n > SFU_CRASH_MAX_FRAMES)
        n = SFU_CRASH_MAX_FRAMES;
    for (i = 0; i < n; i++) {
        c->pcs[i] = f[i].pc;
        c->frame[i] = (uint8_t)((f[i].flags & 0xfu) | (unsigned)(f[i].how << 4));
    }
    c->nframes = (uint16_t)n;
    c->stop = (uint16_t)stop;
}

/* Write the bytes of fields [0, upto) of c to dst (size bytes, at least
 * SFU_CRASH_SIZE), magic first; upto = SFU_CRASH_SIZE writes the whole
 * record, checksum last.  A smaller upto leaves the record as a reset in
 * the middle of the write would (for tests of the reader).  Returns false
 * if dst is too small. */
static inline bool sfu_crash_write_upto(const struct sfu_crash *c, volatile uint8_t *dst, size_t size, unsigned upto)
{
    uint8_t tmp[SFU_CRASH_SIZE];
    unsigned i;

    if (dst == NULL || size < SFU_CRASH_SIZE)
        return false;
    sfu__crash_put(tmp, SFU_CRASH_OFF_MAGIC, SFU_CRASH_MAGIC, 4);
    sfu__crash_put(tmp, SFU_CRASH_OFF_VERSION, SFU_CRASH_VERSION, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_SIZE, SFU_CRASH_SIZE, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_BOOT, c->boot, 4);
    sfu__crash_put(tmp, SFU_CRASH_OFF_KIND, c->kind, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_STOP, c->stop, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_CODE, c->code, 8);
    sfu__crash_put(tmp, SFU_CRASH_OFF_ADDR, c->addr, 8);
    sfu__crash_put(tmp, SFU_CRASH_OFF_PC, c->pc, 8);
    sfu__crash_put(tmp, SFU_CRASH_OFF_NFRAMES, c->nframes <= SFU_CRASH_MAX_FRAMES ? c->nframes : 0, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_FLAGS, c->flags & SFU_CRASH_ADDR_VALID, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_RESERVED, 0, 4);
    for (i = 0; i < SFU_CRASH_MSG; i++)
        tmp[SFU_CRASH_OFF_MSG + i] = i + 1u < SFU_CRASH_MSG ? (uint8_t)c->msg[i] : 0;
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        bool used = i < c->nframes;

        sfu__crash_put(tmp, SFU_CRASH_OFF_PCS + 8u * i, used ? c->pcs[i] : 0, 8);
        tmp[SFU_CRASH_OFF_FRAME + i] = used ? c->frame[i] : 0;
    }
    sfu__crash_put(tmp, SFU_CRASH_OFF_CRC, sfu_crash_crc32(tmp, SFU_CRASH_OFF_CRC), 4);
    if (upto > SFU_CRASH_SIZE)
        upto = SFU_CRASH_SIZE;
    for (i = 0; i < upto; i++)
        dst[i] = tmp[i];
    return true;
}

/* Write the whole record. */
static inline bool sfu_crash_write(const struct sfu_crash *c, volatile uint8_t *dst, size_t size)
{
    return sfu_crash_write_upto(c, dst, size, SFU_CRASH_SIZE);
}

/* Read the record at src (size bytes available) into *out: the status
 * says whether there is one and whether it can be trusted; *out is
 * filled only for SFU_CRASH_VALID. */
static inline int sfu_crash_read(const volatile uint8_t *src, size_t size, struct sfu_crash *out)
{
    unsigned i, n;

    if (src == NULL || size < SFU_CRASH_SIZE || sfu__crash_get(src, SFU_CRASH_OFF_MAGIC, 4) != SFU_CRASH_MAGIC)
        return SFU_CRASH_EMPTY;
    if (sfu_crash_crc32(src, SFU_CRASH_OFF_CRC) != sfu__crash_get(src, SFU_CRASH_OFF_CRC, 4))
        return SFU_CRASH_CORRUPT;
    n = (unsigned)sfu__crash_get(src, SFU_CRASH_OFF_NFRAMES, 2);
    if (sfu__crash_get(src, SFU_CRASH_OFF_VERSION, 2) != SFU_CRASH_VERSION ||
        sfu__crash_get(src, SFU_CRASH_OFF_SIZE, 2) != SFU_CRASH_SIZE || n > SFU_CRASH_MAX_FRAMES ||
        src[SFU_CRASH_OFF_MSG + SFU_CRASH_MSG - 1u] != 0)
        return SFU_CRASH_UNKNOWN;
    out->boot = (uint32_t)sfu__crash_get(src, SFU_CRASH_OFF_BOOT, 4);
    out->kind = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_KIND, 2);
    out->stop = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_STOP, 2);
    out->code = sfu__crash_get(src, SFU_CRASH_OFF_CODE, 8);
    out->addr = sfu__crash_get(src, SFU_CRASH_OFF_ADDR, 8);
    out->pc = sfu__crash_get(src, SFU_CRASH_OFF_PC, 8);
    out->nframes = (uint16_t)n;
    out->flags = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_FLAGS, 2);
    for (i = 0; i < SFU_CRASH_MSG; i++)
        out->msg[i] = (char)src[SFU_CRASH_OFF_MSG + i];
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        out->pcs[i] = sfu__crash_get(src, SFU_CRASH_OFF_PCS + 8u * i, 8);
        out->frame[i] = src[SFU_CRASH_OFF_FRAME + i];
    }
    return SFU_CRASH_VALID;
}

/* Forget the record (the magic goes first: a reset in the middle leaves
 * SFU_CRASH_EMPTY, not a stale record). */
static inline void sfu_crash_clear(volatile uint8_t *dst, size_t size)
{
    size_t i;

    for (i = 0; dst && i < size && i < SFU_CRASH_SIZE; i++)
        dst[i] = 0;
}

/* A frame of a decoded record as an sfu_frame (pc, flags, how), e.g. for
 * sfu_frame_lookup_pc. */
static inline void sfu_crash_frame(const struct sfu_crash *c, unsigned i, sfu_frame *f)
{
    f->pc = i < SFU_CRASH_MAX_FRAMES ? c->pcs[i] : 0;
    f->sp = f->cfa = 0;
    f->flags = i < SFU_CRASH_MAX_FRAMES ? (uint8_t)(c->frame[i] & 0xfu) : 0;
    f->how = i < SFU_CRASH_MAX_FRAMES ? (uint8_t)(c->frame[i] >> 4) : 0;
}

SFU_CODEGEN_END

#endif /* SFU_CRASH_H */
