#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lookup against the reference decoder: for every linked image of the
# conformance corpus (build/conformance, built by the conformance suite or
# here), every row's first and last byte and every function's next byte,
# by the core in both its shapes (SFU_FAST: the small one at -Os, the fast
# one at -O2; gcc), case names "ok [Os] lookup ...", "ok [O2] lookup ...".
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/lookup
corpus=build/conformance
shapes="Os O2"
mkdir -p "$out"
make -s -k -j2 --no-print-directory BUILD=build "$out/lookup-check-Os" "$out/lookup-check-O2" >"$out/prebuild.log" 2>&1
for s in $shapes; do
	if ! host_prog "$out/lookup-check-$s"; then
		fail "[$s] lookup build" "lookup-check does not compile (log $out/lookup-check-$s.build.log)"
		exit 1
	fi
done
if ! ls "$corpus"/*/*/*.elf >/dev/null 2>&1; then
	bash test/conformance/build-corpus.sh "$corpus" >"$out/corpus-build.log" 2>&1 ||
		{ fail "lookup corpus" "build-corpus.sh failed (see $out/corpus-build.log)"; exit 1; }
fi
n=0 rows=0 probes=0
for img in $(find "$corpus" -name '*.elf' | sort); do
	[ -f "$img.ref" ] || continue
	for s in $shapes; do
		line=$("$out/lookup-check-$s" "$img" "$img.ref" 2>&1)
		echo "$line" | grep -E '^(ok|FAIL) ' | head -9 | sed "s/^\(ok\|FAIL\) /\1 [$s] /"
		if ! echo "$line" | grep -qE '^(ok|FAIL) '; then
			fail "[$s] lookup $img" "no verdict (crashed?): $(echo "$line" | head -3)"
		fi
	done
	n=$((n + 1))
	rows=$((rows + $(echo "$line" | sed -n 's/.* \([0-9]*\) rows.*/\1/p' | head -1 | grep . || echo 0)))
	probes=$((probes + $(echo "$line" | sed -n 's/.* \([0-9]*\) probes.*/\1/p' | head -1 | grep . || echo 0)))
done
if [ "$n" = 0 ]; then
	fail "lookup corpus" "no linked images with references in $corpus"
	exit 1
fi
echo "lookup: $n images, $rows rows, $probes probes"
