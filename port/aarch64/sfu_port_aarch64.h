/*
 * sfu_port_aarch64.h -- sfu port for bare-metal AArch64 (EL1).
 *
 * Freestanding: includes only <stdint.h>, <stddef.h>, <stdbool.h>; no
 * globals, no heap.  Everything is static inline, so including this header
 * in several translation units is fine.
 *
 * What this port supplies (the same list exists in every sfu port):
 *
 *   struct sfu_port_regs                 pc, sp, fp, ra of one frame
 *   SFU_AARCH64_CAPTURE(regs)            registers at the point of use
 *   struct sfu_aarch64_trap_frame        what the vector code saves
 *   sfu_aarch64_from_trap(tf, regs)      trap frame -> registers
 *   sfu_aarch64_read(ctx, addr, out)     checked 8-byte read for the core
 *   sfu_aarch64_strip_pac(ra)            PAC strip with XPACLRI
 *   sfu_aarch64_strip_pac_mask(ra, va)   PAC strip by mask (host side)
 *   sfu_aarch64_trap_at(ctx, pc, sp)     trap frame at a vector return site
 *   SFU_AARCH64_STACK_ALIGN              SP alignment the ABI guarantees
 *
 * and, if core/sfu.h was included first, callbacks for struct sfu_port:
 * sfu_aarch64_port_trap, sfu_aarch64_port_strip_ra, sfu_aarch64_port_regs.
 *
 * and generic aliases (sfu_port_capture, sfu_port_read, ...) at the end,
 * unless SFU_PORT_NO_GENERIC_NAMES is defined to 1.
 *
 * Linker contract (only when SFU_PORT_LINKER_RAM is 1, the default): the
 * image defines `__ram_start` and `__ram_end`, the memory the image owns
 * (stacks included).  sfu_aarch64_read(NULL, ...) reads only there.
 * Vector code contract (only when SFU_PORT_TRAP_SYMBOL is 1, the default):
 * see "Walking out of an exception handler" below.
 *
 * Knobs:
 *   SFU_PORT_LINKER_RAM          1: a NULL read context means
 *                                [__ram_start, __ram_end).  0: a NULL
 *                                context refuses every read.   default 1
 *   SFU_PORT_TRAP_SYMBOL         1: the vector code defines
 *                                sfu_aarch64_trap_ret.         default 1
 *   SFU_PORT_NO_GENERIC_NAMES    1: do not define the sfu_port_* aliases.
 *                                                              default 0
 */
#ifndef SFU_PORT_AARCH64_H
#define SFU_PORT_AARCH64_H

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
    uint64_t pc; /* exact PC of this frame */
    uint64_t sp;
    uint64_t fp; /* x29 */
    uint64_t ra; /* x30 (LR); may carry a PAC, see sfu_aarch64_strip_pac */
};
#endif

/* AAPCS64, "Universal stack constraints": SP is 16-byte aligned at every
 * public interface; gcc keeps it so inside functions too, and
 * SCTLR_EL1.SA makes a misaligned SP fault on use. */
#define SFU_AARCH64_STACK_ALIGN 16u

/* -------------------------------------------------------------------------
 * Capture the registers at the point where the macro is written.
 *
 * A macro (not a function) so that pc/sp/fp belong to the caller's frame.
 * All four are read by one asm statement: pc is the address of the ADR
 * itself, and nothing between it and the MOVs can change SP or x29, so
 * the set is consistent with the SFrame row for that pc.  x30 is whatever
 * the LR holds there: in a function that has already saved its LR, the row
 * says where the real return address lives, and the core reads it from the
 * stack; in a leaf, x30 is the return address.
 */
#define SFU_AARCH64_CAPTURE(regs)                                           \
    do {                                                                    \
        uint64_t sfu__pc, sfu__sp, sfu__fp, sfu__lr;                        \
        __asm__ volatile("adr %0, .\n\t"                                    \
                         "mov %1, sp\n\t"                                   \
                         "mov %2, x29\n\t"                                  \
                         "mov %3, x30"                                      \
                         : "=r"(sfu__pc), "=r"(sfu__sp), "=r"(sfu__fp),     \
                           "=r"(sfu__lr));                                  \
        (regs)->pc = sfu__pc;                                               \
        (regs)->sp = sfu__sp;                                               \
        (regs)->fp = sfu__fp;                                               \
        (regs)->ra = sfu__lr;                                               \
    } while (0)

