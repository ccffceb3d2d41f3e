#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/fuzz/run-fuzz.sh - fuzz every harness for FUZZ_SECONDS each (make fuzz).
#
#   FUZZ_SECONDS=180 FUZZ_JOBS=1 bash test/fuzz/run-fuzz.sh
#
# Builds the harnesses (build.sh) in the core's shape FUZZ_SHAPE (O2 by
# default, the fast one, SFU_FAST=1 at -O2: the most code; Os for the
# small one), then runs each one for FUZZ_SECONDS
# (default 180; FUZZ_SECONDS_<harness> for one of them), FUZZ_JOBS
# (default 1) harnesses at a time, in the order of build.sh, on a working
# copy of its committed corpus (build/fuzz/work/<harness>; the committed
# corpus is not touched).
# A finding stops libFuzzer; the harness is restarted for the time left, up
# to FUZZ_MAX_FINDINGS (default 3) distinct findings (by the failure's
# message); the same failure twice ends that harness.  Every finding is copied into
# test/fuzz/regressions/<harness>/new-<hash> with a .note holding what broke,
# for a human to name and commit.  Prints per harness: executions, edges
# covered (libFuzzer's cov:), findings.  Exits non-zero if anything was
# found or a harness could not be built.
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
. test/fuzz/build.sh

all_secs=${FUZZ_SECONDS:-180}
jobs=${FUZZ_JOBS:-1}
max_findings=${FUZZ_MAX_FINDINGS:-3}
shape=${FUZZ_SHAPE:-O2}
out=build/fuzz
bin=$out/bin-$shape
status=0

if ! fuzz_toolchain_ok; then
	echo "run-fuzz.sh: $FUZZ_BUILD_ERR" >&2
	exit 1
fi
for h in $FUZZ_HARNESSES; do
	if ! fuzz_build_one "$bin" "$h" "$shape"; then
		echo "run-fuzz.sh: cannot build $h: $FUZZ_BUILD_ERR (log $bin/$h.log)" >&2
		exit 1
	fi
done

# fuzz_one HARNESS: fuzz it for $secs; its summary line into $out/$h.summary,
# exit status non-zero on a finding.
fuzz_one() {
	local h=$1 work=$out/work/$1 art=$out/artifacts/$1 reg=test/fuzz/regressions/$1
	local execs=0 edges=0 found=0 run=0 seen="" files="" status=0 start left log rc e c why crash sig sum dest
	local v=FUZZ_SECONDS_$1 secs
	secs=${!v:-$all_secs}
	rm -rf "$work" "$art"
	mkdir -p "$work" "$art" "$reg"
	cp test/fuzz/corpus/$h/* "$work/" 2>/dev/null || true
	start=$(date +%s)
	while :; do
		left=$((secs - ($(date +%s) - start)))
		[ "$left" -gt 0 ] || break
		run=$((run + 1))
		log=$out/$h.run$run.log
		echo "run-fuzz.sh: $h: fuzzing for ${left}s (run $run)" >&2
		"$bin/$h" -max_total_time="$left" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$art/" "$work" >"$log" 2>&1
		rc=$?
		e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		c=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
		execs=$((execs + ${e:-0}))
		[ "${c:-0}" -gt "$edges" ] && edges=${c:-0}
		[ $rc = 0 ] && break
		# A finding: what broke, and the input libFuzzer saved.
		why=$(grep -m1 -E '^PROPERTY: |^SUMMARY: ' "$log" | sed 's/^PROPERTY: //')
		[ -n "$why" ] || why="libFuzzer exit status $rc"
		crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		if [ -z "$crash" ] || [ ! -f "$crash" ]; then
			echo "run-fuzz.sh: $h stopped ($why) without saving an input; log $log" >&2
			found=$((found + 1))
			status=1
			break
		fi
		status=1
		# The same failure again: not a new finding; stop this harness.
		sig=$(echo "$why" | sed 's/ (.*//')
		case "$seen" in *"|$sig|"*)
			echo "run-fuzz.sh: $h: the same failure again ($why); stopping" >&2
			break ;;
		esac
		seen="$seen|$sig|"
		sum=$(sha1sum "$crash" | cut -c1-40)
		dest=$reg/new-$(echo "$sum" | cut -c1-12)
		if ! cmp -s "$crash" "$dest" 2>/dev/null; then
			cp "$crash" "$dest"
			echo "$why (found by run-fuzz.sh; name this file and commit it)" >"$dest.note"
		fi
		found=$((found + 1))
		files="$files $dest"
		echo "run-fuzz.sh: $h: finding: $why -> $dest" >&2
		# A seed that fails would stop every restart at once: drop it
		# from the working copy.
		(cd "$work" && sha1sum -- * 2>/dev/null | awk -v s="$sum" '$1 == s { print $2 }' | xargs -r rm -f --)
		[ "$found" -lt "$max_findings" ] || break
	done
	echo "$h: executions $execs in ${secs}s, edges $edges, findings $found${files:+ ($(echo $files))}" >"$out/$h.summary"
	return $status
}

for h in $FUZZ_HARNESSES; do
	spawn "$jobs" fuzz_one "$h"
done
spawn_wait
[ "$spawn_failed" = 0 ] || status=1
summary=""
total=0
for h in $FUZZ_HARNESSES; do
	line=$(cat "$out/$h.summary" 2>/dev/null || echo "$h: no summary (see $out/$h.run*.log)")
	echo "$line"
	summary="$summary$line
"
	total=$((total + $(echo "$line" | sed -n 's/.*executions \([0-9]*\).*/\1/p')))
done
summary="${summary}total: executions $total
"
echo "=== fuzz summary ($jobs at a time)"
printf '%s' "$summary"
exit $status
