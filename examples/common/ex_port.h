/*
 * ex_port.h -- pick the sfu port of the architecture being built.
 *
 * The only architecture switch in the common example code; everything
 * below it uses the generic names (SFU_PORT_CAPTURE, sfu_port_read, ...)
 * that each port header defines.  The build adds -I port/<arch>.
 */
#ifndef EX_PORT_H
#define EX_PORT_H

/* Besides the port, EX_HAS_LR (1 if the architecture has a link register)
 * and three instruction-level helpers for the scenarios:
 *   EX_UNDEFINED_INSN()      an instruction that is architecturally
 *                            undefined (UDF #0, ARM ARM "UDF"; UD2, SDM
 *                            Vol. 2B "UD")
 *   EX_SET_SP_AND_PUSH(v)    move v into SP and store below it; never
 *                            returns (the store faults)
 *   EX_BAD_SP                an SP whose push lands in the unmapped page 0
 *                            on both boards
 */
#define EX_BAD_SP 0x1000u

#if defined(__aarch64__)
#include "sfu_port_aarch64.h"
#define EX_ARCH "aarch64"
#define EX_HAS_LR 1
#define EX_UNDEFINED_INSN() __asm__ volatile("udf #0")
#define EX_SET_SP_AND_PUSH(v)                                               \
    __asm__ volatile("mov sp, %0\n\tstr xzr, [sp, #-16]!" : : "r"((uint64_t)(v)) : "memory")
#elif defined(__x86_64__)
#include "sfu_port_x86_64.h"
#define EX_ARCH "x86_64"
#define EX_HAS_LR 0 /* return addresses live on the stack only */
#define EX_UNDEFINED_INSN() __asm__ volatile("ud2")
#define EX_SET_SP_AND_PUSH(v)                                               \
    __asm__ volatile("mov %0, %%rsp\n\tpush %%rax" : : "r"((uint64_t)(v)) : "memory")
#else
#error "examples: no sfu port for this architecture"
#endif

#endif /* EX_PORT_H */
