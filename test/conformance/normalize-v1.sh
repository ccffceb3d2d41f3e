#!/bin/sh
# SPDX-License-Identifier: MIT
# normalize-v1.sh HEXDUMP < DUMP-2.40 > DUMP-2.47-STYLE
#
# Turns the SFrame V1 dump printed by objdump 2.40 (Debian bookworm) into
# what objdump 2.47 would print for the same section if it still read V1
# (2.47's libsframe refuses V1: "SFrame decode failure: Buffer does not
# contain SFrame data"; sfu-dump prints V1 in the 2.47 layout, so the
# references use it too).  Input: the objdump 2.40 output from the line
# "Contents of the SFrame section .sframe:" on.  HEXDUMP is
# `objdump -s -j .sframe FILE` (any objdump) for the same file: two header
# bytes that 2.47 prints and 2.40 does not come from there.
#
# Only the layout changes, never a value.  The differences, found by
# dumping the same assembly (corpus/cfi-*.S, corpus/big-*.S) built by
# binutils 2.40 (V1) and 2.44 (V2) with objdump 2.40 and 2.47 and diffing;
# each rule matches what the two versions of libsframe/sframe-dump.c do:
#
# 1. Header: 2.47 prints "    CFA fixed FP offset: N" and
#    "    CFA fixed RA offset: N" after the Flags line, each only when that
#    header byte (sfh_cfa_fixed_fp_offset at 5, sfh_cfa_fixed_ra_offset
#    at 6) is not 0 (SFRAME_CFA_FIXED_*_INVALID).  2.40 never prints them.
#    On x86_64 gas 2.40 writes RA = -8 and FP = 0, so V1 x86_64 dumps gain
#    "    CFA fixed RA offset: -8"; AArch64 writes 0 and 0 and gains nothing.
#
# 2. RA column: when the header has a fixed RA offset, 2.47 prints "f"
#    (fixed) where 2.40 prints "u", followed in both by the 3-character
#    mangled-RA marker ("[s]" or blanks) and padded to 13 columns.  So in
#    every FRE row of such a section the RA field "u" becomes "f".
#    Sections without a fixed RA offset (AArch64) keep "u" and "c-N".
#
# 3. Flags: 2.47 prints one flag per line, a comma after all but the last,
#    continuation lines indented to column 11, unknown bits as a decimal
#    number; 2.40 prints "NONE", "SFRAME_F_FDE_SORTED", or - a 2.40 bug,
#    strcpy instead of strcat - only "SFRAME_F_FRAME_POINTER" when both V1
#    flags are set.  The Flags line is rebuilt from the flags byte (offset
#    3), after checking that 2.40's text is what 2.40 prints for that
#    byte; the V1 flags are SFRAME_F_FDE_SORTED (1) and
#    SFRAME_F_FRAME_POINTER (2), named as the spec's flag table does for
#    V1.  gas and ld 2.40 only ever write 0 or SFRAME_F_FDE_SORTED, for
#    which the line is the same in both versions, so in practice this
#    rule only checks.
#
# Everything else is printed with the same format strings by both
# versions: "Version:", "Num FDEs/FREs:", the "func idx [N]: pc = 0x..,
# size = N bytes" line with ", pauth = B key", the "STARTPC[m]" header of
# PC-mask FDEs, and the FRE rows "    %016x  %-10s%-10s%-13s" (trailing
# blanks included).  Two 2.47 outputs have no V1 counterpart and need no
# rule: `attr = "S"`/`"F"` (V3 FDE bits) and "RA undefined" (an FRE with
# no data words: gas 2.40 ignores .cfi_undefined and never writes one -
# coverage.sh checks the section bytes and reports any).
#
# Not a formatting difference, and not handled here: objdump 2.47 applies
# the .rela.sframe relocations of a relocatable object before dumping it,
# 2.40 does not.  For V1 objects (*.o) the "pc =" values and STARTPC
# columns of the reference are therefore the unrelocated section contents
# (func start offsets of 0 in objects); run.sh compares them against
# `sfu-dump --raw`, which does not apply relocations either.
#
# sed and awk only (POSIX awk: mawk on a fresh Debian).
set -eu

