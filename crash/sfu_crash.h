/* SPDX-License-Identifier: MIT */
/* sfu_crash.h - a crash record that survives a warm reset.
 *
 * A panic handler walks the stack, writes this record into RAM that the
 * image does not initialize (a NOLOAD region no loader and no BSS clear
 * touches), and resets; the next boot reads it back, prints the previous
 * crash with its backtrace symbolized, and clears it.  Nobody needs to be
 * watching the serial port when the crash happens.
 *
 * Two forms.  The PC-only record (version 1, 404 bytes) keeps the crashed
 * thread's PCs: enough for a trace.  The extended record (version 2, as
 * large as the caller allows) adds, per thread, the registers the walk
 * started from, its name and state, its frames, and the stack window the
 * walk went through: from the first SP up to the last CFA the walk
 * computed, which is exactly what a debugger needs to unwind the same
 * frames again.  tools/sfu-crash --core turns it into an ELF core file
 * that gdb opens (`gdb IMAGE CORE`: bt, info threads, frame N, x/).
 *
 * Freestanding like the rest of sfu: <stdint.h>, <stddef.h>, <stdbool.h>
 * and core/sfu.h (for sfu_frame, sfu_port); no globals, no heap;
 * everything static inline, under SFU_CODEGEN_BEGIN/END (general
 * registers only, no unaligned access: safe on the crash path).  Every
 * field is written and read byte by byte, little-endian, whatever the
 * CPU: no struct is laid over the bytes, so a host tool reads a record
 * out of a memory dump with nothing but the tables below (tools/sfu-crash
 * does, with these same functions).
 *
 * THE RECORD (version 1), SFU_CRASH_SIZE = 404 bytes, little-endian
 *
 *   offset size  field
 *   0      4     magic: the bytes 'S' 'F' 'U' 'C' (0x43554653 as a u32)
 *   4      2     version: 1 (2: the extended record below)
 *   6      2     size: 404, the whole record, checksum included (in
 *                version 2: the part this table describes)
 *   8      4     boot: the boot counter of the boot that crashed
 *   12     2     kind: SFU_CRASH_PANIC 1, SFU_CRASH_FAULT 2
 *   14     2     stop: the sfu error code the walk ended with (SFU_END ...)
 *   16     8     code: the fault's syndrome (ESR_EL1, the x86 vector and
 *                error code as vector << 32 | error), 0 for a panic
 *   24     8     addr: the fault address (FAR_EL1, CR2); valid if flags bit 0
 *   32     8     pc: the PC of the crash (the faulting instruction; for a
 *                panic, where the registers were captured)
 *   40     2     nframes: frames stored, 0 .. 32
 *   42     2     flags: bit 0 addr is valid (the faulting address); bit 1
 *                code holds the fault's syndrome words, bit 2 addr holds
 *                its address word (port/sfu_fault.h: what a host decodes
 *                the cause from); other bits 0
 *   44     4     reserved, 0 (in version 2: total, the whole record's size)
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
 * THE EXTENDED RECORD (version 2): the 404 bytes above (version 2, total
 * at 44; the crc at 400 still covers bytes 0 .. 399, so the trace part
 * checks on its own too), then
 *
 *   offset   size  field
 *   404      2     machine: the image's ELF e_machine, which numbers the
 *                  registers: SFU_CRASH_EM_AARCH64 183, SFU_CRASH_EM_X86_64 62
 *   406      2     nthreads: thread blocks that follow, 1 .. SFU_CRASH_MAX_THREADS
 *   408      2     dropped: threads the budget had no room for (absent)
 *   410      1     crashed: index of the block of the thread that crashed
 *   411      1     idlen: bytes of id used, 0 .. 32
 *   412      4     budget: the bytes the writer was allowed (total <= budget)
 *   416      32    id: the image's identity, its GNU build-id note's
 *                  descriptor (ld --build-id), zero-padded: the host
 *                  refuses to pair the record with another image
 *   448      8     pac: aarch64, the bits the port's strip_ra clears from a
 *                  return address (pointer authentication: a debugger
 *                  strips the signed return addresses in the windows with
 *                  it); 0 without PAC, always 0 on x86_64
 *   456      ...   nthreads thread blocks, one after the other
 *   total-4  4     crc: CRC-32 (as above) of bytes 0 .. 399 and 404 ..
 *                  total-5 (not of the first crc: a CRC over a message and
 *                  its own CRC is one constant, whatever the message, so
 *                  it would not tie this part to the first)
 *
 * A THREAD BLOCK, at offset T
 *
 *   T+0   16   name: NUL-padded, at most 15 bytes, always NUL-terminated
 *   T+16  1    state: SFU_CRASH_T_UNKNOWN 0, _CRASHED 1, _RUNNING 2,
 *              _READY 3, _BLOCKED 4, _SUSPENDED 5
 *   T+17  1    nframes: frames stored, 0 .. 32
 *   T+18  2    stop: the sfu code the thread's walk ended with
 *   T+20  1    whole: frames whose stack lies in the window, 0 .. nframes
 *              (frame k's ends at the CFA the walk computed for it, the
 *              cfa of frame k + 1; the last frame's is never known)
 *   T+21  1    cut: why the window ends where it does:
 *              SFU_CRASH_CUT_NONE 0   at the last CFA the walk computed
 *              SFU_CRASH_CUT_BUDGET 1 the budget ran out (deepest frames
 *                                     are cut first, in all threads)
 *              SFU_CRASH_CUT_READ 2   the port refused to read further
 *              SFU_CRASH_CUT_STACK 3  the next frame is on another stack
 *                                     (reached through a trap frame)
 *   T+22  2    reserved, 0
 *   T+24  8    valid: bit i set: register i is known and stored; a
 *              register not known is not stored (never stored as 0)
 *   T+32  8    window: address of the window's first byte (the walk's
 *              first SP, rounded down to 8)
 *   T+40  4    kept: window bytes stored (a multiple of 8)
 *   T+44  4    wanted: window bytes up to the last CFA the walk computed
 *              on this stack (kept < wanted: cut says why)
 *   T+48  8*R  the known registers, by number, R = the bits set in valid
 *   then  25*nframes  per frame: pc 8, sp 8, cfa 8 (sfu_frame's), then
 *              flags | how << 4 (as version 1's frame byte)
 *   then  kept the window's bytes, [window, window + kept)
 *
 * Registers, by number (the order of the Linux elf_prstatus pr_reg of
 * that machine, so a core file takes them as they are):
 *   aarch64 (34): 0-30 x0-x30, 31 sp, 32 pc, 33 pstate  (user_pt_regs)
 *   x86_64  (27): 0 r15, 1 r14, 2 r13, 3 r12, 4 rbp, 5 rbx, 6 r11, 7 r10,
 *                 8 r9, 9 r8, 10 rax, 11 rcx, 12 rdx, 13 rsi, 14 rdi,
 *                 15 orig_rax, 16 rip, 17 cs, 18 eflags, 19 rsp, 20 ss,
 *                 21 fs_base, 22 gs_base, 23 ds, 24 es, 25 fs, 26 gs
 *                 (user_regs_struct)
 *
 * The extended record is written in order too, magic first, the last crc
 * last, so a write cut short anywhere is CORRUPT.  Its size: 460 bytes of
 * headers, per thread 48 + 8 per known register + 25 per frame, plus the
 * windows; the budget decides how much of the windows fits.
 *
 * Use
 *   The dump writes the extended record itself: SFU_DUMP_RECORD(buf,
 *   size) in its description, sfu_dump_record_print(&dump) at boot
 *   (sfu_record.h); nothing below is needed for it.  For frames a caller
 *   collected with walks of its own:
 *   struct sfu_crash c;
 *   sfu_crash_init(&c, boot, SFU_CRASH_PANIC, msg, pc);
 *   sfu_crash_frames(&c, frames, n, stop);       // from sfu_backtrace
 *   sfu_crash_write(&c, retained, SFU_CRASH_SIZE);
 *   ... reset; next boot:
 *   switch (sfu_crash_read(retained, SFU_CRASH_SIZE, &c)) { ... }
 *   sfu_crash_clear(retained, SFU_CRASH_SIZE);
 * or, extended (a sfu_crash_thread per thread: its registers, frames):
 *   struct sfu_crash_ext x = { .machine = SFU_CRASH_EM_AARCH64, ... };
 *   sfu_crash_ext_write(&c, &x, retained, budget, &used);
 *   ... next boot: sfu_crash_read(retained, budget, &c) as above, then
 *   sfu_crash_info_read / sfu_crash_thread_read for the rest.
 *
 * KNOBS
 *   SFU_CRASH_MAX_THREADS  thread blocks a record may hold   (default 16)
 */
