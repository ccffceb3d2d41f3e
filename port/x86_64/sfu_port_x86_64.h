/*
 * sfu_port_x86_64.h -- sfu port for bare-metal x86_64 (long mode, ring 0).
 *
 * Freestanding: includes only <stdint.h>, <stddef.h>, <stdbool.h>; no
 * globals, no heap.  Everything is static inline, so including this header
 * in several translation units is fine.
 *
 * What this port supplies (the same list exists in every sfu port):
 *
 *   struct sfu_port_regs                 pc, sp, fp, ra of one frame
 *   SFU_X86_64_CAPTURE(regs)             registers at the point of use
 *   struct sfu_x86_64_trap_frame         what the IDT stubs save
 *   sfu_x86_64_from_trap(tf, regs)       trap frame -> registers
 *   sfu_x86_64_read(ctx, addr, out)      checked 8-byte read for the core
 *   sfu_x86_64_strip_ra(ra)              identity (no pointer signing)
 *   sfu_x86_64_trap_at(ctx, pc, sp)      trap frame at a stub return site
 *   SFU_X86_64_STACK_ALIGN               alignment of any saved slot
 *
 * and, if core/sfu.h was included first, callbacks for struct sfu_port:
 * sfu_x86_64_port_trap, sfu_x86_64_port_regs (generic names
 * sfu_port_core_trap, sfu_port_core_regs, and sfu_port_core_strip_ra,
 * which is NULL here).
 *
 * and generic aliases (sfu_port_capture, sfu_port_read, ...) at the end,
 * unless SFU_PORT_NO_GENERIC_NAMES is defined to 1.
 *
 * x86_64 has no link register: the return address is always on the stack
 * at the fixed offset from the CFA recorded in the SFrame header, so `ra`
 * in struct sfu_port_regs is 0 ("not in a register") for this port.
 *
 * Linker contract (only when SFU_PORT_LINKER_RAM is 1, the default): the
 * image defines `__ram_start` and `__ram_end`, the memory the image owns
 * (stacks included).  sfu_x86_64_read(NULL, ...) reads only there.
 * Stub contract (only when SFU_PORT_TRAP_SYMBOL is 1, the default): see
 * "Walking out of an exception handler" below.
 *
 * Knobs:
 *   SFU_PORT_LINKER_RAM          1: a NULL read context means
 *                                [__ram_start, __ram_end).  0: a NULL
 *                                context refuses every read.   default 1
 *   SFU_PORT_TRAP_SYMBOL         1: the IDT stubs define
 *                                sfu_x86_64_trap_ret.          default 1
 *   SFU_PORT_NO_GENERIC_NAMES    1: do not define the sfu_port_* aliases.
 *                                                              default 0
 */
#ifndef SFU_PORT_X86_64_H
#define SFU_PORT_X86_64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SFU_PORT_LINKER_RAM
#define SFU_PORT_LINKER_RAM 1
#endif
#if SFU_PORT_LINKER_RAM != 0 && SFU_PORT_LINKER_RAM != 1
#error "SFU_PORT_LINKER_RAM must be 0 or 1"
#endif
#ifndef SFU_PORT_NO_GENERIC_NAMES
#define SFU_PORT_NO_GENERIC_NAMES 0
#endif

/* -------------------------------------------------------------------------
 * Registers of one frame.  Every port uses this layout (pc, sp, fp, ra as
 * four uint64_t) so code above the port is arch-neutral.  The guard lets a
 * second port header, or the core, provide the identical definition.
 */
#ifndef SFU_PORT_REGS_DEFINED
#define SFU_PORT_REGS_DEFINED 1
struct sfu_port_regs {
    uint64_t pc; /* exact PC (RIP) of this frame */
    uint64_t sp; /* RSP */
    uint64_t fp; /* RBP */
    uint64_t ra; /* always 0 on x86_64: no link register */
};
#endif

/* The SysV x86_64 psABI aligns the CFA to 16 at call sites, but inside a
 * function RSP (and every saved slot) is only guaranteed 8-aligned, which
 * is what a walker may assume of any SP or CFA it computes. */
