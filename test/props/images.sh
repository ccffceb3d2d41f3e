#!/bin/sh
# SPDX-License-Identifier: MIT
# images.sh OUTDIR - build the small images the property tests walk and the
# fuzz seeds come from, with every toolchain suite, and extract their
# .sframe sections.
#
#   sh test/props/images.sh build/props
#
# For each suite (bookworm V1, trixie V2, sid V3) and architecture
# (x86_64, aarch64, aarch64 with pac-ret, aarch64 big-endian, s390x on sid)
# it compiles src/frames.c and src/calls.c at -O0 and -O2 and _start
# (test/common/start-*.S), links an image with test/common/image.ld (and
# `ld -r` output, and for x86_64 and aarch64 a shared object whose PLT gets
# PC-mask FDEs), and writes next
# to each object and image FILE.sframe (the raw section bytes, objcopy -O
# binary) and a line in OUTDIR/manifest:
#
#   PATH.sframe ADDR SUITE ARCH KIND      (KIND: obj, elf, ldr or so)
#
# ADDR is the section's run-time address (0 for relocatable files, whose
# function starts are unrelocated).  OUTDIR must be inside the repository
# (the suites' chroots see only the repository).  Rebuilds only when a
# source is newer than the manifest.  Prints nothing unless a tool fails.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
mkdir -p "$1"
out=$(cd "$1" && pwd -P)
case $out in
"$top"/*) rel=${out#"$top"/} ;;
*) echo "images.sh: OUTDIR must be inside $top" >&2; exit 2 ;;
esac
cd "$top"

if [ "${IMAGES_ONE:-}" = "" ]; then
	# Up to date?
	if [ -f "$rel/manifest" ] && [ -z "$(find test/props/src test/props/images.sh test/common/start-*.S test/common/image.ld -newer "$rel/manifest" 2>/dev/null)" ]; then
		exit 0
	fi
	tools/toolchain.sh ensure trixie sid >&2
	: >"$rel/manifest.tmp"
	for s in bookworm trixie sid; do
		IMAGES_ONE=$s tools/toolchain.sh run "$s" sh test/props/images.sh "$rel" >>"$rel/manifest.tmp"
	done
	mv "$rel/manifest.tmp" "$rel/manifest"
	exit 0
fi

# Inside one suite (run by the loop above through tools/toolchain.sh).
suite=$IMAGES_ONE
src=test/props/src
common=test/common
arches="x86_64 aarch64 aarch64-pac aarch64_be"
[ "$suite" = sid ] && arches="$arches s390x"

log=$rel/$suite.log
: >"$log"
run() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; echo "images.sh: failed: $*" >&2; exit 1; }; }

# Section address from readelf -S (any architecture), "0" if none.
sfaddr() {
	readelf -SW "$1" | awk '$2 == ".sframe" { print "0x" $4; f = 1 } $3 == ".sframe" { print "0x" $5; f = 1 } END { if (!f) print "none" }' | head -1
}

for a in $arches; do
	d=$rel/$suite/$a
	mkdir -p "$d"
	case $a in
	x86_64) cc=gcc; fl=; ld="ld"; oc=objcopy; st=x86_64 ;;
	aarch64) cc=aarch64-linux-gnu-gcc; fl=; ld="aarch64-linux-gnu-ld"; oc=aarch64-linux-gnu-objcopy; st=aarch64 ;;
	aarch64-pac) cc=aarch64-linux-gnu-gcc; fl="-mbranch-protection=pac-ret+leaf"; ld="aarch64-linux-gnu-ld"; oc=aarch64-linux-gnu-objcopy; st=aarch64 ;;
	aarch64_be) cc=aarch64-linux-gnu-gcc; fl=-mbig-endian; ld="aarch64-linux-gnu-ld -EB"; oc=aarch64-linux-gnu-objcopy; st=aarch64 ;;
	s390x) cc=s390x-linux-gnu-gcc; fl=; ld="s390x-linux-gnu-ld"; oc=s390x-linux-gnu-objcopy; st=s390x ;;
	esac
	cflags="-g0 -fasynchronous-unwind-tables -fno-stack-protector -ffreestanding -fno-pic -fno-pie -Wa,--gsframe $fl"
	run $cc $cflags -c $common/start-$st.S -o "$d/start.o"
	so=
	for o in O0 O2; do
		run $cc $cflags -$o -c $src/frames.c -o "$d/frames-$o.o"
		run $cc $cflags -$o -c $src/calls.c -o "$d/calls-$o.o"
		run $ld -nostdlib -static -T $common/image.ld -o "$d/img-$o.elf" "$d/start.o" "$d/frames-$o.o" "$d/calls-$o.o"
		run $ld -r -o "$d/ldr-$o.o" "$d/start.o" "$d/frames-$o.o" "$d/calls-$o.o"
		# A shared object: the linker adds PLT FDEs (PC-mask ones on
		# x86_64).  x86_64 and aarch64 only: enough for the PLT shapes.
		case $a in
		x86_64|aarch64)
			run $cc $cflags -$o -fPIC -DWITH_PLT -c $src/calls.c -o "$d/calls-pic-$o.o"
			run $ld -shared -o "$d/plt-$o.so" "$d/calls-pic-$o.o"
			so=plt-$o.so:so ;;
		esac
		for f in frames-$o.o:obj img-$o.elf:elf ldr-$o.o:ldr $so; do
			file=$d/${f%:*}
			kind=${f#*:}
			addr=$(sfaddr "$file")
			[ "$addr" = none ] && continue
			run $oc -O binary --only-section=.sframe "$file" "$file.sframe"
			[ -s "$file.sframe" ] || continue
			echo "$file.sframe $addr $suite $a $kind"
		done
	done
done
