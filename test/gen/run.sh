#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/gen/run.sh - tools/sfu-gen: bad input, and row equivalence of its
# sections with those of every other producer of the same code.
#
#   bad-input   damaged and unsupported files: a clear error, exit 1, no
#               output file, no sanitizer report (sfu-gen is built with
#               ASan+UBSan); unrepresentable CFI: the function is omitted
#               and named, the rest is described.
#   gen/...     every file of the conformance corpus (build/conformance)
#               whose .sframe GNU as/ld or LLVM wrote, x86_64 and aarch64
#               (both byte orders): sfu-gen's section from the same file's
#               .eh_frame must give the same CFA/RA/FP rule at every
#               address (gen-check.c); every difference is classified.
#               sfu-gen writes the version of the reference (V1 files: V3).
#   clang/...   the same on clang's code assembled by GNU as
#               (-fno-integrated-as -Wa,--gsframe): clang 22 with GNU as
#               2.47 (sid), clang 14 with GNU as 2.40 (host); on aarch64,
#               whose code is byte-identical, also sfu-gen on the
#               integrated assembler's object against GNU as's.
#   objdump/... every section sfu-gen wrote decodes with objdump 2.47
#               (sid) exactly as with sfu-dump.
#   ld-merge/.. sfu-gen's relocatable objects linked by GNU ld 2.47: the
#               merged section equals the assembler's, row for row.
#   debug-frame sfu-gen from .debug_frame alone equals sfu-gen from
#               .eh_frame alone for code compiled with both.
#   sfu-dump/.. .sframe typed SHT_GNU_SFRAME and SHT_PROGBITS dumps alike;
#               another type, an unknown ABI id: exit 1 and a message.
#   reloc/...   relocatable objects with .debug_frame: sfu-gen's
#               relocation of it (its own: libdw applies none) puts every
#               FDE where libdwfl's does (reloc-check.c).
#   defects/... reproducers of sfu-dump's and sfu-gen's defects on what the
#               GNU tools write: `ld -r`'s R_*_NONE, --validate on V1/V2
#               objects, a negative CFA offset's text (below).
#   embed/...   docs/sfu-gen-embed.md's recipe, as written, on small images
#               (x86_64, aarch64; GNU ld, lld 14; .rodata and .eh_frame
#               placed by the script or by the linker; a higher-half
#               image): test/gen/embed.sh.
#
# sfu-gen reads the CFI through libdw and checks on every FDE that libdw's
# rows begin and end where its own reading of the FDE says (else it stops:
# exit status 1), so every corpus file below also compares the little CFI
# decoding kept in tools/sfu_cfi.h with libdw's.
#
# At the end a summary per producer x architecture (# lines).
set -u
cd "$(dirname "$0")/../.."
OUT=build/gen
TC=tools/toolchain.sh
CORPUS=build/conformance
. test/common/lib.sh
mkdir -p "$OUT/logs"

# ---- tools -----------------------------------------------------------------------
# (all of them: tools/toolchain.sh host-deps)
need gen-tools gcc gcc
need gen-tools python3 python3
need gen-tools clang-14 clang-14
need gen-tools aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
if ! make -s gen build/sfu-gen build/sfu-dump >"$OUT/logs/make.log" 2>&1; then
	fail "gen-build" "make gen build/sfu-gen build/sfu-dump failed: $(tail -3 "$OUT/logs/make.log" | tr '\n' ' ')"
	exit 1
fi
GEN=build/sfu-gen
# gen-check-raw: the core reading GNU ld's .plt.got FDE as written (.plt.got below).
if ! host_prog "$OUT/gen-check" || ! host_prog "$OUT/gen-check-raw" || ! host_prog "$OUT/reloc-check"; then
	fail "gen-build" "gen-check or reloc-check does not compile: $(cat "$OUT/gen-check.build.log" "$OUT/gen-check-raw.build.log" "$OUT/reloc-check.build.log" 2>/dev/null | head -3 | tr '\n' ' ')"
	exit 1