#define SFU_X86_64_STACK_ALIGN 8u

/* -------------------------------------------------------------------------
 * Capture the registers at the point where the macro is written.
 *
 * A macro (not a function) so that pc/sp/fp belong to the caller's frame.
 * One asm statement reads all three, so the values are consistent with the
 * SFrame row for that pc: with -fomit-frame-pointer gcc may move RSP
 * between statements (pushes around calls), never inside this one.  The
 * pc is that of the instruction after the LEA, still inside the same asm
 * statement and so still covered by the same row.
 */
#define SFU_X86_64_CAPTURE(regs)                                            \
    do {                                                                    \
        uint64_t sfu__pc, sfu__sp, sfu__fp;                                 \
        __asm__ volatile("lea 0(%%rip), %0\n\t"                             \
                         "mov %%rsp, %1\n\t"                                \
                         "mov %%rbp, %2"                                    \
                         : "=r"(sfu__pc), "=r"(sfu__sp), "=r"(sfu__fp));    \
        (regs)->pc = sfu__pc;                                               \
        (regs)->sp = sfu__sp;                                               \
        (regs)->fp = sfu__fp;                                               \
        (regs)->ra = 0;                                                     \
    } while (0)

/* -------------------------------------------------------------------------
 * Trap frame, as saved by examples/x86_64-pc/isr.S (any stub that wants to
 * use sfu_x86_64_from_trap or sfu_x86_64_trap_at must save this layout).
 * Lowest address first.
 *
 *   offset  field
 *   0x00    dwarf[17]    rax rdx rcx rbx rsi rdi rbp rsp r8 .. r15 rip:
 *                        the registers of the interrupted context in DWARF
 *                        register number order (psABI, "DWARF Register
 *                        Number Mapping"), so the core can use the array
 *                        for register-based CFA rules (DRAP).  rsp (7) and
 *                        rip (16) are copies of iret_rsp / iret_rip.
 *   0x88    cr2          CR2 at entry: the faulting linear address, valid
 *                        for #PF (vector 14) only
 *   0x90    pad          keeps the size a multiple of 16 (see below)
 *   0x98    vector       IDT vector number, pushed by the stub
 *   0xa0    error_code   pushed by the CPU for vectors 8, 10-14, 17, 21,
 *                        29, 30; the stub pushes 0 for the others
 *   0xa8    iret_rip     pushed by the CPU.  For faults the faulting
 *                        instruction, for traps and interrupts the next
 *                        one (SDM Vol. 3A, "Exception Classifications").
 *                        A handler changes this one to resume elsewhere.
 *   0xb0    cs
 *   0xb8    rflags
 *   0xc0    iret_rsp     In 64-bit mode the CPU aligns RSP to 16 and then
 *   0xc8    ss           pushes SS:RSP on every interrupt, privilege change
 *                        or not (SDM Vol. 3A, "Exception and Interrupt
 *                        Handling in 64-bit Mode", "64-Bit Mode Stack
 *                        Frame"), so iret_rsp is the interrupted RSP.
 *   0xd0    (size)
 *
 * Because the CPU aligned RSP before pushing, and 0xd0 is a multiple of 16,
 * the stub calls its C handler with RSP == the trap frame address and RSP
 * 16-aligned, without a dynamic realignment; sfu_x86_64_trap_at relies on
 * the first (the caller's SP at the return site is the frame).
 */
enum {
    SFU_X86_64_DW_RAX = 0,
    SFU_X86_64_DW_RDX = 1,
    SFU_X86_64_DW_RCX = 2,
    SFU_X86_64_DW_RBX = 3,
    SFU_X86_64_DW_RSI = 4,
    SFU_X86_64_DW_RDI = 5,
    SFU_X86_64_DW_RBP = 6,
    SFU_X86_64_DW_RSP = 7,
    SFU_X86_64_DW_R8 = 8,  /* r8 .. r15 are 8 .. 15 */
    SFU_X86_64_DW_R10 = 10,
    SFU_X86_64_DW_R15 = 15,
    SFU_X86_64_DW_RIP = 16, /* the return address column */
    SFU_X86_64_DW_COUNT = 17
};

