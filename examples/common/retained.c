/* SPDX-License-Identifier: MIT */
/*
 * retained.c -- the crash record, as a user keeps it: the retained RAM the
 * dump writes it into (EX_DUMP's SFU_DUMP_RECORD, ex.h), the one call at
 * boot that prints the previous crash (sfu_dump_record_print), the reset.
 * No code here writes a record: every dump does (crash/sfu_record.h).
 *
 * [__retained_start, __retained_end) is RAM outside every loaded segment,
 * BSS and stack (link.ld), which neither QEMU's loader nor the firmware's
 * boot code writes, so it keeps its contents across a warm reset.
 *
 * Every crash report ends here (ex_crash_record_end): the record the
 * dumps wrote is printed in its wire form, a short block that
 * tools/sfu-crash --log reads back (and makes an ELF core of, for gdb).
 * The retained scenario instead resets:
 *
 * Boot 1: no record; a panic at the bottom of the demo chain dumps as
 *         usual (the dump writes the record) and resets.
 * Boot 2: sfu_dump_record_print shows the previous crash, its backtrace
 *         symbolized by this image, and its wire lines; it forgets the
 *         record.  Then the same panic again, and a reset in the middle of
 *         its dump (the frame hook, at frame EX_CUT_FRAME), while the
 *         record is half written, as a power cut would.
 * Boot 3: sfu_dump_record_print reports the half-written record as
 *         corrupt, not as a trace (with its wire lines); status 0.
 */
#include "ex.h"

/* The frame of the second crash's dump at which the power goes. */
#define EX_CUT_FRAME 3u

volatile unsigned ex_cut_at_frame;
static volatile int retain_armed;

void ex_crash_record_end(void)
{
    if (retain_armed)
        board_reset();
    sfu_dump_record_wire(&ex_dump);
}

EX_NORETURN void ex_retained_scenario(void)
{
    int st = sfu_dump_record_print(&ex_dump);

    switch (st) {
    case SFU_CRASH_EMPTY:
        ex_printf("retained: boot 1, no crash record; crashing on purpose\n");
        retain_armed = 1;
        break;
    case SFU_CRASH_VALID:
        ex_printf("retained: boot 2, the crash record above read back and forgotten; crashing again, and the "
                  "power goes in the middle of the record's write\n");
        ex_cut_at_frame = EX_CUT_FRAME;
        break;
    case SFU_CRASH_CORRUPT:
        ex_printf("retained: boot 3, the half-written record refused above\n");
        board_exit(EX_PASS);
    default:
        ex_printf("retained: a crash record of an unknown version or shape (%d)\n", st);
        board_exit(EX_FAIL);
    }
    (void)chain_a(0, EX_ACT_PANIC);
    ex_printf("retained: the chain returned\n");
    board_exit(EX_BUG);
}
