#!/bin/sh
# SPDX-License-Identifier: MIT
# examples/user-lines.sh -- the lines of code a user writes for sfu, per
# kernel style, counted over every file the examples touch for it
# (README "What it costs, per kernel style"; docs/kernel-styles.md).
# Code lines only: no blank line, no comment.  Run from anywhere; prints
# one table, and with -v every file and what was counted in it.
#
# What is counted, cumulative per step:
#   panic    the file written for sfu, whole (examples/common/recipe.c:
#            the implementation, the description, the call); the build
#            lines (the assembler's SFrame, the unwind tables, the include
#            paths: examples/build.mk); the linker-script lines (the RAM
#            range the dump may read, `INCLUDE` of the .sframe fragment);
#            the call in panic() (examples/common/panic.c)
#   +faults  the trap layouts in the trap file (their region: from the
#            layouts' first line to the description's), the linker
#            script's bracket around the entry code where the layouts use
#            it, the call in the fault handler (panic.c); an RTOS style's
#            description file, whole (rtos-sfu.c)
#   +threads the saved context's layout (thread.c's region, or in
#            rtos-sfu.c), the thread table's file, whole
#            (examples/common/sched-sfu.c), the calls that dump every
#            thread (panic.c), and the CFI of the threads' trampoline
#            (switch.S, ex_thread_start: what makes a thread's trace end
#            there)
# Files a kernel has anyway count only for the lines sfu adds to them
# (each named below by a pattern); files that exist only for sfu count
# whole.  The examples' own harness (reports, scenarios, the symbol
# table's hooks) is not something a user writes and is not counted.
set -eu
cd "$(dirname "$0")"
verbose=0
[ "${1:-}" = -v ] && verbose=1