#ifndef SFU_CRASH_H
#define SFU_CRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfu.h"

#ifndef SFU_CRASH_MAX_THREADS
#define SFU_CRASH_MAX_THREADS 16
#endif
#if SFU_CRASH_MAX_THREADS < 1 || SFU_CRASH_MAX_THREADS > 255
#error "SFU_CRASH_MAX_THREADS must be 1 .. 255 (the crashed index is one byte)"
#endif

#define SFU_CRASH_MAGIC 0x43554653u /* "SFUC" */
#define SFU_CRASH_VERSION 1u
#define SFU_CRASH_VERSION_EXT 2u
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
#define SFU_CRASH_OFF_TOTAL 44u /* version 2 */
#define SFU_CRASH_OFF_MSG 48u
#define SFU_CRASH_OFF_PCS 112u
#define SFU_CRASH_OFF_FRAME 368u
#define SFU_CRASH_OFF_CRC 400u

/* The extension (version 2), from the record's start. */
#define SFU_CRASH_OFF_MACHINE 404u
#define SFU_CRASH_OFF_NTHREADS 406u
#define SFU_CRASH_OFF_DROPPED 408u
#define SFU_CRASH_OFF_CRASHED 410u
#define SFU_CRASH_OFF_IDLEN 411u
#define SFU_CRASH_OFF_BUDGET 412u
#define SFU_CRASH_OFF_ID 416u
#define SFU_CRASH_OFF_PAC 448u
#define SFU_CRASH_OFF_THREADS 456u
#define SFU_CRASH_ID_MAX 32u
/* Headers of a version-2 record with no thread: 456 + the last crc. */
#define SFU_CRASH_EXT_FIXED 460u

/* A thread block, from its start. */
#define SFU_CRASH_T_OFF_NAME 0u
#define SFU_CRASH_T_OFF_STATE 16u
#define SFU_CRASH_T_OFF_NFRAMES 17u
#define SFU_CRASH_T_OFF_STOP 18u
#define SFU_CRASH_T_OFF_WHOLE 20u
#define SFU_CRASH_T_OFF_CUT 21u
#define SFU_CRASH_T_OFF_RESERVED 22u
#define SFU_CRASH_T_OFF_VALID 24u
#define SFU_CRASH_T_OFF_WINDOW 32u
#define SFU_CRASH_T_OFF_KEPT 40u
#define SFU_CRASH_T_OFF_WANTED 44u
#define SFU_CRASH_T_OFF_REGS 48u
#define SFU_CRASH_T_NAME 16u
#define SFU_CRASH_T_FRAME 25u /* bytes per frame */

/* kind */
#define SFU_CRASH_PANIC 1u
#define SFU_CRASH_FAULT 2u
/* flags */
#define SFU_CRASH_ADDR_VALID 0x1u
/* code and addr hold the fault's words as the CPU's decoder takes them
 * (port/sfu_fault.h: aarch64 ESR_ELx and FAR_ELx, x86_64 the vector << 32
 * | the error code and CR2), each where the trap frame held it: a host
 * decodes the cause again from them (and the record's machine). */
#define SFU_CRASH_CODE_KNOWN 0x2u
#define SFU_CRASH_ADDR_KNOWN 0x4u
#define SFU_CRASH_FLAGS 0x7u

