/* SPDX-License-Identifier: MIT */
/* sfu_fault.h - what the ports' fault decoders share: the decoded fault
 * (struct sfu_fault) and the bounded text its one line is written into.
 *
 * Each port decodes its CPU's syndrome words into one line, the line a
 * crash report opens with and users search for:
 *   port/aarch64/sfu_fault_aarch64.h   ESR_ELx and FAR_ELx
 *   port/x86_64/sfu_fault_x86_64.h     the vector, the error code and CR2
 * Both are pure functions of the words: no register is read, no asm, so a
 * host tool includes both (tools/sfu-crash decodes a crash record of
 * either CPU) and the dump includes its CPU's through the port.  The line:
 *
 *     NAME[, ACCESS at 0xADDR | at 0xADDR][: CAUSE[, DETAIL...]] (WORDS)
 *
 *     data abort, read at 0x0000000000000000: level 2 translation fault (ESR 0x96000006, EC 0x25)
 *     #PF page fault, write at 0x0000000000000ff8: not-present page, supervisor mode (vector 14, error 0x2)
 *
 * and, for a core file, the signal a Linux kernel would send for it
 * (si_signo, si_code: NT_SIGINFO, so gdb names the fault) and whether the
 * CPU gave the faulting address.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h>; compiled for any CPU
 * state (SFU_CODEGEN_BEGIN/END of core/sfu.h) when sfu.h is included
 * first, as the ports do.
 */
#ifndef SFU_FAULT_H
#define SFU_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line a decoder writes, its NUL included. */
#define SFU_FAULT_LINE 200u

/* A fault as a crash record keeps it: two words, code (the syndrome:
 * aarch64 ESR_ELx; x86_64 the vector << 32 | the error code) and addr (the
 * address word: FAR_ELx, CR2), and which of them the trap frame held. */
#define SFU_FAULT_CODE 0x1u
#define SFU_FAULT_ADDR 0x2u

/* Linux's signal numbers and si_codes (asm-generic/signal.h,
 * asm-generic/siginfo.h), for a core's NT_SIGINFO. */
#define SFU_SIGILL 4
#define SFU_SIGTRAP 5
#define SFU_SIGBUS 7
#define SFU_SIGFPE 8
#define SFU_SIGSEGV 11
#define SFU_SI_KERNEL 0x80
#define SFU_ILL_ILLOPC 1
#define SFU_ILL_ILLOPN 2
#define SFU_ILL_PRVOPC 5
#define SFU_FPE_INTDIV 1
#define SFU_FPE_FLTINV 7
#define SFU_SEGV_MAPERR 1
#define SFU_SEGV_ACCERR 2
#define SFU_SEGV_MTESERR 9
#define SFU_SEGV_CPERR 10
#define SFU_BUS_ADRALN 1
#define SFU_BUS_OBJERR 3
#define SFU_BUS_MCEERR_AR 4
#define SFU_TRAP_BRKPT 1
#define SFU_TRAP_TRACE 2
#define SFU_TRAP_HWBKPT 4

/* A fault, decoded.  signo 0: the words describe no fault (an interrupt's
 * vector, a class that is not an exception of the code). */
struct sfu_fault {
    int signo, code;  /* Linux si_signo, si_code */
    bool addr_valid;  /* the CPU gave the faulting address: addr */
    uint64_t addr;
};

/* The line being written: at most n - 1 bytes and a NUL at p. */
struct sfu_fault_text {
    char *p;
    size_t n, len;
};

#ifdef SFU_CODEGEN_BEGIN
SFU_CODEGEN_BEGIN
#endif

static inline void sfu__fault_str(struct sfu_fault_text *t, const char *s)
{
    while (*s != '\0' && t->len + 1u < t->n)
        t->p[t->len++] = *s++;
    if (t->n != 0)
        t->p[t->len] = '\0';
}

/* One character.  The decoders write their separators (": ", " ") with
 * it, never as strings: gcc keeps one copy of a string its translation
 * unit uses in several functions, in the string section of one of them,
 * and GNU ld keeps a string section whole, so a ": " the dump's code
 * shares with a decoder kept every string of the decoder in an image
 * that never decodes a fault (the README's step 1: about 800 bytes). */
static inline void sfu__fault_ch(struct sfu_fault_text *t, char c)
{
    if (t->len + 1u < t->n) {
        t->p[t->len++] = c;
        t->p[t->len] = '\0';
    }
}

/* v in hexadecimal, "0x" and at least `digits` digits. */
static inline void sfu__fault_hex(struct sfu_fault_text *t, uint64_t v, unsigned digits)
{
    char b[19];
    unsigned i = sizeof b - 1u, k = 0;

    b[i] = '\0';
    do {
        unsigned d = (unsigned)(v & 15u);

        b[--i] = (char)(d < 10u ? '0' + d : 'a' + d - 10u);
        v >>= 4;
        k++;
    } while ((v != 0 || k < digits) && i > 2u);
    b[--i] = 'x';
    b[--i] = '0';
    sfu__fault_str(t, &b[i]);
}

static inline void sfu__fault_dec(struct sfu_fault_text *t, unsigned v)
{
    char b[12];
    unsigned i = sizeof b - 1u;

    b[i] = '\0';
    do {
        b[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0 && i > 0);
    sfu__fault_str(t, &b[i]);
}

static inline void sfu__fault_init(struct sfu_fault_text *t, char *buf, size_t n, struct sfu_fault *f)
{
    t->p = buf;
    t->n = n;
    t->len = 0;
    if (n != 0)
        buf[0] = '\0';
    f->signo = f->code = 0;
    f->addr_valid = false;
    f->addr = 0;
}

#ifdef SFU_CODEGEN_END
SFU_CODEGEN_END
#endif

#endif /* SFU_FAULT_H */
