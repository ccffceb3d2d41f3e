#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/gen/embed.sh - the recipe of docs/sfu-gen-embed.md that links
# sfu-gen's section into a whole image, run as written (the doc's block),
# on a small image (code, a .rodata table, a string, .data) for x86_64 and
# aarch64, linked by GNU ld 2.40 and lld 14 with two linker scripts: one
# that places .rodata and .eh_frame itself (explicit) and one that leaves
# both to the linker (implicit, the case where a two-link recipe breaks).
#
#   embed/ARCH/LD/SCRIPT            the recipe succeeds (its step 4 passes);
#                                   the image's bytes at [__sframe_start,
#                                   __sframe_end), read here with objcopy,
#                                   are sfu-gen's section for the final
#                                   image at that address; sfu-dump
#                                   --validate reads them and finds an FDE
#                                   at each function's linked address
#   embed/ARCH/LD/SCRIPT/two-links  the two-link recipe (the section made
#                                   for the first link's address) on the
#                                   same image: examples/sframe-gen.sh
#                                   check refuses it exactly when those
#                                   bytes are not sfu-gen's for the final
#                                   image (implicit: refused with GNU ld)
#   embed/objdump                   objdump 2.47 (sid) prints every final
#                                   section as sfu-dump does
# and the same recipe and checks on a higher-half image (script "higher":
# x86_64 at 0xffffffff80000000, -mcmodel=kernel; aarch64 at
# 0xffff000000080000), whose addresses the shell's signed arithmetic
# cannot hold: sframe-gen.sh check must pass there too.  The recipe's
# sfu-gen is build/bin/sfu-gen, the one `make gen` builds.
#
# Run by test/gen/run.sh; alone: bash test/gen/embed.sh (after make gen build/sfu-gen build/sfu-dump).
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
ROOT=$PWD
OUT=$ROOT/build/gen/embed
DOC=docs/sfu-gen-embed.md
rm -rf "$OUT"
mkdir -p "$OUT"

need embed ld.lld-14 lld-14 || exit 1
need embed aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu || exit 1
for t in build/bin/sfu-gen build/sfu-gen build/sfu-dump; do
	[ -x $t ] || { fail embed "$t missing: make gen build/sfu-gen build/sfu-dump"; exit 1; }
done

# The doc's block: the fenced block after the marker line.
awk '/^<!-- test\/gen\/embed.sh runs the next block/ { m = 1; next }
	m == 1 && /^```sh$/ { m = 2; next }
	m == 2 && /^```$/ { exit }
	m == 2 { print }' "$DOC" >"$OUT/recipe.sh"
if ! grep -q 'sframe-gen.sh check' "$OUT/recipe.sh"; then
	fail embed "no recipe block (with its check) after the marker in $DOC"
	exit 1
fi

cat >"$OUT/k.c" <<'EOF'
static const char *const names[] = { "zero", "one", "two", "three" };
volatile int sink;
int counter = 3;
__attribute__((noinline)) const char *name(int i) { return names[i & 3]; }
__attribute__((noinline)) int leaf(int x) { sink = x; return x * 3; }
__attribute__((noinline)) int mid(int x)
{
	int a[8];
	for (int i = 0; i < 8; i++)
		a[i] = leaf(x + i);
	return a[x & 7] + name(x)[0];
}
void _start(void)
{
	for (;;)
		counter += mid(counter);
}
EOF
# .sfu_sframe after .text; .rodata and .eh_frame placed by the script...
cat >"$OUT/explicit.ld" <<'EOF'
ENTRY(_start)
SECTIONS {
	. = 0x40080000;
	.text : { *(.text .text.*) }
	.rodata : { *(.rodata .rodata.*) }
	INCLUDE sframe-gen.ld
	.eh_frame : { KEEP(*(.eh_frame)) }
	.data : { *(.data .data.*) }
	.bss : { *(.bss .bss.* COMMON) }
}
EOF
# ...or by the linker; and a higher-half kernel's layout (its base below).
sed 's/^\t\. = 0x40080000;$/\t. = HIGHER;/' "$OUT/explicit.ld" >"$OUT/higher.ld.in"
# ...or by the linker.
cat >"$OUT/implicit.ld" <<'EOF'
ENTRY(_start)
SECTIONS {
	. = 0x40080000;
	.text : { *(.text .text.*) }
	INCLUDE sframe-gen.ld
	.data : { *(.data .data.*) }
	.bss : { *(.bss .bss.* COMMON) }
}
EOF