/* machine (ELF e_machine) */
#define SFU_CRASH_EM_X86_64 62u
#define SFU_CRASH_EM_AARCH64 183u
/* Registers: aarch64 (user_pt_regs order) */
#define SFU_CRASH_A64_X(n) (n)
#define SFU_CRASH_A64_SP 31u
#define SFU_CRASH_A64_PC 32u
#define SFU_CRASH_A64_PSTATE 33u
#define SFU_CRASH_A64_NREGS 34u
/* Registers: x86_64 (user_regs_struct order) */
#define SFU_CRASH_X64_R15 0u
#define SFU_CRASH_X64_R14 1u
#define SFU_CRASH_X64_R13 2u
#define SFU_CRASH_X64_R12 3u
#define SFU_CRASH_X64_RBP 4u
#define SFU_CRASH_X64_RBX 5u
#define SFU_CRASH_X64_R11 6u
#define SFU_CRASH_X64_R10 7u
#define SFU_CRASH_X64_R9 8u
#define SFU_CRASH_X64_R8 9u
#define SFU_CRASH_X64_RAX 10u
#define SFU_CRASH_X64_RCX 11u
#define SFU_CRASH_X64_RDX 12u
#define SFU_CRASH_X64_RSI 13u
#define SFU_CRASH_X64_RDI 14u
#define SFU_CRASH_X64_ORIG_RAX 15u
#define SFU_CRASH_X64_RIP 16u
#define SFU_CRASH_X64_CS 17u
#define SFU_CRASH_X64_EFLAGS 18u
#define SFU_CRASH_X64_RSP 19u
#define SFU_CRASH_X64_SS 20u
#define SFU_CRASH_X64_FS_BASE 21u
#define SFU_CRASH_X64_GS_BASE 22u
#define SFU_CRASH_X64_DS 23u
#define SFU_CRASH_X64_ES 24u
#define SFU_CRASH_X64_FS 25u
#define SFU_CRASH_X64_GS 26u
#define SFU_CRASH_X64_NREGS 27u
#define SFU_CRASH_MAX_REGS 34u

/* thread state */
#define SFU_CRASH_T_UNKNOWN 0u
#define SFU_CRASH_T_CRASHED 1u
#define SFU_CRASH_T_RUNNING 2u
#define SFU_CRASH_T_READY 3u
#define SFU_CRASH_T_BLOCKED 4u
#define SFU_CRASH_T_SUSPENDED 5u
/* cut */
#define SFU_CRASH_CUT_NONE 0u
#define SFU_CRASH_CUT_BUDGET 1u
#define SFU_CRASH_CUT_READ 2u
#define SFU_CRASH_CUT_STACK 3u

/* What sfu_crash_read finds. */
enum sfu_crash_status {
    SFU_CRASH_VALID = 0,   /* a complete record: *out holds it */
    SFU_CRASH_EMPTY = 1,   /* no magic: nothing was recorded (or it was cleared) */
    SFU_CRASH_CORRUPT = 2, /* the magic, but a checksum does not match:
                            * half-written or damaged; not a trace */
    SFU_CRASH_UNKNOWN = 3, /* the checksum matches but the version, size or
                            * a field is out of range (another writer) */
    SFU_CRASH_SHORT = 4    /* an extended record longer than the bytes
                            * given: a truncated dump; not a trace */
};

/* What sfu_crash_ext_write answers. */
enum sfu_crash_write_status {
    SFU_CRASH_W_OK = 0,
    SFU_CRASH_W_ARG = 1,    /* bad argument: no threads, crashed out of
                             * range, an unknown machine, id too long */
    SFU_CRASH_W_BUDGET = 2, /* the budget cannot hold the headers, the
                             * crashed thread and its first frame's window;
                             * nothing written (write the PC-only record) */
    SFU_CRASH_W_READ = 3    /* a window read that succeeded while planning
                             * failed while writing: the record is left
                             * without its checksum (CORRUPT) */
};

/* A record, decoded (the version-1 part, which both versions have). */
struct sfu_crash {
    uint32_t boot;
    uint16_t kind, stop, nframes, flags;
    uint64_t code, addr, pc;
    char msg[SFU_CRASH_MSG];
    uint64_t pcs[SFU_CRASH_MAX_FRAMES];
    uint8_t frame[SFU_CRASH_MAX_FRAMES]; /* flags | how << 4 */
};

/* One thread, for the writer. */
struct sfu_crash_thread {
    const char *name;                   /* NULL: none */
    unsigned state;                     /* SFU_CRASH_T_* */
    uint64_t regs[SFU_CRASH_MAX_REGS];  /* by the machine's numbering */
    uint64_t valid;                     /* bit i: regs[i] is known */
    const sfu_frame *frames;            /* its walk (frames[0]: from regs) */
    size_t nframes;                     /* only the first 32 are kept */
    int stop;                           /* what the walk ended with */
};

/* What the extended record holds beside the version-1 part. */
struct sfu_crash_ext {
    unsigned machine;                      /* SFU_CRASH_EM_* */
    const uint8_t *id;                     /* the build-id, idlen bytes */
    unsigned idlen;                        /* 0 .. 32 */
    const struct sfu_crash_thread *threads;
    size_t nthreads;                       /* 1 .. SFU_CRASH_MAX_THREADS */
    unsigned crashed;                      /* index into threads */
    const sfu_port *port;                  /* reads the stack windows */
    uint64_t pac;                          /* aarch64: the PAC bits (sfu_crash_pac_mask) */
};

/* The extension's header, decoded. */
struct sfu_crash_info {
    uint64_t pac;
    uint32_t total, budget;
    uint16_t machine, nthreads, dropped;
    uint8_t crashed, idlen;
    uint8_t id[SFU_CRASH_ID_MAX];
};

/* A thread block, decoded; its frames and window stay in the record
 * (sfu_crash_thread_frame, and the bytes at window_off). */
struct sfu_crash_tinfo {
    char name[SFU_CRASH_T_NAME];
    uint8_t state, nframes, whole, cut;
    uint16_t stop;
    uint64_t valid;                    /* as stored */
    uint64_t regs[SFU_CRASH_MAX_REGS]; /* the known ones; unknown: 0, see valid */
    uint64_t window;
    uint32_t kept, wanted;
    uint32_t frames_off; /* record offset of frame 0 */
    uint32_t window_off; /* record offset of the window's first byte */
    uint32_t next;       /* record offset of the next block */
};

SFU_CODEGEN_BEGIN

/* A compiler may turn a loop that stores zeros into a call to memset
 * (gcc and clang do, at -O2 and -Os, unless the file is built with
 * -ffreestanding or -fno-builtin, which many kernels do not pass): an
 * empty asm in the loop, which may read the stored memory, keeps it a
 * loop. */