fi
if ! ls "$CORPUS"/llvm/x86_64/*.ref >/dev/null 2>&1; then
	bash test/conformance/build-corpus.sh "$CORPUS" >"$OUT/logs/corpus.log" 2>&1 ||
		{ fail "gen-corpus" "build-corpus.sh failed (see $OUT/logs/corpus.log)"; exit 1; }
fi

# ---- bad input ------------------------------------------------------------------------
B=$OUT/bad
rm -rf "$B"
mkdir -p "$B"
# bad_case NAME EXPECTED-MESSAGE FILE [sfu-gen args]: exit status 1, the
# message on stderr, no output written, no sanitizer report.
bad_case() {
	local name=$1 want=$2 file=$3 rc
	shift 3
	rm -f "$B/out"
	"$GEN" "$@" -o "$B/out" "$file" >"$B/$name.log" 2>&1
	rc=$?
	if [ $rc != 1 ]; then
		fail "bad-input/$name" "exit status $rc, not 1: $(head -2 "$B/$name.log" | tr '\n' ' ')"
	elif grep -q 'Sanitizer\|runtime error' "$B/$name.log"; then
		fail "bad-input/$name" "sanitizer report: $(grep -m1 'Sanitizer\|runtime error' "$B/$name.log")"
	elif ! grep -qF -- "$want" "$B/$name.log"; then
		fail "bad-input/$name" "no \"$want\" in: $(head -2 "$B/$name.log" | tr '\n' ' ')"
	elif [ -e "$B/out" ]; then
		fail "bad-input/$name" "an output file was written"
	else
		pass "bad-input/$name" "$(head -1 "$B/$name.log")"
	fi
}
fixtures_ok=1
for c in none unknown_op window_save restore_state leb_overflow expr_runs_past cfa_expression deref_cfa; do
	gcc -c -DCASE_$c test/gen/bad.S -o "$B/$c.o" 2>"$B/$c.as.log" || { fixtures_ok=0; fail "bad-input/fixtures" "bad.S ($c) does not assemble"; }
done
ld -nostdlib -e good -o "$B/none.elf" "$B/none.o" 2>"$B/ld.log" || { fixtures_ok=0; fail "bad-input/fixtures" "ld failed"; }
mkdir -p "$B/obj" "$B/img"
python3 test/gen/mkbad.py "$B/none.o" "$B/obj" && python3 test/gen/mkbad.py "$B/none.elf" "$B/img" ||
	{ fixtures_ok=0; fail "bad-input/fixtures" "mkbad.py failed"; }
printf 'not an ELF file\n' >"$B/text"
: >"$B/empty"
if [ $fixtures_ok = 1 ]; then
	bad_case not-elf "not an ELF file" "$B/text"
	bad_case empty-file "not an ELF file" "$B/empty"
	bad_case truncated-file "outside the file" "$B/obj/half.o"
	bad_case elf32 "32-bit ELF" "$B/obj/elf32.o"
	bad_case wrong-machine-arm "machine 40" "$B/obj/arm.o"
	bad_case wrong-machine-s390x "machine 22 big-endian" "$CORPUS/sid/s390x/frames-O2.o"
	bad_case no-cfi "no CFI: no .eh_frame or .debug_frame" "$CORPUS/sid/x86_64/nocfi-asm.o"
	bad_case no-debug-frame "no CFI: no .debug_frame" "$B/none.o" --from debug
	bad_case truncated-eh-frame-image "runs past the end of the section (truncated?)" "$B/img/trunc-eh.o"
	bad_case truncated-eh-frame-object "outside the section" "$B/obj/trunc-eh.o"
	bad_case cie-version "unsupported CIE version" "$B/obj/cie-version.o"
	bad_case cie-pointer "CIE pointer points before the section" "$B/img/cie-pointer.o"
	bad_case code-alignment-0 "CIE code alignment factor is 0" "$B/obj/code-align.o"
	bad_case unknown-opcode "unknown CFA opcode 0x3f" "$B/unknown_op.o"
	bad_case window-save-on-x86_64 "unknown CFA opcode 0x2d" "$B/window_save.o"
	bad_case restore-state-underflow "DW_CFA_restore_state without DW_CFA_remember_state" "$B/restore_state.o"
	bad_case leb128-overflow "LEB128 operand does not fit in 64 bits" "$B/leb_overflow.o"
	bad_case expression-past-entry "DW_CFA_def_cfa_expression runs past the entry" "$B/expr_runs_past.o"
	# Unrepresentable: omitted with its reason and a total, the rest kept.
	rm -f "$B/out"
	"$GEN" -o "$B/out" "$B/cfa_expression.o" >"$B/omit.log" 2>&1
	if [ $? = 0 ] && grep -q '^sfu-gen: omitted bad (.*CFA is a DWARF expression' "$B/omit.log" &&
		grep -q '1 functions described, 1 omitted' "$B/omit.log" && build/sfu-dump "$B/out" | grep -q 'Num FDEs: 1$'; then
		pass "bad-input/omit-cfa-expression" "$(grep -m1 omitted "$B/omit.log")"
	else
		fail "bad-input/omit-cfa-expression" "$(tr '\n' ' ' <"$B/omit.log")"
	fi
	# CFA = *(rbp-8): a FLEX FDE in V3, omitted in V2 (no FLEX there).
	"$GEN" -o "$B/out3" "$B/deref_cfa.o" >"$B/flex3.log" 2>&1 &&
		"$GEN" --sframe-version 2 -o "$B/out2" "$B/deref_cfa.o" >"$B/flex2.log" 2>&1
	if build/sfu-dump "$B/out3" | grep -q 'attr = "F"' && grep -q 'omitted bad .*FLEX' "$B/flex2.log" &&
		build/sfu-dump "$B/out2" | grep -q 'Num FDEs: 1$'; then
		pass "bad-input/deref-cfa-v3-flex-v2-omitted"
	else
		fail "bad-input/deref-cfa-v3-flex-v2-omitted" "$(tr '\n' ' ' <"$B/flex2.log")"
	fi
fi

# ---- sfu-dump: section types, ABI ids ----------------------------------------------------
# .sframe is SHT_GNU_SFRAME from binutils 2.45 on, SHT_PROGBITS before:
# both dump alike.  Another type, or an ABI/arch id binutils does not
# define (other linkers define ids of their own), is a clear error.
S=$OUT/sftype
rm -rf "$S"
mkdir -p "$S"
if "$GEN" -o "$S/good.o" "$B/none.o" >"$S/gen.log" 2>&1 && python3 test/gen/mkbad.py --sframe "$S/good.o" "$S"; then
	build/sfu-dump "$S/progbits.o" >"$S/progbits.txt" 2>&1
	r1=$?
	build/sfu-dump "$S/gnu-sframe.o" >"$S/gnu-sframe.txt" 2>&1
	r2=$?
	if [ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$S/progbits.txt" "$S/gnu-sframe.txt" && grep -q 'Num FDEs: 2$' "$S/progbits.txt"; then
		pass "sfu-dump/sht-progbits-and-gnu-sframe" "the same section typed SHT_PROGBITS and SHT_GNU_SFRAME dumps alike"
	else
		fail "sfu-dump/sht-progbits-and-gnu-sframe" "exit $r1/$r2: $(diff "$S/progbits.txt" "$S/gnu-sframe.txt" | head -2 | tr '\n' ' ')"
	fi
	for c in "nobits|section type 0x8, not SHT_GNU_SFRAME or SHT_PROGBITS" "abi-unknown|ABI/arch id 9 is unknown"; do
		n=${c%%|*} want=${c#*|}
		build/sfu-dump "$S/$n.o" >"$S/$n.out" 2>"$S/$n.err"
		rc=$?
		if [ $rc = 1 ] && grep -qF -- "$want" "$S/$n.err" && ! grep -q 'Sanitizer\|runtime error' "$S/$n.err"; then
			pass "sfu-dump/$n" "$(head -1 "$S/$n.err")"
		else
			fail "sfu-dump/$n" "exit status $rc, not 1, or no \"$want\" in: $(head -2 "$S/$n.err" | tr '\n' ' ')"
		fi
	done
else
	fail "sfu-dump/fixtures" "sfu-gen or mkbad.py --sframe failed: $(tail -2 "$S/gen.log" | tr '\n' ' ')"
fi

# ---- sfu-dump and sfu-gen on what the GNU tools write ------------------------------------
# Reproducers of defects found by running them on binutils' own kinds of
# input:
#   ld-r-none    `ld -r` of two objects that both define one COMDAT
#                function (the duplicate dropped): the dropped FDE's
#                relocations become R_*_NONE, and the ones after them
#                must still apply; sfu-dump then prints what objdump 2.47
#                prints (ld 2.44, V2), and sfu-gen reads the .eh_frame
#                (NONE there too)
#   validate     objects of gas 2.40 and 2.44 (V1, V2: PC-relative starts
#                without the flag saying so) with a function longer than
#                the start field's offset: --validate accepts them, as
#                objdump reads them
#   neg-cfa      a CFA offset below 0 prints "sp+-8", as every objdump
#                does (2.40, 2.47)
D=$OUT/defects
rm -rf "$D"
mkdir -p "$D"
for arch in x86_64 aarch64; do
	case $arch in
	x86_64) push='push %rbp' pop='pop %rbp' sub='sub $24, %rsp' add='add $24, %rsp' call='call dup' base=8 ;;
	aarch64) push='stp x29, x30, [sp, -16]!' pop='ldp x29, x30, [sp], 16' sub='sub sp, sp, 32' add='add sp, sp, 32' call='bl dup' base=0 ;;
	esac
	for i in 1 2; do
		cat >"$D/comdat$i-$arch.S" <<EOF
	.section .text.dup,"axG",%progbits,dup,comdat
	.globl dup
	.type dup, %function
dup:
	.cfi_startproc
	$push
	.cfi_def_cfa_offset 16
	$pop
	.cfi_def_cfa_offset $base
	ret
	.cfi_endproc
	.text
	.globl own$i
	.type own$i, %function
own$i:
	.cfi_startproc
	$sub
	.cfi_def_cfa_offset 32
	$call
	$add
	.cfi_def_cfa_offset $base
	ret
	.cfi_endproc
	.section .note.GNU-stack,"",%progbits
EOF
	done
done
printf 'int g(int *p);\nint f(int x)\n{\n\tint a[20];\n\tfor (int i = 0; i < 20; i++)\n\t\ta[i] = x * i;\n\treturn a[x %% 20] + g(a);\n}\nint g(int *p) { return p[3]; }\n' >"$D/long.c"
printf '\t.text\n\t.globl f\nf:\n\t.cfi_startproc\n\tnop\n\t.cfi_def_cfa_offset -8\n\tnop\n\tret\n\t.cfi_endproc\n' >"$D/neg.S"
# Every object and objdump 2.47's text of them: one chroot call per suite.
gcc -O2 -c -Wa,--gsframe "$D/long.c" -o "$D/long-40-x86_64.o" &&
	aarch64-linux-gnu-gcc -O2 -c -Wa,--gsframe "$D/long.c" -o "$D/long-40-aarch64.o" &&
	gcc -c -Wa,--gsframe "$D/neg.S" -o "$D/neg-40.o" &&
	objdump --sframe "$D/neg-40.o" >"$D/neg-40.od" 2>&1 &&
	$TC run trixie sh -c 'd=$1
		for a in x86_64 aarch64; do
			p=; [ $a = aarch64 ] && p=aarch64-linux-gnu-
			${p}gcc -c -Wa,--gsframe "$d/comdat1-$a.S" -o "$d/comdat1-$a.o" &&
			${p}gcc -c -Wa,--gsframe "$d/comdat2-$a.S" -o "$d/comdat2-$a.o" &&
			${p}ld -r "$d/comdat1-$a.o" "$d/comdat2-$a.o" -o "$d/ldr-$a.o" &&
			${p}gcc -O2 -c -Wa,--gsframe "$d/long.c" -o "$d/long-44-$a.o" || exit 1
		done' sh "$D" >"$D/trixie.log" 2>&1 &&
	$TC run sid sh -c 'd=$1
		gcc -c -Wa,--gsframe "$d/neg.S" -o "$d/neg-47.o" && objdump --sframe "$d/neg-47.o" >"$d/neg-47.od" 2>&1 || exit 1
		objdump --sframe "$d/ldr-x86_64.o" >"$d/ldr-x86_64.od" 2>&1 &&
		aarch64-linux-gnu-objdump --sframe "$d/ldr-aarch64.o" >"$d/ldr-aarch64.od" 2>&1' sh "$D" >"$D/sid.log" 2>&1
if [ $? != 0 ]; then
	fail "defects/fixtures" "the objects or objdump's text: $(cat "$D/trixie.log" "$D/sid.log" | head -3 | tr '\n' ' ')"
else
	for arch in x86_64 aarch64; do
		n=defects/ld-r-none/$arch
		build/sfu-dump "$D/ldr-$arch.o" >"$D/ldr-$arch.sd" 2>"$D/ldr-$arch.sderr"
		rc=$?
		"$GEN" -o "$D/ldr-$arch.gen.o" "$D/ldr-$arch.o" >"$D/ldr-$arch.gen.log" 2>&1
		grc=$?
		nones=$(readelf -rW "$D/ldr-$arch.o" | sed -n '/rela.sframe/,/^$/p' | grep -c '_NONE')
		if [ "$nones" = 0 ]; then
			fail "$n" "ld -r wrote no R_*_NONE in .rela.sframe: the reproducer does not reproduce"
		elif [ $rc != 0 ] || [ -s "$D/ldr-$arch.sderr" ]; then
			fail "$n" "sfu-dump exit $rc: $(head -1 "$D/ldr-$arch.sderr")"
		elif ! diff <(sed -n '/^Contents of the SFrame section/,$p' "$D/ldr-$arch.od") "$D/ldr-$arch.sd" >"$D/ldr-$arch.diff"; then
			fail "$n" "sfu-dump differs from objdump 2.47: $(head -3 "$D/ldr-$arch.diff" | tr '\n' ' ')"
		elif [ $grc != 0 ] || ! grep -q '3 functions described, 0 omitted' "$D/ldr-$arch.gen.log"; then
			fail "$n" "sfu-gen exit $grc: $(tr '\n' ' ' <"$D/ldr-$arch.gen.log")"
		else
			pass "$n" "$nones R_*_NONE in .rela.sframe skipped: sfu-dump prints objdump 2.47's text, sfu-gen describes the 3 functions"
		fi
		for v in 40 44; do
			n=defects/validate/gas-2.$v/$arch
			o=$D/long-$v-$arch.o
			if build/sfu-dump --validate "$o" >"$o.sd" 2>"$o.err" && ! [ -s "$o.err" ] && grep -q 'size = [0-9]* bytes' "$o.sd"; then
				pass "$n" "accepted: $(grep -m1 'func idx \[0\]' "$o.sd" | sed 's/^ *//')"
			else
				fail "$n" "$(head -1 "$o.err")"
			fi
		done
	done
	n=defects/neg-cfa
	build/sfu-dump "$D/neg-40.o" >"$D/neg-40.sd" 2>&1
	build/sfu-dump "$D/neg-47.o" >"$D/neg-47.sd" 2>&1
	if grep -q ' sp+-8 ' "$D/neg-40.od" && grep -q ' sp+-8 ' "$D/neg-47.od" && grep -q ' sp+-8 ' "$D/neg-40.sd" &&
		diff <(sed -n '/^Contents of the SFrame section/,$p' "$D/neg-47.od") "$D/neg-47.sd" >/dev/null; then
		pass "$n" "sp+-8, as objdump 2.40 and 2.47 print it (V3: objdump 2.47's text whole)"
	else
		fail "$n" "objdump 2.40: $(grep -c ' sp+-8 ' "$D/neg-40.od"), 2.47: $(grep -c ' sp+-8 ' "$D/neg-47.od"); sfu-dump: $(grep '0001 ' "$D/neg-40.sd" | head -1)"
	fi
