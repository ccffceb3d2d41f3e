#!/bin/sh
# SPDX-License-Identifier: MIT
# coverage.sh OUTDIR - what the conformance corpus covers, per suite and
# architecture, counted from the section bytes.
#
# For every corpus file with a reference dump (FILE.ref), the .sframe
# section is read from `objdump -s -j .sframe FILE` (raw bytes, no
# relocations: the fields counted here are never relocated) and walked
# with the layout of its version (V1 17-byte FDEs, V2 20-byte FDEs, V3
# 16-byte FDE index + 5-byte attribute in the FRE sub-section).  The
# columns count FDEs or FREs with the property:
#
#   files fdes fres  files compared, FDEs and FREs in their sections
#   a1 a2 a4         FDEs with FRE type ADDR1 / ADDR2 / ADDR4 (FRE start
#                    offsets of 1, 2, 4 bytes; objdump does not print it)
#   w1 w2 w4         FREs with 1-, 2-, 4-byte data words
#   w0               FREs with no data words (RA undefined, outermost)
#   ra[s]            FREs with the mangled-RA bit (pac-ret)
#   bkey             FDEs with the AArch64 pauth B-key bit
#   mask             FDEs of PC type MASK (PLT stubs)
#   sig              FDEs with the V3 signal-frame bit
#   flex             FDEs of V3 type FLEX
#   nofre            V3 FDEs without FREs (outermost function)
#   pcrel            sections with SFRAME_F_FDE_FUNC_START_PCREL
#   sorted unsorted  sections with / without SFRAME_F_FDE_SORTED
#   tail             sections with bytes after the FRE sub-section (the
#                    ELF section is longer than the header says)
#
# The walk is checked against the header (FDE and FRE counts, FRE
# sub-section length) and against the reference text (number of
# "func idx" lines and rows, "[s]", "[m]", attr "S"/"F", "RA undefined",
# "pauth = B key"); a mismatch is reported and makes the exit status 1.
# V1 sections must not contain FREs without data words (normalize-v1.sh
# relies on that).
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
od=${OBJDUMP:-objdump}

