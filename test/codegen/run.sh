#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The crash path is safe in any CPU state, whatever the flags: the core,
# each bare-metal port and the dump layer (crash/sfu_dump.h), built
# as a user's kernel file might be (plain
# -ffreestanding, no -mgeneral-regs-only, no -mstrict-align), by gcc 12, 14,
# 16 and clang 14, 21, 22, at -O0, -O2, -Os, for x86_64 and aarch64, disassembled:
# no FP/SIMD/SSE register anywhere (traps with FP off), no load or store
# shown to be unaligned (faults with the MMU off; check-insns.py says what
# "shown" covers).  Controls: the same build with SFU_SAFE_CODEGEN=0 must be
# caught, or the check would prove nothing.
#
# The README's own C blocks are crash-path code too (what a user writes
# around sfu): each block that is a translation unit is built as written
# (plain -ffreestanding, the same compilers and levels) and checked the same
# way; a block marked <!-- recipe: FILE --> that needs its file's context
# is checked as that file (examples' include paths, the file's board's
# arch).  Their control: test/codegen/user-control.c, a struct copy in user
# code, must be caught by every compiler at -O2.
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/codegen
mkdir -p "$out"
for arch in aarch64 x86_64; do
	cat >"$out/tu-$arch.c" <<C
/* The core (with its speed machinery), the port and the whole crash path,
 * every piece emitted (test/common/crash_tu.c). */
#define SFU_IMPLEMENTATION /* before the port's sfu.h: the bodies come with it */
#define SFU_CACHE 1
#define SFU_INDEX 1
#define SFU_DUMP_SYMTAB 1
#define SFU_ERROR_STRINGS 1 /* the port includes sfu.h first: the dump needs the texts */
#include "sfu_port_$arch.h"
#include "crash_tu.c"
#if !SFU_SAFE_CODEGEN
/* The control's own sample of what the alignment check looks for (the
 * core need not have one in every compiler's output: clang 21/22 merge
 * none of its byte stores once the step stores fewer): two constant bytes
 * at an odd offset, merged into one store, beside an aligned word. */
struct codegen_odd { unsigned int w; unsigned char pad, a, b; };
void codegen_odd_store(struct codegen_odd *s, unsigned int v);
void codegen_odd_store(struct codegen_odd *s, unsigned int v)
{
	s->w = v;
	s->a = 1;
	s->b = 2;
}
#endif
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
	if ! $cc -std=c99 -ffreestanding -nostdlib -c $WARN -Icore -Icrash -Iport/$arch -Iport -Itest/common "$@" "$out/tu-$arch.c" \
		-o "$out/$name.o" >"$out/$name.txt" 2>&1; then
		return 2
	fi
	$od -d --no-show-raw-insn "$out/$name.o" >"$out/$name.dis" || return 2
	python3 test/codegen/check-insns.py "$arch" "$out/$name.dis" >"$out/$name.txt"
}
# The cases below run two at a time (spawn, test/common/lib.sh): each is a
# function that prints its one result line and returns non-zero on failure
# (spawn_wait counts them).
# The TU turns on SFU_CACHE and SFU_INDEX, so the core's fast shape
# (SFU_FAST) at -O0 and -O2; at -Os the small one.
core_case() { # TNAME CC OBJDUMP ARCH OPT
	local tname=$1 cc=$2 od=$3 arch=$4 opt=$5 name=$1$5 shape=""
	[ "$opt" = -Os ] && shape=-DSFU_FAST=0
	check "$name" "$cc" "$od" "$arch" "$opt" $shape
	case $? in
	0) pass "codegen $tname $opt" "core, port, dump layer: no FP/SIMD register, no access shown unaligned" ;;
	2) fail "codegen $tname $opt" "does not build: $(head -3 "$out/$name.txt" | tr '\n' ' ')" && return 1 ;;
	*) fail "codegen $tname $opt" "$(wc -l <"$out/$name.txt") unsafe instruction(s), e.g. $(head -1 "$out/$name.txt") ($out/$name.txt)" && return 1 ;;
	esac
}
# The control: without the core's own target settings the same compiler
# does emit what the check looks for (gcc -O0 keeps every byte load apart
# and copies nothing through vector registers, so -O2 only).
control_case() { # TNAME CC OBJDUMP ARCH
	local tname=$1 cc=$2 od=$3 arch=$4 name=$1-unsafe-O2 rc nfp nal
	check "$name" "$cc" "$od" "$arch" -O2 -DSFU_SAFE_CODEGEN=0
	rc=$?
	nfp=$(grep -c '^fp' "$out/$name.txt")
	nal=$(grep -c '^align' "$out/$name.txt")
	if [ $rc = 2 ]; then
		fail "codegen $tname control" "does not build: $(head -3 "$out/$name.txt" | tr '\n' ' ')"
		return 1
	elif [ "$nfp" = 0 ] || { [ "$arch" = aarch64 ] && [ "$nal" = 0 ]; }; then
		fail "codegen $tname control" "SFU_SAFE_CODEGEN=0 -O2 gave $nfp FP and $nal unaligned findings: the check would miss a regression"
		return 1
	fi
	pass "codegen $tname control" "SFU_SAFE_CODEGEN=0 -O2 caught ($nfp FP/SIMD, $nal unaligned)"
}
for t in "${codegen_compilers[@]}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	od=objdump
	[ "$arch" = aarch64 ] && od=aarch64-linux-gnu-objdump
	need "codegen $tname" "${cc%% *}" "gcc-aarch64-linux-gnu clang" && need "codegen $tname" "$od" binutils-aarch64-linux-gnu ||
		continue
	for opt in -O0 -O2 -Os; do
		spawn 2 core_case "$tname" "$cc" "$od" "$arch" "$opt"
	done
	spawn 2 control_case "$tname" "$cc" "$od" "$arch"