fi

# ---- equivalence on the conformance corpus ------------------------------------------
# gen_one REF GENOUT NAME VERSION [INPUT]: sfu-gen INPUT (default REF) -o
# GENOUT, then gen-check REF GENOUT.
gen_one() {
	local ref=$1 g=$2 name=$3 v=$4 in=${5:-$1} so=${6:-}
	mkdir -p "$(dirname "$g")"
	if ! "$GEN" --sframe-version "$v" -o "$g" "$in" 2>"$g.log"; then
		echo "FAIL gen/$name: sfu-gen failed: $(grep -v omitted "$g.log" | head -2 | tr '\n' ' ')"
		return
	fi
	# shellcheck disable=SC2086
	"$OUT/gen-check" $so "$ref" "$g" "$name" "$g.log"
}
export -f gen_one
export GEN OUT

list=$OUT/corpus.list
: >"$list"
for ref in $(find "$CORPUS" -name '*.ref' | LC_ALL=C sort); do
	f=${ref%.ref}
	case $f in */s390x/*) continue ;; esac
	v=$(sed -n 's/^    Version: SFRAME_VERSION_\([0-9]*\)$/\1/p' "$ref" | head -1)
	[ "$v" = 1 ] && v=3
	echo "$f $OUT/corpus/${f#"$CORPUS"/}.gen ${f#"$CORPUS"/} $v" >>"$list"
done
# LLVM's images (lld concatenates the per-object sections: no objdump
# reference, but the core reads them).
for f in $(find "$CORPUS/llvm" -name '*.elf' ! -name 'all-gnuld-*' | LC_ALL=C sort); do
	echo "$f $OUT/corpus/${f#"$CORPUS"/}.gen ${f#"$CORPUS"/} 2" >>"$list"
done
xargs -P2 -L1 bash -c 'gen_one "$@"' _ <"$list" >"$OUT/corpus.out" 2>&1
# ld 2.40's `ld -r` writes .rela.sframe offsets that do not land on the
# FDEs (test/conformance/README.md): relocated, the header is destroyed.
# That is asserted here, not compared.
sed -E 's#^FAIL gen/(bookworm/[a-z0-9_-]+/ldr-O[0-9s]\.o): .*: \.sframe: bad magic$#ok gen/\1: not comparable: ld 2.40 -r relocations land outside its FDEs (relocated header: bad magic)#' \
	"$OUT/corpus.out" | grep -E '^(ok|FAIL) '
fails=$((fails + $(grep -c '^FAIL ' "$OUT/corpus.out" | tr -d ' ') - $(grep -cE '^FAIL gen/bookworm/[a-z0-9_-]+/ldr-O[0-9s]\.o: .*bad magic$' "$OUT/corpus.out")))
n=$(wc -l <"$list")
got=$(grep -cE '^(ok|FAIL) ' "$OUT/corpus.out")
[ "$got" -ge "$n" ] || fail "gen/corpus" "$n files, only $got verdicts (a crash?)"

# ---- clang's code, GNU as's SFrame -------------------------------------------------------
if ! $TC run sid make -s -j2 -f test/gen/clang.mk CLANG=clang-22 OUT=$OUT/clang22 all >"$OUT/logs/clang22.log" 2>&1; then
	fail "clang/build-22" "$(grep -m3 -i error "$OUT/logs/clang22.log" | tr '\n' ' ') (install: tools/toolchain.sh install sid clang-22 lld-22)"
fi
if ! make -s -j2 -f test/gen/clang.mk CLANG=clang-14 OUT=$OUT/clang14 all >"$OUT/logs/clang14.log" 2>&1; then
	fail "clang/build-14" "$(grep -m3 -i error "$OUT/logs/clang14.log" | tr '\n' ' ') (install: tools/toolchain.sh host-deps)"
fi
: >"$list.clang"
for c in clang22 clang14; do
	for f in $(find "$OUT/$c" -name '*.gas.o' -o -name '*.gas.elf' | LC_ALL=C sort); do
		n=${f#"$OUT"/}
		# GNU as's section against sfu-gen's from the same file.
		echo "$f $OUT/clang-gen/$n.gen ${n%.gas.*}.${n##*.} $([ $c = clang22 ] && echo 3 || echo 3)" >>"$list.clang"
		# aarch64: the integrated assembler's code is byte-identical
		# (checked on the images): sfu-gen on its object instead.
		case $f in
		*/aarch64*/*.elf) echo "$f $OUT/clang-gen/${n%.gas.elf}.ias.elf.gen ${n%.gas.*}.ias.elf 3 ${f%.gas.elf}.ias.elf" >>"$list.clang" ;;
		*/aarch64*/*.o) echo "$f $OUT/clang-gen/${n%.gas.o}.ias.o.gen ${n%.gas.*}.ias.o 3 ${f%.gas.o}.ias.o --sizes-only" >>"$list.clang" ;;
		esac
	done
done
xargs -P2 -L1 bash -c 'gen_one "$@"' _ <"$list.clang" | sed 's#^\(ok\|FAIL\) gen/#\1 clang/#' >"$OUT/clang.out" 2>&1
grep -E '^(ok|FAIL) ' "$OUT/clang.out"
fails=$((fails + $(grep -c '^FAIL ' "$OUT/clang.out")))
# x86_64: say why there is no integrated-assembler comparison.
for c in clang22 clang14; do
	if "$OUT/gen-check" "$OUT/$c/x86_64/all-O2.gas.elf" "$OUT/$c/x86_64/all-O2.ias.elf" x >/dev/null 2>&1; then
		fail "clang/$c/x86_64/ias" "the integrated assembler's code is now the same as GNU as's: compare it too"
	else
		pass "clang/$c/x86_64/ias" "the integrated assembler encodes x86_64 differently from GNU as (code differs): compared through GNU as's object only"
	fi
done

# ---- objdump reads every section sfu-gen wrote ---------------------------------------------
cat >"$OUT/objdump-all.sh" <<'EOF'
# inside sid: objdump --sframe of every generated file, by architecture
for g in "$@"; do
	case $g in *aarch64*) od=aarch64-linux-gnu-objdump ;; *) od=objdump ;; esac
	$od --sframe=.sframe "$g" 2>"$g.oderr" | sed -n '/^Contents of the SFrame section \.sframe:$/,$p' >"$g.od"
done
EOF
gens=$(find "$OUT/corpus" "$OUT/clang-gen" -name '*.gen' | LC_ALL=C sort)
# shellcheck disable=SC2086
$TC run sid sh "$OUT/objdump-all.sh" $gens
declare -A odn odbad
for g in $gens; do
	k=$(echo "${g#"$OUT"/}" | cut -d/ -f1-3)
	odn[$k]=$(( ${odn[$k]:-0} + 1 ))
	build/sfu-dump "$g" >"$g.sd" 2>&1
	if ! cmp -s "$g.od" "$g.sd" || [ -s "$g.oderr" ]; then
		odbad[$k]="${odbad[$k]:-} $g"
	fi
done
for k in $(echo "${!odn[@]}" | tr ' ' '\n' | LC_ALL=C sort); do
	if [ -n "${odbad[$k]:-}" ]; then
		set -- ${odbad[$k]}
		fail "objdump/$k" "objdump 2.47 and sfu-dump differ on $# of ${odn[$k]} files, e.g. $1: $(head -1 "$1.oderr")"
	else
		pass "objdump/$k" "${odn[$k]} files: objdump 2.47 --sframe = sfu-dump"
	fi
done

# ---- sfu-gen's objects, merged by GNU ld ---------------------------------------------------
for a in x86_64 aarch64 aarch64-pac aarch64_be; do
	d=$OUT/corpus/sid/$a
	case $a in x86_64) ld=ld ;; aarch64_be) ld="aarch64-linux-gnu-ld -EB" ;; *) ld=aarch64-linux-gnu-ld ;; esac
	objs="$d/start-asm.o.gen"
	for n in frames bigframe longfunc many realign regs $([ $a = x86_64 ] || echo pauth); do objs="$objs $d/$n-O2.o.gen"; done
	# The assembly objects, as in corpus.mk's all-O2.elf (none for pac).
	[ $a = aarch64-pac ] || objs="$objs $d/cfi-asm.o.gen $d/big-asm.o.gen $CORPUS/sid/$a/nocfi-asm.o $CORPUS/sid/$a/emptysf-asm.o"
	# shellcheck disable=SC2086
	if ! $TC run sid $ld -nostdlib -static -T test/common/image.ld -o "$d/merged-O2.elf" $objs >"$d/merged.log" 2>&1; then
		fail "ld-merge/sid/$a" "ld failed: $(head -2 "$d/merged.log" | tr '\n' ' ')"
		continue
	fi
	"$GEN" -o /dev/null "$CORPUS/sid/$a/all-O2.elf" 2>"$d/merged.omit" || true
	"$OUT/gen-check" "$CORPUS/sid/$a/all-O2.elf" "$d/merged-O2.elf" "ld-merge/sid/$a" "$d/merged.omit" >"$d/merged.out" 2>&1
	grep -E '^(ok|FAIL) ' "$d/merged.out" | sed 's#^\(ok\|FAIL\) gen/#\1 #'
	grep -q '^ok ' "$d/merged.out" || fails=$((fails + 1))
	grep '^# diff' "$d/merged.out" | head -5
done

# ---- .plt.got: GNU ld 2.44/2.47 describe it wrongly, the core corrects it ------------
# A PIE calling getpid through .plt.got (test/gen/pltgot.c), linked by
# each suite's ld with --gsframe objects, with 8-byte stubs and with IBT's
# 16-byte ones (-z ibtplt).  ld's .sframe says CFA = SP+16 at the
# `jmp *GOT(%rip)` stub, its own .eh_frame SP+8, which sfu-gen follows.
# The core reads ld's FDE as SP+8 (SFU_FIX_LD_PLTGOT, core/sfu.h
# "PRODUCER ERRORS"), so gen-check finds ld's section and sfu-gen's equal
# there, and one core step out of a sample in each stub with ld's section
# returns to the caller (SP+8, the return address at SP).  gen-check-raw
# (the knob 0) shows what the bytes say: SP+16, the difference classified as
# before, the step out reading the RA one slot too high; sfu-dump prints the
# bytes (SP+16) exactly as objdump 2.47 does.
for s in trixie sid; do
	for kind in plain ibt; do
		p=$OUT/pltgot-$s-$kind n=plt-got/$s/$kind
		zf=
		[ $kind = ibt ] && zf=-Wl,-z,ibtplt
		# shellcheck disable=SC2086
		if ! $TC run $s gcc -O2 -fPIE -pie -Wa,--gsframe $zf -o "$p" test/gen/pltgot.c >"$p.log" 2>&1; then
			fail "$n" "build failed: $(head -2 "$p.log" | tr '\n' ' ')"
			continue
		fi
		"$GEN" -o "$p.gen" "$p" 2>"$p.genlog"
		"$OUT/gen-check" "$p" "$p.gen" "$n" "$p.genlog" >"$p.out" 2>&1
		"$OUT/gen-check-raw" "$p" "$p.gen" "$n" "$p.genlog" >"$p.raw" 2>&1
		$TC run sid objdump --sframe=.sframe "$p" 2>&1 | sed -n '/^Contents of the SFrame section \.sframe:$/,$p' >"$p.od"
		build/sfu-dump "$p" >"$p.sd" 2>&1
		good='ref cfa=sp+8 ra=*(cfa-8) fp=same, sfu-gen cfa=sp+8 ra=*(cfa-8) fp=same; step: caller SP+8 0x4000'
		bad='ref cfa=sp+16 ra=*(cfa-8) fp=same, sfu-gen cfa=sp+8 ra=*(cfa-8) fp=same; step: caller SP+16 0x5000'
		stubs=$(grep -c '^# plt.got ' "$p.out")
		if ! grep -q '^ok ' "$p.out" || [ "$stubs" -lt 2 ] || grep '^# plt.got ' "$p.out" | grep -qvF -- "$good" ||
			grep -q 'explained: GNU ld describes .plt.got' "$p.out"; then
			fail "$n" "the core's rows or step in .plt.got with ld's section are not sfu-gen's SP+8: $(grep -E '^(FAIL|# plt.got|# diff)' "$p.out" | head -3 | tr '\n' ' ')"
		elif ! grep -q '^ok ' "$p.raw" || [ "$(grep -c '^# plt.got ' "$p.raw")" != "$stubs" ] ||
			grep '^# plt.got ' "$p.raw" | grep -qvF -- "$bad" ||
			! grep -q 'explained: GNU ld describes .plt.got stubs with CFA = SP+16' "$p.raw"; then
			fail "$n" "ld's .plt.got FDE no longer says SP+16 as written (SFU_FIX_LD_PLTGOT 0): is ld fixed? $(grep -E '^(FAIL|# plt.got)' "$p.raw" | head -2 | tr '\n' ' ')"
		elif ! cmp -s "$p.od" "$p.sd" || ! grep -q '\[m\]' "$p.sd"; then
			fail "$n" "sfu-dump and objdump 2.47 differ on ld's section (or no PC-mask FDE): $(diff "$p.od" "$p.sd" | head -3 | tr '\n' ' ')"
		else
			pass "$n" "ld's .sframe says CFA = SP+16 in .plt.got ($stubs stubs; sfu-dump prints it as objdump does); the core reads SP+8 = sfu-gen's (ld's .eh_frame) and steps out of each stub to the caller at SP+8; with SFU_FIX_LD_PLTGOT 0, SP+16"
		fi
	done
done

# ---- .debug_frame ------------------------------------------------------------------------------
for a in x86_64 aarch64; do
	cc=gcc
	[ $a = aarch64 ] && cc=aarch64-linux-gnu-gcc
	o=$OUT/debug-$a.o
	# The same code twice: CFI in .eh_frame, and (-g without unwind
	# tables) in .debug_frame only.
	if ! $cc -O2 -fasynchronous-unwind-tables -ffreestanding -fno-stack-protector -c test/conformance/corpus/frames.c -o "$o" 2>"$o.log" ||
		! $cc -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -ffreestanding -fno-stack-protector -c test/conformance/corpus/frames.c -o "$o.g.o" 2>>"$o.log"; then
		fail "debug-frame/$a" "$cc failed"
		continue
	fi
	if readelf -SW "$o.g.o" | grep -q ' \.eh_frame '; then
		fail "debug-frame/$a" "the -g object still has .eh_frame"
		continue
	fi
	"$GEN" -o "$o.eh" "$o" 2>"$o.eh.log" && "$GEN" -o "$o.dbg" "$o.g.o" 2>"$o.dbg.log"
	rc=$?
	if [ $rc = 0 ] && build/sfu-dump "$o.eh" >"$o.eh.txt" && build/sfu-dump "$o.dbg" >"$o.dbg.txt" && cmp -s "$o.eh.txt" "$o.dbg.txt" &&
		[ "$(grep -c 'func idx' "$o.eh.txt")" -gt 10 ]; then
		pass "debug-frame/$a" "$(grep -c 'func idx' "$o.eh.txt") functions: the same section from .debug_frame as from .eh_frame"
	else
		fail "debug-frame/$a" "sections differ or sfu-gen failed ($(tail -1 "$o.dbg.log"))"
	fi
done

# ---- relocatable objects: sfu-gen's relocation against libdwfl's ----------------------
# libdw applies no relocations and libdwfl relocates .debug_frame but not
# .eh_frame, so sfu-gen relocates both itself (tools/sfu_elf.h).  Every
# object of the corpus with a .debug_frame, and the -g objects above:
# sfu-gen's FDE starts and sizes there are libdwfl's (reloc-check.c).
: >"$OUT/reloc.list"
for f in $(find "$CORPUS" -name '*.o' | LC_ALL=C sort) "$OUT"/debug-*.o.g.o; do
	case $f in */s390x/*) continue ;; esac
	readelf -SW "$f" 2>/dev/null | grep -q ' \.debug_frame ' && echo "$f" >>"$OUT/reloc.list"
done
if [ "$(wc -l <"$OUT/reloc.list")" -lt 3 ]; then
	fail "reloc/corpus" "only $(wc -l <"$OUT/reloc.list") objects with .debug_frame to compare"
fi
while read -r f; do
	"$OUT/reloc-check" "$f" "${f#"$CORPUS"/}" 2>&1 | sed "s#reloc/$OUT/#reloc/#"
done <"$OUT/reloc.list" >"$OUT/reloc.out"
grep -E '^(ok|FAIL) ' "$OUT/reloc.out"
fails=$((fails + $(grep -c '^FAIL ' "$OUT/reloc.out")))
[ "$(grep -cE '^(ok|FAIL) ' "$OUT/reloc.out")" = "$(wc -l <"$OUT/reloc.list")" ] ||
	fail "reloc/corpus" "reloc-check gave no verdict on some objects (a crash?)"

# ---- the whole-image embedding recipe (docs/sfu-gen-embed.md) ----------------------------
bash test/gen/embed.sh || fails=$((fails + 1))

# ---- summary ------------------------------------------------------------------------------------
# Per producer x architecture: files, FDEs, byte addresses compared,
# differing bytes, explained differences (by cause), omitted functions
# (by reason), section sizes.
{
	cat "$OUT/corpus.out"
	sed 's#^stats #stats clang/#; s#^\# diff #\# diff clang/#' "$OUT/clang.out"
} >"$OUT/all.out"
echo "# summary: producer/arch files ref_fdes gen_fdes bytes_compared diff_bytes explained ref_size gen_size"
awk '/^stats /{ split($2, p, "/"); k = p[1] "/" p[2]; if (p[1] == "clang") k = p[1] "/" p[2] "/" p[3];
	for (i = 3; i <= NF; i++) { split($i, kv, "="); s[k, kv[1]] += kv[2] } files[k]++ }
	END { for (k in files) printf "#   %-22s %4d %6d %6d %9d %6d %4d %8d %8d\n", k, files[k], s[k,"ref_fdes"], s[k,"gen_fdes"],
		s[k,"bytes"], s[k,"diff_bytes"], s[k,"explained"], s[k,"ref_size"], s[k,"gen_size"] }' "$OUT/all.out" | LC_ALL=C sort
echo "# differences by cause (functions):"
sed -n 's/^# diff [^ ]* [^ ]*: explained: \(.*\) (0x.*/\1/p' "$OUT/all.out" | LC_ALL=C sort | uniq -c | sort -rn | sed 's/^/#   /'
echo "# omitted by sfu-gen (functions, all files):"
cat $(find "$OUT/corpus" "$OUT/clang-gen" -name '*.gen.log') 2>/dev/null | sed -n 's/^sfu-gen: omitted \([^ ]*\) ([^)]*): \(.*\)/\1: \2/p' | sed 's/ (at [^)]*)$//' |
	LC_ALL=C sort | uniq -c | sort -rn | sed 's/^/#   /'
[ $fails = 0 ]