# sym ELF NAME: the symbol's address, hex without 0x.
sym() {
	nm "$1" | awk -v n="$2" '$3 == n { print $1; exit }'
}

# hexdiff A B: A - B in decimal (hex operands, as sym gives them), by
# 32-bit halves: a higher-half address does not fit the shell's arithmetic.
hexdiff() {
	local a b
	a=$(printf '%16s' "$1" | tr ' ' 0)
	b=$(printf '%16s' "$2" | tr ' ' 0)
	echo $(((0x${a:0:8} - 0x${b:0:8}) * 4294967296 + 0x${a:8} - 0x${b:8}))
}

# verdict ELF: 0 when the image's bytes at [__sframe_start, __sframe_end)
# are sfu-gen's section for it at __sframe_start (read here with objcopy,
# independently of sframe-gen.sh); the reason on stdout otherwise.
verdict() {
	local elf=$1 dir start end secaddr
	dir=$(dirname "$elf")
	start=$(sym "$elf" __sframe_start) end=$(sym "$elf" __sframe_end)
	secaddr=$(readelf -SW "$elf" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".sfu_sframe" { print $3 }')
	[ -n "$secaddr" ] || { echo "no .sfu_sframe"; return 1; }
	$OBJCOPY -O binary --only-section=.sfu_sframe "$elf" "$dir/held.all" || { echo "objcopy failed"; return 1; }
	tail -c +$(($(hexdiff "$start" "$secaddr") + 1)) "$dir/held.all" | head -c "$(hexdiff "$end" "$start")" >"$dir/held.bin"
	build/sfu-gen --raw "$dir/want.bin" --addr "0x$start" "$elf" >"$dir/want.log" 2>&1 ||
		{ echo "sfu-gen on the final image: $(head -1 "$dir/want.log")"; return 1; }
	[ -s "$dir/want.bin" ] || { echo "sfu-gen made an empty section"; return 1; }
	cmp -s "$dir/held.bin" "$dir/want.bin" ||
		{ echo "the $(hexdiff "$end" "$start") bytes at __sframe_start are not sfu-gen's $(wc -c <"$dir/want.bin") for the final image"; return 1; }
}

od_list=()
for arch in x86_64 aarch64; do
	case $arch in
	x86_64) CC=gcc OBJCOPY=objcopy ld_gnu=ld higher=0xffffffff80000000 model=-mcmodel=kernel ;;
	aarch64) CC=aarch64-linux-gnu-gcc OBJCOPY=aarch64-linux-gnu-objcopy ld_gnu=aarch64-linux-gnu-ld higher=0xffff000000080000 model= ;;
	esac
	sed "s/HIGHER/$higher/" "$OUT/higher.ld.in" >"$OUT/higher-$arch.ld"
	if ! $CC -O2 -ffreestanding -fno-pic -fno-stack-protector -fasynchronous-unwind-tables $model \
		-c "$OUT/k.c" -o "$OUT/k-$arch.o" 2>"$OUT/k-$arch.log"; then
		fail "embed/$arch" "cc failed: $(head -1 "$OUT/k-$arch.log")"
		continue
	fi
	for ld in gnu lld14; do
		case $ld in
		gnu) ldcmd="$ld_gnu --no-warn-rwx-segments" ;;
		lld14) ldcmd="ld.lld-14" ;;
		esac
		for script in explicit implicit higher; do
			n=embed/$arch/$ld/$script
			d=$OUT/$arch/$ld/$script
			mkdir -p "$d/two"
			ln -s "$ROOT" "$d/sfu"
			ln -s "$ROOT" "$d/two/sfu"
			ld_script=$OUT/$script.ld
			[ $script = higher ] && ld_script=$OUT/higher-$arch.ld
			LD="$ldcmd -nostdlib -static -L sfu/linker -T $ld_script $OUT/k-$arch.o"
			# As written, in a shell that stops at the first error.
			if ! (cd "$d" && CC=$CC LD=$LD sh -e "$OUT/recipe.sh") >"$d/recipe.log" 2>&1; then
				fail "$n" "the recipe failed: $(grep -v warning "$d/recipe.log" | tail -2 | tr '\n' ' ')"
				continue
			fi
			if ! why=$(verdict "$d/kernel.elf"); then
				fail "$n" "$why"
				continue
			fi
			$OBJCOPY --rename-section .sfu_sframe=.sframe "$d/kernel.elf" "$d/sframe.elf"
			if ! build/sfu-dump --validate "$d/sframe.elf" >"$d/sframe.sd" 2>"$d/sframe.sderr" || [ -s "$d/sframe.sderr" ]; then
				fail "$n" "sfu-dump --validate: $(head -1 "$d/sframe.sderr")"
				continue
			fi
			missing=
			for f in _start name leaf mid; do
				grep -q "pc = 0x$(sym "$d/kernel.elf" $f | sed 's/^0*//')," "$d/sframe.sd" || missing="$missing $f"
			done
			if [ -n "$missing" ]; then
				fail "$n" "sfu-dump shows no FDE at the linked address of:$missing"
				continue
			fi
			od_list+=("$d/sframe.elf")
			pass "$n" "the recipe as written: __sframe_start 0x$(sym "$d/kernel.elf" __sframe_start | sed 's/^0*//'), $(wc -c <"$d/sframe.bin") bytes = sfu-gen's for the image; $(grep -c 'pc = ' "$d/sframe.sd") FDEs at the functions' addresses (sfu-dump --validate)"

			# The two-link recipe: steps 1 and 3 only.
			if ! (cd "$d/two" && CC=$CC LD=$LD sh -e -c "$(sed -n '/^gen() {/,/^}/p' "$OUT/recipe.sh")
				\$LD -o kernel0.elf && gen kernel0.elf && \$LD -o kernel.elf sframe.o") >"$d/two/recipe.log" 2>&1; then
				fail "$n/two-links" "links failed: $(grep -v warning "$d/two/recipe.log" | tail -2 | tr '\n' ' ')"
				continue
			fi
			fits=yes
			why=$(verdict "$d/two/kernel.elf") || fits="no ($why)"
			(cd "$d/two" && sh sfu/examples/sframe-gen.sh check sframe.bin kernel.elf) >"$d/two/check.log" 2>&1
			rc=$?
			case $fits/$rc in
			yes/0) pass "$n/two-links" "the section fits the final image and step 4 accepts it" ;;
			no*/1) pass "$n/two-links" "step 4 refuses it: $(head -2 "$d/two/check.log" | tr '\n' ' ')" ;;
			*) fail "$n/two-links" "section fits: $fits; step 4 exit status $rc: $(head -2 "$d/two/check.log" | tr '\n' ' ')" ;;
			esac
		done
	done
done

# objdump 2.47 reads the final sections as sfu-dump does (one chroot call).
if [ ${#od_list[@]} -gt 0 ]; then
	tools/toolchain.sh run sid sh -c 'for g; do
		case $g in */aarch64/*) od=aarch64-linux-gnu-objdump ;; *) od=objdump ;; esac
		$od --sframe=.sframe "$g" 2>"$g.oderr" | sed -n "/^Contents of the SFrame section \.sframe:\$/,\$p" >"$g.od"
	done' sh "${od_list[@]}"
	bad=
	for g in "${od_list[@]}"; do
		{ cmp -s "$g.od" "${g%.elf}.sd" && ! [ -s "$g.oderr" ]; } || bad="$bad ${g#"$OUT"/}"
	done
	if [ -n "$bad" ]; then
		fail embed/objdump "objdump 2.47 and sfu-dump differ on:$bad"
	else
		pass embed/objdump "${#od_list[@]} images: objdump 2.47 --sframe = sfu-dump"
	fi
fi
[ $fails = 0 ]