done
spawn_wait

# ---------------------------------------------------------------------------
# The README's C blocks.
rd=$out/readme
rm -rf "$rd"
mkdir -p "$rd"
# bN.c per block; manifest lines "N FILE" (FILE: the recipe file, or -).
python3 - "$rd" <<'PY'
import re, sys
rd = sys.argv[1]
readme = open("README.md").read()
with open(rd + "/manifest", "w") as m:
    for n, blk in enumerate(re.finditer(r"(?:<!-- recipe: (\S+) -->\n)?```c\n(.*?)\n```", readme, re.S), 1):
        open("%s/b%d.c" % (rd, n), "w").write(blk.group(2) + "\n")
        m.write("%d %s\n" % (n, blk.group(1) or "-"))
        # In its file's context: the file up to the end of the block.
        if blk.group(1):
            try:
                text = open(blk.group(1)).read()
            except OSError:
                continue
            at = text.find(blk.group(2))
            if at >= 0:
                open("%s/c%d.c" % (rd, n), "w").write(text[:at + len(blk.group(2))] + "\n")
PY
# How each block is built: "tu ARCHES" (as written), "file FILE ARCH BOARD" (its
# recipe file up to the end of the block, in the examples' context: what
# the block needs is declared before it, and nothing after it is built),
# or "fragment" (statements, no translation unit: not built; listed).
board_arch() { sed -n 's/^arch *:= *//p' "examples/$1/board.mk"; }
readme_cc() { # CC ARCH SRC OBJ FLAGS... (FILE mode: examples' include paths)
	local cc=$1 arch=$2 src=$3 obj=$4
	shift 4
	$cc -std=gnu11 -ffreestanding -c -Icore -Icrash -Iport -Iport/$arch -Irtos -Iexamples/common "$@" "$src" -o "$obj"
}
readme_case() { # WHAT TNAME CC OBJDUMP ARCH SRC NAME OPT EXTRA-FLAGS
	local what=$1 tname=$2 cc=$3 od=$4 arch=$5 src=$6 name=$7 opt=$8 ebd=$9
	# shellcheck disable=SC2086
	if ! readme_cc "$cc" $arch "$src" "$rd/$name.o" $opt $ebd >"$rd/$name.txt" 2>&1; then
		fail "codegen readme $what $tname $opt" "does not build: $(head -3 "$rd/$name.txt" | tr '\n' ' ')"
		return 1
	fi
	$od -d --no-show-raw-insn "$rd/$name.o" >"$rd/$name.dis" &&
		python3 test/codegen/check-insns.py "$arch" "$rd/$name.dis" >"$rd/$name.txt"
	case $? in
	0) pass "codegen readme $what $tname $opt" "no FP/SIMD register, no access shown unaligned" ;;
	*) fail "codegen readme $what $tname $opt" "$(wc -l <"$rd/$name.txt") unsafe instruction(s), e.g. $(head -1 "$rd/$name.txt") ($rd/$name.txt)" && return 1 ;;
	esac
}
declare -A how
fragments=""
while read -r n file; do
	src=$rd/b$n.c
	arches=""
	for arch in x86_64 aarch64; do
		cc=gcc
		[ $arch = aarch64 ] && cc=aarch64-linux-gnu-gcc
		readme_cc "$cc" $arch "$src" "$rd/probe.o" -O0 2>/dev/null && arches="$arches $arch"
	done
	if [ -n "$arches" ]; then
		how[$n]="tu$arches"
	elif [ "$file" != - ] && [ -f "$rd/c$n.c" ]; then
		board=$(echo "$file" | sed -n 's,^examples/\([^/]*\)/.*,\1,p')
		# A common file (sched.c's thread table): in one board's context.
		[ "$board" = common ] && board=x86_64-pc
		if [ -n "$board" ] && [ -f "examples/$board/board.mk" ]; then
			how[$n]="file $file $(board_arch "$board") $board"
		else
			fail "codegen readme block $n" "the block of $file builds neither as written nor in its file's context (not under examples/BOARD/ or examples/common/)"
		fi
	else
		fragments="$fragments $n"
	fi
