/* SPDX-License-Identifier: MIT */
/*
 * linux-sfu.c -- all sfu needs to know about linux-entry.S and linux.c,
 * with rtos/sfu_linux.h: kernel_entry's pt_regs, cpu_switch_to's
 * cpu_context, task[], the ends (board_main, ret_from_fork), here with the
 * examples' output and hooks around it.  Built with the board's plain
 * flags (board.mk `plain`), as a user's own file would be.
 */
#include "ex.h"
#include "linux/sched.h"
#include "sfu_linux.h"

extern char __entry_text_start[], __entry_text_end[], __exc_stack_start[], __exc_stack_end[];
void ret_from_fork(void);

SFU_LINUX_CHECK_TYPES(struct pt_regs, struct cpu_context);
static const struct sfu_trap_layout traps[] = {
    SFU_LINUX_PT_REGS(struct pt_regs, __entry_text_start, __entry_text_end) };
const struct sfu_switch_layout ex_switch_layout = SFU_LINUX_CPU_CONTEXT(struct cpu_context);
static const char *const states[] = { "runnable", "sleeping", "blocked" };
static const sfu_stack overflow_stack[] = { { (uintptr_t)__exc_stack_start, (uintptr_t)__exc_stack_end } };
static const struct sfu_dump_table tasks = {
    SFU_LINUX_TASKS(struct task_struct, task, NR_TASKS, thread.cpu_context, stack, THREAD_SIZE, &ex_switch_layout),
    SFU_DUMP_ID(struct task_struct, pid), SFU_DUMP_NAME_IN(struct task_struct, comm),
    SFU_DUMP_STATE(struct task_struct, state, states),
    .shared = overflow_stack, .nshared = 1, .current = &current };
static const uint64_t entries[] = { SFU_LINUX_ENTRIES(board_main, ret_from_fork) };
const struct sfu_dump ex_dump = { SFU_DUMP_INIT_FIELDS(&ex_dump_state, ex_write, ex_ram, 1, traps, 1),
                                  .stacks = ex_boot_stack, .nstacks = 1, .threads = &tasks,
                                  .name = ex_name_hook, .frame = ex_frame_hook, SFU_DUMP_ENTRIES(entries),
                                  SFU_DUMP_RECORD((uint8_t *)__retained_start, EX_RECORD_SIZE) };
/* (end of what sfu needs) */