#define SFU__CRASH_KEEP_LOOP(p) __asm__ volatile("" : : "r"(p) : "memory")

/* CRC-32 (IEEE, as zlib's crc32(0, p, n)), bit by bit: no table, so
 * nothing to initialize on the crash path.  One byte into the running
 * value (initial 0xffffffff, final XOR 0xffffffff). */
static inline uint32_t sfu__crash_crc_byte(uint32_t crc, unsigned b)
{
    unsigned k;

    crc ^= b & 0xffu;
    for (k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    return crc;
}

static inline uint32_t sfu__crash_crc_add(uint32_t crc, const volatile uint8_t *p, size_t from, size_t to)
{
    size_t i;

    for (i = from; i < to; i++)
        crc = sfu__crash_crc_byte(crc, p[i]);
    return crc;
}

static inline uint32_t sfu_crash_crc32(const volatile uint8_t *p, size_t n)
{
    return sfu__crash_crc_add(0xffffffffu, p, 0, n) ^ 0xffffffffu;
}

/* The extended record's last crc: bytes 0 .. 399 and 404 .. total - 5.
 * The first crc is left out because a CRC run over a message followed by
 * that message's own CRC ends in the same state whatever the message: it
 * would not tie the extension to the trace part (a reset after a new
 * trace part, over an older record's extension, would check). */
static inline uint32_t sfu_crash_crc_ext(const volatile uint8_t *p, uint32_t total)
{
    uint32_t crc = sfu__crash_crc_add(0xffffffffu, p, 0, SFU_CRASH_OFF_CRC);

    return sfu__crash_crc_add(crc, p, SFU_CRASH_SIZE, total - 4u) ^ 0xffffffffu;
}

static inline void sfu__crash_put(volatile uint8_t *p, unsigned off, uint64_t v, unsigned size)
{
    unsigned i;

    for (i = 0; i < size; i++)
        p[off + i] = (uint8_t)(v >> (8u * i));
}

static inline uint64_t sfu__crash_get(const volatile uint8_t *p, size_t off, unsigned size)
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
    for (i = 0; i < SFU_CRASH_MSG; i++) {
        c->msg[i] = 0;
        SFU__CRASH_KEEP_LOOP(c);
    }
    for (i = 0; msg && msg[i] && i + 1u < SFU_CRASH_MSG; i++)
        c->msg[i] = msg[i];
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        c->pcs[i] = 0;
        c->frame[i] = 0;
        SFU__CRASH_KEEP_LOOP(c);
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

/* The version-1 part of c into tmp, with its crc at 400. */
static inline void sfu__crash_base(const struct sfu_crash *c, uint8_t *tmp, unsigned version, uint32_t total)
{
    unsigned i;

    sfu__crash_put(tmp, SFU_CRASH_OFF_MAGIC, SFU_CRASH_MAGIC, 4);
    sfu__crash_put(tmp, SFU_CRASH_OFF_VERSION, version, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_SIZE, SFU_CRASH_SIZE, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_BOOT, c->boot, 4);
    sfu__crash_put(tmp, SFU_CRASH_OFF_KIND, c->kind, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_STOP, c->stop, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_CODE, c->code, 8);
    sfu__crash_put(tmp, SFU_CRASH_OFF_ADDR, c->addr, 8);
    sfu__crash_put(tmp, SFU_CRASH_OFF_PC, c->pc, 8);
    sfu__crash_put(tmp, SFU_CRASH_OFF_NFRAMES, c->nframes <= SFU_CRASH_MAX_FRAMES ? c->nframes : 0, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_FLAGS, c->flags & SFU_CRASH_FLAGS, 2);
    sfu__crash_put(tmp, SFU_CRASH_OFF_RESERVED, total, 4);
    for (i = 0; i < SFU_CRASH_MSG; i++)
        tmp[SFU_CRASH_OFF_MSG + i] = i + 1u < SFU_CRASH_MSG ? (uint8_t)c->msg[i] : 0;
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        bool used = i < c->nframes;

        sfu__crash_put(tmp, SFU_CRASH_OFF_PCS + 8u * i, used ? c->pcs[i] : 0, 8);
        tmp[SFU_CRASH_OFF_FRAME + i] = used ? c->frame[i] : 0;
    }
    sfu__crash_put(tmp, SFU_CRASH_OFF_CRC, sfu_crash_crc32(tmp, SFU_CRASH_OFF_CRC), 4);
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
    sfu__crash_base(c, tmp, SFU_CRASH_VERSION, 0);
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

/* ---- the extended record: writing ------------------------------------------ */

/* Registers a machine has (0: a machine this record does not know). */
static inline unsigned sfu_crash_nregs(unsigned machine)
{
    return machine == SFU_CRASH_EM_AARCH64 ? SFU_CRASH_A64_NREGS
         : machine == SFU_CRASH_EM_X86_64  ? SFU_CRASH_X64_NREGS
                                           : 0u;
}

static inline unsigned sfu__crash_popcount(uint64_t v)
{
    unsigned n = 0;

    for (; v; v &= v - 1u)
        n++;
    return n;
}

static inline uint64_t sfu__crash_mask(unsigned machine)
{
    unsigned n = sfu_crash_nregs(machine);

    return n >= 64u ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1u);
}

/* Set register i of t (known from now on). */
static inline void sfu_crash_set_reg(struct sfu_crash_thread *t, unsigned i, uint64_t v)
{
    if (i < SFU_CRASH_MAX_REGS) {
        t->regs[i] = v;
        t->valid |= (uint64_t)1 << i;
    }
}

/* The registers of an sfu_regs (what a walk starts from) into t: PC, SP,
 * FP and (aarch64) LR, and every register of its DWARF array (register
 * numbers of the psABI's DWARF mapping: x86_64 0-16, aarch64 0-31): of a
 * plain array each of the first ndwarf, of one with a dwarf_map (a trap
 * frame or a saved context in the kernel's own layout, as
 * sfu_port_trap_regs and sfu_port_switch_regs give it: the port checked
 * its words) those the map says are saved.  The others stay unknown. */
