#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/fuzz/run.sh - replay the fuzz corpora and regression inputs (make test).
#
# Builds each libFuzzer harness (build.sh) against the current core/, then
# runs it once over its committed corpus (test/fuzz/corpus/<harness>/) and
# once per regression input (test/fuzz/regressions/<harness>/<name>, with
# <name>.note saying what it triggered).  No mutation, no time budget:
# deterministic and a few seconds.  One line per case:
#   ok fuzz/<harness>/corpus            every corpus input passes
#   ok fuzz/<harness>/<name>            a regression input passes
#   FAIL fuzz/<harness>/...: <why>
# A harness that cannot be built (no clang, no libFuzzer) is a FAIL line
# with the apt-get command, never a skip.
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
. test/fuzz/build.sh

out=build/fuzz/replay
mkdir -p "$out"

# Why a replay failed: the property or sanitizer summary, and the input.
reason() {
	local log=$1 why input
	why=$(grep -m1 -E '^PROPERTY: |^SUMMARY: |ERROR: libFuzzer: ' "$log" | sed 's/^PROPERTY: //')
	input=$(grep '^Running: ' "$log" | tail -1 | sed 's/^Running: //')
	[ -n "$why" ] || why="exit status $2, $(tail -1 "$log")"
	echo "$why${input:+ (input $input)}"
}

replay() { # HARNESS CASE NOTE FILES...
	local h=$1 name=$2 note=$3 log rc
	shift 3
	log=$out/$h.$(echo "$name" | tr '/' '_').log
	timeout 120 "$out/$h" -timeout=20 -rss_limit_mb=2048 "$@" >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		pass "fuzz/$h/$name"
	else
		fail "fuzz/$h/$name" "$(reason "$log" $rc)${note:+ [known: $note]}"
	fi
}

if ! fuzz_toolchain_ok; then
	for h in $FUZZ_HARNESSES; do
		fail "fuzz/$h/build" "$FUZZ_BUILD_ERR"
	done
	exit 1
fi

for h in $FUZZ_HARNESSES; do
	if ! fuzz_build_one "$out" "$h"; then
		fail "fuzz/$h/build" "$FUZZ_BUILD_ERR (log $out/$h.log)"
		continue
	fi
	files=$(find "test/fuzz/corpus/$h" -type f 2>/dev/null | sort)
	if [ -z "$files" ]; then
		fail "fuzz/$h/corpus" "no committed corpus in test/fuzz/corpus/$h (test/fuzz/mkseeds.sh makes one)"
	else
		# shellcheck disable=SC2086
		replay "$h" corpus "" $files
	fi
	for r in $(find "test/fuzz/regressions/$h" -type f ! -name '*.note' 2>/dev/null | sort); do
		note=$(head -1 "$r.note" 2>/dev/null)
		replay "$h" "$(basename "$r")" "$note" "$r"
	done
done
[ $fails = 0 ]
