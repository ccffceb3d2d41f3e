#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/core/run.sh - ELF core files made by tools/sfu-crash --core from
# sfu's extended crash record (crash/sfu_crash.h), opened by gdb.
#
# For x86_64 (native) and aarch64 (qemu-aarch64): test/core/crash_host.c,
# a static program with four threads, writes the record of all of them;
# sfu-crash makes the core; gdb-multiarch's backtrace of every thread is
# compared frame by frame (PC and SP) with sfu's own trace
# (test/core/compare.py says what "equal" means when a window is cut).
# Then gdb's registers, locals and stack memory from the core, a budget
# that cuts windows (gdb's trace shortened where the record says), and the
# refusals: a budget too small for one frame, a flipped byte, a truncated
# record, a PC-only record, another image, another architecture.  The
# record is also read from the firmware's hex log and from a QEMU
# dump-guest-memory ELF file: the same core.
#
# Knobs: CORE_ARCHES (default "x86_64 aarch64").
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/core
mkdir -p "$out"
ARCHES=${CORE_ARCHES:-"x86_64 aarch64"}
CRASH=build/sfu-crash

need "core tools" gdb-multiarch gdb-multiarch || exit 1
need "core tools" python3 python3 || exit 1
[ -f /usr/include/gelf.h ] || { fail "core tools" "libelf-dev missing; install with: apt-get install -y libelf-dev"; exit 1; }
if ! make -s --no-print-directory BUILD=build "$CRASH" build/unit/test_port-gcc-Os >"$out/tools-build.log" 2>&1; then
	fail "core tools" "make $CRASH build/unit/test_port-gcc-Os failed (log $out/tools-build.log)"
	exit 1
fi

CFLAGS="-std=gnu11 -O2 -g -fasynchronous-unwind-tables -Wa,--gsframe -Wall -Wextra -Werror -Icore -Iport/host -Icrash -static -pthread -Wl,--build-id"
GDB_FRAMES='thread apply all -ascending frame apply all -q printf "F %#lx %#lx\n", $pc, $sp'
GDB_BT='thread apply all -ascending bt'

# gdb on IMAGE and CORE with the commands given (-ex each).
gdb_on() {
	local image=$1 core=$2
	shift 2
	local args=(-batch -nx -ex 'set pagination off' -ex 'set backtrace past-main on')
	local c
	for c in "$@"; do args+=(-ex "$c"); done
	timeout 120 gdb-multiarch "${args[@]}" "$image" "$core" 2>&1
}

# check NAME CORE RECORD PROG_OUT: gdb's frames against sfu's.
check_frames() {
	local name=$1 image=$2 core=$3 rec=$4 prog=$5 res
	"$CRASH" "$rec" >"$rec.txt" 2>&1
	gdb_on "$image" "$core" "$GDB_FRAMES" 'echo BT\n' "$GDB_BT" >"$core.frames"
	res=$(python3 test/core/compare.py "$prog" "$rec.txt" "$core.frames")
	grep '^#' <<<"$res"
	case $(tail -1 <<<"$res") in
	ok\ *) set -- $(tail -1 <<<"$res"); pass "$name" "$2 threads, $3 frames: PC and SP equal to sfu's" ;;
	*) fail "$name" "$(tail -1 <<<"$res") (gdb: $core.frames)" ;;
	esac
}

# refuse NAME RC PATTERN ARGS...: sfu-crash --core exits RC, says PATTERN,
# writes no core.
refuse() {
	local name=$1 rc=$2 pat=$3 msg st
	shift 3
	rm -f "$out/refused.core"
	msg=$("$CRASH" --core "$out/refused.core" "$@" 2>&1 >/dev/null)
	st=$?
	if [ $st = "$rc" ] && grep -q -- "$pat" <<<"$msg" && [ ! -e "$out/refused.core" ]; then
		pass "$name" "exit $st: $(grep -m1 -- "$pat" <<<"$msg" | cut -c1-150)"
	else
		fail "$name" "exit $st (want $rc), core $([ -e "$out/refused.core" ] && echo written || echo absent): $msg"
	fi
}