static inline void sfu_crash_regs_from(struct sfu_crash_thread *t, unsigned machine, const sfu_regs *r)
{
    /* x86_64 DWARF numbers 0..16 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15
     * rip) to user_regs_struct slots. */
    static const uint8_t x64[17] = { 10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16 };
    unsigned i, n;

    for (i = 0; i < SFU_CRASH_MAX_REGS; i++) {
        t->regs[i] = 0;
        SFU__CRASH_KEEP_LOOP(t);
    }
    t->valid = 0;
    n = machine == SFU_CRASH_EM_X86_64 ? 17u : machine == SFU_CRASH_EM_AARCH64 ? 32u : 0u;
    for (i = 0; r->dwarf && i < n && i < r->ndwarf; i++) {
        /* The map holds byte offset + 1, 0 for a register not saved. */
        uint32_t at = r->dwarf_map ? r->dwarf_map[i] : 8u * i + 1u;

        if (at != 0 && ((at - 1u) & 7u) == 0)
            sfu_crash_set_reg(t, machine == SFU_CRASH_EM_X86_64 ? x64[i] : i, r->dwarf[(at - 1u) / 8u]);
    }
    if (machine == SFU_CRASH_EM_X86_64) {
        sfu_crash_set_reg(t, SFU_CRASH_X64_RIP, r->pc);
        sfu_crash_set_reg(t, SFU_CRASH_X64_RSP, r->sp);
        sfu_crash_set_reg(t, SFU_CRASH_X64_RBP, r->fp);
    } else if (machine == SFU_CRASH_EM_AARCH64) {
        sfu_crash_set_reg(t, SFU_CRASH_A64_PC, r->pc);
        sfu_crash_set_reg(t, SFU_CRASH_A64_SP, r->sp);
        sfu_crash_set_reg(t, SFU_CRASH_A64_X(29), r->fp);
        sfu_crash_set_reg(t, SFU_CRASH_A64_X(30), r->ra);
    }
}

/* aarch64: the bits strip (the port's strip_ra, ctx its context) clears
 * from a return address: the pointer authentication code's bits for
 * addresses with bit 55 clear, 0 on a CPU without PAuth (XPACLRI is then
 * a NOP).  For sfu_crash_ext.pac. */
static inline uint64_t sfu_crash_pac_mask(uint64_t (*strip)(void *ctx, uint64_t ra), void *ctx)
{
    uint64_t v = ~((uint64_t)1 << 55);

    return strip != NULL ? v ^ strip(ctx, v) : 0u;
}

/* Frames a thread block keeps. */
static inline unsigned sfu__crash_nf(const struct sfu_crash_thread *t)
{
    return t->frames == NULL ? 0u : t->nframes > SFU_CRASH_MAX_FRAMES ? SFU_CRASH_MAX_FRAMES : (unsigned)t->nframes;
}

/* The window's first byte: the walk's first SP, rounded down to 8. */
static inline uint64_t sfu__crash_base_addr(const struct sfu_crash_thread *t)
{
    return sfu__crash_nf(t) ? t->frames[0].sp & ~(uint64_t)7u : 0u;
}

/* Where frame k's part of t's window ends (rounded up to 8), given the
 * end of frame k - 1's (prev): the CFA the walk computed for frame k,
 * which is frame k + 1's cfa.  0 if there is none: *why says
 * SFU_CRASH_CUT_NONE (no more frames) or SFU_CRASH_CUT_STACK (frame k + 1
 * is on another stack, or the CFA is not above the window). */
static inline uint64_t sfu__crash_end(const struct sfu_crash_thread *t, unsigned k, uint64_t base, uint64_t prev,
                                      unsigned *why)
{
    const sfu_frame *f;
    uint64_t end;

    *why = SFU_CRASH_CUT_NONE;
    if (k + 1u >= sfu__crash_nf(t))
        return 0;
    f = &t->frames[k + 1u];
    *why = SFU_CRASH_CUT_STACK;
    if (f->how == SFU_HOW_TRAP || f->cfa > ~(uint64_t)7u)
        return 0;
    end = (f->cfa + 7u) & ~(uint64_t)7u;
    if (end < prev || end - base > 0x7ffffff8u)
        return 0;
    return end;
}

/* Bytes [a, a + n) readable through the port (8-byte words). */
static inline bool sfu__crash_readable(const sfu_port *port, uint64_t a, uint64_t n)
{
    uint64_t v, i;

    for (i = 0; i < n; i += 8u)
        if (port->read(port->ctx, a + i, &v) != 0)
            return false;
    return true;
}

/* Thread block bytes without the window. */
static inline uint32_t sfu__crash_fixed(const struct sfu_crash_thread *t, unsigned machine)
{
    return SFU_CRASH_T_OFF_REGS + 8u * sfu__crash_popcount(t->valid & sfu__crash_mask(machine)) +
           SFU_CRASH_T_FRAME * sfu__crash_nf(t);
}

/* The writer's plan: which threads, how much of each window. */
struct sfu__crash_plan {
    uint8_t in[SFU_CRASH_MAX_THREADS], whole[SFU_CRASH_MAX_THREADS], cut[SFU_CRASH_MAX_THREADS];
    uint32_t kept[SFU_CRASH_MAX_THREADS], wanted[SFU_CRASH_MAX_THREADS];
    uint32_t total;
    uint16_t nin, dropped;
    uint8_t crashed; /* index among the threads kept */
};

/* Thread i of the order the budget is spent in: the crashed one first. */
static inline unsigned sfu__crash_order(const struct sfu_crash_ext *x, unsigned j)
{
    return j == 0u ? x->crashed : j <= x->crashed ? j - 1u : j;
}

/* Decide what fits in budget: the headers; every thread's registers and
 * frames (the crashed thread first, then the others in order while they
 * fit); then the windows, frame by frame, all threads' first frames,
 * then all second frames, and so on, so the deepest frames are the ones
 * cut.  A frame is kept whole or not at all, and only if the port reads
 * every word of it.  Returns SFU_CRASH_W_*. */
