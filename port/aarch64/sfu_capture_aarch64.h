/* SPDX-License-Identifier: MIT */
/* sfu_capture_aarch64.h - the registers where a panic asks for its own
 * backtrace, on aarch64: one macro for the bare-metal port
 * (SFU_PORT_CAPTURE) and the Linux host port (SFU_HOST_CAPTURE).  Needs
 * sfu_regs (core/sfu.h) and <stdint.h>. */
#ifndef SFU_CAPTURE_AARCH64_H
#define SFU_CAPTURE_AARCH64_H

/* Capture the registers at the point where the macro is written, into an
 * sfu_regs.  A macro (not a function) so that pc/sp/fp belong to the
 * caller's frame.  One asm statement reads all four: pc is the address of
 * the ADR itself (`adr x, .`), and nothing between it and the MOVs can
 * change SP or x29, so the set is consistent with the SFrame row for that
 * pc.  x30 is whatever the LR holds there: in a function that has saved
 * its LR, the row says where the real return address lives; in a leaf
 * that has not saved it yet, x30 is it. */
#define SFU_CAPTURE_AARCH64(r)                                              \
    do {                                                                    \
        uint64_t sfu__pc, sfu__sp, sfu__fp, sfu__lr;                        \
        __asm__ volatile("adr %0, .\n\t"                                    \
                         "mov %1, sp\n\t"                                   \
                         "mov %2, x29\n\t"                                  \
                         "mov %3, x30"                                      \
                         : "=r"(sfu__pc), "=r"(sfu__sp), "=r"(sfu__fp),     \
                           "=r"(sfu__lr));                                  \
        (r)->pc = sfu__pc;                                                  \
        (r)->sp = sfu__sp;                                                  \
        (r)->fp = sfu__fp;                                                  \
        (r)->ra = sfu__lr;                                                  \
        (r)->dwarf = NULL;                                                  \
        (r)->ndwarf = 0;                                                    \
        (r)->dwarf_map = NULL;                                              \
    } while (0)

#endif
