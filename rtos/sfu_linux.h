/* SPDX-License-Identifier: MIT */
/* sfu_linux.h - the arm64 shape of Linux that hobby and teaching kernels
 * copy, described for sfu from the kernel's own types: struct pt_regs
 * saved by kernel_entry at the SP of each handler's call, struct
 * cpu_context filled by cpu_switch_to inside the task struct, tasks in an
 * array of pointers (task[NR_TASKS]) with a kernel stack each, new tasks
 * starting at ret_from_fork.  Every offset is offsetof on your structs:
 * there is nothing to get out of date.
 *
 * COVERED
 *   struct pt_regs { u64 regs[31]; u64 sp, pc, pstate; ... } (Linux
 *   arch/arm64/include/asm/ptrace.h: regs[0..30] at 0..240, sp 248, pc
 *   256, pstate 264 in every version; what follows, orig_x0 to the frame
 *   record, is not read), struct cpu_context { x19 .. x28, fp, sp, pc }
 *   (Linux arch/arm64/include/asm/processor.h, 104 bytes; the teaching
 *   kernels' copy, s-matyukevich/raspberry-pi-os lesson04/05, is the
 *   same), any place of it in the task struct (Linux: thread.cpu_context,
 *   the last member; the teaching kernel: its first member).
 *   Member names are Linux's; a kernel that names them otherwise writes
 *   the layouts out (sfu_layout.h) instead.
 *
 * USAGE (the file with sfu's implementation, README step 1):
 *       #define SFU_IMPLEMENTATION
 *       #include "sfu_linux.h"
 *       static const struct sfu_trap_layout traps[] = {
 *           SFU_LINUX_PT_REGS(struct pt_regs, __entry_text_start, __entry_text_end) };
 *       static const struct sfu_switch_layout cpu_context = SFU_LINUX_CPU_CONTEXT(struct cpu_context);
 *       static const struct sfu_dump_table tasks = {
 *           SFU_LINUX_TASKS(struct task_struct, task, NR_TASKS, cpu_context, stack, THREAD_SIZE, &cpu_context),
 *           SFU_DUMP_ID(struct task_struct, pid), SFU_DUMP_NAME_IN(struct task_struct, comm),
 *           .current = &current };
 *       static const uint64_t entries[] = { SFU_LINUX_ENTRIES(kernel_main, ret_from_fork) };
 *       static const struct sfu_dump dump = {
 *           SFU_DUMP_PUTC_FIELDS(&state, uart_putc, traps, 1), .threads = &tasks, SFU_DUMP_ENTRIES(entries) };
 *   and, for the crash record (README), SFU_DUMP_RECORD(buf, size) among
 *   the dump's fields.
 *
 * THE ENDS OF A TRACE
 *   A task's kernel stack starts at ret_from_fork (copy_thread sets
 *   cpu_context.pc to it, and its x19/x20 to the function and argument):
 *   name it an entry, and give it the two lines of CFI an assembly
 *   trampoline needs (.cfi_startproc, .cfi_undefined x30 ... .cfi_endproc:
 *   GNU as then writes an SFrame FDE for it, V3's outermost marker from
 *   2.47 on), so the walk ends there, complete.  The boot stack ends at
 *   your C entry (kernel_main, start_kernel).
 *
 * THE STATES SHOWN
 *   Your task->state names (SFU_DUMP_STATE with your states[]; a NULL
 *   name: not dumped).  A task that has ended must not be walked where its
 *   kernel stack is freed (Linux frees it at the dead task's last switch,
 *   finish_task_switch): leave it out of task[] (a kernel thread is
 *   reaped at once: release_task unlinks it) or give its state a NULL
 *   name; a zombie whose stack is kept (the teaching kernels' TASK_ZOMBIE)
 *   may be shown with its last context.
 *
 * WHAT IS REFUSED
 *   At compile time: a pt_regs or cpu_context without Linux's members, or
 *   with them of another size (each 8 bytes; regs 31 of them).  At boot
 *   (sfu_dump_check): a table or layout breaking sfu's rules.  A task
 *   whose saved context is zeroed is "never ran", never a trace.
 */
#ifndef SFU_LINUX_H
#define SFU_LINUX_H

#include "sfu_threads.h"