/* -------------------------------------------------------------------------
 * Trap frame, as saved by examples/aarch64-virt/vectors.S (any vector code
 * that wants to use sfu_aarch64_from_trap must save this layout).
 *
 *   offset  field
 *   0x000   x[0] .. x[30]   general registers at the exception
 *   0x0f8   sp              SP of the interrupted context (SP_EL0 when the
 *                           exception came from EL1t, else SP_EL1 before
 *                           the frame was pushed)
 *   0x100   elr             ELR_EL1: the exact PC to resume at.  For
 *                           synchronous exceptions the faulting
 *                           instruction, for IRQs the next one to run
 *                           (ARM ARM, DDI 0487, "Exception entry").
 *   0x108   spsr            SPSR_EL1: PSTATE of the interrupted context
 *   0x110   esr             ESR_EL1: syndrome (ARM ARM, ESR_EL1)
 *   0x118   far             FAR_EL1: faulting address, valid only for the
 *                           exception classes that set it (ARM ARM,
 *                           FAR_EL1)
 *   0x120   (size, a multiple of 16 so SP stays aligned)
 */
struct sfu_aarch64_trap_frame {
    uint64_t x[31];
    uint64_t sp;
    uint64_t elr;
    uint64_t spsr;
    uint64_t esr;
    uint64_t far;
};

#define SFU_AARCH64_TF_X0 0x000
#define SFU_AARCH64_TF_SP 0x0f8
#define SFU_AARCH64_TF_ELR 0x100
#define SFU_AARCH64_TF_SPSR 0x108
#define SFU_AARCH64_TF_ESR 0x110
#define SFU_AARCH64_TF_FAR 0x118
#define SFU_AARCH64_TF_SIZE 0x120

/* C99-compatible compile-time checks that the struct matches the offsets
 * the assembly uses. */
typedef char sfu__aarch64_tf_sp_check
    [offsetof(struct sfu_aarch64_trap_frame, sp) == SFU_AARCH64_TF_SP ? 1 : -1];
typedef char sfu__aarch64_tf_far_check
    [offsetof(struct sfu_aarch64_trap_frame, far) == SFU_AARCH64_TF_FAR ? 1 : -1];
typedef char sfu__aarch64_tf_size_check
    [sizeof(struct sfu_aarch64_trap_frame) == SFU_AARCH64_TF_SIZE ? 1 : -1];

/* The interrupted frame: its exact PC is ELR_EL1, so the core must look up
 * `pc` itself, not `pc - 1` (DESIGN.md, "Exception entry"). */
static inline void sfu_aarch64_from_trap(const struct sfu_aarch64_trap_frame *tf,
                                         struct sfu_port_regs *regs)
{
    regs->pc = tf->elr;
    regs->sp = tf->sp;
    regs->fp = tf->x[29];
    regs->ra = tf->x[30];
}

/* -------------------------------------------------------------------------
 * Checked memory read: port/common/sfu_port_mem.h, shared by the ports.
 */
#include "../common/sfu_port_mem.h"

static inline int sfu_aarch64_read(void *ctx, uint64_t addr, uint64_t *out)
{
    return sfu_port_mem_read(ctx, addr, out);
}

/* -------------------------------------------------------------------------
 * Pointer authentication (FEAT_PAuth; ARM ARM, "Pointer authentication").
 *
 * With -mbranch-protection=pac-ret, PACIASP signs the LR before it is
 * saved, so a return address read from the stack carries a PAC in its
 * upper bits (the FRE says so with mangled_ra_p).  It must be stripped
 * before it is used as a PC.
 *
 * XPACLRI is in the HINT space (HINT #7): on a CPU without PAuth it is a
 * NOP, and there the value has no PAC to strip, so this is always safe to
 * call.  It only works on x30, hence the register binding.
 */
static inline uint64_t sfu_aarch64_strip_pac(uint64_t ra)
{
    register uint64_t x30 __asm__("x30") = ra;
    __asm__("hint #7" /* xpaclri */ : "+r"(x30));
    return x30;
}

/* Strip by mask, for code that cannot execute XPACLRI on the target (host
 * tools reading a dump).  va_bits is 64 - TCR_EL1.T0SZ (39 in the QEMU
 * example).  Bit 55 selects the TTBR0 (low) or TTBR1 (high) half, and the
 * PAC field is everything above va_bits except bit 55 (ARM ARM, "PAC field"), so the
 * stripped value is bit 55 copied into bits 63..va_bits.  Assumes top-byte
 * ignore is off; with TBI on, bits 63..56 are the tag and are kept. */
static inline uint64_t sfu_aarch64_strip_pac_mask(uint64_t ra, unsigned va_bits)
{
    uint64_t low;

    if (va_bits == 0 || va_bits >= 56)
        return ra;
    low = ((uint64_t)1 << va_bits) - 1;
    return (ra & ((uint64_t)1 << 55)) ? (ra | ~low) : (ra & low);
}

