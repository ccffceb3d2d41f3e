#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/unwind/run.sh - sfu against DWARF unwinders on live stacks, and
# every SFrame row against objdump, for each toolchain of the matrix.
#
# Prints one line per case, "ok <case>: ..." or "FAIL <case>: <why>", plus
# "#" lines (details, examples of mismatches).  What is compared and how
# mismatches are classified: test/unwind/README.md.
#
# Builds incrementally into build/unwind/ (make, inside each suite's chroot
# via tools/toolchain.sh), runs the x86_64 programs where their libc is (the
# chroot) and the static aarch64 programs under qemu-aarch64 on the host.
#
# Knobs (environment): UNWIND_SUITES (default "bookworm trixie sid clang"),
# UNWIND_SAMPLES (timer samples per program, default 5000), UNWIND_JOBS
# (parallel runs, default 2).
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd -P)
SUITES=${UNWIND_SUITES:-"bookworm trixie sid clang"}
SAMPLES=${UNWIND_SAMPLES:-5000}
JOBS=${UNWIND_JOBS:-2}
OUT=build/unwind
TC=tools/toolchain.sh
. test/common/lib.sh
mkdir -p "$OUT/logs"

# ---- what must be installed --------------------------------------------------
# A missing tool is a failure of every case that needs it, never a skip
# (all of them: tools/toolchain.sh host-deps).
host_ok=1
need host-tools gcc gcc || host_ok=0
need host-tools make make || host_ok=0
need host-tools aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu || host_ok=0
need host-tools objdump binutils || host_ok=0
[ -f /usr/include/x86_64-linux-gnu/libunwind.h ] ||
	{ fail "host-tools" "libunwind-dev missing; install with: apt-get install -y libunwind-dev"; host_ok=0; }
[ -d /usr/aarch64-linux-gnu/lib ] && ls /usr/aarch64-linux-gnu/lib/libc.a >/dev/null 2>&1 ||
	{ fail "host-tools" "libc6-dev-arm64-cross missing; install with: apt-get install -y libc6-dev-arm64-cross"; host_ok=0; }
have_qemu=1
need qemu-aarch64 qemu-aarch64 "qemu-user (every aarch64 run fails without it)" || have_qemu=0

suite_ok() { # suite -> 0 if its toolchain is there
	[ "$1" = bookworm ] && { [ $host_ok = 1 ]; return; }
	[ -f "$($TC path "$(tc_of "$1")")/.sfu-ready" ]
}
# The chroot a suite builds and runs in: "clang" is clang 22 of sid, whose
# programs carry no SFrame: tools/sfu-gen describes them from their
# .eh_frame, and the harness reads that section (UT_SFRAME_FILE).
tc_of() { [ "$1" = clang ] && echo sid || echo "$1"; }
genv() { [ "$1" = clang ] && echo "env UT_SFRAME_FILE=$2.sframe" || echo env; }

# ---- build --------------------------------------------------------------------
# The host programs (test/common/host.mk).
for prog in rows_check core_v1_pcmask; do
	host_prog "$OUT/$prog" || fail "build host/$prog" "$(tail -3 "$OUT/$prog.build.log" | tr '\n' ' ')"
done

