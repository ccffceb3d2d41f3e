#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Unit tests of the core on sections built by test/common/sfb.h, and of the
# port's thread pieces and crash record (test_port: the x86_64 bare-metal
# port, on the host), of the layouts (test_ctx, also for aarch64 under
# qemu-aarch64), and of the dump layer (test_dump; test_dump_text: its code
# range and symbol table with SFU_DUMP_LINKER_TEXT and SFU_DUMP_SYMTAB 0;
# test_dump_defaults: the knobs sfu_dump.h sets where it is included first),
# under ASan+UBSan (test/common/host.mk), each built twice: by gcc with the
# core's small shape at -Os, by clang with its fast shape at -O2 (SFU_FAST;
# the lookup, fuzz and props suites cover the other pairs).  Case names
# carry the pair: "ok [gcc Os] ...", "ok [clang O2] ...".
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/unit
mkdir -p "$out"
# test_pltgot three ways: the fix on, SFU_FIX_LD_PLTGOT 0, SFU_COMPACT 0.
tests="test_fault test_record test_core test_linked test_fpfallback test_cache test_index test_pltgot test_pltgot_off test_pltgot_general test_port test_ctx test_crash test_dump test_dump_text test_dump_defaults"
builds="gcc-Os clang-O2"
# Built two at a time first; a program that fails to build is built again
# below, alone, and its error reported there.
targets=""
for b in $builds; do
	command -v "${b%-*}" >/dev/null 2>&1 || continue
	for t in $tests; do targets="$targets $out/$t-$b"; done
done
# shellcheck disable=SC2086
make -s -k -j2 --no-print-directory BUILD=build $targets >"$out/prebuild.log" 2>&1
for b in $builds; do
	cc=${b%-*}
	for t in $tests; do
		need "unit $cc" $cc $cc || continue
		if ! host_prog "$out/$t-$b"; then
			fail "unit $t-$b" "does not compile: $(grep -m1 -E 'error|warning' "$out/$t-$b.build.log")"
			continue
		fi
		# Case names carry the compiler and the shape so both runs
		# count.  A program that stops early (a sanitizer report) fails
		# on its own too.
		"$out/$t-$b" | sed "s/^\(ok\|FAIL\) /\1 [$cc ${b#*-}] /"
		st=${PIPESTATUS[0]}
		[ "$st" = 0 ] || fail "unit $t-$b" "exited $st"
	done
done
# A test built for aarch64 by the cross compiler, run under qemu-aarch64
# (user mode): whether the tools are there, then the test.
a64_test() { # NAME
	if ! host_prog "$out/$1-a64"; then
		fail "unit $1-a64" "does not compile: $(grep -m1 -E 'error|warning' "$out/$1-a64.build.log")"
	else
		qemu-aarch64 "$out/$1-a64"
		st=$?
		[ "$st" = 0 ] || fail "unit $1-a64" "exited $st"
	fi
}
a64_tools() { # WHAT
	need "$1" aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu && need "$1" qemu-aarch64 qemu-user
}
# The context descriptions with the aarch64 port (the test stands in for
# SP_EL0).
a64_tools "unit ctx aarch64" && a64_test test_ctx
# The ready-made RTOS descriptions (rtos/, aarch64 only): their saved
# contexts read and refused (test_rtos), and a build whose RTOS types do
# not match them refused at compile time (rtos_mismatch.c: CASE 0 builds,
# each other CASE fails with its header's message).
if a64_tools "unit rtos aarch64"; then
	a64_test test_rtos
	rtos_cc() { aarch64-linux-gnu-gcc -std=gnu11 -c -Wall -Wextra -Wundef -Werror -Icore -Iport/aarch64 -Icrash -Irtos \
		-DCASE="$1" test/unit/rtos_mismatch.c -o "$out/rtos_mismatch-$1.o" >"$out/rtos_mismatch-$1.log" 2>&1; }
	if rtos_cc 0; then
		pass "unit rtos mismatch: matching types" "the headers' own types build (the control)"
	else
		fail "unit rtos mismatch: matching types" "does not build: $(grep -m1 error "$out/rtos_mismatch-0.log")"
	fi
	# sfu_threadx.h's handlers by name: the ISR's and the fault handler's
	# (its default name, tx_fault_handler) strong, so a build without
	# them does not link; the overflow stub's (default tx_overflow_fault)
	# weak, an entry a build may not have; no code range (__text_start).
	syms=$(aarch64-linux-gnu-nm "$out/rtos_mismatch-0.o" 2>&1)
	if grep -qx ' *U irq_handler' <<<"$syms" && grep -qx ' *U tx_fault_handler' <<<"$syms" &&
		grep -qx ' *w tx_overflow_fault' <<<"$syms" && ! grep -q '__text_start' <<<"$syms"; then
		pass "unit rtos threadx handlers" "the ISR and fault handlers required (undefined, strong), the overflow one weak, no code range"
	else
		fail "unit rtos threadx handlers" "nm: $(grep -E 'irq_handler|tx_fault_handler|tx_overflow_fault|__text_' <<<"$syms" | tr '\n' ' ')"
	fi
	while IFS='|' read -r c what want; do
		if rtos_cc "$c"; then
			fail "unit rtos mismatch: $what" "built: the mismatch was not refused"
		elif grep -q -- "$want" "$out/rtos_mismatch-$c.log"; then
			pass "unit rtos mismatch: $what" "refused at compile time: $want"
		else
			fail "unit rtos mismatch: $what" "refused, but not with '$want': $(grep -m1 error "$out/rtos_mismatch-$c.log")"
		fi
	done <<'CASES'
