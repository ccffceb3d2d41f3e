#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make size: code size and worst-case stack use of the core, beside the core
# of a baseline commit and libgcc's DWARF unwinder.
#
# For aarch64 and x86_64, with gcc 12 and clang 14, and for three configs:
#   full       V1+V2+V3, both byte orders, every ABI (the defaults)
#   smallest   one version, native byte order, the target's own ABI, no
#              FLEX on aarch64 (gas does not emit it there): V3 little-endian
#              (-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 + ABI knobs)
#   indexed    full with SFU_INDEX and SFU_CACHE (the core under test only)
# it compiles test/size/core_tu.c (SFU_IMPLEMENTATION, every function
# external) with bare-metal flags and reports
#   all        .text / .rodata of the object: the whole API
#   backtrace  .text / .rodata after a --gc-sections link rooted at
#              sfu_section_init + sfu_backtrace: what a panic handler pays
# for the core under test (core/) and the core of SIZE_BASE_REV (none by
# default: the page docs/measurements.md gets the figures; a commit id adds its core beside, from git), then libgcc_eh.a's unwind-dw2.o +
# unwind-dw2-fde-dip.o of the installed gcc 12 for the same arch, and the
# worst-case stack of one sfu_backtrace call: gcc's -fstack-usage frames
# summed along the deepest path of its -fcallgraph-info=su call graph
# (test/size/report.py).  Ends with one line per figure:
#   size: <config> <arch> <bytes of .text>     stack: <arch> <bytes>
# and the worst-case stack of the dump layer's path (crash/sfu_dump.h:
# walk and formatting, the user's output hook excluded):
#   stack: dump <arch> <bytes>
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd -P)
B=${SIZE_OUT:-build/size}
BASE_REV=${SIZE_BASE_REV-}

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
	mkdir -p "$B/base-src/core"
	if git show "$BASE_REV:core/sfu.h" >"$B/base-src/core/sfu.h" 2>/dev/null &&
		git show "$BASE_REV:core/sfu_format.h" >"$B/base-src/core/sfu_format.h" 2>/dev/null; then
		cores="$cores base:$ROOT/$B/base-src/core"
		echo "$BASE_REV" >"$B/base-rev"
	else
		echo "size: note: no core at $BASE_REV in this repository's history; no baseline columns" >&2
	fi
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

python3 test/size/report.py "$B" | tee "$B/table.txt"
# docs/measurements.md gets this table, unless it compares with a baseline
# commit (SIZE_BASE_REV=, empty, for the page; measurements.py says so).
python3 test/common/measurements.py size "$B/table.txt" || true

# The dump path (crash/sfu_dump.h): the dump layer with the core and
# the port, gcc -Os, the deepest stack of any of its entries (the user's
# output hook excluded, the port's callbacks included): test/size/dump_stack.py.
echo
echo "worst-case stack of the dump path (crash/sfu_dump.h + core + port; gcc -Os; the user's hooks excluded):"
for arch in aarch64 x86_64; do
	d="$B/dump/$arch-gcc"
	mkdir -p "$d"
	(cd "$d" && $(cc_for $arch gcc) $COMMON -I$ROOT/core -I$ROOT/crash -I$ROOT/port -I$ROOT/port/$arch $(arch_flags $arch) \
		-fstack-usage -fcallgraph-info=su -c "$ROOT/test/size/dump_tu.c" -o dump.o) ||
		{ echo "size: the dump layer does not build for $arch" >&2; exit 1; }
done
python3 test/size/dump_stack.py "$B/dump/aarch64-gcc" "$B/dump/x86_64-gcc" | tee "$B/dump.txt"