struct sfu_x86_64_trap_frame {
    uint64_t dwarf[SFU_X86_64_DW_COUNT];
    uint64_t cr2;
    uint64_t pad;
    uint64_t vector;
    uint64_t error_code;
    uint64_t iret_rip, cs, rflags, iret_rsp, ss;
};

#define SFU_X86_64_TF_CR2 0x88
#define SFU_X86_64_TF_VECTOR 0x98
#define SFU_X86_64_TF_RIP 0xa8
#define SFU_X86_64_TF_RSP 0xc0
#define SFU_X86_64_TF_SIZE 0xd0

/* C99-compatible compile-time checks that the struct matches the offsets
 * the assembly uses. */
typedef char sfu__x86_64_tf_cr2_check
    [offsetof(struct sfu_x86_64_trap_frame, cr2) == SFU_X86_64_TF_CR2 ? 1 : -1];
typedef char sfu__x86_64_tf_vector_check
    [offsetof(struct sfu_x86_64_trap_frame, vector) == SFU_X86_64_TF_VECTOR ? 1 : -1];
typedef char sfu__x86_64_tf_rip_check
    [offsetof(struct sfu_x86_64_trap_frame, iret_rip) == SFU_X86_64_TF_RIP ? 1 : -1];
typedef char sfu__x86_64_tf_rsp_check
    [offsetof(struct sfu_x86_64_trap_frame, iret_rsp) == SFU_X86_64_TF_RSP ? 1 : -1];
typedef char sfu__x86_64_tf_size_check
    [sizeof(struct sfu_x86_64_trap_frame) == SFU_X86_64_TF_SIZE ? 1 : -1];

/* The interrupted frame.  For faults (#PF, #UD, #GP ...) rip is the exact
 * faulting instruction, so the core looks up `pc` itself, not `pc - 1`.
 * For traps (#BP, #OF) and interrupts it is the next instruction, which is
 * also where execution resumes, so the exact lookup is right there too. */
static inline void sfu_x86_64_from_trap(const struct sfu_x86_64_trap_frame *tf,
                                        struct sfu_port_regs *regs)
{
    regs->pc = tf->iret_rip;
    regs->sp = tf->iret_rsp;
    regs->fp = tf->dwarf[SFU_X86_64_DW_RBP];
    regs->ra = 0;
}

/* -------------------------------------------------------------------------
 * Checked memory read: port/common/sfu_port_mem.h, shared by the ports.
 */
#include "../common/sfu_port_mem.h"

static inline int sfu_x86_64_read(void *ctx, uint64_t addr, uint64_t *out)
{
    return sfu_port_mem_read(ctx, addr, out);
}

/* No pointer signing on x86_64 (CET shadow stacks do not alter the value
 * on the normal stack), so a return address is used as read. */
static inline uint64_t sfu_x86_64_strip_ra(uint64_t ra)
{
    return ra;
}

/* -------------------------------------------------------------------------
 * Walking out of an exception handler into the interrupted code.
 *
 * Contract with the IDT stubs (examples/x86_64-pc/isr.S keeps it):
 *   - it calls the C handler with SP == the trap frame address, and
 *   - the return address of that call is the global label
 *     sfu_x86_64_trap_ret.
 * A walk that starts inside the handler (a panic there, a profiling tick)
 * reaches pc == sfu_x86_64_trap_ret, which has no SFrame info (the stub
 * code has no CFI), and the caller's SP there is the trap frame.  The core
 * then asks the port (sfu_port.trap), which answers with the interrupted
 * registers.
 *
 * Keep IST stacks below the interrupted stack in memory: the core requires
 * the interrupted SP to lie above the handler's SP.  (Without IST the
 * handler runs below the interrupted SP on the same stack anyway.)
 *
 * Knob SFU_PORT_TRAP_SYMBOL (default 1): 0 drops the reference to
 * sfu_x86_64_trap_ret, for images whose stubs do not define it;
 * sfu_x86_64_trap_at then always answers NULL.
 */
