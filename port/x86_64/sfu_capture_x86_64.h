/* SPDX-License-Identifier: MIT */
/* sfu_capture_x86_64.h - the registers where a panic asks for its own
 * backtrace, on x86_64: one macro for the bare-metal port
 * (SFU_PORT_CAPTURE) and the Linux host port (SFU_HOST_CAPTURE).  Needs
 * sfu_regs (core/sfu.h) and <stdint.h>. */
#ifndef SFU_CAPTURE_X86_64_H
#define SFU_CAPTURE_X86_64_H

/* Capture the registers at the point where the macro is written, into an
 * sfu_regs.  A macro (not a function) so that pc/sp/fp belong to the
 * caller's frame; one asm statement reads all three, so the values agree
 * with the SFrame row for that pc (gcc may move RSP between statements,
 * never inside one, so no push can come in between).  The pc is the
 * instruction after the LEA, still in the same asm statement and so under
 * the same row.  x86_64 has no link register: ra = 0.  No DWARF array:
 * the other registers hold nothing an unwind rule could use outside a
 * prologue, and a capture is never in a prologue. */
#define SFU_CAPTURE_X86_64(r)                                               \
    do {                                                                    \
        uint64_t sfu__pc, sfu__sp, sfu__fp;                                 \
        __asm__ volatile("lea 0(%%rip), %0\n\t"                             \
                         "mov %%rsp, %1\n\t"                                \
                         "mov %%rbp, %2"                                    \
                         : "=r"(sfu__pc), "=r"(sfu__sp), "=r"(sfu__fp));    \
        (r)->pc = sfu__pc;                                                  \
        (r)->sp = sfu__sp;                                                  \
        (r)->fp = sfu__fp;                                                  \
        (r)->ra = 0;                                                        \
        (r)->dwarf = NULL;                                                  \
        (r)->ndwarf = 0;                                                    \
        (r)->dwarf_map = NULL;                                              \
    } while (0)

#endif