static inline int sfu__crash_plan(const struct sfu_crash_ext *x, size_t budget, struct sfu__crash_plan *p)
{
    uint8_t open[SFU_CRASH_MAX_THREADS];
    uint64_t used = SFU_CRASH_EXT_FIXED;
    unsigned i, j, k;

    p->nin = p->dropped = 0;
    p->crashed = 0;
    for (j = 0; j < x->nthreads; j++) {
        const struct sfu_crash_thread *t;
        unsigned why;
        uint64_t end = 0, w;

        i = sfu__crash_order(x, j);
        t = &x->threads[i];
        p->whole[i] = 0;
        p->cut[i] = SFU_CRASH_CUT_NONE;
        p->kept[i] = 0;
        for (k = 0; (w = sfu__crash_end(t, k, sfu__crash_base_addr(t), end, &why)) != 0; k++)
            end = w;
        p->wanted[i] = end ? (uint32_t)(end - sfu__crash_base_addr(t)) : 0u;
        p->in[i] = (uint8_t)(used + sfu__crash_fixed(t, x->machine) <= budget);
        open[i] = p->in[i];
        if (!p->in[i]) {
            if (j == 0)
                return SFU_CRASH_W_BUDGET;
            p->dropped++;
            continue;
        }
        used += sfu__crash_fixed(t, x->machine);
        p->nin++;
    }
    for (k = 0; k < SFU_CRASH_MAX_FRAMES; k++) {
        for (j = 0; j < x->nthreads; j++) {
            const struct sfu_crash_thread *t;
            uint64_t base, end;
            unsigned why;

            i = sfu__crash_order(x, j);
            t = &x->threads[i];
            if (!open[i])
                continue;
            base = sfu__crash_base_addr(t);
            end = sfu__crash_end(t, k, base, base + p->kept[i], &why);
            if (end == 0) {
                open[i] = 0;
                p->cut[i] = (uint8_t)why;
                continue;
            }
            if (used + (end - base - p->kept[i]) > budget) {
                if (j == 0 && k == 0)
                    return SFU_CRASH_W_BUDGET; /* not even the first frame */
                open[i] = 0;
                p->cut[i] = SFU_CRASH_CUT_BUDGET;
                continue;
            }
            if (!sfu__crash_readable(x->port, base + p->kept[i], end - base - p->kept[i])) {
                open[i] = 0;
                p->cut[i] = SFU_CRASH_CUT_READ;
                continue;
            }
            used += end - base - p->kept[i];
            p->kept[i] = (uint32_t)(end - base);
            p->whole[i] = (uint8_t)(k + 1u);
        }
    }
    for (i = 0, j = 0; i < x->nthreads; i++) {
        if (i == x->crashed)
            p->crashed = (uint8_t)j;
        j += p->in[i];
    }
    p->total = (uint32_t)used;
    return SFU_CRASH_W_OK;
}

/* The writer's cursor: bytes at or past limit are not written (a write
 * cut short, for tests). */
struct sfu__crash_out {
    volatile uint8_t *p;
    uint32_t off, limit;
};

static inline void sfu__crash_emit(struct sfu__crash_out *o, uint64_t v, unsigned size)
{
    unsigned i;

    for (i = 0; i < size; i++, o->off++)
        if (o->off < o->limit)
            o->p[o->off] = (uint8_t)(v >> (8u * i));
}

static inline int sfu__crash_thread_write(struct sfu__crash_out *o, const struct sfu_crash_ext *x,
                                          const struct sfu__crash_plan *p, unsigned i)
{
    const struct sfu_crash_thread *t = &x->threads[i];
    uint64_t valid = t->valid & sfu__crash_mask(x->machine), base = sfu__crash_base_addr(t), v;
    unsigned k, n = sfu__crash_nf(t);
    bool named = t->name != NULL;

    for (k = 0; k < SFU_CRASH_T_NAME; k++) {
        named = named && k + 1u < SFU_CRASH_T_NAME && t->name[k] != 0;
        sfu__crash_emit(o, named ? (uint8_t)t->name[k] : 0u, 1);
    }
    sfu__crash_emit(o, t->state & 0xffu, 1);
    sfu__crash_emit(o, n, 1);
    sfu__crash_emit(o, (uint16_t)t->stop, 2);
    sfu__crash_emit(o, p->whole[i], 1);
    sfu__crash_emit(o, p->cut[i], 1);
    sfu__crash_emit(o, 0, 2);
    sfu__crash_emit(o, valid, 8);
    sfu__crash_emit(o, base, 8);
    sfu__crash_emit(o, p->kept[i], 4);
    sfu__crash_emit(o, p->wanted[i], 4);
    for (k = 0; k < SFU_CRASH_MAX_REGS; k++)
        if (valid >> k & 1u)
            sfu__crash_emit(o, t->regs[k], 8);
    for (k = 0; k < n; k++) {
        sfu__crash_emit(o, t->frames[k].pc, 8);
        sfu__crash_emit(o, t->frames[k].sp, 8);
        sfu__crash_emit(o, t->frames[k].cfa, 8);
        sfu__crash_emit(o, (t->frames[k].flags & 0xfu) | (unsigned)(t->frames[k].how << 4), 1);
    }
    for (k = 0; k < p->kept[i]; k += 8u) {
        if (x->port->read(x->port->ctx, base + k, &v) != 0)
            return SFU_CRASH_W_READ;
        sfu__crash_emit(o, v, 8); /* the targets are little-endian */
    }
    return SFU_CRASH_W_OK;
}

/* sfu_crash_ext_write, stopping after upto bytes (a reset in the middle
 * of the write, for tests of the reader). */
