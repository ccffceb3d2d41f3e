#!/bin/sh
# SPDX-License-Identifier: MIT
# examples/user-lines.sh -- the lines of the user's own code sfu costs, per
# kernel style, measured from the example files (docs/kernel-styles.md):
# code lines only (no blank line, no comment), in the regions each file
# marks as what sfu needs.  Run from anywhere; prints one table.
#
#   step 1  panic backtraces: README step 1 (examples/common/recipe.c, from
#           SFU_IMPLEMENTATION to the end)
#   step 2  faults and interrupts: the trap layouts, and one call
#           (sfu_dump_stack) in the fault / interrupt handler
#   step 3  every thread: the saved-context layout, the thread table
#           (examples/common/sched-sfu.c, from ex_state_names to the end
#           of ex_thread_table: the struct described once, no per-thread
#           set-up, no iterator) and the call to sfu_dump_threads
set -eu
cd "$(dirname "$0")"

# loc FILE START END: code lines from the first line matching START to the
# first line after it matching END, both included.
loc() {
	awk -v s="$2" -v e="$3" '
	!on && $0 ~ s { on = 1 }
	on {
		line = $0; out = ""
		while (length(line)) {
			if (inc) { p = index(line, "*/"); if (!p) { line = ""; break } line = substr(line, p + 2); inc = 0; continue }
			p = index(line, "/*"); if (!p) { out = out line; break }
			out = out substr(line, 1, p - 1); line = substr(line, p + 2); inc = 1
		}
		sub(/\/\/.*/, "", out)
		if (out ~ /[^ \t]/) n++
	}
	on && $0 ~ e { print n + 0; found = 1; exit }
	END { if (!found) { print "region " s " .. " e " not found in " FILENAME > "/dev/stderr"; exit 1 } }' "$1"
}

step1=$(loc common/recipe.c '^#define SFU_IMPLEMENTATION' '^}')
# The thread table, and the one call that dumps it.
table=$(($(loc common/sched-sfu.c '^const char \*const ex_state_names' 'end of what sfu needs') + 1))

row() { # STYLE TRAPS_FILE SWITCH_FILE SWITCH_START
	traps=$(loc "$2" '^extern char __entry_text_start' '^EX_DUMP')
	sw=$(loc "$3" "$4" 'end of what sfu needs')
	s2=$((step1 + traps + 1))
	s3=$((s2 + sw + table))
	printf '%-62s %5s %8s %8s\n' "$1" "$step1" "$s2" "$s3"
}

printf '%-62s %5s %8s %8s\n' "kernel style (example)" "panic" "+faults" "+threads"
row "Linux-like pt_regs, called C handler (aarch64-virt kernel)" aarch64-virt/kernel-trap.c aarch64-virt/thread.c '^const struct sfu_switch_layout'
row "Linux-like pt_regs, called C handler (x86_64-pc kernel)" x86_64-pc/kernel-trap.c x86_64-pc/thread.c '^const struct sfu_switch_layout'
row "RTOS: task context on the task stack, TCB (aarch64-virt rtos)" aarch64-virt/rtos-sfu.c aarch64-virt/rtos-sfu.c '^const struct sfu_switch_layout'
row "switch by returning interrupt frames (x86_64-pc rtos)" x86_64-pc/rtos-sfu.c x86_64-pc/rtos-sfu.c '^const struct sfu_switch_layout'
echo "(cumulative code lines; the thread table and its call: $table lines, no per-thread code)"

# The ready-made descriptions (rtos/): the lines added to README step 1's
# file and beside it, whole files: the options and files the RTOS's
# headers take, the description's lines (the step-1 file's own
# description line replaced by it, so not counted twice), and three calls
# (sfu_dump_stack in the fault handler, sfu_dump_threads there and in
# panic).  The examples' files also hold what only the examples need (the
# SFU_THREADX_DATA line: their sfu code is in common/unwind.c): not counted.
calls=3
fr=$(($(loc aarch64-virt/freertos/FreeRTOSConfig.h '^#define configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H' \
	'^#define SFU_FREERTOS_ENTRY') + $(loc aarch64-virt/freertos/freertos_tasks_c_additions.h \
	'^#define SFU_FREERTOS_TASKS_C' '^#include') + calls))
tx=$(($(loc aarch64-virt/threadx-sfu.c '^#include "threadx/tx_api.h"' '^#include "sfu_threadx.h"') - 2 + calls))
lx=$(($(loc aarch64-virt/linux-sfu.c '^#include "sfu_linux.h"' 'end of what sfu needs') - 1 + calls))
echo
printf '%-62s %8s\n' "ready-made description (example image)" "+faults, interrupts, every thread"
printf '%-62s %8s\n' "FreeRTOS ARM_AARCH64, rtos/sfu_freertos.h (aarch64-virt-freertos)" "$fr"
printf '%-62s %8s\n' "ThreadX ARMv8-A, rtos/sfu_threadx.h (aarch64-virt-threadx)" "$tx"
printf '%-62s %8s\n' "arm64 Linux shape, rtos/sfu_linux.h (aarch64-virt-linux)" "$lx"
echo "(code lines on top of step 1: options, files, description, the three calls)"
