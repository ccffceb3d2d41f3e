#!/usr/bin/env bash
# Unit tests of the core on sections built by test/common/sfb.h, and of the
# port's thread pieces and crash record (test_port), under ASan+UBSan,
# compiled by gcc and by clang.
set -u
cd "$(dirname "$0")/../.."
out=build/unit
mkdir -p "$out"
FLAGS="-std=c99 -O1 -g -Wall -Wextra -Wundef -Werror -D_DEFAULT_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all"
rc=0
for cc in gcc clang; do
	for t in test_core test_fpfallback test_cache test_index test_port; do
		if ! command -v $cc >/dev/null; then
			echo "FAIL unit $cc: $cc missing (apt-get install $cc)"; rc=1; continue
		fi
		# test_port: the x86_64 bare-metal port and the crash record, on the host.
		if ! $cc $FLAGS -Icore -Iport/x86_64 -Iport/common -o "$out/$t-$cc" test/unit/$t.c; then
			echo "FAIL unit $t-$cc: does not compile"; rc=1; continue
		fi
		# Case names carry the compiler so both runs count.
		"$out/$t-$cc" | sed "s/^\(ok\|FAIL\) /\1 [$cc] /" || rc=1
	done
done
# tools/sfu-crash reads records out of a memory image (made by test_port
# with the port's own writer): the valid one with its frames, the
# half-written one as corrupt and never as a trace.
if make -s --no-print-directory BUILD=build build/sfu-crash >"$out/sfu-crash-build.log" 2>&1 &&
	[ -x build/unit/test_port-gcc ] && build/unit/test_port-gcc "$out/crash.bin"; then
	got=$(build/sfu-crash "$out/crash.bin")
	st=$?
	if [ $st = 1 ] && grep -q '^record at +0x40: valid$' <<<"$got" &&
		grep -q '^crash: boot 5, fault "data abort (EC 0x25)" at pc 0x40201234$' <<<"$got" &&
		grep -q '^  #3 0x0000000040200035 (interrupted)$' <<<"$got" && grep -q '^  #2 0x0000000040200025 (exception)$' <<<"$got" &&
		grep -q '^backtrace: 12 frames, stopped: outermost frame reached (SFU_END)$' <<<"$got" &&
		grep -q '^record at +0x800: corrupt (checksum mismatch): not a trace$' <<<"$got" &&
		[ "$(grep -c '^  #' <<<"$got")" = 12 ]; then
		echo "ok unit sfu-crash: a memory image's valid record decoded, the half-written one reported corrupt"
	else
		echo "FAIL unit sfu-crash: exit $st, output:"; echo "$got" | head -30; rc=1
	fi
	got=$(build/sfu-crash --at 0x800 "$out/crash.bin")
	st=$?
	if [ $st = 1 ] && ! grep -q '^  #' <<<"$got"; then
		echo "ok unit sfu-crash --at: a half-written record alone exits 1, no frame printed"
	else
		echo "FAIL unit sfu-crash --at: exit $st: $got"; rc=1
	fi
else
	echo "FAIL unit sfu-crash: build or memory image failed (log $out/sfu-crash-build.log)"; rc=1
fi
exit $rc
