#!/bin/sh
# SPDX-License-Identifier: MIT
# mkref.sh FILE - write FILE.ref and FILE.refinfo for one corpus file.
# Called by corpus.mk's `refs` target, inside the toolchain that owns the
# reference dumper: sid (objdump 2.47) for the V2 and V3 files, the host
# (objdump 2.40) for the V1 files of bookworm.
#
# FILE.ref     objdump --sframe=.sframe output from the line
#              "Contents of the SFrame section .sframe:" to the end; for V1
#              files passed through normalize-v1.sh.
# FILE.refinfo one line: "skip REASON" (no .sframe section, or the
#              reference objdump failed on the file), or
#              "version=N fdes=N fres=N raw=0|1" where raw=1 means the
#              reference was made without applying relocations (V1
#              relocatable objects: objdump 2.40 does not apply them), so
#              the dumper under test must be run with --raw.
# FILE.referr  objdump's messages, if any.
#
# The objdump is the one for the file's architecture (its folder name):
# the host-architecture objdump opens AArch64 and s390x files only as
# generic ELF and then cannot apply their .rela.sframe relocations.
set -eu

f=$1
here=$(dirname "$0")
arch=$(basename "$(dirname "$f")")
case $arch in
x86_64) od=objdump ;;
aarch64*) od=aarch64-linux-gnu-objdump ;;
s390x) od=s390x-linux-gnu-objdump ;;
*) echo "mkref.sh: $f: unknown architecture folder '$arch'" >&2; exit 1 ;;
esac

rm -f "$f.ref" "$f.refinfo" "$f.referr"
case $f in
*/llvm/*/all-gnuld-*.elf)
	echo "skip GNU ld 2.47 refuses LLVM's SFrame V2 input (\"unexpected SFrame format version 2\"): the output .sframe is empty" >"$f.refinfo"
	exit 0 ;;
*/all-lld-*.elf | */llvm/*.elf | */llvm/*/ldr-*.o)
	echo "skip lld concatenates the .sframe input sections; objdump reads the first header only" >"$f.refinfo"
	exit 0 ;;
esac
if ! readelf -SW "$f" | grep -q '] \.sframe '; then
	echo "skip no .sframe section" >"$f.refinfo"
	exit 0
fi

tmp="$f.ref.tmp"
if ! $od --sframe=.sframe "$f" >"$tmp.full" 2>"$f.referr"; then
	# Kept in the corpus (it is still an input a decoder must survive),
	# but there is nothing to compare against.
	echo "skip $od failed: $(head -n 1 "$f.referr")" >"$f.refinfo"
	rm -f "$tmp.full"
	exit 0
fi
[ -s "$f.referr" ] || rm -f "$f.referr"
sed -n '/^Contents of the SFrame section \.sframe:$/,$p' "$tmp.full" >"$tmp"
if [ ! -s "$tmp" ]; then
	# objdump reports a decode failure (on stderr, or on stdout for an
	# empty section) and still exits with 0.
	why=$(if [ -s "$f.referr" ]; then cat "$f.referr"; fi
		grep -v -e "^$" -e ":     file format " "$tmp.full" || true)
	echo "skip $od printed no section: $(echo "$why" | head -n 1)" >"$f.refinfo"
	rm -f "$tmp" "$tmp.full"
	exit 0
fi
rm -f "$tmp.full"

version=$(sed -n 's/^    Version: SFRAME_VERSION_\([0-9]*\)$/\1/p' "$tmp" | head -n 1)
raw=0
case $version in
1)
	# objdump 2.40 knows only V1 and does not relocate; the header bytes
	# it leaves out come from a hex dump of the section.
	$od -s -j .sframe "$f" >"$tmp.hex"
	sh "$here/normalize-v1.sh" "$tmp.hex" <"$tmp" >"$tmp.norm" || {
		rm -f "$tmp" "$tmp.hex" "$tmp.norm"; exit 1; }
	rm -f "$tmp.hex"
	mv "$tmp.norm" "$tmp"
	case $f in *.o) raw=1 ;; esac
	;;
2 | 3) ;;
*)
	echo "mkref.sh: $f: unexpected version line in objdump output" >&2
	rm -f "$tmp"; exit 1 ;;
esac

fdes=$(grep -c '^    func idx \[' "$tmp" || true)
fres=$(grep -c '^    [0-9a-f]\{16\}  ' "$tmp" || true)
mv "$tmp" "$f.ref"
echo "version=$version fdes=$fdes fres=$fres raw=$raw" >"$f.refinfo"
