#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/core/sizes.sh RECORD... - what an extended crash record spends its
# bytes on, per thread, as a Markdown table (docs/crash-record.md quotes
# it).  Reads each record with build/sfu-crash; the sizes are the layout's
# (crash/sfu_crash.h): per thread 48 bytes of block header, 8 per
# known register, 25 per frame, and the stack window.  A RECORD named
# *.log is a serial log with the record's wire lines, or the hex lines of
# older firmware (sfu-crash --log).
set -u
cd "$(dirname "$0")/../.."
[ -x build/sfu-crash ] || make -s --no-print-directory BUILD=build build/sfu-crash || exit 1
echo "| record | thread | registers known | frames | window kept / wanted (whole frames) | thread bytes |"
echo "|---|---|---|---|---|---|"
for rec in "$@"; do
	case $rec in *.log) opt=--log ;; *) opt= ;; esac
	build/sfu-crash $opt "$rec" | awk -v rec="$(basename "$rec")" '
	/^extended: / { if (total) exit; total = $3; machine = $2; sub(/,$/, "", machine) }
	/^thread [0-9]+ "/ { if (name != "") row(); name = $3; nframes = 0 }
	/^  registers known:/ { nregs = NF - 2 }
	/^  stack window / { kept = $4; wanted = $6; whole = $8 }
	/^    #[0-9]+ pc / { nframes++ }
	function row() {
		printf "| %s (%s) | %s | %d (%d bytes) | %d (%d bytes) | %d / %d (%d) | %d |\n", rec, machine, name, nregs, 8 * nregs,
		    nframes, 25 * nframes, kept, wanted, whole, 48 + 8 * nregs + 25 * nframes + kept
	}
	END { if (name != "") row(); printf "| %s | whole record | | | | %d |\n", rec, total }'
done
