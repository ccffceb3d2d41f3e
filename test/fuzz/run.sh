#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/fuzz/run.sh - replay the fuzz corpora and regression inputs (make test).
#
# Builds each libFuzzer harness (build.sh) against the current core/ in the
# core's two shapes (SFU_FAST: the small one at -Os, the fast one at -O2),
# then runs each build once over its committed corpus
# (test/fuzz/corpus/<harness>/) and once per regression input
# (test/fuzz/regressions/<harness>/<name>, with <name>.note saying what it
# triggered).  No mutation, no time budget: deterministic and a few
# seconds.  One line per case and shape:
#   ok [Os] fuzz/<harness>/corpus       every corpus input passes
#   ok [O2] fuzz/<harness>/<name>       a regression input passes
#   FAIL [Os] fuzz/<harness>/...: <why>
# A harness that cannot be built (no clang, no libFuzzer) is a FAIL line
# with the apt-get command, never a skip.
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
. test/fuzz/build.sh

mkdir -p build/fuzz

# Why a replay failed: the property or sanitizer summary, and the input.
reason() {
	local log=$1 why input
	why=$(grep -m1 -E '^PROPERTY: |^SUMMARY: |ERROR: libFuzzer: ' "$log" | sed 's/^PROPERTY: //')
	input=$(grep '^Running: ' "$log" | tail -1 | sed 's/^Running: //')
	[ -n "$why" ] || why="exit status $2, $(tail -1 "$log")"
	echo "$why${input:+ (input $input)}"
}

replay() { # SHAPE HARNESS CASE NOTE FILES...
	local shape=$1 h=$2 name=$3 note=$4 out=build/fuzz/replay-$1 log rc
	shift 4
	log=$out/$h.$(echo "$name" | tr '/' '_').log
	timeout 120 "$out/$h" -timeout=20 -rss_limit_mb=2048 "$@" >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		pass "[$shape] fuzz/$h/$name"
	else
		fail "[$shape] fuzz/$h/$name" "$(reason "$log" $rc)${note:+ [known: $note]}"
	fi
}

if ! fuzz_toolchain_ok; then
	for h in $FUZZ_HARNESSES; do
		fail "fuzz/$h/build" "$FUZZ_BUILD_ERR"
	done
	exit 1
fi

for shape in Os O2; do
	out=build/fuzz/replay-$shape
	fuzz_build_all "$out" "$shape"
	for h in $FUZZ_HARNESSES; do
		if ! fuzz_build_one "$out" "$h" "$shape"; then
			fail "[$shape] fuzz/$h/build" "$FUZZ_BUILD_ERR (log $out/$h.log)"
			continue
		fi
		files=$(find "test/fuzz/corpus/$h" -type f 2>/dev/null | sort)
		if [ -z "$files" ]; then
			fail "[$shape] fuzz/$h/corpus" "no committed corpus in test/fuzz/corpus/$h (test/fuzz/mkseeds.sh makes one)"
		else
			# shellcheck disable=SC2086
			replay "$shape" "$h" corpus "" $files
		fi
		for r in $(find "test/fuzz/regressions/$h" -type f ! -name '*.note' 2>/dev/null | sort); do
			note=$(head -1 "$r.note" 2>/dev/null)
			replay "$shape" "$h" "$(basename "$r")" "$note" "$r"
		done
	done
done
[ $fails = 0 ]
