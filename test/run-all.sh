#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every test suite and prints the total.  A suite is test/<name>/run.sh;
# it prints one line per test case, "ok <case>" or "FAIL <case>: <why>", and
# may print anything else (ignored here).  A suite that exits non-zero
# without printing a FAIL line counts as one failure of its own, so a crash
# is never silent.  The last line is "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
SUITES=${SFU_SUITES:-"freestanding codegen unit conformance lookup gen unwind firmware fuzz props install"}
pass=0 fail=0
mkdir -p build
for s in $SUITES; do
	script=test/$s/run.sh
	if [ ! -f "$script" ]; then
		echo "FAIL suite-$s: $script is missing"
		fail=$((fail + 1))
		continue
	fi
	echo "=== suite $s"
	start=$(date +%s)
	log=build/test-$s.log
	bash "$script" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL suite-$s: exited $rc without naming a failed case"
		f=1
	fi
	echo "=== suite $s: $p passed, $f failed ($(( $(date +%s) - start )) s)"
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
