/* SPDX-License-Identifier: MIT */
/* kernel_stub.h - what the README's step-2 and step-3 blocks assume a kernel
 * already has, for make size's steps123 image (test/size/images.py): the
 * frame its entry code saves (struct pt_regs, named by the aarch64 block's
 * SFU_AARCH64_PT_REGS; struct regs, named by the README's x86_64 form
 * SFU_X86_64_PT_REGS(start, end, struct regs)), its thread struct, the
 * thread array and the running thread.  Shaped as the examples' own
 * (examples/common/ex.h, examples/aarch64-virt/kernel-trap.c).  Kernel
 * declarations only: no sfu type, so it serves every revision's README. */
#ifndef SIZE_KERNEL_STUB_H
#define SIZE_KERNEL_STUB_H
#include <stdint.h>

struct pt_regs {
    uint64_t pc, pstate, regs[31], sp, esr, far;
};
struct regs {
    uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8, rax, rcx, rdx, rsi, rdi;
    uint64_t vector, error, rip, cs, rflags, rsp, ss;
};

#define EX_MAX_THREADS 4u
struct ex_stack {
    uint64_t lo, hi;
};
struct ex_thread {
    const char *name;
    unsigned id;
    volatile uint8_t state;
    uint64_t ctx;
    struct ex_stack stack, exc;
    uint64_t guard;
    const char *guarded;
};
extern struct ex_thread ex_threads[EX_MAX_THREADS];
extern struct ex_thread *ex_current;

#endif /* SIZE_KERNEL_STUB_H */