1|a TX_THREAD moved|TX_THREAD.tx_thread_name is not at
2|a TCB_t with a field before pxTopOfStack|TCB_t.pxTopOfStack is not first
3|a cpu_context not Linux's|cpu_context is not Linux
4|an SMP FreeRTOS|SMP builds
5|ThreadX built with ENABLE_ARM_FP, the header without FP|built with ENABLE_ARM_FP
CASES
fi
# tools/sfu-crash reads records out of a memory image (made by test_port
# with the port's own writer): the valid one with its frames, the
# half-written one as corrupt and never as a trace.
if make -s --no-print-directory BUILD=build build/sfu-crash >"$out/sfu-crash-build.log" 2>&1 &&
	[ -x build/unit/test_port-gcc-Os ] && build/unit/test_port-gcc-Os "$out/crash.bin"; then
	got=$(build/sfu-crash "$out/crash.bin")
	st=$?
	if [ $st = 1 ] && grep -q '^record at +0x40: valid$' <<<"$got" &&
		grep -q '^crash: boot 5, fault "data abort (EC 0x25)" at pc 0x40201234$' <<<"$got" &&
		grep -q '^  #3 0x0000000040200035 (interrupted)$' <<<"$got" && grep -q '^  #2 0x0000000040200025 (exception)$' <<<"$got" &&
		grep -q '^backtrace: 12 frames, stopped: outermost frame reached (SFU_END)$' <<<"$got" &&
		grep -q '^record at +0x800: corrupt (checksum mismatch): not a trace$' <<<"$got" &&
		[ "$(grep -c '^  #' <<<"$got")" = 12 ]; then
		pass "unit sfu-crash" "a memory image's valid record decoded, the half-written one reported corrupt"
	else
		fail "unit sfu-crash" "exit $st, output:"; echo "$got" | head -30
	fi
	got=$(build/sfu-crash --at 0x800 "$out/crash.bin")
	st=$?
	if [ $st = 1 ] && ! grep -q '^  #' <<<"$got"; then
		pass "unit sfu-crash --at" "a half-written record alone exits 1, no frame printed"
	else
		fail "unit sfu-crash --at" "exit $st: $got"
	fi
else
	fail "unit sfu-crash" "build or memory image failed (log $out/sfu-crash-build.log)"
fi
# The wire lines of a record the dump wrote (test_record: a fault through
# a trap frame, two blocks) read back by sfu-crash --log: the same text as
# from the record's bytes; a line damaged or missing: exit 1, said, no
# trace; and the hex lines of older firmware still read.
if [ -x build/sfu-crash ] && [ -x build/unit/test_record-gcc-Os ] &&
	build/unit/test_record-gcc-Os "$out/wire.log" "$out/wire.bin"; then
	raw=$(build/sfu-crash "$out/wire.bin" | sed 1d)
	got=$(build/sfu-crash --log "$out/wire.log")
	st=$?
	if [ $st = 0 ] && [ "$(sed 1d <<<"$got")" = "$raw" ] && grep -q '^record 1 of the log: valid$' <<<"$got" &&
		grep -q '^  fault: #PF page fault, read at 0x0000000000000030: not-present page' <<<"$got"; then
		pass "unit sfu-crash --log wire" "$(grep -c sfu-record "$out/wire.log") lines for $(stat -c %s "$out/wire.bin") bytes, read back as the bytes read"
	else
		fail "unit sfu-crash --log wire" "exit $st:"; diff <(sed 1d <<<"$got") <(echo "$raw") | head -10
	fi
	# A damaged character (the payload's first), a missing line, the last
	# line missing (a log cut short).
	sed '1s/\(sfu-record [0-9]*\/[0-9]* \)\(.\)/\1=/' "$out/wire.log" >"$out/wire-damaged.log"
	sed '2d' "$out/wire.log" >"$out/wire-missing.log"
	sed '$d' "$out/wire.log" >"$out/wire-tail.log"
	for c in "damaged|line 1 of [0-9]* damaged \\(its checksum does not match\\)" "missing|line 2 of [0-9]* missing" \
		"tail|lines ([0-9]*) to \\1 of \\1 missing"; do
		n=${c%%|*} want=${c#*|}
		got=$(build/sfu-crash --log "$out/wire-$n.log" 2>&1)
		st=$?
		if [ $st = 1 ] && grep -Eq "$want" <<<"$got" && ! grep -q '^  #' <<<"$got"; then
			pass "unit sfu-crash --log wire $n" "exit 1: $(grep -E -m1 "$want" <<<"$got")"
		else
			fail "unit sfu-crash --log wire $n" "exit $st: $got"
		fi
	done
	od -An -v -tx1 -w16 "$out/wire.bin" | awk '{ printf "  crash record +%03x:%s\n", (NR - 1) * 16, $0 }' >"$out/hex.log"
	if [ "$(build/sfu-crash --log "$out/hex.log" | sed 1d)" = "$raw" ]; then
		pass "unit sfu-crash --log hex" "the hex lines of older firmware read as before"
	else
		fail "unit sfu-crash --log hex" "$(build/sfu-crash --log "$out/hex.log" 2>&1 | head -3)"
	fi
else
	fail "unit sfu-crash --log wire" "test_record could not write the record's wire lines"
fi
[ $fails = 0 ]
