#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make size: what sfu costs in bytes, the way users meet it, beside a
# baseline commit's figures made in the same run, and the worst-case stack
# of the walk and of the dump path.
#
# 1. Three images (test/size/images.py), for aarch64 and x86_64, gcc 12 (the
#    published figures) and clang 14, at -Os and -O2, each linked alone by
#    ld --gc-sections (test/size/image.ld) from objects built with a
#    kernel's flags (-ffreestanding -fno-builtin -fno-stack-protector
#    -fno-pic -fno-pie -ffunction-sections -fdata-sections, x86_64
#    -mno-red-zone): .text .rodata .data .bss of
#      core      the core alone, default knobs: sfu_section_split +
#                sfu_backtrace
#      step1     README.md's "Step 1" block as written (the startup stub,
#                test/size/stub.c, calls backtrace_here(); it lies in .stub,
#                not counted)
#      steps123  steps 1-3 as the README writes them.  What is not the
#                README's blocks verbatim, and nothing else:
#                - step 3's text: #include "sfu_threads.h" instead of
#                  "sfu_dump.h", and its description `{ ..._FIELDS(...),
#                  .threads = &ex_thread_table }` instead of step 1's;
#                - x86_64: the step-2 block's SFU_AARCH64_PT_REGS(...) is
#                  the x86_64 form the text names, SFU_X86_64_PT_REGS(start,
#                  end, struct regs); aarch64: the switch layout (the
#                  README's is x86_64's) is examples/aarch64-virt/thread.c's;
#                - the kernel's declarations (test/size/kernel_stub.h: the
#                  trap frame, the thread struct and array, the running
#                  thread; the extern declarations of the other file's
#                  objects) inserted after the step-1 file's #include;
#                - size_steps() in the step-1 file makes the calls the text
#                  names (sfu_dump_trap(&dump, NULL, frame), the thread
#                  dump); the stub calls it;
#                - an older README (before crash/): its step-1 block names
#                  ex_trap_layouts (the stub defines it for step1), its
#                  static thread table goes into the step-1 file, and
#                  sfu_dump_trap, which its text does not name, is called
#                  all the same.
#    A README whose text lacks a block or form these need stops make size
#    with the reason.  The same images of SIZE_BASE_REV (default 9738880,
#    main before the crash path moved to crash/; empty: none) from its tree
#    (git archive into build/size/base-src).  For step1 (gcc), where the
#    .text and .rodata go: the image's symbols by size, grouped by the header
#    that defines them (core, dump, layout, port).
# 2. The core's configurations, as before: test/size/core_tu.c
#    (SFU_IMPLEMENTATION, every function external) with bare-metal flags
#    (-Os -ffreestanding -nostdlib -fno-pic, -mgeneral-regs-only on aarch64),
#    gcc 12 and clang 14, in three configs:
#      full       V1+V2+V3, both byte orders, every ABI (the defaults)
#      smallest   one version, native byte order, the target's own ABI, no
#                 FLEX on aarch64 (gas does not emit it there): V3
#                 little-endian (-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 + ABI knobs)
#      indexed    full with SFU_INDEX and SFU_CACHE (the core under test only)
#    reporting the object (all) and the --gc-sections closure of
#    sfu_section_init + sfu_backtrace (backtrace), beside libgcc_eh.a's
#    unwind-dw2.o + unwind-dw2-fde-dip.o of the installed gcc 12.
# 3. The worst-case stack of one sfu_backtrace call (gcc's -fstack-usage
#    frames along the deepest path of its -fcallgraph-info=su call graph:
#    test/size/report.py) and of the dump path (crash/sfu_dump.h and
#    sfu_threads.h with the core and the port, the user's hooks excluded:
#    test/size/dump_tu.c, test/size/dump_stack.py).
# test/size/report.py prints the tables, the targets (met or missed), and
# one line per figure:
#   size: <image>[/clang][@<rev>] <arch> <opt> <section> <bytes>
#   stack: <arch>[@<rev>] <bytes>        stack: dump <arch> <bytes>
# and test/common/measurements.py writes them into docs/measurements.md and
# README.md's size block (between "<!-- size: begin -->" and
# "<!-- size: end -->"): generated, never copied.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd -P)
B=${SIZE_OUT:-build/size}
BASE_REV=${SIZE_BASE_REV-9738880}

missing=""
have_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
have_file() { [ -e "$1" ] || missing="$missing $2"; }
have_cmd gcc gcc
have_cmd clang clang
have_cmd ld binutils
have_cmd readelf binutils
have_cmd python3 python3
have_cmd aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
have_cmd aarch64-linux-gnu-ld binutils-aarch64-linux-gnu
have_cmd aarch64-linux-gnu-nm binutils-aarch64-linux-gnu
have_cmd git git
have_file /usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a gcc-12
have_file /usr/lib/gcc-cross/aarch64-linux-gnu/12/libgcc_eh.a libgcc-12-dev-arm64-cross
if [ -n "$missing" ]; then
	missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
	echo "size: missing Debian packages; install them with:" >&2
	echo "  apt-get update && apt-get install -y $missing" >&2
	exit 1
fi

