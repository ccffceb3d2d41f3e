#!/bin/sh
# SPDX-License-Identifier: MIT
# check-sframe.sh -- check the .sframe of each example image with the GNU
# tools; used by `make -C examples check`.
#
#   check-sframe.sh IMAGE...
#
# Per image: __sframe_start/__sframe_end exist and bracket a non-empty
# .sframe section; objdump --sframe reads exactly one header (GNU ld merged
# the per-object sections), flagged SFRAME_F_FDE_SORTED, with FDEs in
# ascending order; every function defined in a C object has an FDE (the
# assembly files have no CFI and so no FDE); chain_e's noreturn call is
# its last instruction and chain_b starts right after it; the pac-ret
# images (image.env: ex_pac) have mangled-RA rows and the others have none.
# The lld-linked images get the checks that hold for concatenated sections:
# bracketed, section == span, first header not sorted.  The images whose
# .sframe sfu-gen made (image.env: ex_sframe=gen) get the merged checks on
# linker/sframe-gen.ld's section .sfu_sframe, whichever the linker, read by
# binutils 2.47's objdump (sfu-gen writes SFrame V3), and libgcc's
# functions must have FDEs too.  Prints "ok <check>" / "FAIL <check>: why"
# lines and "N passed, N failed".
# Environment: OBJDUMP_<arch>, NM_<arch>, READELF_<arch>, OBJDUMP_GEN_<arch>
# (for V3; default: the sid chroot's, tools/toolchain.sh run sid ...).
set -u
[ $# -gt 0 ] || { echo "usage: $0 IMAGE..." >&2; exit 2; }
here=$(dirname "$0")
pass=0 fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for elf; do
	img=$(basename "$elf" .elf)
	img=${img#sfu-}
	if [ ! -f "$elf" ] || [ ! -f "$(dirname "$elf")/image.env" ]; then
		bad "sframe/$img" "$elf missing (make -C examples first)"
		continue
	fi
	. "$(dirname "$elf")/image.env"
	case $ex_arch in
	x86_64) objdump=${OBJDUMP_x86_64:-objdump} nm=${NM_x86_64:-nm} readelf=${READELF_x86_64:-readelf} ;;
	*) eval "objdump=\${OBJDUMP_$ex_arch:-$ex_arch-linux-gnu-objdump}"
		eval "nm=\${NM_$ex_arch:-$ex_arch-linux-gnu-nm}"
		eval "readelf=\${READELF_$ex_arch:-$ex_arch-linux-gnu-readelf}" ;;
	esac
	sec=.sframe
	if [ "$ex_sframe" = gen ]; then
		sec=.sfu_sframe
		eval "objdump=\${OBJDUMP_GEN_$ex_arch:-tools/toolchain.sh run sid $([ "$ex_arch" = x86_64 ] || echo "$ex_arch-linux-gnu-")objdump}"
	fi

	start=$($nm "$elf" | awk '$3 == "__sframe_start" { print $1 }')
	end=$($nm "$elf" | awk '$3 == "__sframe_end" { print $1 }')
	# Section header: address and size of the section.
	set -- $($readelf -SW "$elf" | sed 's/^ *\[ *[0-9]*\] *//' | awk -v s=$sec '$1 == s { print $3, $5 }')
	saddr=${1:-} ssize=${2:-}
	echo "--- $img: __sframe_start=0x$start __sframe_end=0x$end; $sec at 0x$saddr size 0x$ssize"
	if [ -z "$start" ] || [ -z "$end" ]; then
		bad "sframe/$img/symbols" "__sframe_start or __sframe_end missing"
		continue
	fi
	if [ -z "$saddr" ]; then
		bad "sframe/$img/section" "no $sec section"
		continue
	fi
	start_d=$(printf '%d' "0x$start") end_d=$(printf '%d' "0x$end")
	saddr_d=$(printf '%d' "0x$saddr") ssize_d=$(printf '%d' "0x$ssize")
	# The section lies within the span (GNU ld may reserve more, see
	# linker/sframe.ld); sframe-gen.ld's is the span and its LONG(0).
	if [ "$ex_sframe" = gen ]; then
		inside=$(( saddr_d + ssize_d - 4 == end_d ))
	else
		inside=$(( saddr_d + ssize_d <= end_d ))
	fi
	if [ "$ssize_d" -gt 4 ] && [ "$start_d" -eq "$saddr_d" ] && [ "$inside" = 1 ]; then
		ok "sframe/$img/bracketed"
	else
		bad "sframe/$img/bracketed" "symbols do not bracket a non-empty .sframe"
	fi
	# GNU ld reserves the pre-merge size (see linker/sframe.ld).
	echo "    section $ssize_d bytes, symbols span $((end_d - start_d)) bytes"

	case $ex_link$ex_sframe in
	lldas)
		# lld concatenates: objdump reads only the first of the
		# per-object sections (the image's hello scenario walks them
		# all); the section is exactly the span, and not sorted.
		$objdump --sframe=.sframe "$elf" >"$tmp/dump" 2>&1
		grep 'Version:\|Flags:\|Num FDEs:' "$tmp/dump" | sed 's/^ */    /'
		if [ $((saddr_d + ssize_d)) -eq "$end_d" ]; then
			ok "sframe/$img/exact-span"
		else
			bad "sframe/$img/exact-span" "lld output should end at __sframe_end"
		fi
		if grep -q 'Flags:.*SFRAME_F_FDE_SORTED' "$tmp/dump"; then
			bad "sframe/$img/unmerged" "first header flagged sorted: merged after all?"
		else
			ok "sframe/$img/unmerged"
		fi
		continue ;;
	esac

	dumped=$elf
	if [ "$ex_sframe" = gen ]; then
		# objdump --sframe reads only a section called .sframe: a copy
		# with the section renamed (beside the image: the chroot's
		# objdump sees the build tree, not /tmp).
		dumped=${elf%.elf}.sframe.elf
		${objdump%objdump}objcopy --rename-section $sec=.sframe "$elf" "$dumped"
	fi
	$objdump --sframe=.sframe "$dumped" >"$tmp/dump" 2>&1
	[ "$dumped" = "$elf" ] || rm -f "$dumped"
	headers=$(grep -c '^  Header :' "$tmp/dump")
	nfdes=$(awk '/Num FDEs:/ { print $3; exit }' "$tmp/dump")
	grep 'Version:\|Flags:\|Num FDEs:\|Num FREs:' "$tmp/dump" | sed 's/^ */    /'
	if [ "$headers" -eq 1 ]; then
		ok "sframe/$img/one-section"
	else
		bad "sframe/$img/one-section" "$headers SFrame headers (not merged?)"
	fi
	if grep -q 'Flags:.*SFRAME_F_FDE_SORTED' "$tmp/dump"; then
		ok "sframe/$img/sorted-flag"
	else
		bad "sframe/$img/sorted-flag" "SFRAME_F_FDE_SORTED not set"
	fi
	awk '/func idx/ { sub(/,$/, "", $6); print $6 }' "$tmp/dump" >"$tmp/fdes"
	if [ "${nfdes:-0}" -gt 0 ] && [ "$(wc -l <"$tmp/fdes")" -eq "$nfdes" ]; then
		ok "sframe/$img/fdes"
	else
		bad "sframe/$img/fdes" "Num FDEs ${nfdes:-?}, listed $(wc -l <"$tmp/fdes")"
	fi
	# Ascending start addresses (fixed-width hex from printf sorts as text).
	while read -r pc; do printf '%016x\n' "$pc"; done <"$tmp/fdes" >"$tmp/fdes.hex"
	if sort -c "$tmp/fdes.hex" 2>/dev/null; then
		ok "sframe/$img/ascending"
	else
		bad "sframe/$img/ascending" "FDE start addresses out of order"
	fi

	# Functions of the C objects (and libgcc's, sfu-gen's images): each
	# must start an FDE.
	{
		for obj in "$(dirname "$elf")"/*.o; do
			src=$(basename "$obj" .o)
			[ -f "$here/common/$src.c" ] || [ -f "$here/$ex_board/$src.c" ] || continue
			$nm --defined-only "$obj" | awk '$2 ~ /^[Tt]$/ { print $3 }'
		done
		[ "$ex_sframe" = gen ] && echo __udivmodti4
	} | sort -u >"$tmp/cfuncs"
	# The image's symbols once (the first text definition of each name),
	# then each C function's address looked up among the FDE starts.
	$nm "$elf" >"$tmp/syms"
	awk -v fdes="$tmp/fdes.hex" -v syms="$tmp/syms" '
		BEGIN {
			while ((getline l < fdes) > 0)
				fde[l] = 1
			while ((getline l < syms) > 0)
				if (split(l, w, " ") == 3 && w[2] ~ /^[Tt]$/ && !(w[3] in addr))
					addr[w[3]] = w[1]
		}
		$1 in addr {
			total++
			a = addr[$1]
			while (length(a) < 16)
				a = "0" a
			if (!(a in fde)) {
				printf "    no FDE for %s at 0x%s\n", $1, addr[$1]
				missing++
			}
		}
		END { printf "count %d %d\n", total, missing }' "$tmp/cfuncs" >"$tmp/cfcheck"
	grep -v '^count ' "$tmp/cfcheck"
	set -- $(awk '$1 == "count" { print $2, $3 }' "$tmp/cfcheck")
	total=${1:-0} missing=${2:-0}
	if [ "$missing" -eq 0 ] && [ "$total" -gt 0 ]; then
		ok "sframe/$img/all-c-functions ($total functions)"
	else
		bad "sframe/$img/all-c-functions" "$missing of $total C functions have no FDE"
	fi

	# chain_e ends in a call to a noreturn function and chain_b follows it
	# without padding: the return address is chain_b's first byte.  clang
	# aligns x86_64 functions to 16 bytes whatever -falign-functions says
	# (image.env: ex_cc): there chain_b is at the next 16-byte boundary, the
	# return address in the padding, and the rule is the gcc images' to test.
	set -- $($nm -S "$elf" | awk '$4 == "chain_e" { print $1, $2 } $3 == "chain_b" { b = $1 } $4 == "chain_b" { b = $1 } END { print b }')
	if [ $# -eq 3 ] && [ $(( 0x$1 + 0x$2 )) -eq $(( 0x$3 )) ]; then
		ok "sframe/$img/noreturn-ra-is-next-function"
	elif [ $# -eq 3 ] && [ "$ex_arch" = x86_64 ] && case $ex_cc in *clang*) true ;; *) false ;; esac &&
		[ $(( 0x$3 % 16 )) -eq 0 ] && [ $(( 0x$3 - 0x$1 - 0x$2 )) -gt 0 ] && [ $(( 0x$3 - 0x$1 - 0x$2 )) -lt 16 ]; then
		ok "sframe/$img/noreturn-ra-before-next-function (clang: chain_b 16-byte aligned, $(( 0x$3 - 0x$1 - 0x$2 )) bytes of padding)"
	else
		bad "sframe/$img/noreturn-ra-is-next-function" "chain_e ($*) is not directly followed by chain_b"
	fi

	mangled=$(grep -c '\[s\]' "$tmp/dump")
	case $ex_pac in
	1) [ "$mangled" -gt 0 ] && ok "sframe/$img/mangled-ra ($mangled rows)" ||
		bad "sframe/$img/mangled-ra" "no mangled-RA rows in a pac-ret build" ;;
	*) [ "$mangled" -eq 0 ] && ok "sframe/$img/no-mangled-ra" ||
		bad "sframe/$img/no-mangled-ra" "$mangled mangled-RA rows without pac-ret" ;;
	esac
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
