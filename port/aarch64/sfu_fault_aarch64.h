/* SPDX-License-Identifier: MIT */
/* sfu_fault_aarch64.h - an AArch64 synchronous exception's cause in one
 * line, from ESR_ELx and FAR_ELx as the vector code saved them (ARM ARM,
 * DDI 0487, D24.2 "ESR_EL1", "FAR_EL1"; the ISS encodings of each
 * exception class).  A pure function of the two words (port/sfu_fault.h):
 * the port's decoder for the dump, and a host tool's for a record of an
 * AArch64 machine.
 *
 *   size_t sfu_aarch64_fault(uint64_t esr, uint64_t far, unsigned known,
 *                            char *buf, size_t n, struct sfu_fault *f);
 *
 * known: SFU_FAULT_CODE, the frame holds ESR_ELx (without it nothing is
 * decoded: returns 0), SFU_FAULT_ADDR, it holds FAR_ELx (without it no
 * address is printed).  Writes the line into buf (n bytes, NUL-terminated, truncated
 * to fit) and the signal into *f; returns the line's length.
 *
 * ESR_ELx says nothing for an IRQ, FIQ or SError taken afterwards: it holds
 * the last synchronous exception's syndrome.  Decode it only for a frame of
 * the synchronous vectors (the trap layout of the sync entry names it; an
 * interrupt's layout does not).
 */
#ifndef SFU_FAULT_AARCH64_H
#define SFU_FAULT_AARCH64_H

#include "../sfu_fault.h"

#ifdef SFU_CODEGEN_BEGIN
SFU_CODEGEN_BEGIN
#endif

/* The fault status code of a data or instruction abort (ISS.DFSC/IFSC):
 * its text, and *level the translation table level it names (-2: none). */
static inline const char *sfu__a64_fsc(unsigned fsc, int *level)
{
    static const char *const lv[] = { "address size fault", "translation fault", "access flag fault",
                                      "permission fault" };

    *level = (int)(fsc & 3u);
    if (fsc < 0x10u)
        return lv[fsc >> 2];
    if (fsc >= 0x14u && fsc <= 0x17u)
        return "synchronous external abort on the table walk";
    if (fsc >= 0x1cu && fsc <= 0x1fu)
        return "parity or ECC error on the table walk";
    if (fsc >= 0x24u && fsc <= 0x27u)
        return "granule protection fault on the table walk";
    *level = -1;
    switch (fsc) {
    case 0x13: return "synchronous external abort on the table walk";
    case 0x1b: return "parity or ECC error on the table walk";
    case 0x23: return "granule protection fault on the table walk";
    case 0x29: return "address size fault";
    case 0x2b: return "translation fault";
    default: break;
    }
    *level = -2;
    switch (fsc) {
    case 0x10: return "synchronous external abort";
    case 0x11: return "synchronous tag check fault";
    case 0x18: return "synchronous parity or ECC error";
    case 0x21: return "alignment fault";
    case 0x22: return "debug exception";
    case 0x28: return "granule protection fault";
    case 0x30: return "TLB conflict abort";
    case 0x31: return "unsupported atomic hardware update fault";
    case 0x34: return "lockdown (implementation defined)";
    case 0x35: return "unsupported exclusive or atomic access (implementation defined)";
    default: return NULL;
    }
}

/* The signal of an abort's fault status (Linux, arch/arm64/mm/fault.c's
 * table): translation and address size faults SEGV_MAPERR, access flag
 * and permission faults SEGV_ACCERR, alignment SIGBUS, external aborts
 * SIGBUS, a tag check fault SEGV_MTESERR. */
static inline void sfu__a64_abort_signal(unsigned fsc, struct sfu_fault *f)
{
    f->signo = SFU_SIGSEGV;
    f->code = SFU_SEGV_MAPERR;
    if ((fsc >= 0x08u && fsc <= 0x0fu))
        f->code = SFU_SEGV_ACCERR;
    else if (fsc == 0x11u)
        f->code = SFU_SEGV_MTESERR;
    else if (fsc == 0x21u) {
        f->signo = SFU_SIGBUS;
        f->code = SFU_BUS_ADRALN;
    } else if (fsc >= 0x10u && fsc != 0x29u && fsc != 0x2bu) {
        f->signo = SFU_SIGBUS;
        f->code = SFU_BUS_OBJERR;
    }
}

/* A class's name and signal (ARM ARM, "ESR_EL1.EC"); NULL for the
 * aborts, which are decoded further. */
