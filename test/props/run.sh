#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/props/run.sh - walk properties on real sections, and the core's
# arithmetic warnings (make test).
#
# 1. props/warnings/<compiler>: core/sfu.h compiled with -Wcast-align
#    -Wconversion -Wsign-conversion (on top of -Wall -Wextra -Wundef),
#    freestanding, in two configurations (defaults, the small shape;
#    SFU_STATIC with every optional part on, the fast shape), by gcc and
#    clang for the host and by cross
#    compilers for 32-bit and strict-alignment targets.  gcc gets
#    -Wcast-align=strict, since its plain -Wcast-align says nothing on
#    targets that allow unaligned access.  Any warning fails the case with
#    the count; the full list is in build/props/warnings-<compiler>.txt.
# 2. props/validate-linear: sfu_section_validate on a section whose FDEs
#    all share one FRE block must cost about what a well-formed section of
#    the same size costs (linear.c; CPU time, generous margin).
# 3. props/walk/<image> and props/chain/<image>: test/props/images.sh
#    builds small images with gcc 12 (V1), 14 (V2) and 16 (V3) for x86_64,
#    aarch64 (plain, pac-ret, big-endian) and s390x; props.c walks each one
#    PROPS_WALKS times (default 10000) under ASan+UBSan (see props.c), the
#    walks shared out between the core's two shapes (SFU_FAST): the first
#    half by the small shape (-Os), the second by the fast one (-O2), both
#    built by gcc; case names "ok [Os] props/walk/...", "ok [O2] ...".
# Prints one "ok <case>" or "FAIL <case>: <why>" line per case; < 1 minute.
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/props
mkdir -p "$out"

# ---- 1. warnings ------------------------------------------------------------
WFLAGS="-std=c99 -ffreestanding -c -Wall -Wextra -Wundef -Wcast-align -Wconversion -Wsign-conversion"
printf '#define SFU_IMPLEMENTATION\n#include "sfu.h"\n' >"$out/w-default.c"
printf '#define SFU_STATIC\n#define SFU_IMPLEMENTATION\n#define SFU_FP_FALLBACK 1\n#define SFU_ERROR_STRINGS 1\n#define SFU_FAST 1\n#include "sfu.h"\nconst void *sfu_keep[] = { (const void *)sfu_backtrace, (const void *)sfu_strerror, (const void *)sfu_errname, (const void *)sfu_section_validate };\n' >"$out/w-all.c"

warn_case() { # NAME PACKAGE CC FLAGS...
	local name=$1 pkg=$2 cc=$3 txt=$out/warnings-$1.txt n first
	shift 3
	need "props/warnings/$name" "$cc" "$pkg" || return
	: >"$txt"
	for cfg in default all; do
		"$cc" $WFLAGS "$@" -Icore -o /dev/null "$out/w-$cfg.c" >>"$txt" 2>&1 ||
			echo "error: $cc failed on w-$cfg.c" >>"$txt"
	done
	n=$(grep -cE 'warning:|error:' "$txt")
	if [ "$n" = 0 ]; then
		pass "props/warnings/$name"
	else
		first=$(grep -m1 -E 'warning:|error:' "$txt" | sed 's|^.*core/||')
		fail "props/warnings/$name" "$n warnings (first: $first; all in $txt)"
	fi
}
warn_case gcc-x86_64 gcc gcc -Wcast-align=strict
warn_case clang-x86_64 clang clang
warn_case clang-i386 clang clang --target=i386-unknown-none
warn_case clang-armv7m clang clang --target=armv7m-none-eabi
warn_case clang-aarch64 clang clang --target=aarch64-none-elf
warn_case gcc-aarch64 gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc -Wcast-align=strict

# ---- 2. validate stays linear on hostile sections ------------------------------
if host_prog "$out/linear"; then
	"$out/linear" || fails=$((fails + 1))
else
	fail props/validate-linear "does not build: $(grep -m1 -E 'error|warning' "$out/linear.build.log")"
fi

# ---- 3. walk properties on real images ---------------------------------------
if ! sh test/props/images.sh "$out" >"$out/images.log" 2>&1; then
	fail props/images "cannot build the test images ($(tail -1 "$out/images.log")); the toolchain chroots come from: make toolchains"
	exit 1
fi
walks=${PROPS_WALKS:-10000}
make -s -k -j2 --no-print-directory BUILD=build "$out/props-Os" "$out/props-O2" >"$out/prebuild.log" 2>&1
first=0
for shape in Os O2; do
	if ! host_prog "$out/props-$shape"; then
		fail "[$shape] props/build" "$(grep -m1 -E 'error|warning' "$out/props-$shape.build.log") (log $out/props-$shape.build.log)"
		continue
	fi
	n=$((walks / 2))
	[ "$shape" = O2 ] && n=$((walks - walks / 2))
	"$out/props-$shape" "$out/manifest" "$n" "$first" | sed "s/^\(ok\|FAIL\) /\1 [$shape] /"
	[ "${PIPESTATUS[0]}" = 0 ] || fails=$((fails + 1))
	first=$((first + n))
done
[ $fails = 0 ]