find "$out" -name '*.ref' | LC_ALL=C sort | while read -r ref; do
	f=${ref%.ref}
	rel=${f#"$out"/}
	echo "@file $rel"
	$od -s -j .sframe "$f" | sed -n '/^Contents of section .sframe:$/,/^Contents of section /p'
	echo "@ref"
	cat "$ref"
done | awk '
function die(msg) { print "coverage.sh: " file ": " msg > "/dev/stderr"; bad = 1 }
function hexval(s,   i, n) {
	n = 0
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
function u8(o) { if (o >= nb) { oob = 1; return 0 } return b[o] }
function u16(o) { return be ? u8(o) * 256 + u8(o + 1) : u8(o + 1) * 256 + u8(o) }
function u32(o) { return be ? u16(o) * 65536 + u16(o + 2) : u16(o + 2) * 65536 + u16(o) }
function add(k, n) { cnt[key, k] += n }

function walk(   ver, flags, hend, nfde, nfre, frelen, fdeoff, freoff,
	       fdesz, i, fb, info, info2, ftype, nfres, fo, p, j, asz, fi, nw, wsz, fres_seen, lastend) {
	if (nb < 28) { die("section shorter than a header"); return }
	if (b[0] == 222 && b[1] == 226) be = 1
	else if (b[0] == 226 && b[1] == 222) be = 0
	else { die("bad magic"); return }
	ver = b[2]; flags = b[3]
	hend = 28 + b[7]
	nfde = u32(8); nfre = u32(12); frelen = u32(16); fdeoff = u32(20); freoff = u32(24)
	fdesz = ver == 1 ? 17 : ver == 2 ? 20 : ver == 3 ? 16 : 0
	if (!fdesz) { die("unknown version " ver); return }
	add("files", 1); add("fdes", nfde); add("fres", nfre)
	if (int(flags / 4) % 2) add("pcrel", 1)
	if (flags % 2) add("sorted", 1); else add("unsorted", 1)
	fres_seen = 0; lastend = 0
	for (i = 0; i < nfde; i++) {
		fb = hend + fdeoff + i * fdesz
		if (ver == 3) {
			fo = hend + freoff + u32(fb + 12)
			nfres = u16(fo); info = u8(fo + 2); info2 = u8(fo + 3)
			p = fo + 5
			if (int(info / 128)) { add("sig", 1); rsig++ }
			if (info2 % 32 == 1) { add("flex", 1); rflex++ }
			if (nfres == 0) add("nofre", 1)
		} else {
			nfres = u32(fb + 12); info = u8(fb + 16)
			p = hend + freoff + u32(fb + 8)
		}
		ftype = info % 16
		if (int(info / 16) % 2) { add("mask", 1); rmask++ }
		if (int(info / 32) % 2) { add("bkey", 1); rbkey++ }
		if (ftype > 2) { die("FDE " i ": FRE type " ftype); return }
		add("a" (ftype == 0 ? 1 : ftype == 1 ? 2 : 4), 1)
		asz = ftype == 0 ? 1 : ftype == 1 ? 2 : 4
		for (j = 0; j < nfres; j++) {
			fi = u8(p + asz)
			nw = int(fi / 2) % 16
			wsz = int(fi / 32) % 4
			if (wsz > 2) { die("FDE " i " FRE " j ": data word size code 3"); return }
			wsz = wsz == 0 ? 1 : wsz == 1 ? 2 : 4
			if (nw == 0) {
				add("w0", 1); rundef++
				if (ver == 1) die("V1 FRE without data words (normalize-v1.sh assumes none)")
			} else add("w" wsz, 1)
			if (fi >= 128) { add("ras", 1); rmangled++ }
			p += asz + 1 + nw * wsz
		}
		fres_seen += nfres
		if (p > lastend) lastend = p
	}
	if (oob) die("walk ran past the end of the section")
	if (fres_seen != nfre) die("FRE count " fres_seen " != header " nfre)
	if (nfde && lastend - (hend + freoff) != frelen)
		die("FRE bytes " lastend - (hend + freoff) " != header " frelen)
	if (nb < hend + freoff + frelen) die("section shorter than its header says")
	if (nb > hend + freoff + frelen) add("tail", 1)
	hfde = nfde; hfre = nfre
}

function finish() {
	if (file == "") return
	walk()
	if (tfde != hfde) die("ref has " tfde " FDEs, section " hfde)
	if (tfre != hfre) die("ref has " tfre " FREs, section " hfre)
	if (ts != rmangled) die("ref has " ts " [s], section " rmangled)
	if (tm != rmask) die("ref has " tm " [m], section " rmask)
	if (tS != rsig) die("ref has " tS " signal FDEs, section " rsig)
	if (tF != rflex) die("ref has " tF " flex FDEs, section " rflex)
	if (tB != rbkey) die("ref has " tB " B-key FDEs, section " rbkey)
	if (tu != rundef) die("ref has " tu " RA undefined rows, section " rundef)
}

$1 == "@file" {
	finish()
	file = $2
	n = split(file, parts, "/")
	key = parts[1] SUBSEP parts[2]
	if (!((parts[1], parts[2]) in seen)) { seen[parts[1], parts[2]] = 1; keys[++nkeys] = key }
	nb = 0; oob = 0; mode = "hex"
	tfde = tfre = ts = tm = tS = tF = tB = tu = 0
	rmangled = rmask = rsig = rflex = rbkey = rundef = 0
	next
}
$1 == "@ref" { mode = "ref"; next }
mode == "hex" && /^ [0-9a-f]+ / {
	# " OFFS 0011aabb ccdd...  ascii": the hex groups end at the first
	# double blank (a short last line is padded with blanks).
	s = substr($0, 2)
	i = index(s, "  ")
	if (i) s = substr(s, 1, i - 1)
	n = split(s, g, " ")
	for (i = 2; i <= n; i++)
		for (j = 1; j < length(g[i]); j += 2) b[nb++] = hexval(substr(g[i], j, 2))
	next
}
mode == "ref" {
	if ($0 ~ /^    func idx \[/) {
		tfde++
		if ($0 ~ /attr = "[^"]*S/) tS++
		if ($0 ~ /attr = "[^"]*F/) tF++
		if ($0 ~ /pauth = B key/) tB++
	} else if ($0 ~ /^    STARTPC\[m\]/) tm++
	else if ($0 ~ /^    [0-9a-f]+  / && length($1) == 16) {
		tfre++
		if ($0 ~ /\[s\]/) ts++
		if ($0 ~ /  RA undefined$/) tu++
	}
}
END {
	finish()
	ncol = split("files fdes fres a1 a2 a4 w1 w2 w4 w0 ras bkey mask sig flex nofre pcrel sorted unsorted tail", col, " ")
	printf "%-9s %-11s", "suite", "arch"
	for (c = 1; c <= ncol; c++) printf " %6s", (col[c] == "ras" ? "ra[s]" : col[c])
	printf "\n"
	for (k = 1; k <= nkeys; k++) {
		split(keys[k], kp, SUBSEP)
		printf "%-9s %-11s", kp[1], kp[2]
		for (c = 1; c <= ncol; c++) { v = cnt[keys[k], col[c]] + 0; tot[c] += v; printf " %6d", v }
		printf "\n"
	}
	printf "%-9s %-11s", "total", ""
	for (c = 1; c <= ncol; c++) printf " %6d", tot[c]
	printf "\n"
	exit bad
}
'