static inline const char *sfu__a64_class(unsigned ec, struct sfu_fault *f)
{
    f->signo = SFU_SIGILL;
    f->code = SFU_ILL_ILLOPC;
    switch (ec) {
    case 0x00: return "undefined instruction";
    case 0x01: return "WFI/WFE trapped";
    case 0x03: case 0x04: case 0x05: case 0x06: case 0x0c: return "AArch32 coprocessor access trapped";
    case 0x07: return "FP/SIMD access trapped (CPACR_EL1.FPEN)";
    case 0x0a: return "LD64B/ST64B trapped";
    case 0x0d: return "branch target exception (BTI)";
    case 0x0e: return "illegal execution state";
    case 0x18: f->code = SFU_ILL_PRVOPC; return "system register access trapped";
    case 0x19: return "SVE access trapped";
    case 0x1d: return "SME access trapped";
    case 0x1c: f->code = SFU_ILL_ILLOPN; return "pointer authentication failure";
    case 0x22: f->signo = SFU_SIGBUS; f->code = SFU_BUS_ADRALN; return "PC alignment fault";
    case 0x26: f->signo = SFU_SIGBUS; f->code = SFU_BUS_ADRALN; return "SP alignment fault";
    case 0x27: f->signo = SFU_SIGBUS; f->code = SFU_BUS_OBJERR; return "memory copy or set exception";
    case 0x28: case 0x2c: f->signo = SFU_SIGFPE; f->code = SFU_FPE_FLTINV; return "trapped floating-point exception";
    case 0x2f: f->signo = SFU_SIGBUS; f->code = SFU_BUS_OBJERR; return "SError interrupt";
    case 0x30: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_HWBKPT; return "breakpoint from EL0";
    case 0x31: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_HWBKPT; return "breakpoint";
    case 0x32: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_TRACE; return "software step from EL0";
    case 0x33: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_TRACE; return "software step";
    case 0x38: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_BRKPT; return "BKPT (AArch32)";
    case 0x11: case 0x15: f->signo = f->code = 0; return "SVC";
    case 0x16: f->signo = f->code = 0; return "HVC";
    case 0x17: f->signo = f->code = 0; return "SMC";
    case 0x3c: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_BRKPT; return "BRK";
    default: return NULL;
    }
}

static inline size_t sfu_aarch64_fault(uint64_t esr, uint64_t far, unsigned known, char *buf, size_t n,
                                       struct sfu_fault *f)
{
    struct sfu_fault_text t;
    unsigned ec = (unsigned)(esr >> 26) & 0x3fu, iss = (unsigned)esr & 0x1ffffffu, fsc = iss & 0x3fu;
    bool abort = ec == 0x20u || ec == 0x21u || ec == 0x24u || ec == 0x25u;
    bool watch = ec == 0x34u || ec == 0x35u;
    const char *name, *cause = NULL;
    int level = -2;

    sfu__fault_init(&t, buf, n, f);
    if (!(known & SFU_FAULT_CODE))
        return 0;
    name = sfu__a64_class(ec, f);
    if (abort) {
        name = ec == 0x20u ? "instruction abort from EL0"
             : ec == 0x21u ? "instruction abort"
             : ec == 0x24u ? "data abort from EL0"
                           : "data abort";
        cause = sfu__a64_fsc(fsc, &level);
        sfu__a64_abort_signal(fsc, f);
    } else if (watch) {
        name = ec == 0x34u ? "watchpoint from EL0" : "watchpoint";
        f->signo = SFU_SIGTRAP;
        f->code = SFU_TRAP_HWBKPT;
    }
    if (name == NULL) {
        sfu__fault_str(&t, "exception class ");
        sfu__fault_hex(&t, ec, 2);
    } else {
        sfu__fault_str(&t, name);
    }
    if (ec == 0x15u || ec == 0x16u || ec == 0x17u || ec == 0x3cu) {
        sfu__fault_str(&t, " #");
        sfu__fault_hex(&t, iss & 0xffffu, 1);
    }
    /* FAR_ELx: the faulting address of an abort unless ISS.FnV says it
     * is not valid (instruction aborts have FnV too), of a watchpoint,
     * and the misaligned PC of a PC alignment fault; UNKNOWN otherwise. */
    f->addr_valid = (known & SFU_FAULT_ADDR) != 0 &&
                    (((abort || watch) && !(iss & 0x400u)) || ec == 0x22u);
    f->addr = f->addr_valid ? far : 0;
    if (abort || watch) {
        /* ISS.WnR (data aborts, watchpoints), ISS.CM: a cache maintenance
         * instruction, which reports WnR 1.  An instruction abort is a
         * fetch: its name says so. */
        if (ec >= 0x24u)
            sfu__fault_str(&t, (iss & 0x100u) ? ", cache maintenance" : (iss & 0x40u) ? ", write" : ", read");
        if (f->addr_valid) {
            sfu__fault_str(&t, " at ");
            sfu__fault_hex(&t, far, 16);
        } else if (known & SFU_FAULT_ADDR) {
            sfu__fault_str(&t, " (FAR not valid)");
        }
    } else if (f->addr_valid) {
        sfu__fault_str(&t, " at ");
        sfu__fault_hex(&t, far, 16);
    }
    if (abort) {
        sfu__fault_ch(&t, ':');
        sfu__fault_ch(&t, ' ');
        if (level >= -1) {
            sfu__fault_str(&t, "level ");
            if (level < 0)
                sfu__fault_ch(&t, '-');
            sfu__fault_dec(&t, (unsigned)(level < 0 ? -level : level));
            sfu__fault_ch(&t, ' ');
        }
        if (cause != NULL) {
            sfu__fault_str(&t, cause);
        } else {
            sfu__fault_str(&t, "fault status ");
            sfu__fault_hex(&t, fsc, 2);
        }
        /* ISS.S1PTW: the fault was on the stage 1 translation table walk
         * (of a stage 2 translation). */
        if (iss & 0x80u)
            sfu__fault_str(&t, ", on the stage 1 table walk");
    }
    sfu__fault_str(&t, " (ESR ");
    sfu__fault_hex(&t, esr, 1);
    sfu__fault_str(&t, ", EC ");
    sfu__fault_hex(&t, ec, 2);
    sfu__fault_str(&t, ")");
    return t.len;
}

#ifdef SFU_CODEGEN_END
SFU_CODEGEN_END
#endif

#endif /* SFU_FAULT_AARCH64_H */
