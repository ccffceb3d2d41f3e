/* SPDX-License-Identifier: MIT */
/*
 * linux/sched.h -- the example's Linux-like kernel's types, as arm64
 * Linux has them (arch/arm64/include/asm/ptrace.h, processor.h,
 * include/linux/sched.h) and the teaching kernels copy them: struct
 * pt_regs, struct cpu_context in thread_struct, the last member of
 * task_struct, task[] and current.  Written here from their documented
 * layout.
 */
#ifndef LINUX_SCHED_H
#define LINUX_SCHED_H

#include <stdint.h>

/* kernel_entry's frame (ptrace.h: regs[0..30], sp, pc, pstate; Linux
 * adds orig_x0 .. the frame record after these, which nothing here
 * needs). */
struct pt_regs {
    uint64_t regs[31];
    uint64_t sp;
    uint64_t pc;
    uint64_t pstate;
};

/* What cpu_switch_to saves (processor.h). */
struct cpu_context {
    uint64_t x19, x20, x21, x22, x23, x24, x25, x26, x27, x28;
    uint64_t fp;
    uint64_t sp;
    uint64_t pc;
};

struct thread_struct {
    struct cpu_context cpu_context;
};

#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2
#define TASK_COMM_LEN 16
#define THREAD_SIZE 16384u
#define NR_TASKS 8

struct task_struct {
    volatile long state;
    void *stack;            /* the kernel stack, THREAD_SIZE bytes */
    int pid;
    int prio;
    char comm[TASK_COMM_LEN];
    struct thread_struct thread; /* last, as in Linux */
};
/* cpu_switch_to's offset of thread.cpu_context (asm-offsets). */
#define THREAD_CPU_CONTEXT 40

extern struct task_struct *task[NR_TASKS];
extern struct task_struct *current;

#endif