built=""
for s in $SUITES; do
	if ! suite_ok "$s"; then
		fail "build $s" "no $s toolchain; install with: tools/toolchain.sh ensure $s (or: make toolchains)"
		continue
	fi
	log=$OUT/logs/build-$s.log
	if [ $s = clang ]; then
		if ! $TC install sid clang-22 >"$log" 2>&1; then
			fail "build $s" "clang-22 missing in sid; install with: tools/toolchain.sh install sid clang-22"
			continue
		fi
		if ! make -s build/sfu-gen >>"$log" 2>&1; then
			fail "build $s" "make build/sfu-gen failed (log: $log)"
			continue
		fi
	fi
	if $TC run "$(tc_of $s)" make -s -f test/unwind/unwind.mk SUITE="$s" -j2 all $([ $s = clang ] || echo rows) >>"$log" 2>&1; then
		built="$built $s"
	else
		fail "build $s" "make failed: $(grep -m3 -E 'error|Error' "$log" | tr '\n' ' ') (log: $log)"
		continue
	fi
	if [ $s = clang ]; then
		for p in "$OUT"/clang/*/unwind; do
			build/sfu-gen --raw "$p.sframe" --addr 0 "$p" >>"$log" 2>&1 ||
				fail "build clang" "sfu-gen failed on $p (log: $log)"
		done
	fi
done
# objdump --sframe of the row images: V1 only by bookworm's objdump, V2/V3
# by sid's (the newest reader).
for s in $built; do
	case $s in
	clang) continue ;; # no rows: the section is sfu-gen's, checked by test/gen
	bookworm) d=bookworm ;;
	*) d=sid ;;
	esac
	if ! suite_ok $d; then
		fail "rows $s" "objdump of the $d toolchain needed; install with: tools/toolchain.sh ensure $d"
		continue
	fi
	$TC run $d make -s -f test/unwind/unwind.mk dumps DUMP_FOR="$s" >"$OUT/logs/dump-$s.log" 2>&1 ||
		fail "rows $s" "objdump --sframe failed (log: $OUT/logs/dump-$s.log)"
done

# ---- the cases -------------------------------------------------------------------
# Each job is one command line; its output lands in $OUT/logs/job-N.out and
# is printed in order at the end.  A job that exits non-zero without a FAIL
# line of its own gets one.
jobs_names=()
jobs_cmds=()
add() { jobs_names+=("$1"); jobs_cmds+=("$2"); }

[ -x "$OUT/core_v1_pcmask" ] && add "core/v1-pcmask-plt" "$OUT/core_v1_pcmask"
for s in $built; do
	for o in O0 O2; do
		p=$OUT/$s/x86_64-$o/unwind n=$s/x86_64/$o t=$(tc_of $s) e=$(genv $s "$OUT/$s/x86_64-$o/unwind")
		add "sync $n" "$TC run $t $e $p sync $n"
		add "async $n" "$TC run $t $e $p async $n $SAMPLES 30 $SAMPLES"
		add "step $n" "$TC run $t $e $p step $n"
	done
	# The classic profiler timer as well: tick-driven (HZ), so few samples.
	add "async $s/x86_64/O2/itimer-prof" \
		"$TC run $(tc_of $s) $(genv $s "$OUT/$s/x86_64-O2/unwind") $OUT/$s/x86_64-O2/unwind async-prof $s/x86_64/O2/itimer-prof 400 8 200"
	for o in O0 O2 O2pac; do
		p=$OUT/$s/aarch64-$o/unwind n=$s/aarch64/$o e=$(genv $s "$OUT/$s/aarch64-$o/unwind")
		if [ $have_qemu = 0 ]; then
			fail "sync $n" "qemu-aarch64 missing; install with: apt-get install qemu-user"
			fail "async $n" "qemu-aarch64 missing; install with: apt-get install qemu-user"
			fail "bkpt $n" "qemu-aarch64 missing; install with: apt-get install qemu-user"
			continue
		fi
		add "sync $n" "$e qemu-aarch64 $p sync $n"
		# Under QEMU a signal is taken between translation blocks: fewer
		# distinct PCs; at least 2000 samples are required.
		add "async $n" "$e qemu-aarch64 $p async $n $SAMPLES 30 2000"
		# Every instruction instead: a BRK on each, compared once.
		add "bkpt $n" "$e qemu-aarch64 $p bkpt $n"
	done
	[ $have_qemu = 1 ] && add "async $s/aarch64/O2/itimer-prof" \
		"$(genv $s "$OUT/$s/aarch64-O2/unwind") qemu-aarch64 $OUT/$s/aarch64-O2/unwind async-prof $s/aarch64/O2/itimer-prof 400 8 200"
	for img in "$OUT/$s"/rows/*.elf; do
		[ -e "$img" ] || continue
		b=$(basename "$img" .elf)
		add "rows $s/${b%-*}/${b##*-}" "$OUT/rows_check $img ${img%.elf}.txt $s/${b%-*}/${b##*-}"
	done
done

run_job() { # index
	local i=$1 o=$OUT/logs/job-$1.out rc
	timeout 180 bash -c "${jobs_cmds[$i]}" >"$o" 2>&1
	rc=$?
	if [ $rc != 0 ] && ! grep -q '^FAIL ' "$o"; then
		[ $rc = 124 ] && echo "FAIL ${jobs_names[$i]}: timed out after 180 s" >>"$o" ||
			echo "FAIL ${jobs_names[$i]}: exited $rc without a verdict ($(tail -2 "$o" | tr '\n' ' '))" >>"$o"
	fi
	if ! grep -qE '^(ok|FAIL) ' "$o"; then
		echo "FAIL ${jobs_names[$i]}: printed no verdict" >>"$o"
	fi
}

for i in "${!jobs_cmds[@]}"; do
	spawn "$JOBS" run_job "$i"
done
spawn_wait
for i in "${!jobs_cmds[@]}"; do
	cat "$OUT/logs/job-$i.out"
	grep -q '^FAIL ' "$OUT/logs/job-$i.out" && fails=$((fails + 1))
done
[ $fails = 0 ]