static inline int sfu_crash_ext_write_upto(const struct sfu_crash *c, const struct sfu_crash_ext *x,
                                           volatile uint8_t *dst, size_t budget, size_t *used, size_t upto)
{
    struct sfu__crash_plan p;
    struct sfu__crash_out o;
    uint8_t tmp[SFU_CRASH_SIZE];
    unsigned i;
    int err;

    if (used)
        *used = 0;
    if (c == NULL || x == NULL || dst == NULL || x->threads == NULL || x->nthreads == 0 ||
        x->nthreads > SFU_CRASH_MAX_THREADS || x->crashed >= x->nthreads || sfu_crash_nregs(x->machine) == 0 ||
        x->idlen > SFU_CRASH_ID_MAX || (x->idlen && x->id == NULL) || x->port == NULL || x->port->read == NULL ||
        (x->pac != 0 && x->machine != SFU_CRASH_EM_AARCH64))
        return SFU_CRASH_W_ARG;
    if (budget > 0xffffffffu)
        budget = 0xffffffffu;
    err = sfu__crash_plan(x, budget, &p);
    if (err != SFU_CRASH_W_OK)
        return err;
    o.p = dst;
    o.off = 0;
    o.limit = upto < p.total ? (uint32_t)upto : p.total;
    sfu__crash_base(c, tmp, SFU_CRASH_VERSION_EXT, p.total);
    for (i = 0; i < SFU_CRASH_SIZE; i++)
        sfu__crash_emit(&o, tmp[i], 1);
    sfu__crash_emit(&o, x->machine, 2);
    sfu__crash_emit(&o, p.nin, 2);
    sfu__crash_emit(&o, p.dropped, 2);
    sfu__crash_emit(&o, p.crashed, 1);
    sfu__crash_emit(&o, x->idlen, 1);
    sfu__crash_emit(&o, budget, 4);
    for (i = 0; i < SFU_CRASH_ID_MAX; i++)
        sfu__crash_emit(&o, i < x->idlen ? x->id[i] : 0u, 1);
    sfu__crash_emit(&o, x->pac, 8);
    for (i = 0; i < x->nthreads; i++) {
        if (!p.in[i])
            continue;
        err = sfu__crash_thread_write(&o, x, &p, i);
        if (err != SFU_CRASH_W_OK)
            return err;
    }
    if (o.limit == p.total)
        sfu__crash_emit(&o, sfu_crash_crc_ext(dst, p.total), 4);
    if (used)
        *used = p.total;
    return SFU_CRASH_W_OK;
}

/* Write the extended record: c's trace part, then x's threads, at dst,
 * within budget bytes; *used gets the record's size.  What does not fit
 * is cut (and said so in the record); SFU_CRASH_W_BUDGET if not even the
 * crashed thread's first frame fits: then nothing is written.  Reads the
 * windows through x->port only.  Its stack is bounded whatever the
 * budget: the version-1 part and the plan, 816 bytes (gcc 12 -O2,
 * aarch64, -fstack-usage). */
static inline int sfu_crash_ext_write(const struct sfu_crash *c, const struct sfu_crash_ext *x,
                                      volatile uint8_t *dst, size_t budget, size_t *used)
{
    return sfu_crash_ext_write_upto(c, x, dst, budget, used, (size_t)-1);
}

/* ---- reading ------------------------------------------------------------------ */

/* Decode the thread block at off of the record src (total bytes, crc
 * included, machine's registers); false if it is malformed or runs past
 * the last crc. */
static inline bool sfu__crash_thread_at(const volatile uint8_t *src, uint32_t total, unsigned machine, uint32_t off,
                                        struct sfu_crash_tinfo *t)
{
    uint64_t end, valid;
    unsigned i, r;

    if (off > total - 4u || total - 4u - off < SFU_CRASH_T_OFF_REGS)
        return false;
    for (i = 0; i < SFU_CRASH_T_NAME; i++)
        t->name[i] = (char)src[off + i];
    t->state = src[off + SFU_CRASH_T_OFF_STATE];
    t->nframes = src[off + SFU_CRASH_T_OFF_NFRAMES];
    t->stop = (uint16_t)sfu__crash_get(src, off + SFU_CRASH_T_OFF_STOP, 2);
    t->whole = src[off + SFU_CRASH_T_OFF_WHOLE];
    t->cut = src[off + SFU_CRASH_T_OFF_CUT];
    valid = sfu__crash_get(src, off + SFU_CRASH_T_OFF_VALID, 8);
    t->valid = valid;
    t->window = sfu__crash_get(src, off + SFU_CRASH_T_OFF_WINDOW, 8);
    t->kept = (uint32_t)sfu__crash_get(src, off + SFU_CRASH_T_OFF_KEPT, 4);
    t->wanted = (uint32_t)sfu__crash_get(src, off + SFU_CRASH_T_OFF_WANTED, 4);
    if (t->name[SFU_CRASH_T_NAME - 1u] != 0 || t->nframes > SFU_CRASH_MAX_FRAMES || t->whole > t->nframes ||
        t->cut > SFU_CRASH_CUT_STACK || sfu__crash_get(src, off + SFU_CRASH_T_OFF_RESERVED, 2) != 0 ||
        (valid & ~sfu__crash_mask(machine)) != 0 || t->kept > t->wanted || (t->kept & 7u) != 0 ||
        (t->window & 7u) != 0 || t->window + t->kept < t->window ||
        (t->kept < t->wanted) != (t->cut == SFU_CRASH_CUT_BUDGET || t->cut == SFU_CRASH_CUT_READ))
        return false;
    end = (uint64_t)off + SFU_CRASH_T_OFF_REGS;
    for (i = 0, r = 0; i < SFU_CRASH_MAX_REGS; i++) {
        t->regs[i] = 0;
        if (valid >> i & 1u) {
            if (end + 8u * r + 8u > total - 4u)
                return false;
            t->regs[i] = sfu__crash_get(src, end + 8u * r, 8);
            r++;
        }
    }
    end += 8u * r;
    t->frames_off = (uint32_t)end;
    end += (uint64_t)SFU_CRASH_T_FRAME * t->nframes;
    t->window_off = (uint32_t)end;
    end += t->kept;
    if (end > total - 4u)
        return false;
    t->next = (uint32_t)end;
    return true;
}

/* Decode the version-1 part of src (already checked). */
static inline void sfu__crash_decode(const volatile uint8_t *src, struct sfu_crash *out)
{
    unsigned i;

    out->boot = (uint32_t)sfu__crash_get(src, SFU_CRASH_OFF_BOOT, 4);
    out->kind = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_KIND, 2);
    out->stop = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_STOP, 2);
    out->code = sfu__crash_get(src, SFU_CRASH_OFF_CODE, 8);
    out->addr = sfu__crash_get(src, SFU_CRASH_OFF_ADDR, 8);
    out->pc = sfu__crash_get(src, SFU_CRASH_OFF_PC, 8);
    out->nframes = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_NFRAMES, 2);
    out->flags = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_FLAGS, 2);
    for (i = 0; i < SFU_CRASH_MSG; i++)
        out->msg[i] = (char)src[SFU_CRASH_OFF_MSG + i];
    for (i = 0; i < SFU_CRASH_MAX_FRAMES; i++) {
        out->pcs[i] = sfu__crash_get(src, SFU_CRASH_OFF_PCS + 8u * i, 8);
        out->frame[i] = src[SFU_CRASH_OFF_FRAME + i];
    }
}

