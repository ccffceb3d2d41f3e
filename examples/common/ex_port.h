/* SPDX-License-Identifier: MIT */
/*
 * ex_port.h -- pick the sfu port of the architecture being built, with the
 * sfu configuration every example file shares.
 *
 * The architecture switch of the common example code: everything below
 * it uses the generic names (SFU_PORT_CAPTURE, sfu_port_read, ...) that
 * each port header defines, and the helpers it defines here.  Two other
 * files test the architecture for what only they need: scenario.c (the
 * exception an FP instruction raises) and retained.c (the crash record's
 * machine and PAC mask).  The build adds -I core -I port/<arch>.
 */
#ifndef EX_PORT_H
#define EX_PORT_H

/* The sfu configuration: the same in every file that includes sfu.h (the
 * structs depend on it).  The build passes the ABI knobs (only the
 * image's own ABI is compiled in). */
#define SFU_ERROR_STRINGS 1
#define SFU_BIG 0        /* both boards are little-endian */
#define SFU_DEPTH_CAP 64 /* a firmware stack is never deeper; bounds the dump */
/* The dump layer (crash/sfu_dump.h): names from the embedded table
 * (tools/sfu-symtab), room for lld's one section per object (20 today),
 * the sections checked against .text; lld images are built with
 * EX_SFRAME_UNMERGED = 1 (SFU_OPT_START_PCREL). */
#define SFU_DUMP_SYMTAB 1
#define SFU_DUMP_SP 1 /* each frame's SP: test/firmware compares them with gdb's */
#define SFU_DUMP_SECTIONS 32
#define SFU_DUMP_LINKER_TEXT 1 /* link.ld's __text_start/__text_end */
#ifndef EX_SFRAME_UNMERGED
#define EX_SFRAME_UNMERGED 0 /* 1: lld image, per-object sections */
#endif
#ifndef EX_SFRAME_OPTS /* test/firmware gives others, to see them refused */
#define EX_SFRAME_OPTS (EX_SFRAME_UNMERGED ? SFU_OPT_START_PCREL : 0u)
#endif
#define SFU_DUMP_SFRAME_OPTS EX_SFRAME_OPTS

/* Besides the port, EX_HAS_LR (1 if the architecture has a link register)
 * and three instruction-level helpers for the scenarios:
 *   EX_UNDEFINED_INSN()      an instruction that is architecturally
 *                            undefined (UDF #0, ARM ARM "UDF"; UD2, SDM
 *                            Vol. 2B "UD")
 *   EX_SET_SP_AND_PUSH(v)    move v into SP and store below it; never
 *                            returns (the store faults)
 *   EX_BAD_SP                an SP whose push lands in the unmapped page 0
 *                            on both boards (or, MMU off, in no memory)
 *   EX_PROBE_FP()            an FP/SIMD/SSE instruction, armed as a probe
 *                            (ex.h): it traps when FP is off
 *   EX_PROBE_UNALIGNED(a)    a 4-byte load from a (not 4-aligned), armed as
 *                            a probe: with the MMU off it faults where the
 *                            CPU (or QEMU) checks Device memory alignment
 *   EX_OUTERMOST()           first in the function a stack starts with
 *                            (board_main; a thread's entry where no
 *                            trampoline calls it: EX_THREAD_OUTERMOST()): its CFI says
 *                            the return address is undefined from here on,
 *                            as _start's and clone's do in a Linux
 *                            program, so gdb's backtrace of a crash
 *                            record's core ends there, where sfu's does,
 *                            instead of unwinding the zero return address
 *                            below it into a frame at PC 0.  sfu ends there
 *                            either way: gas 2.47 and sfu-gen write it as
 *                            SFrame V3's outermost marker, older gas write
 *                            no row for it and the zero return address
 *                            ends the walk.  Where code before the first
 *                            call needs no frame, clang may push the frame
 *                            record later, and that push's CFI (x30 saved)
 *                            overrides the mark: there, put it in the
 *                            call's block (threadx.c's shell entry)
 */
#ifndef EX_BAD_SP
#define EX_BAD_SP 0x1000u
#endif
/* 1: the image runs with the MMU off (aarch64 variant mmuoff). */
#ifndef EX_MMU_OFF
#define EX_MMU_OFF 0
#endif
/* Where the null scenario loads from: 0 normally, an address with nothing
 * behind it when address 0 is readable (aarch64 with the MMU off: flash). */