done <"$rd/manifest"
[ -n "$fragments" ] && pass "codegen readme blocks$fragments" "statements only (no translation unit, not crash-path code): not built"
nblocks=0
for n in "${!how[@]}"; do
	case ${how[$n]} in tu*) nblocks=$((nblocks + 1)) ;; esac
done
[ $nblocks -ge 1 ] || fail "codegen readme" "no README block builds as written: the step-1 recipe must"
for t in "${codegen_compilers[@]}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	od=objdump
	[ "$arch" = aarch64 ] && od=aarch64-linux-gnu-objdump
	command -v "${cc%% *}" >/dev/null 2>&1 && command -v "$od" >/dev/null 2>&1 || continue # said above
	for n in $(printf '%s\n' "${!how[@]}" | sort -n); do
		set -- ${how[$n]}
		case $1 in
		tu) [[ " ${*:2} " == *" $arch "* ]] || continue; src=$rd/b$n.c; what="block $n" ;;
		file) [ "$3" = "$arch" ] || continue; src=$rd/c$n.c; what="block $n (in $2)" ;;
		esac
		ebd=""
		[ "$1" = file ] && ebd="-Iexamples/$4 $(sed -n 's/^cflags *:= *//p' "examples/$4/board.mk")"
		for opt in -O0 -O2 -Os; do
			spawn 2 readme_case "$what" "$tname" "$cc" "$od" "$arch" "$src" "readme-b$n-$tname$opt" "$opt" "$ebd"
		done
	done
	spawn_wait
	# The control: user code that copies a struct is caught.
	name=user-control-$tname
	if ! $cc -std=gnu11 -ffreestanding -O2 -c test/codegen/user-control.c -o "$rd/$name.o" >"$rd/$name.txt" 2>&1; then
		fail "codegen readme control $tname" "does not build: $(head -3 "$rd/$name.txt" | tr '\n' ' ')"
		continue
	fi
	$od -d --no-show-raw-insn "$rd/$name.o" >"$rd/$name.dis"
	nfp=$(python3 test/codegen/check-insns.py "$arch" "$rd/$name.dis" | grep -c '^fp')
	if [ "$nfp" = 0 ]; then
		fail "codegen readme control $tname" "a struct copy in user code at -O2 gave no FP/SIMD finding: the README check would miss one"
	else
		pass "codegen readme control $tname" "a struct copy in user code at -O2 caught ($nfp FP/SIMD)"
	fi