/* Check the extension of a version-2 record whose version-1 part checked:
 * the status, and *info if VALID. */
static inline int sfu__crash_ext_check(const volatile uint8_t *src, size_t size, struct sfu_crash_info *info)
{
    struct sfu_crash_tinfo t;
    uint32_t total = (uint32_t)sfu__crash_get(src, SFU_CRASH_OFF_TOTAL, 4), off;
    unsigned i;

    if (total < SFU_CRASH_EXT_FIXED)
        return SFU_CRASH_UNKNOWN;
    if (total > size)
        return SFU_CRASH_SHORT;
    if (sfu_crash_crc_ext(src, total) != sfu__crash_get(src, total - 4u, 4))
        return SFU_CRASH_CORRUPT;
    info->total = total;
    info->machine = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_MACHINE, 2);
    info->nthreads = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_NTHREADS, 2);
    info->dropped = (uint16_t)sfu__crash_get(src, SFU_CRASH_OFF_DROPPED, 2);
    info->crashed = src[SFU_CRASH_OFF_CRASHED];
    info->idlen = src[SFU_CRASH_OFF_IDLEN];
    info->budget = (uint32_t)sfu__crash_get(src, SFU_CRASH_OFF_BUDGET, 4);
    for (i = 0; i < SFU_CRASH_ID_MAX; i++)
        info->id[i] = src[SFU_CRASH_OFF_ID + i];
    info->pac = sfu__crash_get(src, SFU_CRASH_OFF_PAC, 8);
    if (sfu_crash_nregs(info->machine) == 0 || info->nthreads == 0 || info->nthreads > 255u ||
        info->crashed >= info->nthreads || info->idlen > SFU_CRASH_ID_MAX || total > info->budget ||
        (info->pac != 0 && info->machine != SFU_CRASH_EM_AARCH64))
        return SFU_CRASH_UNKNOWN;
    for (i = 0, off = SFU_CRASH_OFF_THREADS; i < info->nthreads; i++, off = t.next)
        if (!sfu__crash_thread_at(src, total, info->machine, off, &t))
            return SFU_CRASH_UNKNOWN;
    return off == total - 4u ? SFU_CRASH_VALID : SFU_CRASH_UNKNOWN;
}

/* Read the record at src (size bytes available) into *out: the status
 * says whether there is one and whether it can be trusted; *out is
 * filled only for SFU_CRASH_VALID.  Both versions: of an extended record
 * *out is the trace part, and VALID means the whole record checked
 * (both checksums, every thread block in bounds). */
static inline int sfu_crash_read(const volatile uint8_t *src, size_t size, struct sfu_crash *out)
{
    struct sfu_crash_info info;
    unsigned version;
    int st;

    if (src == NULL || size < SFU_CRASH_SIZE || sfu__crash_get(src, SFU_CRASH_OFF_MAGIC, 4) != SFU_CRASH_MAGIC)
        return SFU_CRASH_EMPTY;
    if (sfu_crash_crc32(src, SFU_CRASH_OFF_CRC) != sfu__crash_get(src, SFU_CRASH_OFF_CRC, 4))
        return SFU_CRASH_CORRUPT;
    version = (unsigned)sfu__crash_get(src, SFU_CRASH_OFF_VERSION, 2);
    if ((version != SFU_CRASH_VERSION && version != SFU_CRASH_VERSION_EXT) ||
        sfu__crash_get(src, SFU_CRASH_OFF_SIZE, 2) != SFU_CRASH_SIZE ||
        sfu__crash_get(src, SFU_CRASH_OFF_NFRAMES, 2) > SFU_CRASH_MAX_FRAMES ||
        src[SFU_CRASH_OFF_MSG + SFU_CRASH_MSG - 1u] != 0)
        return SFU_CRASH_UNKNOWN;
    if (version == SFU_CRASH_VERSION_EXT) {
        st = sfu__crash_ext_check(src, size, &info);
        if (st != SFU_CRASH_VALID)
            return st;
    }
    sfu__crash_decode(src, out);
    return SFU_CRASH_VALID;
}

/* The extension of a record: SFU_CRASH_VALID and *info for an extended
 * record that checks whole, SFU_CRASH_UNKNOWN for a valid version-1
 * record (it has none), else what sfu_crash_read says. */
static inline int sfu_crash_info_read(const volatile uint8_t *src, size_t size, struct sfu_crash_info *info)
{
    struct sfu_crash c;
    int st = sfu_crash_read(src, size, &c);

    if (st != SFU_CRASH_VALID)
        return st;
    if (sfu__crash_get(src, SFU_CRASH_OFF_VERSION, 2) != SFU_CRASH_VERSION_EXT)
        return SFU_CRASH_UNKNOWN;
    return sfu__crash_ext_check(src, size, info);
}

/* Thread block i (0 .. info->nthreads - 1) of a record sfu_crash_info_read
 * found VALID; false if i is out of range. */
static inline bool sfu_crash_thread_read(const volatile uint8_t *src, const struct sfu_crash_info *info, unsigned i,
                                         struct sfu_crash_tinfo *t)
{
    uint32_t off = SFU_CRASH_OFF_THREADS;
    unsigned k;

    if (i >= info->nthreads)
        return false;
    for (k = 0; k <= i; k++) {
        if (!sfu__crash_thread_at(src, info->total, info->machine, off, t))
            return false;
        off = t->next;
    }
    return true;
}

/* Frame k of a decoded thread block (pc, sp, cfa, flags, how). */
static inline void sfu_crash_thread_frame(const volatile uint8_t *src, const struct sfu_crash_tinfo *t, unsigned k,
                                          sfu_frame *f)
{
    uint32_t off = t->frames_off + SFU_CRASH_T_FRAME * k;

    if (k >= t->nframes) {
        f->pc = f->sp = f->cfa = 0;
        f->flags = f->how = 0;
        return;
    }
    f->pc = sfu__crash_get(src, off, 8);
    f->sp = sfu__crash_get(src, off + 8u, 8);
    f->cfa = sfu__crash_get(src, off + 16u, 8);
    f->flags = (uint8_t)(src[off + 24u] & 0xfu);
    f->how = (uint8_t)(src[off + 24u] >> 4);
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