#ifndef SFU_PORT_TRAP_SYMBOL
#define SFU_PORT_TRAP_SYMBOL 1
#endif
#if SFU_PORT_TRAP_SYMBOL != 0 && SFU_PORT_TRAP_SYMBOL != 1
#error "SFU_PORT_TRAP_SYMBOL must be 0 or 1"
#endif

#if SFU_PORT_TRAP_SYMBOL
extern char sfu_x86_64_trap_ret[];
#endif

/* The trap frame at sp, if pc is the stubs' return site and every
 * word of the frame passes the sfu_x86_64_read checks; else NULL.  pc may
 * be the return address itself or one less (the address a walker looks
 * callers up at). */
static inline const struct sfu_x86_64_trap_frame *
sfu_x86_64_trap_at(void *ctx, uint64_t pc, uint64_t sp)
{
#if SFU_PORT_TRAP_SYMBOL
    uint64_t ret = (uint64_t)(uintptr_t)sfu_x86_64_trap_ret;

    if (pc != ret && pc != ret - 1u)
        return NULL;
    /* 16, not SFU_X86_64_STACK_ALIGN: the stub calls with the frame
     * 16-aligned (see the trap frame layout). */
    if (!sfu_port_mem_block_ok(ctx, sp, SFU_X86_64_TF_SIZE, 16u))
        return NULL;
    return (const struct sfu_x86_64_trap_frame *)(uintptr_t)sp;
#else
    (void)ctx;
    (void)pc;
    (void)sp;
    return NULL;
#endif
}

/* -------------------------------------------------------------------------
 * Ready-made callbacks for the core's sfu_port, defined when core/sfu.h was
 * included before this header:
 *
 *   sfu_port port = { sfu_x86_64_read, NULL, sfu_x86_64_port_trap,
 *                     NULL, stack_lo, stack_hi };
 *
 * sfu_x86_64_port_regs fills sfu_regs from a trap frame with the full
 * register set: the frame starts with the 17 registers in DWARF order.
 * x86_64 has no pointer signing, so there is no strip_ra callback (NULL).
 */
#ifdef SFU_H
static inline void sfu_x86_64_port_regs(const struct sfu_x86_64_trap_frame *tf,
                                        sfu_regs *out)
{
    out->pc = tf->iret_rip;
    out->sp = tf->iret_rsp;
    out->fp = tf->dwarf[SFU_X86_64_DW_RBP];
    out->ra = 0;
    out->dwarf = tf->dwarf;
    out->ndwarf = SFU_X86_64_DW_COUNT;
}

static inline int sfu_x86_64_port_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
    const struct sfu_x86_64_trap_frame *tf = sfu_x86_64_trap_at(ctx, pc, sp);

    if (tf == NULL)
        return 0;
    sfu_x86_64_port_regs(tf, out);
    return 1;
}
#endif /* SFU_H */

/* -------------------------------------------------------------------------
 * Generic names, so code above the port (the examples, later the panic
 * glue) does not name the architecture.
 */
#if !SFU_PORT_NO_GENERIC_NAMES
typedef struct sfu_x86_64_trap_frame sfu_port_trap_frame;
#define SFU_PORT_CAPTURE(regs) SFU_X86_64_CAPTURE(regs)
#define SFU_PORT_STACK_ALIGN SFU_X86_64_STACK_ALIGN
#define sfu_port_from_trap sfu_x86_64_from_trap
#define sfu_port_read sfu_x86_64_read
#define sfu_port_strip_ra sfu_x86_64_strip_ra
#define sfu_port_trap_at sfu_x86_64_trap_at
#ifdef SFU_H
#define sfu_port_core_regs sfu_x86_64_port_regs
#define sfu_port_core_trap sfu_x86_64_port_trap
/* No pointer signing: a NULL strip_ra, so the same sfu_port initializer
 * works on every port (the core never calls it without mangled RAs). */
#define sfu_port_core_strip_ra NULL
#endif
#endif

#endif /* SFU_PORT_X86_64_H */
