#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh OUTDIR SFU_DUMP - compare a dumper against the reference dumps.
#
#   test/conformance/run.sh build/conformance tools/sfu-dump
#
# For every FILE.ref under OUTDIR (written by build-corpus.sh), runs
# `SFU_DUMP FILE` - or `SFU_DUMP --raw FILE` when FILE.refinfo says raw=1
# (V1 relocatable objects, whose reference objdump 2.40 made without
# applying relocations) - keeps its output from the line
# "Contents of the SFrame section .sframe:" to the end, and compares it
# byte for byte with FILE.ref.  SFU_DUMP is split on blanks, so it may
# carry arguments ("valgrind -q tools/sfu-dump").
#
# Prints "ok FILE" or "FAIL FILE" and the first lines of the difference
# for each file, then the number of files, FDEs ("func idx [" lines) and
# FREs (rows) compared - counted in the references - and finally
# "N passed, N failed".  Exit status 1 if anything failed, 2 on misuse.
# With no arguments (as test/run-all.sh calls it): build tools/sfu-dump and
# the corpus (incrementally), then compare build/sfu-dump on build/conformance.
set -u

if [ $# -eq 0 ]; then
	cd "$(dirname "$0")/../.." || exit 2
	if ! make -s build/sfu-dump >build/conformance-tools.log 2>&1; then
		echo "FAIL conformance build-sfu-dump: see build/conformance-tools.log"
		tail -20 build/conformance-tools.log
		exit 1
	fi
	if ! test/conformance/build-corpus.sh build/conformance >build/conformance-corpus.log 2>&1; then
		echo "FAIL conformance build-corpus: see build/conformance-corpus.log"
		tail -20 build/conformance-corpus.log
		exit 1
	fi
	set -- build/conformance build/sfu-dump
fi
[ $# -eq 2 ] || { echo "usage: $0 [OUTDIR SFU_DUMP]" >&2; exit 2; }
out=$1
dump=$2
[ -d "$out" ] || { echo "run.sh: no directory $out" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sfu-conf.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

refs=$(find "$out" -name '*.ref' | LC_ALL=C sort)
[ -n "$refs" ] || { echo "run.sh: no *.ref under $out (run build-corpus.sh first)" >&2; exit 2; }

pass=0 fail=0 files=0 fdes=0 fres=0
for ref in $refs; do
	f=${ref%.ref}
	raw=
	case $(cat "$f.refinfo" 2>/dev/null) in
	*raw=1*) raw=--raw ;;
	esac
	files=$((files + 1))
	fdes=$((fdes + $(grep -c '^    func idx \[' "$ref")))
	fres=$((fres + $(grep -c '^    [0-9a-f]\{16\}  ' "$ref")))

	# shellcheck disable=SC2086 # SFU_DUMP may hold arguments
	$dump $raw "$f" >"$tmp/out" 2>"$tmp/err"
	st=$?
	sed -n '/^Contents of the SFrame section \.sframe:$/,$p' "$tmp/out" >"$tmp/got"
	if [ $st -eq 0 ] && cmp -s "$ref" "$tmp/got"; then
		echo "ok $f"
		pass=$((pass + 1))
		continue
	fi
	echo "FAIL $f"
	fail=$((fail + 1))
	[ $st -eq 0 ] || echo "    exit status $st: $(head -n 1 "$tmp/err")"
	diff -u "$ref" "$tmp/got" | sed -n '3,14s/^/    /p'
done

echo "compared: $files files, $fdes FDEs, $fres FREs"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