done

# ---------------------------------------------------------------------------
# The user-side example files: what a user writes for sfu in each kernel
# style (docs/kernel-styles.md, examples/user-lines.sh), built as written
# with each board's plain flags (no -mgeneral-regs-only, as the images'
# `plain` files are) and checked the same way.  FILE:FUNCS checks only
# those functions of a file whose other code is the kernel's own (built
# with the kernel's safe flags in the images): rtos.c is the example RTOS's
# own code, its C handlers the vectors call (where a user's fault handler
# calls sfu) are checked.  A file under one board's folder (the RTOS
# images of rtos/: freertos, threadx, linux) is that board's only.
user_files="common/recipe.c common/sched-sfu.c BOARD/thread.c BOARD/kernel-trap.c BOARD/rtos-sfu.c
	BOARD/rtos.c:rtos_irq,rtos_fault,rtos_stack_overflow,rtos_handler_fault
	aarch64-virt/freertos-sfu.c aarch64-virt/freertos.c:vApplicationIRQHandler,freertos_fault,freertos_spx_fault
	aarch64-virt/threadx-sfu.c aarch64-virt/threadx.c:tx_irq_handler,tx_fault_handler,tx_overflow_fault
	aarch64-virt/linux-sfu.c aarch64-virt/linux.c:linux_el1_sync,linux_el1_irq,handle_bad_stack"
user_case() { # FILE FUNCS BOARD BOARD-CFLAGS TNAME CC OBJDUMP ARCH OPT
	local f=$1 funcs=$2 board=$3 bcf=$4 tname=$5 cc=$6 od=$7 arch=$8 opt=$9 name what
	what="$f${funcs:+ ($funcs)}"
	name=user-$board-$(basename "$f" .c)-$tname$opt
	# shellcheck disable=SC2086
	if ! readme_cc "$cc" $arch "$f" "$rd/$name.o" $opt -Iexamples/$board $bcf >"$rd/$name.txt" 2>&1; then
		fail "codegen user $what $tname $opt" "does not build: $(head -3 "$rd/$name.txt" | tr '\n' ' ')"
		return 1
	fi
	$od -d --no-show-raw-insn "$rd/$name.o" >"$rd/$name.dis"
	python3 test/codegen/check-insns.py "$arch" "$rd/$name.dis" >"$rd/$name.all"
	if [ -n "$funcs" ]; then
		grep -E "^[a-z]+: (${funcs//,/|}):" "$rd/$name.all" >"$rd/$name.txt"
	else
		cp "$rd/$name.all" "$rd/$name.txt"
	fi
	if [ -s "$rd/$name.txt" ]; then
		fail "codegen user $what $tname $opt" "$(wc -l <"$rd/$name.txt") unsafe instruction(s), e.g. $(head -1 "$rd/$name.txt") ($rd/$name.txt)"
		return 1
	fi
	pass "codegen user $what $tname $opt" "built with the board's plain flags: no FP/SIMD register, no access shown unaligned"
}
for t in "${codegen_compilers[@]}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	od=objdump
	[ "$arch" = aarch64 ] && od=aarch64-linux-gnu-objdump
	command -v "${cc%% *}" >/dev/null 2>&1 && command -v "$od" >/dev/null 2>&1 || continue # said above
	for board in aarch64-virt x86_64-pc; do
		[ "$(board_arch $board)" = "$arch" ] || continue
		bcf=$(sed -n 's/^cflags *:= *//p' "examples/$board/board.mk")
		for uf in $user_files; do
			f=examples/${uf%%:*}
			f=${f/BOARD/$board}
			case $uf in BOARD/* | common/* | $board/*) ;; *) continue ;; esac
			funcs=""
			[ "$uf" != "${uf#*:}" ] && funcs=${uf#*:}
			for opt in -O0 -O2 -Os; do
				spawn 2 user_case "$f" "$funcs" "$board" "$bcf" "$tname" "$cc" "$od" "$arch" "$opt"
			done
		done
	done
done
spawn_wait
[ $fails = 0 ] && [ $spawn_failed = 0 ]
