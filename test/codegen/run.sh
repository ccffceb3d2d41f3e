#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The crash path is safe in any CPU state, whatever the flags: the core and
# each bare-metal port, built as a user's kernel file might be (plain
# -ffreestanding, no -mgeneral-regs-only, no -mstrict-align), by gcc 12, 14,
# 16 and clang 14, 21, 22, at -O0, -O2, -Os, for x86_64 and aarch64, disassembled:
# no FP/SIMD/SSE register anywhere (traps with FP off), no load or store
# shown to be unaligned (faults with the MMU off; check-insns.py says what
# "shown" covers).  Controls: the same build with SFU_SAFE_CODEGEN=0 must be
# caught, or the check would prove nothing.
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/codegen
mkdir -p "$out"
for arch in aarch64 x86_64; do
	cat >"$out/tu-$arch.c" <<C
/* The core and the port, with every port callback referenced (so emitted). */
#define SFU_IMPLEMENTATION
#define SFU_CACHE 1
#define SFU_INDEX 1
#define SFU_ERROR_STRINGS 1
#include "sfu_port_$arch.h"
sfu_port codegen_port = SFU_PORT_INIT(NULL, 0, 0);
C
done
WARN="-Wall -Wextra -Wundef -Werror"
# The bare-metal compilers of every suite, and clang 21 and 22 of the sid
# chroot (they ignored the spelling clang 14 takes for "no FP/SIMD" without a
# word): installed there once, here (the firmware suite's clang builds
# install them too).
codegen_compilers=("${bare_compilers[@]}"
	"clang21-x86_64|tools/toolchain.sh run sid clang-21 --target=x86_64-none-elf|x86_64"
	"clang21-aarch64|tools/toolchain.sh run sid clang-21 --target=aarch64-none-elf|aarch64"
	"clang22-x86_64|tools/toolchain.sh run sid clang-22 --target=x86_64-none-elf|x86_64"
	"clang22-aarch64|tools/toolchain.sh run sid clang-22 --target=aarch64-none-elf|aarch64"
)
if [ -f "$(tools/toolchain.sh path sid)/.sfu-ready" ]; then
	tools/toolchain.sh install sid clang-21 clang-22 >&2 || true
fi
check() { # NAME CC OBJDUMP ARCH FLAGS -> status of check-insns.py, report in $out/NAME.txt
	local name=$1 cc=$2 od=$3 arch=$4
	shift 4
	if ! $cc -std=c99 -ffreestanding -nostdlib -c $WARN -Icore -Iport/$arch "$@" "$out/tu-$arch.c" \
		-o "$out/$name.o" >"$out/$name.txt" 2>&1; then
		return 2
	fi
	$od -d --no-show-raw-insn "$out/$name.o" >"$out/$name.dis" || return 2
	python3 test/codegen/check-insns.py "$arch" "$out/$name.dis" >"$out/$name.txt"
}
for t in "${codegen_compilers[@]}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	od=objdump
	[ "$arch" = aarch64 ] && od=aarch64-linux-gnu-objdump
	need "codegen $tname" "${cc%% *}" "gcc-aarch64-linux-gnu clang" && need "codegen $tname" "$od" binutils-aarch64-linux-gnu ||
		continue
	for opt in -O0 -O2 -Os; do
		name="$tname$opt"
		check "$name" "$cc" "$od" "$arch" "$opt"
		case $? in
		0) pass "codegen $tname $opt" "no FP/SIMD register, no access shown unaligned" ;;
		2) fail "codegen $tname $opt" "does not build: $(head -3 "$out/$name.txt" | tr '\n' ' ')" ;;
		*) fail "codegen $tname $opt" "$(wc -l <"$out/$name.txt") unsafe instruction(s), e.g. $(head -1 "$out/$name.txt") ($out/$name.txt)" ;;
		esac
	done
	# The control: without the core's own target settings the same compiler
	# does emit what the check looks for (gcc -O0 keeps every byte load apart
	# and copies nothing through vector registers, so -O2 only).
	name="$tname-unsafe-O2"
	check "$name" "$cc" "$od" "$arch" -O2 -DSFU_SAFE_CODEGEN=0
	rc=$?
	nfp=$(grep -c '^fp' "$out/$name.txt")
	nal=$(grep -c '^align' "$out/$name.txt")
	if [ $rc = 2 ]; then
		fail "codegen $tname control" "does not build: $(head -3 "$out/$name.txt" | tr '\n' ' ')"
	elif [ "$nfp" = 0 ] || { [ "$arch" = aarch64 ] && [ "$nal" = 0 ]; }; then
		fail "codegen $tname control" "SFU_SAFE_CODEGEN=0 -O2 gave $nfp FP and $nal unaligned findings: the check would miss a regression"
	else
		pass "codegen $tname control" "SFU_SAFE_CODEGEN=0 -O2 caught ($nfp FP/SIMD, $nal unaligned)"
	fi
done
[ $fails = 0 ]
