/* SPDX-License-Identifier: MIT */
/* sfu_fault_x86_64.h - an x86_64 exception's cause in one line, from the
 * vector, the error code and CR2 as the IDT stub saved them (SDM Vol. 3A,
 * 6.15 "Exception and Interrupt Reference"; 6.13 "Error Code"; 4.7
 * "Page-Fault Exceptions").  A pure function of the words
 * (port/sfu_fault.h): the port's decoder for the dump, and a host tool's
 * for a record of an x86_64 machine.
 *
 *   size_t sfu_x86_64_fault(uint64_t code, uint64_t cr2, unsigned known,
 *                           char *buf, size_t n, struct sfu_fault *f);
 *
 * code: the vector << 32 | the error code (the CPU pushes one for vectors
 * 8, 10-14, 17, 21, 29, 30; a stub pushes 0 for the others).  known:
 * SFU_FAULT_CODE, the frame holds both (without them nothing is decoded:
 * returns 0), SFU_FAULT_ADDR, it holds CR2 as read at entry (the address
 * of a #PF).  Writes the line into buf (n bytes, NUL-terminated,
 * truncated to fit) and the signal into *f (signo 0 for an interrupt,
 * vector 32 and up); returns the line's length.
 */
#ifndef SFU_FAULT_X86_64_H
#define SFU_FAULT_X86_64_H

#include "../sfu_fault.h"

#ifdef SFU_CODEGEN_BEGIN
SFU_CODEGEN_BEGIN
#endif

/* Vectors 0-31 (SDM Vol. 3A, Table 6-1), with the signal Linux sends for
 * each (arch/x86/kernel/traps.c). */
static inline const char *sfu__x64_vector(unsigned v, struct sfu_fault *f)
{
    f->signo = SFU_SIGSEGV;
    f->code = SFU_SI_KERNEL;
    switch (v) {
    case 0: f->signo = SFU_SIGFPE; f->code = SFU_FPE_INTDIV; return "#DE divide error";
    case 1: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_TRACE; return "#DB debug exception";
    case 2: f->signo = SFU_SIGBUS; f->code = SFU_BUS_OBJERR; return "NMI";
    case 3: f->signo = SFU_SIGTRAP; f->code = SFU_TRAP_BRKPT; return "#BP breakpoint";
    case 4: return "#OF overflow";
    case 5: return "#BR bound range exceeded";
    case 6: f->signo = SFU_SIGILL; f->code = SFU_ILL_ILLOPN; return "#UD invalid opcode";
    case 7: f->signo = SFU_SIGFPE; f->code = SFU_FPE_FLTINV; return "#NM device not available";
    case 8: return "#DF double fault";
    case 9: f->signo = SFU_SIGFPE; f->code = SFU_FPE_FLTINV; return "coprocessor segment overrun";
    case 10: return "#TS invalid TSS";
    case 11: f->signo = SFU_SIGBUS; f->code = SFU_SI_KERNEL; return "#NP segment not present";
    case 12: f->signo = SFU_SIGBUS; f->code = SFU_SI_KERNEL; return "#SS stack-segment fault";
    case 13: return "#GP general protection";
    case 14: f->code = SFU_SEGV_MAPERR; return "#PF page fault";
    case 16: f->signo = SFU_SIGFPE; f->code = SFU_FPE_FLTINV; return "#MF x87 floating-point error";
    case 17: f->signo = SFU_SIGBUS; f->code = SFU_BUS_ADRALN; return "#AC alignment check";
    case 18: f->signo = SFU_SIGBUS; f->code = SFU_BUS_MCEERR_AR; return "#MC machine check";
    case 19: f->signo = SFU_SIGFPE; f->code = SFU_FPE_FLTINV; return "#XM SIMD floating-point exception";
    case 20: return "#VE virtualization exception";
    case 21: f->code = SFU_SEGV_CPERR; return "#CP control protection";
    case 28: return "#HV hypervisor injection";
    case 29: return "#VC VMM communication";
    case 30: return "#SX security exception";
    default: return NULL;
    }
}

/* Vectors the CPU pushes an error code for (SDM Vol. 3A, Table 6-1). */
static inline bool sfu__x64_has_error(unsigned v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30;
}

/* A selector error code (vectors 10-13; SDM Vol. 3A, 6.13): EXT, IDT, TI
 * and the index.  0: not related to a segment (a #GP's usual case). */