rm -rf "$B"
mkdir -p "$B"
cores="new:$ROOT/core"
if [ -n "$BASE_REV" ]; then
	if ! git rev-parse -q --verify "$BASE_REV^{commit}" >/dev/null; then
		echo "size: SIZE_BASE_REV=$BASE_REV is not a commit of this repository (a shallow clone: git fetch --unshallow);" >&2
		echo "      SIZE_BASE_REV= (empty) measures without a baseline" >&2
		exit 1
	fi
	# Its tree as it was: the README's text, the core, the crash path
	# (crash/, or port/common/ before it), the examples the steps name.
	paths=""
	for p in README.md core crash port examples; do
		git cat-file -e "$BASE_REV:$p" 2>/dev/null && paths="$paths $p"
	done
	mkdir -p "$B/base-src"
	# shellcheck disable=SC2086
	git archive "$BASE_REV" $paths | tar -x -C "$B/base-src"
	cores="$cores base:$ROOT/$B/base-src/core"
	echo "$BASE_REV" >"$B/base-rev"
fi

COMMON="-std=c99 -Os -ffreestanding -nostdlib -fno-pic -Wall -Wextra -Wundef -Werror"
arch_flags() { case "$1" in aarch64) echo "-mgeneral-regs-only" ;; x86_64) echo "-mno-red-zone" ;; esac; }
cc_for() { # arch compiler
	case "$1-$2" in
	aarch64-gcc) echo "aarch64-linux-gnu-gcc" ;;
	x86_64-gcc) echo "gcc" ;;
	aarch64-clang) echo "clang --target=aarch64-none-elf" ;;
	x86_64-clang) echo "clang --target=x86_64-none-elf" ;;
	esac
}
ld_for() { case "$1" in aarch64) echo aarch64-linux-gnu-ld ;; x86_64) echo ld ;; esac; }
cfg_flags() { # config arch
	case "$1-$2" in
	full-*) echo "" ;;
	indexed-*) echo "-DSFU_INDEX=1 -DSFU_CACHE=1" ;;
	smallest-aarch64) echo "-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 -DSFU_AMD64=0 -DSFU_S390X=0 -DSFU_FLEX=0" ;;
	smallest-x86_64) echo "-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 -DSFU_AARCH64=0 -DSFU_S390X=0" ;;
	esac
}

for core in $cores; do
	who=${core%%:*}
	dir=${core#*:}
	for arch in aarch64 x86_64; do
		for comp in gcc clang; do
			for cfg in full smallest indexed; do
				[ "$who-$cfg" = base-indexed ] && continue
				d="$B/$who/$arch-$comp-$cfg"
				mkdir -p "$d"
				cc=$(cc_for $arch $comp)
				flags="$COMMON -I$dir $(arch_flags $arch) $(cfg_flags $cfg $arch)"
				echo "$cc $flags" >"$d/flags"
				# The whole API, and the stack data (gcc: call graph too).
				extra="-fstack-usage"
				[ $comp = gcc ] && extra="$extra -fcallgraph-info=su"
				(cd "$d" && $cc $flags $extra -c "$ROOT/test/size/core_tu.c" -o core.o) ||
					{ echo "size: $cc failed ($who $cfg)" >&2; exit 1; }
				if [ -n "$(nm -u "$d/core.o")" ]; then
					echo "size: $d/core.o has undefined symbols:" >&2
					nm -u "$d/core.o" >&2
					exit 1
				fi
				# What a panic handler links: gc from the two calls it makes.
				$cc $flags -ffunction-sections -fdata-sections -c test/size/core_tu.c -o "$d/core-fs.o"
				$(ld_for $arch) --gc-sections -e sfu_backtrace -u sfu_section_init -o "$d/backtrace.elf" "$d/core-fs.o"
			done
		done
	done
done

# libgcc's DWARF unwinder objects, as installed.
for arch in x86_64 aarch64; do
	case $arch in
	x86_64) a=/usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a ;;
	aarch64) a=/usr/lib/gcc-cross/aarch64-linux-gnu/12/libgcc_eh.a ;;
	esac
	mkdir -p "$B/libgcc-$arch"
	(cd "$B/libgcc-$arch" && ar x "$a" unwind-dw2.o unwind-dw2-fde-dip.o)
done

# The three images, of this tree and of the baseline's.
python3 test/size/images.py "$B/img" new=. ${BASE_REV:+"$BASE_REV=$B/base-src"}

# The dump path (crash/sfu_dump.h, sfu_threads.h): the dump layer with the
# core and the port, gcc -Os, the deepest stack of any of its entries (the
# user's output hook excluded, the port's callbacks included):
# test/size/dump_stack.py; report.py prints it.
for arch in aarch64 x86_64; do
	d="$B/dump/$arch-gcc"
	mkdir -p "$d"
	(cd "$d" && $(cc_for $arch gcc) $COMMON -I$ROOT/core -I$ROOT/crash -I$ROOT/port -I$ROOT/port/$arch $(arch_flags $arch) \
		-fstack-usage -fcallgraph-info=su -c "$ROOT/test/size/dump_tu.c" -o dump.o) ||
		{ echo "size: the dump layer does not build for $arch" >&2; exit 1; }
done
python3 test/size/dump_stack.py "$B/dump/aarch64-gcc" "$B/dump/x86_64-gcc" >"$B/dump.txt"

python3 test/size/report.py "$B" | tee "$B/table.txt"
# The figures users read: docs/measurements.md's block, the README's.
python3 test/common/measurements.py size "$B/table.txt"
python3 test/common/measurements.py size "$B/readme.md" README.md
