/* SPDX-License-Identifier: MIT */
/*
 * retained.c -- a crash record that survives the reset (the retained
 * scenario), in the format of port/common/sfu_crash.h.
 *
 * [__retained_start, __retained_end) is RAM outside every loaded segment,
 * BSS and stack (link.ld), which neither QEMU's loader nor the firmware's
 * boot code writes, so it keeps its contents across a warm reset:
 *
 *   +0    boot block: 'B' 'O' 'O' 'T', the boot counter, its complement
 *   +64   the crash record (SFU_CRASH_SIZE bytes)
 *
 * Boot 1: no record; the boot counter starts at 1; a panic at the bottom
 *         of the demo chain dumps as usual, writes the record, resets.
 * Boot 2: the record is found: "previous crash" with its backtrace,
 *         symbolized by this image, and its raw bytes (for
 *         tools/sfu-crash); cleared.  Then half a record is written, as if
 *         the power failed in the middle of writing one, and the board
 *         resets again.
 * Boot 3: the half-written record is found, reported as corrupt (not as
 *         a trace), cleared; status 0.
 */
#include "ex.h"

#define BOOT_MAGIC 0x544f4f42u /* "BOOT" */
#define RECORD_OFF 64u

volatile int ex_retain_armed;

static volatile uint32_t *boot_block(void)
{
    return (volatile uint32_t *)(uintptr_t)__retained_start;
}

static volatile uint8_t *record(void)
{
    return (volatile uint8_t *)(uintptr_t)__retained_start + RECORD_OFF;
}

static size_t record_room(void)
{
    return (size_t)(__retained_end - __retained_start) - RECORD_OFF;
}

/* This boot's number: 1 on a cold start (no valid boot block), else one
 * more than the last. */
static uint32_t boot_number(void)
{
    volatile uint32_t *b = boot_block();
    uint32_t n = (b[0] == BOOT_MAGIC && b[2] == ~b[1]) ? b[1] + 1u : 1u;

    b[0] = BOOT_MAGIC;
    b[1] = n;
    b[2] = ~n;
    return n;
}

static uint32_t this_boot;

/* From panic() or ex_fault(), after the dump: the dump's frames into the
 * record, then the reset. */
void ex_retain_crash(unsigned kind, const char *what, uint64_t pc, uint64_t code, uint64_t addr, bool addr_valid)
{
    struct sfu_crash c;

    sfu_crash_init(&c, this_boot, kind, what, pc);
    c.code = code;
    c.addr = addr;
    c.flags = addr_valid ? SFU_CRASH_ADDR_VALID : 0;
    sfu_crash_frames(&c, ex_last_frames, ex_last_nframes, ex_last_stop);
    if (!sfu_crash_write(&c, record(), record_room())) {
        ex_printf("retained: no room for the crash record\n");
        return;
    }
    ex_printf("retained: crash record written (%u bytes at %p, %u frames), resetting\n", SFU_CRASH_SIZE,
              (void *)record(), (unsigned)c.nframes);
    board_reset();
}

/* The record's bytes as hex, 16 a line, for tools/sfu-crash --log. */
static void print_bytes(void)
{
    const volatile uint8_t *p = record();
    unsigned i;

    for (i = 0; i < SFU_CRASH_SIZE; i++) {
        if (i % 16u == 0)
            ex_printf("  crash record +%03x:", i);
        ex_printf(" %02x", p[i]);
        if (i % 16u == 15u || i + 1u == SFU_CRASH_SIZE)
            ex_printf("\n");
    }
}

static void print_previous(const struct sfu_crash *c)
{
    sfu_frame f, next;
    unsigned i;

    ex_printf("previous crash: boot %u (this is boot %u): %s \"%s\" at pc %p\n", (unsigned)c->boot,
              (unsigned)this_boot, c->kind == SFU_CRASH_PANIC ? "panic" : "fault", c->msg,
              (void *)(uintptr_t)c->pc);
    if (c->flags & SFU_CRASH_ADDR_VALID)
        ex_printf("  fault address %p  code 0x%llx\n", (void *)(uintptr_t)c->addr, (unsigned long long)c->code);
    ex_printf("crash record: %u bytes at %p\n", SFU_CRASH_SIZE, (void *)record());
    print_bytes();
    /* The trace, named by this image (the one that crashed: a warm reset
     * boots the same one).  A frame reached through a trap frame makes the
     * one before it the vector code's call. */
    ex_printf("backtrace:\n");
    for (i = 0; i < c->nframes; i++) {
        sfu_crash_frame(c, i, &f);
        sfu_crash_frame(c, i + 1u, &next);
        ex_print_frame(i, &f, i + 1u < c->nframes && next.how == SFU_HOW_TRAP);
    }
    ex_print_stop(c->nframes, c->stop);
}

EX_NORETURN void ex_retained_scenario(void)
{
    struct sfu_crash c;
    int st;

    this_boot = boot_number();
    ex_printf("retained: boot %u, crash record at %p\n", (unsigned)this_boot, (void *)record());
    st = sfu_crash_read(record(), record_room(), &c);
    switch (st) {
    case SFU_CRASH_EMPTY:
        ex_printf("retained: no crash record; crashing on purpose\n");
        ex_retain_armed = 1;
        (void)chain_a(0, EX_ACT_PANIC);
        break;
    case SFU_CRASH_VALID:
        print_previous(&c);
        sfu_crash_clear(record(), record_room());
        ex_printf("retained: record cleared; writing half a record and resetting, as a power cut "
                  "in the middle of the write would\n");
        c.boot = this_boot;
        (void)sfu_crash_write_upto(&c, record(), record_room(), SFU_CRASH_SIZE / 2u);
        board_reset();
    case SFU_CRASH_CORRUPT:
        ex_printf("retained: previous crash record is corrupt (checksum mismatch): not shown\n");
        print_bytes();
        sfu_crash_clear(record(), record_room());
        ex_printf("retained: record cleared\n");
        board_exit(EX_PASS);
    default:
        ex_printf("retained: crash record of an unknown version or shape: not shown\n");
        sfu_crash_clear(record(), record_room());
        board_exit(EX_FAIL);
    }
    ex_printf("retained: the chain returned\n");
    board_exit(EX_BUG);
}