[ $# -eq 1 ] || { echo "usage: $0 HEXDUMP < DUMP > NORMALIZED" >&2; exit 2; }

awk -v hexfile="$1" '
function die(msg) { print "normalize-v1.sh: " msg > "/dev/stderr"; failed = 1; exit 1 }
function hexval(s,   i, n) {
	n = 0
	s = tolower(s)
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
function s8(v) { return v >= 128 ? v - 256 : v }
BEGIN {
	# Header bytes 0-7 from the first "Contents of section .sframe:".
	nb = 0; insec = 0
	while ((getline line < hexfile) > 0) {
		if (line ~ /^Contents of section /) {
			if (insec) break
			insec = (line == "Contents of section .sframe:")
			continue
		}
		if (!insec || nb >= 8) continue
		n = split(line, w, " ")
		for (i = 2; i <= n && i <= 5 && nb < 8; i++)
			for (j = 1; j < length(w[i]) && nb < 8; j += 2)
				b[nb++] = hexval(substr(w[i], j, 2))
	}
	close(hexfile)
	if (nb < 8) die(hexfile ": no .sframe header bytes")
	if (b[0] == 222 && b[1] == 226) ;	# de e2: big-endian magic
	else if (b[0] == 226 && b[1] == 222) ;	# e2 de: little-endian
	else die(hexfile ": bad SFrame magic")
	if (b[2] != 1) die(hexfile ": not an SFrame V1 section")
	flags = b[3]; fixed_fp = s8(b[5]); fixed_ra = s8(b[6])

	# What 2.40 prints for this flags byte ...
	if (flags == 0) old = "NONE"
	else {
		old = ""
		if (and1(flags)) old = "SFRAME_F_FDE_SORTED"
		if (and2(flags)) old = "SFRAME_F_FRAME_POINTER"
	}
	# ... and what 2.47 prints.
	if (flags == 0) nf = split("NONE", newf, "|")
	else {
		rest = flags; nf = 0
		if (and1(rest)) { newf[++nf] = "SFRAME_F_FDE_SORTED"; rest -= 1 }
		if (and2(rest)) { newf[++nf] = "SFRAME_F_FRAME_POINTER"; rest -= 2 }
		if (rest) newf[++nf] = rest
	}
	state = "head"
}
function and1(v) { return v % 2 == 1 }
function and2(v) { return int(v / 2) % 2 == 1 }

state == "head" && /^    Version: / {
	if ($0 != "    Version: SFRAME_VERSION_1") die("not a V1 dump: " $0)
	print; next
}
state == "head" && /^    Flags: / {
	if ($0 != "    Flags: " old)
		die("flags line \"" $0 "\" does not match flags byte " flags)
	for (i = 1; i <= nf; i++)
		printf "%11s%s%s\n", (i == 1 ? "Flags: " : " "), newf[i], (i < nf ? "," : "")
	if (fixed_fp != 0) printf "    CFA fixed FP offset: %d\n", fixed_fp
	if (fixed_ra != 0) printf "    CFA fixed RA offset: %d\n", fixed_ra
	state = "body"; next
}

# FRE rows: "    %016x  %-10s%-10s%-13s" with CFA, FP and RA[marker]
# fields.  A field of 10 characters or more runs into the next one
# ("sp+1048608u"), so the fields are taken apart by their shape (each
# starts with letters and ends with digits), not by blanks.  Printing
# them back with the same format string must give back the input line;
# that is checked, so this can only ever change the RA letter.
state == "body" && /^    [0-9a-f]+  / && length($1) == 16 {
	rest = substr($0, 23)
	if (!match(rest, /^[a-z]+[+-][0-9]+ */)) die("bad CFA field: " $0)
	cfa = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
	if (!match(rest, /^(u|c[+-][0-9]+) */)) die("bad FP field: " $0)
	fp = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
	if (!match(rest, /^(u|c[+-][0-9]+)(\[s\])? *$/)) die("bad RA field: " $0)
	ra = rest
	sub(/ +$/, "", cfa); sub(/ +$/, "", fp); sub(/ +$/, "", ra)
	line = sprintf("    %s  %-10s%-10s%-13s", $1, cfa, fp, ra)
	if (line != $0) die("FRE row does not re-print the same: " $0)
	if (fixed_ra != 0) {
		if (substr(ra, 1, 1) != "u") die("fixed RA offset but RA column \"" ra "\": " $0)
		ra = "f" substr(ra, 2)
	}
	printf "    %s  %-10s%-10s%-13s\n", $1, cfa, fp, ra
	next
}
{ print }
END {
	if (failed) exit 1
	if (state != "body") die("no Flags line in the dump")
}
'
