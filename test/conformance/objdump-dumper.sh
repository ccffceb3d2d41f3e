#!/bin/sh
# SPDX-License-Identifier: MIT
# objdump-dumper.sh [--raw] FILE - a stand-in for sfu-dump built from the
# reference tools, to test the harness itself:
#
#   test/conformance/run.sh build/conformance test/conformance/objdump-dumper.sh
#
# must report every file as passed.  V2/V3 files are dumped by sid's
# objdump (through tools/toolchain.sh, so FILE must be inside the
# repository); V1 files by the host's objdump 2.40 and normalize-v1.sh,
# which never applies relocations, so --raw needs no handling.  The
# version is read from the section's third byte.  This is the reference
# pipeline run a second time: it proves run.sh compares what it should,
# nothing about a decoder.
set -eu

[ "${1:-}" = --raw ] && shift
[ $# -eq 1 ] || { echo "usage: $0 [--raw] FILE" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
f=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")

case $(basename "$(dirname "$f")") in
x86_64) od=objdump ;;
aarch64*) od=aarch64-linux-gnu-objdump ;;
s390x) od=s390x-linux-gnu-objdump ;;
*) od=objdump ;;
esac

# Third byte of the section: the version.
ver=$(objdump -s -j .sframe "$f" | sed -n "/^Contents of section .sframe:/{n;s/^ [0-9a-f]* [0-9a-f]\{4\}\([0-9a-f]\{2\}\).*/\1/p;q}")
case $ver in
01)
	hex=$(mktemp)
	trap 'rm -f "$hex"' EXIT
	$od -s -j .sframe "$f" >"$hex"
	$od --sframe=.sframe "$f" |
		sed -n '/^Contents of the SFrame section \.sframe:$/,$p' |
		sh "$here/normalize-v1.sh" "$hex"
	;;
*)
	cd "$top"
	exec tools/toolchain.sh run sid $od --sframe=.sframe "${f#"$top"/}"
	;;
esac