/* -------------------------------------------------------------------------
 * Walking out of an exception handler into the interrupted code.
 *
 * Contract with the vector code (examples/aarch64-virt/vectors.S keeps it):
 *   - it calls the C handler with SP == the trap frame address, and
 *   - the return address of that call is the global label
 *     sfu_aarch64_trap_ret.
 * A walk that starts inside the handler (a panic there, a profiling tick)
 * reaches pc == sfu_aarch64_trap_ret, which has no SFrame info (the vector
 * code has no CFI), and the caller's SP there is the trap frame.  The core
 * then asks the port (sfu_port.trap), which answers with the interrupted
 * registers.
 *
 * Keep the exception stack below the interrupted stack in memory: the core
 * requires the interrupted SP to lie above the handler's SP.
 *
 * Knob SFU_PORT_TRAP_SYMBOL (default 1): 0 drops the reference to
 * sfu_aarch64_trap_ret, for images whose vector code does not define it;
 * sfu_aarch64_trap_at then always answers NULL.
 */
#ifndef SFU_PORT_TRAP_SYMBOL
#define SFU_PORT_TRAP_SYMBOL 1
#endif
#if SFU_PORT_TRAP_SYMBOL != 0 && SFU_PORT_TRAP_SYMBOL != 1
#error "SFU_PORT_TRAP_SYMBOL must be 0 or 1"
#endif

#if SFU_PORT_TRAP_SYMBOL
extern char sfu_aarch64_trap_ret[];
#endif

/* The trap frame at sp, if pc is the vector code's return site and every
 * word of the frame passes the sfu_aarch64_read checks; else NULL.  pc may
 * be the return address itself or one less (the address a walker looks
 * callers up at). */
static inline const struct sfu_aarch64_trap_frame *
sfu_aarch64_trap_at(void *ctx, uint64_t pc, uint64_t sp)
{
#if SFU_PORT_TRAP_SYMBOL
    uint64_t ret = (uint64_t)(uintptr_t)sfu_aarch64_trap_ret;

    if (pc != ret && pc != ret - 1u)
        return NULL;
    if (!sfu_port_mem_block_ok(ctx, sp, SFU_AARCH64_TF_SIZE, SFU_AARCH64_STACK_ALIGN))
        return NULL;
    return (const struct sfu_aarch64_trap_frame *)(uintptr_t)sp;
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
 *   sfu_port port = { sfu_aarch64_read, sfu_aarch64_port_strip_ra,
 *                     sfu_aarch64_port_trap, NULL, stack_lo, stack_hi };
 *
 * sfu_aarch64_port_regs fills sfu_regs from a trap frame with the full
 * register set: x0..x30 then SP are DWARF registers 0..31, which is exactly
 * the start of the trap frame.
 */
#ifdef SFU_H
static inline void sfu_aarch64_port_regs(const struct sfu_aarch64_trap_frame *tf,
                                         sfu_regs *out)
{
    out->pc = tf->elr;
    out->sp = tf->sp;
    out->fp = tf->x[29];
    out->ra = tf->x[30];
    out->dwarf = (const uint64_t *)(const void *)tf;
    out->ndwarf = 32;
}

static inline int sfu_aarch64_port_trap(void *ctx, uint64_t pc, uint64_t sp, sfu_regs *out)
{
    const struct sfu_aarch64_trap_frame *tf = sfu_aarch64_trap_at(ctx, pc, sp);

    if (tf == NULL)
        return 0;
    sfu_aarch64_port_regs(tf, out);
    return 1;
}

static inline uint64_t sfu_aarch64_port_strip_ra(void *ctx, uint64_t ra)
{
    (void)ctx;
    return sfu_aarch64_strip_pac(ra);
}
#endif /* SFU_H */

/* -------------------------------------------------------------------------
 * Generic names, so code above the port (the examples, later the panic
 * glue) does not name the architecture.
 */
#if !SFU_PORT_NO_GENERIC_NAMES
typedef struct sfu_aarch64_trap_frame sfu_port_trap_frame;
#define SFU_PORT_CAPTURE(regs) SFU_AARCH64_CAPTURE(regs)
#define SFU_PORT_STACK_ALIGN SFU_AARCH64_STACK_ALIGN
#define sfu_port_from_trap sfu_aarch64_from_trap
#define sfu_port_read sfu_aarch64_read
#define sfu_port_strip_ra sfu_aarch64_strip_pac
#define sfu_port_trap_at sfu_aarch64_trap_at
#ifdef SFU_H
#define sfu_port_core_regs sfu_aarch64_port_regs
#define sfu_port_core_trap sfu_aarch64_port_trap
#define sfu_port_core_strip_ra sfu_aarch64_port_strip_ra
#endif
#endif

#endif /* SFU_PORT_AARCH64_H */