built=""
for arch in $ARCHES; do
	case $arch in
	x86_64) cc=gcc run="" ;;
	aarch64)
		cc=aarch64-linux-gnu-gcc run=qemu-aarch64
		need "core $arch tools" qemu-aarch64 qemu-user || continue
		need "core $arch tools" $cc gcc-aarch64-linux-gnu || continue
		;;
	*) fail "core $arch" "unknown architecture"; continue ;;
	esac
	prog=$out/crash-$arch # gdb compares the core's 15-byte program name with the file's
	if ! $cc $CFLAGS test/core/crash_host.c -o "$prog" >"$prog.build.log" 2>&1; then
		fail "core $arch build" "$(head -3 "$prog.build.log" | tr '\n' ' ')"
		continue
	fi
	built="$built $arch"
	rec=$out/rec-$arch.bin
	if ! $run "$prog" "$rec" >"$prog.out" 2>"$prog.err"; then
		fail "core $arch record" "crash_host exited non-zero: $(cat "$prog.err")"
		continue
	fi
	size=$(stat -c %s "$rec")
	pass "core $arch record" "$(grep -c '^thread ' "$prog.out") threads, $size bytes"
	core=$out/core-$arch
	if ! "$CRASH" --core "$core" "$prog" "$rec" >"$core.log" 2>&1; then
		fail "core $arch write" "$(cat "$core.log")"
		continue
	fi
	pass "core $arch write" "$(grep '^core ' "$core.log")"
	check_frames "core $arch gdb thread apply all bt" "$prog" "$core" "$rec" "$prog.out"
	gdb_on "$prog" "$core" 'thread apply all bt' >"$core.bt"

	# What else gdb does with the core: threads, registers, a frame's
	# locals (read from the window), stack memory.
	pc0=$(awk '$1 == "sfu" && $2 == 1 && $3 == "#0" { print $4 }' "$prog.out")
	sp0=$(awk '$1 == "sfu" && $2 == 1 && $3 == "#0" { print $5 }' "$prog.out")
	g=$(gdb_on "$prog" "$core" 'info threads' 'info registers pc sp' 'frame 3' 'info locals' 'x/2gx $sp')
	if [ "$(grep -cE '^[* ] +[0-9]+ +LWP [0-9]+' <<<"$g")" = 4 ] &&
		grep -qE "^pc +$pc0 " <<<"$g" && grep -qE "^sp +$sp0 " <<<"$g" &&
		grep -q 'in level1 ()' <<<"$g" && grep -q '^pad = {1, 0, 0, 0, 0, 0, 0}$' <<<"$g" &&
		grep -qE '^0x[0-9a-f]+:[[:space:]]+0x[0-9a-f]{16}[[:space:]]+0x[0-9a-f]{16}$' <<<"$g" &&
		! grep -q 'Cannot access memory' <<<"$g"; then
		pass "core $arch gdb info threads, registers, frame 3 locals, x/" "4 threads, pc $pc0, level1's pad from the window"
	else
		fail "core $arch gdb info threads, registers, frame 3 locals, x/" "unexpected gdb output:"
		sed 's/^/#   /' <<<"$g" | head -40
	fi

	# The core gdb reads cleanly: the image is the core's (no "may not
	# match"), the crashed thread first with its signal (SIGABRT: a
	# panic), and its NT_PRSTATUS in the exact Linux layout: every
	# register gdb shows is the one the record holds under that name.
	case $arch in
	x86_64) names="r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs" ;;
	aarch64) names="x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 x18 x19 x20 x21 x22 x23 x24 x25 x26 x27 x28 x29 x30 sp pc cpsr" ;;
	esac
	regcmds=()
	for r in $names; do regcmds+=("info registers $r"); done
	g=$(gdb_on "$prog" "$core" "${regcmds[@]}" 'p $_siginfo.si_signo')
	bad= k=0
	for r in $names; do
		want=$(awk -v k=$k '$1 == "reg" && $2 == k { print $3 }' "$prog.out")
		have=$(awk -v r=$r '$1 == r { print $2 }' <<<"$g")
		[ -n "$want" ] && [ "$have" = "$want" ] || bad="$bad $r=${have:-none}(want ${want:-none})"
		k=$((k + 1))
	done
	if [ -z "$bad" ] && ! grep -q 'core file may not match' <<<"$g" &&
		grep -q '^Program terminated with signal SIGABRT, Aborted\.$' <<<"$g" && grep -q '^\$1 = 6$' <<<"$g"; then
		pass "core $arch registers field by field" "$k registers of the crashed thread's NT_PRSTATUS as gdb shows them, SIGABRT in its NT_SIGINFO, the image paired by its build-id"
	else
		fail "core $arch registers field by field" "${bad:-}$(grep -E 'may not match|Program terminated' <<<"$g" | tr '\n' ' ')"
	fi

	# A budget 400 bytes short: the deepest frames' windows are cut, gdb
	# stops where the record says.
	recb=$out/rec-$arch-budget.bin
	if $run "$prog" "$recb" $((size - 400)) >"$prog.budget.out" 2>&1 &&
		"$CRASH" --core "$core.budget" "$prog" "$recb" >/dev/null 2>&1; then
		"$CRASH" "$recb" >"$recb.txt"
		ncut=$(grep -c 'cut: the budget ran out' "$recb.txt")
		if [ "$ncut" -gt 0 ]; then
			check_frames "core $arch budget cut: gdb stops where the record says ($ncut windows cut)" "$prog" "$core.budget" "$recb" "$prog.budget.out"
		else
			fail "core $arch budget cut" "a budget of $((size - 400)) bytes cut nothing"
		fi
	else
		fail "core $arch budget cut" "crash_host or sfu-crash failed: $(tail -2 "$prog.budget.out")"
	fi

	# Refusals.
	msg=$($run "$prog" "$out/none.bin" 1000 2>&1 >/dev/null)
	st=$?
	if [ $st = 2 ] && grep -q 'too small for the crashed thread.s first frame' <<<"$msg"; then
		pass "core $arch budget too small for one frame" "$msg"
	else
		fail "core $arch budget too small for one frame" "exit $st: $msg"
	fi
	python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0x10; open(sys.argv[2], 'wb').write(b)" "$rec" "$out/flipped.bin"
	refuse "core $arch refuses a flipped byte" 1 'corrupt (checksum mismatch)' "$prog" "$out/flipped.bin"
	head -c $((size - 100)) "$rec" >"$out/truncated.bin"
	refuse "core $arch refuses a truncated record" 1 "truncated: it says $size bytes, the input holds $((size - 100))" "$prog" "$out/truncated.bin"
	head -c 300 "$rec" >"$out/short.bin"
	refuse "core $arch refuses a record cut inside its header" 1 'truncated: 300 bytes' "$prog" "$out/short.bin"
	build/unit/test_port-gcc-Os "$out/pc-only.bin"
	refuse "core $arch refuses a PC-only record" 1 'a PC-only record (version 1)' "$prog" --at 0x40 "$out/pc-only.bin"

	# The same record from the firmware's hex lines, and from a QEMU
	# dump-guest-memory ELF file (the record inside a PT_LOAD at a
	# physical address): the same core, byte for byte.
	od -An -v -tx1 -w16 "$rec" | awk '{ printf "  crash record +%03x:%s\n", (NR - 1) * 16, substr($0, 1) }' >"$out/rec-$arch.log"
	if "$CRASH" --core "$core.log-core" "$prog" --log "$out/rec-$arch.log" >/dev/null 2>&1 && cmp -s "$core" "$core.log-core"; then
		pass "core $arch from the serial log" "the same core as from the dump"
	else
		fail "core $arch from the serial log" "no core, or a different one ($core.log-core)"
	fi
	python3 test/core/qemu_dump.py "$rec" "$out/rec-$arch.qemu"
	if "$CRASH" --core "$core.qemu-core" "$prog" "$out/rec-$arch.qemu" >"$core.qemu.log" 2>&1 && cmp -s "$core" "$core.qemu-core" &&
		grep -q 'record at physical 0x40000100' "$core.qemu.log"; then
		pass "core $arch from a QEMU ELF memory dump" "$(grep '^core ' "$core.qemu.log")"
	else
		fail "core $arch from a QEMU ELF memory dump" "$(cat "$core.qemu.log")"
	fi
done

# Across the two: a record of one architecture against the other's image,
# and against an image of the same architecture with another build-id (the
# other program: sfu-crash itself).
set -- $built
if [ $# = 2 ]; then
	refuse "core refuses a record of the other architecture" 4 'the record is of x86_64 (e_machine 62), build/core/crash-aarch64 is aarch64' \
		build/core/crash-aarch64 build/core/rec-x86_64.bin
	refuse "core refuses a record of the other architecture (aarch64)" 4 'the record is of aarch64 (e_machine 183), build/core/crash-x86_64 is x86_64' \
		build/core/crash-x86_64 build/core/rec-aarch64.bin
fi
if [ -f build/core/rec-x86_64.bin ]; then
	refuse "core refuses another image of the same architecture (build-id)" 4 'the record is of another image: its build-id' \
		"$CRASH" build/core/rec-x86_64.bin
fi
[ $fails = 0 ]