/* The trap layout of kernel_entry's frame: a struct pt_regs T at the SP
 * of every call into C inside [start, end) (your linker script's bracket
 * of the entry code, .entry.text), the interrupted SP saved in it (an
 * EL1 entry stores sp + sizeof(pt_regs), an EL0 entry sp_el0: EL0 then
 * ends the walk, user mode).  A fault's syndrome is not in pt_regs: the
 * sync handler reads ESR_EL1 and FAR_EL1 from the CPU (Linux's
 * el1_sync_handler, read_sysreg), and so does sfu_dump_cause, live,
 * called from that handler. */
#define SFU_LINUX_PT_REGS(T, start_, end_)                                                          \
    { SFU__AARCH64_PT_REGS_FIELDS(start_, end_, T, regs, pc, sp, pstate), .fault = { .live = 3 } }

#define SFU__LINUX_CC(T, m) SFU_AT(offsetof(T, m))
/* The switch layout of cpu_switch_to's struct cpu_context T: the resume
 * PC its pc (the link register at the call), the SP its sp, x19..x28 and
 * the frame pointer. */
#define SFU_LINUX_CPU_CONTEXT(T)                                                                    \
    {                                                                                               \
        .size = sizeof(T), .align = 8, .sp = { .from = SFU_TRAP_SP_SAVED, .at = SFU__LINUX_CC(T, sp) }, \
        .regs = { .pc = SFU__LINUX_CC(T, pc),                                                       \
                  .reg = { [19] = SFU__LINUX_CC(T, x19), [20] = SFU__LINUX_CC(T, x20),               \
                           [21] = SFU__LINUX_CC(T, x21), [22] = SFU__LINUX_CC(T, x22),               \
                           [23] = SFU__LINUX_CC(T, x23), [24] = SFU__LINUX_CC(T, x24),               \
                           [25] = SFU__LINUX_CC(T, x25), [26] = SFU__LINUX_CC(T, x26),               \
                           [27] = SFU__LINUX_CC(T, x27), [28] = SFU__LINUX_CC(T, x28),               \
                           [29] = SFU__LINUX_CC(T, fp) } }                                           \
    }

/* The thread table's lines: task[0..nr) pointers to struct T (NULL: a
 * free slot), each with its cpu_context kept in it at member ctx (a path:
 * thread.cpu_context), its kernel stack the thread_size bytes from the
 * address in member stack_ (task->stack). */
#define SFU_LINUX_TASKS(T, task_, nr, ctx, stack_, thread_size, layout_)                            \
    SFU_DUMP_PTRS(T, task_, nr), SFU_DUMP_SAVED_IN(T, ctx, layout_),                                 \
        .stacks = { SFU_DUMP_STACK_BASE(T, stack_, thread_size) }

/* Where traces end: the boot stack's C entry, ret_from_fork. */
#define SFU_LINUX_ENTRIES(kernel_entry_, ret_from_fork_) (uintptr_t)(kernel_entry_), (uintptr_t)(ret_from_fork_)

/* Compile-time checks of your types (use once, at file scope). */
#define SFU_LINUX_CHECK_TYPES(T_regs, T_ctx)                                                        \
    _Static_assert(sizeof(((T_regs *)0)->regs) == 31 * 8 && sizeof(((T_regs *)0)->sp) == 8 &&       \
                       sizeof(((T_regs *)0)->pc) == 8 && sizeof(((T_regs *)0)->pstate) == 8,        \
                   "sfu_linux.h: pt_regs is not u64 regs[31], sp, pc, pstate");                     \
    _Static_assert(offsetof(T_regs, sp) == offsetof(T_regs, regs) + 31 * 8 &&                       \
                       offsetof(T_regs, pc) == offsetof(T_regs, sp) + 8,                            \
                   "sfu_linux.h: pt_regs is not laid out as Linux's (regs, sp, pc, pstate)");       \
    _Static_assert(sizeof(T_ctx) == 13 * 8 && offsetof(T_ctx, x19) == 0 && offsetof(T_ctx, fp) == 80 && \
                       offsetof(T_ctx, sp) == 88 && offsetof(T_ctx, pc) == 96,                      \
                   "sfu_linux.h: cpu_context is not Linux's { x19 .. x28, fp, sp, pc }")

#endif /* SFU_LINUX_H */
