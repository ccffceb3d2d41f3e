#!/bin/sh
# SPDX-License-Identifier: MIT
# matrix.sh -- boot every scenario on every image, every way its board
# boots; `make -C examples matrix`.  (Exit statuses only:
# test/firmware/run.sh also checks every trace, frame by frame.)
#
#   matrix.sh OUTDIR IMAGE...
#
# Per image (its image.env): every scenario of common/scenario.c's EX_SCENARIO list (or
# those in EX_SCENARIOS) once per way its board boots (board.mk's boots),
# an unknown scenario (status 4, EX_USAGE), and on GNU ld images the timer
# with one instruction per translation block.  Boots through boot.sh, which
# prints each boot's serial output and an "ok NAME" / "FAIL NAME: why"
# line; logs go to OUTDIR/logs.  A scenario that test/firmware/expected.txt
# marks n/a for the image (irqnest where no interrupt can nest), or that
# the image's board.mk `scenarios` list leaves out, is not booted: a "#
# IMAGE/HOW/SCENARIO not run: WHY" line instead.  Then "N
# passed, N failed"; exits 1 if a boot did not end with its scenario's
# status.
set -u
out=${1:?usage: matrix.sh OUTDIR IMAGE...}
shift
here=$(dirname "$0")
scenarios=${EX_SCENARIOS:-$(sh "$here/boot.sh" -L | cut -d' ' -f1)}
# (A release tarball has no test/: every scenario is booted on every image.)
expected=$here/../test/firmware/expected.txt
pass=0 fail=0

boot() { # NAME BOOT.SH-ARGS...
	n=$1
	shift
	if sh "$here/boot.sh" -n "$n" -l "$out/logs/$(echo "$n" | tr / _).log" "$@" </dev/null; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

for image; do
	. "$(dirname "$image")/image.env"
	first=
	while read -r how opts; do
		[ -n "$how" ] || continue
		: "${first:=$how}"
		for s in $scenarios; do
			case " ${ex_scenarios:-$s} " in
			*" $s "*) ;;
			*) echo "# $ex_image/$how/$s not run: $ex_scenarios_why"; continue ;;
			esac
			na=
			[ -f "$expected" ] && na=$(awk -v s="$s" -v names=" $ex_arch $ex_board $ex_variant $ex_image $ex_sframe ${ex_like:-} " \
				-f "$here/../test/firmware/expect.awk" "$expected")
			case $na in
			n/a*) echo "# $ex_image/$how/$s not run: ${na#n/a }"; continue ;;
			esac
			# shellcheck disable=SC2086
			boot "$ex_image/$how/$s" $opts "$image" "$s"
		done
	done <<BOOTS
$ex_boots
BOOTS
	boot "$ex_image/$first/usage" "$image" no-such-scenario
	case " ${ex_scenarios:-timer} " in
	*" timer "*) [ "$ex_link" = lld ] || boot "$ex_image/$first/timer-1insn" -1 "$image" timer ;;
	*) echo "# $ex_image/$first/timer-1insn not run: $ex_scenarios_why" ;;
	esac
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