static inline void sfu__x64_selector(struct sfu_fault_text *t, uint64_t e)
{
    if ((e & 0xffffu) == 0)
        return;
    sfu__fault_ch(t, ':');
    sfu__fault_ch(t, ' ');
    if (e & 2u) {
        sfu__fault_str(t, "IDT vector ");
        sfu__fault_dec(t, (unsigned)(e >> 3) & 0x1fffu);
    } else {
        sfu__fault_str(t, (e & 4u) ? "LDT selector " : "GDT selector ");
        sfu__fault_hex(t, e & 0xfff8u, 1);
    }
    if (e & 1u)
        sfu__fault_str(t, ", external event");
}

/* The page-fault error code (SDM Vol. 3A, 4.7): P, W/R, U/S, RSVD, I/D,
 * PK, SS, SGX. */
static inline void sfu__x64_pf(struct sfu_fault_text *t, uint64_t e, struct sfu_fault *f)
{
    sfu__fault_ch(t, ':');
    sfu__fault_ch(t, ' ');
    sfu__fault_str(t, (e & 1u) ? "protection violation" : "not-present page");
    sfu__fault_str(t, (e & 4u) ? ", user mode" : ", supervisor mode");
    if (e & 8u)
        sfu__fault_str(t, ", reserved bit set");
    if (e & 0x20u)
        sfu__fault_str(t, ", protection key");
    if (e & 0x40u)
        sfu__fault_str(t, ", shadow stack");
    if (e & 0x8000u)
        sfu__fault_str(t, ", SGX");
    f->code = (e & 1u) ? SFU_SEGV_ACCERR : SFU_SEGV_MAPERR;
}

/* The control-protection error code (SDM Vol. 1, 18.3). */
static inline void sfu__x64_cp(struct sfu_fault_text *t, uint64_t e)
{
    static const char *const what[] = { NULL, "near return", "far return or IRET", "missing ENDBRANCH",
                                        "RSTORSSP", "SETSSBSY" };
    unsigned c = (unsigned)e & 0x7fffu;

    if (c < sizeof what / sizeof what[0] && what[c] != NULL) {
        sfu__fault_ch(t, ':');
        sfu__fault_ch(t, ' ');
        sfu__fault_str(t, what[c]);
    }
    if (e & 0x8000u)
        sfu__fault_str(t, ", in an enclave");
}

static inline size_t sfu_x86_64_fault(uint64_t code, uint64_t cr2, unsigned known, char *buf, size_t n,
                                      struct sfu_fault *f)
{
    struct sfu_fault_text t;
    uint64_t vector = code >> 32, error = code & 0xffffffffu;
    unsigned v = (unsigned)vector;
    bool err = vector < 32u && sfu__x64_has_error(v);
    const char *name;

    sfu__fault_init(&t, buf, n, f);
    if (!(known & SFU_FAULT_CODE))
        return 0;
    name = vector < 32u ? sfu__x64_vector(v, f) : NULL;
    if (vector >= 32u) {
        /* Not an exception of the code: an interrupt or an INT n. */
        f->signo = f->code = 0;
        sfu__fault_str(&t, "interrupt");
    } else if (name == NULL) {
        sfu__fault_str(&t, "reserved exception");
    } else {
        sfu__fault_str(&t, name);
    }
    if (v == 14u) {
        /* CR2: the linear address of a #PF, and of nothing else. */
        f->addr_valid = (known & SFU_FAULT_ADDR) != 0;
        f->addr = f->addr_valid ? cr2 : 0;
        if (err)
            sfu__fault_str(&t, (error & 0x10u) ? ", instruction fetch" : (error & 2u) ? ", write" : ", read");
        if (f->addr_valid) {
            sfu__fault_str(&t, " at ");
            sfu__fault_hex(&t, cr2, 16);
        }
        if (err)
            sfu__x64_pf(&t, error, f);
    } else if (err && v >= 10u && v <= 13u) {
        sfu__x64_selector(&t, error);
    } else if (err && v == 21u) {
        sfu__x64_cp(&t, error);
    }
    sfu__fault_str(&t, " (vector ");
    sfu__fault_dec(&t, (unsigned)(vector > 0xffffu ? 0xffffu : vector));
    if (err) {
        sfu__fault_str(&t, ", error ");
        sfu__fault_hex(&t, error, 1);
    }
    sfu__fault_str(&t, ")");
    return t.len;
}

#ifdef SFU_CODEGEN_END
SFU_CODEGEN_END
#endif

#endif /* SFU_FAULT_X86_64_H */