#ifndef EX_NULL_ADDR
#define EX_NULL_ADDR 0u
#endif

/* Also EX_IRQ_OFF() / EX_IRQ_ON() (mask and unmask interrupts) and
 * EX_THREAD_EXC_STACK: the size of each thread's own exception stack, 0
 * where threads share the board's (x86_64 IST, IRQs on the thread stack). */
#if defined(__aarch64__)
#include "sfu_port_aarch64.h"
#define EX_ARCH "aarch64"
#define EX_HAS_LR 1
#define EX_IRQ_OFF() __asm__ volatile("msr daifset, #2" : : : "memory")
#define EX_IRQ_ON() __asm__ volatile("msr daifclr, #2" : : : "memory")
/* Threads run on SP_EL0 and trap onto SP_EL1, which a preempted thread
 * keeps its interrupt frames on: one SP_EL1 stack per thread (0: the
 * board's one SP_EL1 stack for all, the rtos variant's handler stack). */
#ifndef EX_THREAD_EXC_STACK
#define EX_THREAD_EXC_STACK 8192u
#endif
#define EX_UNDEFINED_INSN() __asm__ volatile("udf #0")
#define EX_SET_SP_AND_PUSH(v)                                               \
    __asm__ volatile("mov sp, %0\n\tstr xzr, [sp, #-16]!" : : "r"((uint64_t)(v)) : "memory")
/* fmov d0, xzr as a word: the assembler may be told there is no FP. */
#define EX_PROBE_FP()                                                       \
    __asm__ volatile("adr x9, 1f\n\tstr x9, [%0]\n\t.inst 0x9e6703e0\n1:"  \
                     : : "r"(&ex_probe_resume) : "x9", "memory")
#define EX_PROBE_UNALIGNED(a)                                               \
    __asm__ volatile("adr x9, 1f\n\tstr x9, [%0]\n\tldr w10, [%1]\n1:"     \
                     : : "r"(&ex_probe_resume), "r"(a) : "x9", "x10", "memory")
#define EX_OUTERMOST_CFI ".cfi_undefined x30"
#elif defined(__x86_64__)
#include "sfu_port_x86_64.h"
#define EX_ARCH "x86_64"
#define EX_HAS_LR 0 /* return addresses live on the stack only */
#define EX_IRQ_OFF() __asm__ volatile("cli" : : : "memory")
#define EX_IRQ_ON() __asm__ volatile("sti" : : : "memory")
#define EX_THREAD_EXC_STACK 0u
#define EX_UNDEFINED_INSN() __asm__ volatile("ud2")
#define EX_SET_SP_AND_PUSH(v)                                               \
    __asm__ volatile("mov %0, %%rsp\n\tpush %%rax" : : "r"((uint64_t)(v)) : "memory")
#define EX_PROBE_FP()                                                       \
    __asm__ volatile("lea 1f(%%rip), %%rax\n\tmov %%rax, (%0)\n\t"         \
                     "xorps %%xmm0, %%xmm0\n1:"                                \
                     : : "r"(&ex_probe_resume) : "rax", "memory")
#define EX_OUTERMOST_CFI ".cfi_undefined rip"
#else
#error "examples: no sfu port for this architecture"
#endif

/* Only where the compiler writes CFI (__GCC_HAVE_DWARF2_CFI_ASM): the
 * images always do (their .sframe comes from it); a file built without
 * unwind tables (clang's bare-metal default, the codegen suite's builds)
 * has no .cfi_startproc for the directive to amend, and the assembler
 * refuses it there. */
#ifdef __GCC_HAVE_DWARF2_CFI_ASM
#define EX_OUTERMOST() __asm__ volatile(EX_OUTERMOST_CFI)
#else
#define EX_OUTERMOST() ((void)0)
#endif

/* A thread's entry function is its stack's first frame only where the
 * image starts threads without a trampoline (the RTOS-style images: the
 * context's return address 0, -DEX_THREADS_OUTERMOST=1); elsewhere the
 * trampoline (switch.S's ex_thread_start, CFI undefined) is. */
#ifndef EX_THREADS_OUTERMOST
#define EX_THREADS_OUTERMOST 0
#endif
#if EX_THREADS_OUTERMOST
#define EX_THREAD_OUTERMOST() EX_OUTERMOST()
#else
#define EX_THREAD_OUTERMOST() ((void)0)
#endif

#include "sfu_threads.h"

#endif /* EX_PORT_H */