# code FILE [START END [REGEX]]: code lines of FILE; with START/END only
# from the first line matching START to the first after it matching END
# (both included; START "" is the file's start, END "" its end); with
# REGEX only the code lines matching it.
code() {
	awk -v s="${2:-}" -v e="${3:-}" -v re="${4:-}" '
	BEGIN { on = s == "" }
	!on && $0 ~ s { on = 1 }
	on {
		line = $0; out = ""
		while (length(line)) {
			if (inc) { p = index(line, "*/"); if (!p) { line = ""; break } line = substr(line, p + 2); inc = 0; continue }
			p = index(line, "/*"); if (!p) { out = out line; break }
			out = out substr(line, 1, p - 1); line = substr(line, p + 2); inc = 1
		}
		sub(/\/\/.*/, "", out)
		if (FILENAME ~ /\.(mk|ld)$|Makefile/ && out ~ /^[ \t]*#/) out = ""
		if (out ~ /[^ \t]/ && (re == "" || out ~ re)) n++
	}
	on && e != "" && $0 ~ e { done = 1; exit }
	END {
		if (!on || (e != "" && !done)) { print "region " s " .. " e " not found in " FILENAME > "/dev/stderr"; exit 1 }
		print n + 0
	}' "$1"
}

total=0
# add WHAT FILE [START END [REGEX]]: count, and say what with -v.
add() {
	what=$1
	shift
	n=$(code "$@")
	total=$((total + n))
	[ $verbose = 1 ] && printf '    %-9s %3d  %s%s\n' "$what" "$n" "$1" "${4:+ (lines matching $4)}" >&2
	return 0
}

# The lines every style shares.
BUILD='--gsframe|-fasynchronous-unwind-tables|-I \$\(EX_ROOT\)/(port|crash|core)'
LINK_RAM='__ram_start *=|__ram_end *=|INCLUDE'
LINK_ENTRY='__entry_text_(start|end) *='

step_panic() { # BOARD
	add whole common/recipe.c
	add build build.mk '' '' "$BUILD"
	add link "$1/link.ld" '' '' "$LINK_RAM"
	add call common/panic.c '^EX_NORETURN void panic' '^}' 'ex_dump_backtrace'
}
step_faults_calls() {
	add call common/panic.c '^EX_NORETURN void ex_fault' '^}' 'ex_dump_backtrace'
}
step_threads_calls() { # BOARD
	add whole common/sched-sfu.c
	add call common/panic.c '' '' 'ex_dump_threads\('
	add cfi "$1/switch.S" '^ex_thread_start:' '\.size ex_thread_start' '\.cfi_'
}

row() { # STYLE BOARD KIND
	style=$1 board=$2 kind=$3
	[ $verbose = 1 ] && echo "$style:" >&2
	total=0
	step_panic "$board"
	p=$total
	case $kind in
	kernel)
		add layouts "$board/kernel-trap.c" '^extern char __entry_text_start' '^EX_DUMP'
		add link "$board/link.ld" '' '' "$LINK_ENTRY"
		step_faults_calls
		f=$total
		add layout "$board/thread.c" '^const struct sfu_switch_layout' 'end of what sfu needs'
		step_threads_calls "$board"
		t=$total ;;
	rtos)
		# rtos-sfu.c exists only for sfu: whole, its switch layout
		# counted with the threads.
		all=$(code "$board/rtos-sfu.c")
		sw=$(code "$board/rtos-sfu.c" '^const struct sfu_switch_layout' 'end of what sfu needs')
		total=$((total + all - sw))
		[ $verbose = 1 ] && printf '    %-9s %3d  %s\n' whole $((all - sw)) "$board/rtos-sfu.c (but its switch layout)" >&2
		add link "$board/link.ld" '' '' "$LINK_ENTRY"
		step_faults_calls
		f=$total
		total=$((total + sw))
		[ $verbose = 1 ] && printf '    %-9s %3d  %s\n' layout "$sw" "$board/rtos-sfu.c (its switch layout)" >&2
		add call common/panic.c '' '' 'ex_dump_threads\('
		add whole common/sched-sfu.c
		t=$total ;;
	freertos | threadx | linux)
		# A ready-made header (rtos/): faults, interrupts and every
		# thread in one step.  The description's file exists only for
		# sfu: whole, to its end marker (after it, the examples'
		# harness); the include path; the code bounds the layouts'
		# calls are read in (or the entry code's bracket); the calls.
		add whole "$board/$kind-sfu.c" '' 'end of what sfu needs'
		add build "$board/board.mk" '' '' "^$kind\\.cflags"
		case $kind in
		freertos)
			# FreeRTOSConfig.h's options for sfu, FreeRTOS_Abort's
			# call (FreeRTOS's own spins; the `mov x2, sp` before it
			# is the examples' report's, which sfu does not read).
			# tasks.c's freertos_tasks_c_additions.h is sfu's own
			# (rtos/), found through the include path: a build with
			# one of its own adds the two lines it holds.  The port's
			# calls need no code range.
			add config "$board/freertos/FreeRTOSConfig.h" '' '' \
				'SFU_|configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H|configRECORD_STACK_HIGH_ADDRESS'
			if [ -e "$board/freertos/freertos_tasks_c_additions.h" ]; then
				add whole "$board/freertos/freertos_tasks_c_additions.h"
			fi
			add port "$board/freertos-port.S" '' '' 'bl freertos_fault' ;;
		threadx)
			# The port's calls need no code range (their callees
			# alone: the header's default names, threadx.c's C
			# handlers); the build line also carries ThreadX's own
			# ENABLE_ARM_FP, which the header's FP knob is derived
			# from.  Nothing else: the description file holds the
			# rest, the include of tx_api.h among it.
			;;
		linux)
			add link "$board/link.ld" '' '' "$LINK_ENTRY"
			add cfi "$board/linux-switch.S" '^ret_from_fork:' '\.size ret_from_fork' '\.cfi_' ;;
		esac
		step_faults_calls
		add call common/panic.c '' '' 'ex_dump_threads\('
		f=$total
		t=$total ;;
	esac
	printf '%-62s %5s %8s %8s\n' "$style" "$p" "$f" "$t"
}

printf '%-62s %5s %8s %8s\n' "kernel style (example)" "panic" "+faults" "+threads"
row "Linux-like pt_regs, called C handler (aarch64-virt kernel)" aarch64-virt kernel
row "Linux-like pt_regs, called C handler (x86_64-pc kernel)" x86_64-pc kernel
row "RTOS: task context on the task stack, TCB (aarch64-virt rtos)" aarch64-virt rtos
row "switch by returning interrupt frames (x86_64-pc rtos)" x86_64-pc rtos
row "FreeRTOS ARM_AARCH64, rtos/sfu_freertos.h (aarch64-virt freertos)" aarch64-virt freertos
row "ThreadX ARMv8-A, rtos/sfu_threadx.h (aarch64-virt threadx)" aarch64-virt threadx
row "arm64 Linux shape, rtos/sfu_linux.h (aarch64-virt linux)" aarch64-virt linux
echo "(cumulative code lines of every file touched for sfu: files written for it whole, the lines added to the kernel's own; -v lists them;"
echo " the rtos/ headers give faults, interrupts and every thread in one step)"
