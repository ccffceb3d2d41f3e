#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/firmware/run.sh -- the example firmware end to end, in QEMU, with
# every toolchain: the dumps must show the exact expected function sequence.
#
# For each toolchain suite (below: gcc 12, 14, 16; clang 14, 21, 22 with
# sfu-gen; clang 14 with GNU as; clang 22's own SFrame) it builds every
# image of every board once (`make -C examples images` lists them), then
# boots every scenario (EX_SCENARIO in examples/common/scenario.c) on every image
# through examples/boot.sh and compares against test/firmware/expected.txt:
#
#   - QEMU's exit status (the image's status, mapped per board);
#   - the dump's stop code ("backtrace: N frames, stopped: ... (CODE)");
#   - the function of every frame, innermost first, with the
#     (exception)/(interrupted) markers (irqnest: through a fault's trap
#     frame, an interrupt nested in the timer's handler, the timer's);
#   - a scenario whose expected.txt line for an image says n/a (irqnest
#     where no interrupt can nest) is not booted there: a "# ... not
#     run: WHY" line, the reason from expected.txt, neither ok nor FAIL;
#     so with a scenario left out of an image's board.mk `scenarios`
#     list (a variant that differs from another only where those
#     scenarios look), WHY its `scenarios-why`;
#   - scenarios with several dumps or boots (special_checks): threads (each
#     thread's dump), overflow, nested, retained (three boots: the record
#     the dump wrote printed at the next boot by sfu_dump_record_print, a
#     reset in the middle of a dump reported corrupt, and both read back
#     by tools/sfu-crash --log);
#   - every crash (each scenario that ends in a panic or fault, and the
#     retained one's first boot; not nested, whose dump faults) ends with
#     the record its dumps wrote, in its wire lines (no example code
#     writes one): tools/sfu-crash makes an ELF core of it,
#     gdb-multiarch names its signal and does not say "may not match",
#     and every frame of its `thread apply all` has the PC and SP of sfu's
#     (test/core/compare.py: the PCs those of the log's dumps, the SPs
#     the log's SP column, a complete trace exactly and nothing after it,
#     every block's registers the record's); a "# core frames compared"
#     line per suite and scenario counts them;
#   - perturb: the summary "perturb: N walks, C complete and equal, I
#     incomplete, W complete and wrong" with N >= 100, C + I = N, W = 0
#     (every description of the image, one field changed at a time);
#   - timer: the summary "timer: T ticks, C complete traces, F failures"
#     with T >= 2000, C = T, F = 0, also with ticks on every instruction
#     (boot.sh -1) on the GNU ld images (clang suites: on the plain
#     images);
#   - images with signed return addresses (image.env: ex_pac=1, the pac-ret
#     build), on -cpu max: pointer authentication was on, signed return
#     addresses were seen, and every complete trace (SFU_END) is the
#     board's plain image's;
#   - tools/sfu-symbolize resolves each plain image's fault dump to the
#     right source files;
#   - examples/check-sframe.sh on the suite's images (the GNU tools' view of
#     each .sframe);
#   - every boot again under QEMU 11 from the sid chroot (the "/qemu11"
#     cases), which models what bookworm's QEMU 7.2 does not: alignment
#     faults on Device memory (the MMU-off image's hello must see one);
#     the clang suites boot under QEMU 11 only (the last of SFU_FW_QEMUS);
#   - gnu-ld: GNU ld 2.47 refuses LLVM's own SFrame (clang22-sframe);
#   - embed-check: sframe-gen.sh refuses an sfu-gen image relinked so that
#     its code moved relative to the section (bookworm's gen images);
#   - lie: the lld images built with the wrong start option refused at
#     set-up, never walked (gcc suites; see "Sections that cannot lie").
#
# One line per case, "ok <case>" or "FAIL <case>: <why>".  A missing
# emulator, compiler, chroot or lld is a FAIL with the install command.
# Every QEMU run has a timeout; boots run SFU_FW_JOBS (2) at a time.
#
# Environment: SFU_FW_SUITES (default: all of them, "bookworm trixie sid
# clang14 clang21 clang22 clang14-gas clang22-sframe"),
# SFU_FW_QEMUS (default "host qemu11": the host's QEMU, the sid chroot's),
# SFU_FW_OUT (build/firmware), SFU_FW_TIMEOUT (seconds per boot, 30),
# SFU_FW_JOBS (2); EX_QEMU_<board> (the board's name with - as _) replaces
# a board's host QEMU command, as for boot.sh.  To narrow a run:
# SFU_FW_SCENARIOS (default: every scenario), SFU_FW_IMAGES (an extended
# regular expression the image names must match, default: all).
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
root=$PWD
out=${SFU_FW_OUT:-build/firmware}
suites=${SFU_FW_SUITES:-bookworm trixie sid clang14 clang21 clang22 clang14-gas clang22-sframe}
qemus=${SFU_FW_QEMUS:-host qemu11}
timeout_s=${SFU_FW_TIMEOUT:-30}
jobs=${SFU_FW_JOBS:-2}
expected=test/firmware/expected.txt

scenarios=${SFU_FW_SCENARIOS:-$(sh examples/boot.sh -L | cut -d' ' -f1)}
image_filter=${SFU_FW_IMAGES:-.}
LLD=${LLD:-ld.lld-14}

mkdir -p "$out"
# Another run in the same tree (a second `make test`) would rebuild the
# same images and overwrite the logs under our feet: take turns.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$out/.lock"
	flock 9
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
seq_no=0

# Each case writes its line to a numbered file; they are printed in order.
emit() { # LINE
	seq_no=$((seq_no + 1))
	printf '%s\n' "$1" >"$results/$(printf '%05d' $seq_no)"
}
flush() {
	local f
	for f in "$results"/*; do
		[ -e "$f" ] || continue
		cat "$f"
		rm -f "$f"
	done
}

# The variables of an image (ex_image, ex_board, ex_arch, ex_variant,
# ex_link, ex_pac, ex_qemu, ex_trap, ex_stub: examples/build.mk).
image_env() { # SUITE IMAGE
	. "$out/$1/$2/image.env"
}

# ---------------------------------------------------------------------------
# Tools.

qemu_pkg() { case $ex_arch in aarch64) echo qemu-system-arm ;; *) echo qemu-system-x86 ;; esac; }

qemu_missing() { # QEMU (after image_env) -> message, or nothing
	local q
	if [ "$1" = qemu11 ]; then
		q=$(tools/toolchain.sh path sid)/usr/bin/$ex_qemu
		[ -x "$q" ] || echo "$ex_qemu not in the sid chroot (install: tools/toolchain.sh install sid $(qemu_pkg))"
		return
	fi
	eval "q=\${EX_QEMU_${ex_board//-/_}:-$ex_qemu}"
	command -v "${q%% *}" >/dev/null 2>&1 || echo "$q not found (install: apt-get install $(qemu_pkg))"
}

# boot.sh options that pick the QEMU: none for the host's.
qemu_opts() { # QEMU (after image_env)
	[ "$1" = qemu11 ] && printf '%s\n' -q "tools/toolchain.sh run sid $ex_qemu"
}

# ---------------------------------------------------------------------------
# The toolchain suites: what builds the images (make variables for
# examples/build.mk), what that needs, which images are booted, and how.
#
#   bookworm trixie sid  gcc 12 / 14 / 16 and binutils 2.40 / 2.44 / 2.47:
#                        SFrame V1 / V2 / V3 from GNU as, merged by GNU ld
#                        (lld: one section per object); the gen variant's
#                        .sframe from sfu-gen; every image under both QEMUs
#   clang14 clang21 clang22
#                        clang's integrated assembler, which writes no
#                        SFrame: every image's .sframe from sfu-gen
#                        (EX_SFRAME=gen), libgcc's code included; the lld
#                        images linked by lld of the same version
#   clang14-gas          clang 14's code assembled by GNU as 2.40
#                        (-fno-integrated-as -Wa,--gsframe): SFrame V1
#   clang22-sframe       LLVM's own SFrame (clang 22's integrated assembler,
#                        -Wa,--gsframe -Wa,--allow-experimental-sframe: V2),
#                        x86_64 only (LLVM writes none for aarch64), every
#                        image linked by lld 22 (EX_LINK=lld): GNU ld cannot
#                        link it (the gnu-ld case checks how it refuses)
#
# To keep the run short, the clang suites boot every scenario on the images
# where the compiler or the SFrame producer makes a difference (suite_boots)
# and only under the last QEMU of SFU_FW_QEMUS (QEMU 11, whose alignment
# faults catch the most): the gcc suites boot every image under both, and
# what a second QEMU could add for clang is the core's code generation,
# which QEMU 11 checks the stricter (and the codegen suite instruction by
# instruction).
SID_CLANGS="clang-21 lld-21 clang-22 lld-22"

suite_cc() { case $1 in bookworm | trixie | sid) echo gcc ;; *) echo clang ;; esac; }
suite_root() { # SUITE -> the chroot its tools run in (bookworm: the host)
	case $1 in bookworm | clang14 | clang14-gas) echo bookworm ;; trixie) echo trixie ;; *) echo sid ;; esac
}
suite_qemus() {
	if [ "$(suite_cc "$1")" = gcc ]; then
		echo "$qemus"
	else
		echo "${qemus##* }"
	fi
}

# image_qemus SUITE [1insn] (after image_env): the QEMUs one image boots
# under.  Every image of the newest gcc (sid) boots under each; under the
# older gcc, QEMU 11 (what tells an unaligned Device access or an FP/SIMD
# instruction from a good one, where 7.2 cannot) boots the images whose sfu
# file is built without sfu's flags (core-plain: the kernel-style, nofp and
# mmuoff variants), where the compiler's code for sfu is what is tested.
# Ticks on every instruction are about where ticks land, not the QEMU: the
# suite's first QEMU only.
image_qemus() {
	local q=$(suite_qemus "$1")
	if [ "${2:-}" = 1insn ]; then
		echo "${q%% *}"
	elif [ "$(suite_cc "$1")" = gcc ] && [ "$1" != sid ] && [ "${ex_core_plain:-}" != 1 ]; then
		echo "${q%% *}"
	else
		echo "$q"
	fi
}

# Chroot packages, installed by the script (once): QEMU 11, clang 21/22.
if [ -f "$(tools/toolchain.sh path sid)/.sfu-ready" ]; then
	[[ " $qemus " == *" qemu11 "* ]] && { tools/toolchain.sh install sid qemu-system-arm qemu-system-x86 >&2 || true; }
	[[ " $suites " == *" clang2"* ]] && { tools/toolchain.sh install sid $SID_CLANGS >&2 || true; }
fi

# Why a suite cannot build, with the install command; nothing if it can.
suite_missing() {
	local p
	case $1 in
	bookworm | clang14 | clang14-gas)
		command -v gcc >/dev/null 2>&1 || { echo "gcc not found (install: apt-get install gcc binutils)"; return; }
		command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || {
			echo "aarch64-linux-gnu-gcc not found (install: apt-get install gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu)"
			return
		}
		[ "$1" = bookworm ] || command -v clang-14 >/dev/null 2>&1 ||
			echo "clang-14 not found (install: tools/toolchain.sh host-deps)" ;;
	trixie | sid | clang21 | clang22 | clang22-sframe)
		p=$(tools/toolchain.sh path "$(suite_root "$1")")
		if [ ! -f "$p/.sfu-ready" ]; then
			echo "no $(suite_root "$1") toolchain chroot in $p (install: make toolchains, or tools/toolchain.sh ensure $(suite_root "$1"))"
		elif [ "$(suite_cc "$1")" = clang ] && [ ! -x "$p/usr/bin/clang-${1:5:2}" ]; then
			echo "clang-${1:5:2} not in the sid chroot (install: tools/toolchain.sh install sid $SID_CLANGS)"
		fi ;;
	*) echo "unknown suite $1 (bookworm, trixie, sid, clang14, clang21, clang22, clang14-gas or clang22-sframe)" ;;
	esac
}

# The suite's lld command.
suite_lld() {
	case $1 in
	clang21 | clang22 | clang22-sframe) echo "tools/toolchain.sh run sid ld.lld-${1:5:2}" ;;
	*) echo "$LLD" ;;
	esac
}

suite_make_vars() { # SUITE -> prints make variable assignments, one per line
	local t v=${1:5:2} a p
	t="tools/toolchain.sh run $(suite_root "$1")"
	printf '%s\n' "LLD=$(suite_lld "$1")"
	case $1 in
	trixie | sid)
		printf '%s\n' "CC_x86_64=$t gcc" "LD_x86_64=$t ld" \
			"CC_aarch64=$t aarch64-linux-gnu-gcc" "LD_aarch64=$t aarch64-linux-gnu-ld"
		# The lld images are linked by the host's lld, which cannot see
		# the chroot's libgcc: a copy in the build tree, for every link.
		for a in x86_64 aarch64; do
			p=$($t "$([ $a = x86_64 ] && echo gcc || echo aarch64-linux-gnu-gcc)" -print-libgcc-file-name 2>/dev/null) &&
				cp "$(tools/toolchain.sh path "$1")$p" "$out/$1/libgcc-$a.a" 2>/dev/null &&
				echo "LIBGCC_$a=$root/$out/$1/libgcc-$a.a"
		done ;;
	clang14)
		printf '%s\n' "CC_x86_64=clang-14 --target=x86_64-linux-gnu" "CC_aarch64=clang-14 --target=aarch64-linux-gnu" \
			EX_SFRAME=gen ;;
	clang14-gas)
		printf '%s\n' "CC_x86_64=clang-14 --target=x86_64-linux-gnu -fno-integrated-as" \
			"CC_aarch64=clang-14 --target=aarch64-linux-gnu -fno-integrated-as" ;;
	clang21 | clang22)
		printf '%s\n' "CC_x86_64=$t clang-$v --target=x86_64-linux-gnu" "LD_x86_64=$t ld" \
			"CC_aarch64=$t clang-$v --target=aarch64-linux-gnu" "LD_aarch64=$t aarch64-linux-gnu-ld" EX_SFRAME=gen ;;
	clang22-sframe)
		printf '%s\n' "CC_x86_64=$t clang-22 --target=x86_64-linux-gnu" "LD_x86_64=$t ld" EX_LINK=lld \
			"EX_GSFRAME=-Wa,--gsframe -Wa,--allow-experimental-sframe" ;;
	esac
}

# suite_boots SUITE (after image_env): whether the suite builds and boots
# the image.  gcc: all.  clang: not the images that repeat another (the gen
# variant where every image is one, the lld variant where every image is
# linked by lld), not the kernel variant (its vector code is assembly, the
# same whatever the compiler), not freertos-bcm (the freertos image with
# another IRQ entry in assembly and another constant of sfu_freertos.h:
# clang compiles the same C for both); clang14-gas only those whose SFrame its
# producer changes (plain, pac, lld: the rest is clang 14's code, which the
# clang14 suite runs).
suite_boots() {
	case $1 in
	bookworm | trixie | sid) return 0 ;;
	clang14-gas) case $ex_variant in '' | pac | lld) true ;; *) false ;; esac ;;
	clang22-sframe) [ "$ex_arch" = x86_64 ] && case $ex_variant in '' | nofp) true ;; *) false ;; esac ;;
	*) [ "$ex_variant" != gen ] && [ "$ex_variant" != kernel ] && [ "$ex_variant" != os ] &&
		[ "$ex_variant" != freertos-bcm ] ;;
	esac
}

# epilogue_gap SUITE (after image_env): the image's rows leave epilogues
# undescribed (clang 14 on aarch64: see suite_1insn), so a tick there may
# unwind wrongly; test/firmware/epilogue.py tells those PCs.
epilogue_gap() {
	case $1 in
	clang14 | clang14-gas) [ "$ex_arch" = aarch64 ] ;;
	*) false ;;
	esac
}

# suite_1insn SUITE (after image_env): whether the image also runs the timer
# with ticks on every instruction.  gcc: the GNU ld images (lld's are the
# same code).  clang: the plain images; not clang 14 on aarch64, which
# writes no CFI for epilogues there (LLVM 15 brought asynchronous unwind
# tables to AArch64), so from an epilogue's second-to-last instruction on,
# the rows of both SFrame producers (GNU as, sfu-gen: both read clang's
# CFI) still say the frame is there and such ticks unwind wrongly.
suite_1insn() {
	case $1 in
	bookworm | trixie | sid) [ "$ex_link" != lld ] ;;
	clang14 | clang14-gas) [ -z "$ex_variant" ] && [ "$ex_arch" != aarch64 ] ;;
	*) [ -z "$ex_variant" ] ;;
	esac
}

# image_boots SCENARIO (after image_env): whether the image's board.mk
# `scenarios` list (empty: every scenario) has it.
image_boots() {
	[ -z "${ex_scenarios:-}" ] || [[ " $ex_scenarios " == *" $1 "* ]]
}

# The log of a boot: the tag of the suite's first QEMU ("" for the host's).
log_tag() { local q; q=$(suite_qemus "$1"); q=${q%% *}; [ "$q" = host ] || echo "-$q"; }

# ---------------------------------------------------------------------------
# Expected data.

# expect SCENARIO SUITE (after image_env) -> "STATUS STOP FRAMES..." (or
# "n/a WHY...") of the most specific matching line of expected.txt
# (test/firmware/expect.awk): a selector is "*" or NAME[/NAME...], each
# NAME the suite, its compiler, the architecture, the board, the variant,
# the image, who wrote the .sframe (as, gen), or the variant the image's
# board.mk says it is like.
expect() {
	awk -v s="$1" -v names=" $2 $(suite_cc "$2") $ex_arch $ex_board $ex_variant $ex_image $ex_sframe ${ex_like:-} " \
		-f test/firmware/expect.awk "$expected"
}

# The text sfu_strerror gives for an error code's name (core/sfu.h).
err_text() {
	sed -n "s/^.*X($1, [0-9]*, \"\\(.*\\)\").*$/\\1/p" core/sfu.h
}

# From a serial log: "STOP|FRAMES" of the recipe's dump (addresses only,
# as a kernel prints them), named by tools/sfu-symbolize from the image's
# debug info; STOP is the stop text.
recipe_dump_of() { # IMAGE LOG
	tools/sfu-symbolize "$1" "$2" 2>&1 | awk '
	/^  #[0-9]+ +0x[0-9a-fA-F]+/ {
		f = $0
		sub(/.*  at /, "", f)
		sub(/ .*/, "", f)
		if ($0 ~ /\(interrupted\)  at /) f = f "(interrupted)"
		seq = seq (seq == "" ? "" : " ") f
		next
	}
	/^backtrace: [0-9]+ frames?, stopped: / { stop = $0; sub(/.*stopped: /, "", stop); sub(/ \(SFU_[A-Z_0-9]+\)$/, "", stop) }
	END { print stop "|" seq }'
}

# From a serial log: "STOP|FRAMES" of the last dump in it; with SECTION,
# of the first dump after the line "thread [N] SECTION: ..." (one thread's
# dump of several); with @first, of the first dump.
dump_of() { # LOG [SECTION]
	tr -d '\r' <"$1" | awk -v sec="${2:-}" '
	BEGIN { on = (sec == "" || sec == "@first") }
	!on && $1 == "thread" && ($3 == sec ":" || $2 == sec ":") { on = 1; next }
	!on { next }
	/^backtrace:$/ { seq = ""; stop = ""; next }
	/^  #[0-9]+ +0x[0-9a-fA-F]+ / {
		f = $3
		sub(/\+0x.*/, "", f)
		if ($0 ~ /\(exception\)$/) f = f "(exception)"
		else if ($0 ~ /\(interrupted\)$/) f = f "(interrupted)"
		seq = seq (seq == "" ? "" : " ") f
		next
	}
	/^backtrace: [0-9]+ frames?, stopped: / {
		stop = $NF
		gsub(/[()]/, "", stop)
		if (sec != "") { print stop "|" seq; done = 1; exit }
	}
	END { if (!done) print stop "|" seq }'
}

# The frames of an expected.txt line for this image: @trap, @stub,
# @irqtrap, @irqstub replaced (after image_env), NAME*N as N times NAME.
frames_of() { # FRAMES
	local f=$1
	f=${f//@trap/$ex_trap}
	f=${f//@stub/$ex_stub}
	f=${f//@irqtrap/$ex_irqtrap}
	f=${f//@irqstub/$ex_irqstub}
	awk '{ for (i = 1; i <= NF; i++) {
		n = 1; w = $i
		if (match(w, /\*[0-9]+$/)) { n = substr(w, RSTART + 1) + 0; w = substr(w, 1, RSTART - 1) }
		for (k = 0; k < n; k++) out = out (out == "" ? "" : " ") w
	} } END { print out }' <<<"$f"
}

# The SECTIONs of a scenario's "SCENARIO:SECTION" lines in expected.txt.
sections_of() { # SCENARIO
	awk -v s="$1" 'index($1, s ":") == 1 { print substr($1, length(s) + 2) }' "$expected" | sort -u
}

# Checks of the scenarios that need more than one dump: "" if they pass,
# else why not.  threads: each thread's dump (sections) and its state;
# overflow: the guard page named; nested: the one line, with the first
# fault's PC, and no dump that finished; retained: three boots, the
# record's trace (the last dump) equal to the crash's live dump (the
# first), the half-written record reported corrupt and never as a trace,
# and tools/sfu-crash reading the same from the record's bytes.
special_checks() { # SCENARIO SUITE LOG IMAGE
	local scen=$1 suite=$2 log=$3 img=$4 part exp pstop pframes gstop gframes l tpc npc
	case $scen in
	threads)
		for part in $(sections_of threads); do
			exp=$(expect "threads:$part" "$suite")
			read -r _ pstop pframes <<<"$exp"
			if [ "$pstop" = - ]; then # not dumped: no header line
				! tr -d '\r' <"$log" | grep -Eq "^thread ([0-9]+ )?$part: " || { echo "thread $part dumped, expected none"; return; }
				continue
			fi
			pframes=$(frames_of "$pframes")
			IFS='|' read -r gstop gframes <<<"$(dump_of "$log" "$part")"
			[ "$gstop" = "$pstop" ] || { echo "thread $part stopped with ${gstop:-no dump}, expected $pstop"; return; }
			[ "$gframes" = "$pframes" ] || { echo "thread $part: frames [$gframes], expected [$pframes]"; return; }
		done
		# Each thread's state as its header line gives it (threads-states:
		# NAME:STATE words; an RTOS names them by its own lists).
		exp=$(expect threads-states "$suite")
		for l in ${exp#* * }; do
			l=${l/:/: }
			grep -Eq "^thread ([0-9]+ )?$l, stack " "$log" || { echo "no line 'thread [N] $l'"; return; }
		done
		core_check "$log" "$img" "log:$log" ;;
	overflow)
		grep -Eq '^stack overflow: thread 1 overflow ran into its guard page \((unmapped page|watchpoint)\) at 0x' "$log" ||
			{ echo "the fault was not named a stack overflow into the guard page"; return; }
		core_check "$log" "$img" "log:$log" ;;
	nested)
		l=$(tr -d '\r' <"$log" | grep '^nested ')
		[ "$(grep -c . <<<"$l")" = 1 ] || { echo "not exactly one 'nested' line: [$l]"; return; }
		tpc=$(tr -d '\r' <"$log" | awk '/^registers from the trap frame:/ { getline; print $2; exit }')
		npc=$(sed -n 's/^nested fault during the dump: .* at pc \(0x[0-9a-f]*\); first fault: .* at pc \(0x[0-9a-f]*\); halting$/\1 \2/p' <<<"$l")
		[ -n "$npc" ] || { echo "the nested line is not 'nested fault during the dump: ... at pc X; first fault: ... at pc Y; halting': $l"; return; }
		[ "${npc#* }" = "$tpc" ] || { echo "first fault's pc ${npc#* } is not the trap frame's $tpc"; return; }
		[ "${npc% *}" != "$tpc" ] || { echo "the nested fault's pc is the first fault's"; return; }
		! grep -Eq '^backtrace: [0-9]+ frames' "$log" || { echo "a dump finished after the nested fault"; return; }
		# (board_exit's own fallback line may follow, or the start of it,
		# cut where QEMU stopped: QEMU 11's isa-debug-exit lets the guest
		# run on for a few instructions.)
		l=$(tr -d '\r' <"$log" | sed -n '/^backtrace:$/,$p' | grep -v -E -e '^backtrace:$' -e '^  #' \
			-e '^e(x(i(t( [0-9]*(:.*)?)?)?)?)?$' | grep .)
		[ "$(grep -c . <<<"$l")" = 1 ] || echo "after the dump began, more than the one nested line: [$l]" ;;
	retained)
		# Boot 1 crashes (the dump writes the record) and resets; boot 2
		# prints it with sfu_dump_record_print (the trace the crash's dump
		# printed), crashes again and resets in the middle of that dump,
		# while the record is half written; boot 3 finds it corrupt.
		for l in 1 2 3; do
			[ "$(tr -d '\r' <"$log" | grep -c "^retained: boot $l, ")" = 1 ] || { echo "boot $l not seen once"; return; }
		done
		[ "$(dump_of "$log" @first)" = "$(record_trace_of "$log")" ] ||
			{ echo "the record's trace [$(record_trace_of "$log")] is not the crash's dump [$(dump_of "$log" @first)]"; return; }
		tr -d '\r' <"$log" | grep -q '^previous crash record is corrupt (checksum mismatch): not shown$' ||
			{ echo "the half-written record was not reported corrupt"; return; }
		tr -d '\r' <"$log" | sed -n '/^previous crash record is corrupt/,$p' | grep -q '^backtrace:' &&
			{ echo "a trace printed after the corrupt record"; return; }
		[ -x build/sfu-crash ] || { echo "build/sfu-crash missing (make build/sfu-crash)"; return; }
		l=$(build/sfu-crash --log "$log")
		[ $? = 1 ] || { echo "sfu-crash --log did not exit 1 (one valid, one corrupt record): $l"; return; }
		grep -q '^record 1 of the log: valid$' <<<"$l" && grep -q '^record 2 of the log: corrupt' <<<"$l" ||
			{ echo "sfu-crash --log: $(head -3 <<<"$l")"; return; }
		[ "$(sed -n '/^record 1 /,/^backtrace: /p' <<<"$l" | awk '/^  #[0-9]/ { print $2 }' | tr '\n' ' ')" = \
			"$(tr -d '\r' <"$log" | sed -n '/^previous crash:/,/^backtrace: /p' | awk '/^  #[0-9]/ { print $2 }' | tr '\n' ' ')" ] ||
			{ echo "sfu-crash's frames from the record's wire lines are not the firmware's"; return; }
		# The record as an ELF core file: gdb's frames, PC and SP, are
		# those the record's dump printed (test/core/compare.py).
		core_check "$log" "$img" "log:$log" ;;
	nested | recipe) ;;
	*)
		# Every other crash ends with the record its dumps wrote, in its
		# wire lines: gdb's frames from its core against the log's dumps.
		[ "$(expect "$scen" "$suite" | cut -d' ' -f1)" = 0 ] || core_check "$log" "$img" "log:$log" ;;
	esac
}

# The record's trace as sfu_dump_record_print printed it ("previous
# crash:" to its stop line), "STOP|FRAMES" as dump_of gives it.
record_trace_of() { # LOG
	tr -d '\r' <"$1" | sed -n '/^previous crash: /,/^backtrace: [0-9]* frames\?, stopped: /p' >"$1.record-trace"
	dump_of "$1.record-trace"
}

# core_check LOG IMAGE SFU: the one extended record of LOG as an ELF core
# (build/sfu-crash --core); gdb-multiarch's `thread apply all` frames, PC
# and SP, against sfu's (SFU: "-", the record's frames; "log:LOG", the
# dumps of the log, test/core/compare.py).  Nothing if they are equal
# (compare.py's lines in LOG.compare, the frames compared in LOG.frames),
# else why not.
core_check() {
	local log=$1 img=$2 sfu=$3 l
	rm -f "$log.frames"
	command -v gdb-multiarch >/dev/null || { echo "gdb-multiarch not found; install with: apt-get install -y gdb-multiarch"; return; }
	[ -x build/sfu-crash ] || { echo "build/sfu-crash missing (make build/sfu-crash)"; return; }
	build/sfu-crash --core "$log.core" "$img" --log "$log" >/dev/null 2>"$log.core.err" ||
		{ echo "sfu-crash --core: $(grep -v 'unknown to the record' "$log.core.err")"; return; }
	timeout 120 gdb-multiarch -batch -nx -ex 'set pagination off' -ex 'set backtrace limit 100' \
		-ex 'thread apply all -ascending frame apply all -q printf "F %#lx %#lx\n", $pc, $sp' -ex 'echo BT\n' \
		-ex 'thread apply all -ascending bt' -ex 'echo REGS\n' -ex 'thread apply all -ascending info registers' \
		"$img" "$log.core" >"$log.gdb" 2>&1
	if grep -q 'core file may not match' "$log.gdb"; then
		echo "gdb says the core may not match the image (gdb: $log.gdb)"
		return
	fi
	if ! grep -q '^Program terminated with signal SIG' "$log.gdb"; then
		echo "gdb names no signal for the core (gdb: $log.gdb)"
		return
	fi
	python3 test/core/compare.py "$sfu" <(build/sfu-crash --log "$log") "$log.gdb" >"$log.compare" 2>&1
	l=$(tail -1 "$log.compare")
	if [ "${l%% *}" = ok ]; then
		echo "${l#ok }" >"$log.frames"
	else
		echo "gdb's frames from the record's core are not sfu's: $l (gdb: $log.gdb)"
	fi
}

# ---------------------------------------------------------------------------
# One boot.

# run_case SUITE IMAGE SCENARIO CASE_NAME RESULT_FILE LOG_TAG QEMU [BOOT.SH OPTIONS...]
run_case() {
	local suite=$1 image=$2 scen=$3 name=$4 res=$5 tag=$6 qemu=$7
	shift 7
	local img log exp status stop frames gstop gframes line pcs bad
	image_env "$suite" "$image"
	img=$out/$suite/$image/sfu-$image.elf
	log=$out/$suite/logs/$image-$scen$tag.log
	rm -f "$log.frames"
	exp=$(expect "$scen" "$suite")
	if [ -z "$exp" ]; then
		echo "FAIL $name: no line for $scen in $expected" >"$res"
		return
	fi
	read -r status stop frames <<<"$exp"
	frames=$(frames_of "$frames")
	mapfile -t qopt < <(qemu_opts "$qemu")
	if ! line=$(sh examples/boot.sh -s -n "$name" -e "$status" -t "$timeout_s" -l "$log" "${qopt[@]}" "$@" \
		"$img" "$scen"); then
		echo "$line; log $log" >"$res"
		return
	fi
	if [ "$scen" != nested ] && grep -q '^nested ' "$log"; then
		echo "FAIL $name: nested panic/fault while dumping; log $log" >"$res"
		return
	fi
	case $scen in
	perturb)
		# Every description of the image with one field changed, walked
		# over its real contexts (examples/common/perturb.c): a walk is
		# the truth or not reported complete; W complete-and-wrong walks
		# fail the case, whatever the image's status.
		line=$(tr -d '\r' <"$log" | sed -n 's/^perturb: \([0-9]*\) walks, \([0-9]*\) complete and equal, \([0-9]*\) incomplete, \([0-9]*\) complete and wrong$/\1 \2 \3 \4/p')
		if [ -z "$line" ]; then
			echo "FAIL $name: no perturb summary line; log $log" >"$res"
			return
		fi
		set -- $line
		if [ "$1" -lt 100 ] || [ $(($2 + $3 + $4)) != "$1" ] || [ "$4" != 0 ]; then
			echo "FAIL $name: $1 walks, $2 complete and equal, $3 incomplete, $4 complete and wrong (want >= 100, each judged, 0 wrong): $(tr -d '\r' <"$log" | grep -m3 '^perturb: complete and wrong' | tr '\n' ' '); log $log" >"$res"
			return
		fi
		echo "ok $name ($1 walks, $2 complete and equal, $3 incomplete, 0 complete and wrong)" >"$res"
		return ;;
	timer)
		line=$(tr -d '\r' <"$log" | sed -n 's/^timer: \([0-9]*\) ticks, \([0-9]*\) complete traces, \([0-9]*\) failures$/\1 \2 \3/p')
		if [ -z "$line" ]; then
			echo "FAIL $name: no timer summary line; log $log" >"$res"
			return
		fi
		set -- $line
		if [ "$1" -lt 2000 ] || [ $(($2 + $3)) != "$1" ]; then
			echo "FAIL $name: $1 ticks, $2 complete traces, $3 failures (want >= 2000, each judged); log $log" >"$res"
			return
		fi
		if [ "$3" = 0 ]; then
			echo "ok $name ($1 ticks, $2 complete traces, 0 failures)" >"$res"
			return
		fi
		# Failures are allowed only where a producer is known to describe
		# no epilogue (clang 14 on aarch64: epilogue.py), each PC listed.
		if ! epilogue_gap "$suite"; then
			echo "FAIL $name: $1 ticks, $2 complete traces, $3 failures (want all complete); log $log" >"$res"
			return
		fi
		pcs=$(tr -d '\r' <"$log" | sed -n 's/^timer: a failing trace interrupted pc 0x\([0-9a-f]*\), stopped with .*/\1/p')
		if [ -z "$pcs" ] || tr -d '\r' <"$log" | grep -q '^timer: [0-9]* more failing traces at PCs not listed'; then
			echo "FAIL $name: $3 failures, their PCs not all listed; log $log" >"$res"
			return
		fi
		# shellcheck disable=SC2086 # one word per PC
		bad=$(python3 test/firmware/epilogue.py aarch64-linux-gnu-objdump "$img" $pcs)
		if [ -n "$bad" ]; then
			echo "FAIL $name: $3 failures, at PCs outside an epilogue's tail: $(echo $bad); log $log" >"$res"
			return
		fi
		echo "ok $name ($1 ticks, $2 complete traces, $3 failures, each in an epilogue clang 14 writes no CFI for: $(echo $pcs | wc -w) PCs)" >"$res"
		return ;;
	hello)
		if ! tr -d '\r' <"$log" | grep -q '^hello: 0 check(s) failed$'; then
			echo "FAIL $name: port self-checks failed; log $log" >"$res"
			return
		fi
		# QEMU 10 and later fault on unaligned Device accesses: with the
		# MMU off, the probe must see that, or these runs prove nothing
		# about the alignment of the crash path's accesses.
		if [ "$qemu" = qemu11 ] && grep -q '^hello: unaligned load from Device memory: no fault' "$log"; then
			echo "FAIL $name: QEMU 11 did not fault on an unaligned Device access; log $log" >"$res"
			return
		fi ;;
	esac
	if [ "$ex_pac" = 1 ] && ! grep -q 'SCTLR_EL1.EnIA set' "$log"; then
		echo "FAIL $name: pointer authentication was not enabled on -cpu max; log $log" >"$res"
		return
	fi
	if [ "$scen" = recipe ]; then
		# The README's code prints addresses only: named on the host.
		IFS='|' read -r gstop gframes <<<"$(recipe_dump_of "$img" "$log")"
		if [ "$gstop" != "$(err_text "$stop")" ]; then
			echo "FAIL $name: stopped with '${gstop:-no dump line}', expected '$(err_text "$stop")'; log $log" >"$res"
		elif [ "$gframes" != "$frames" ]; then
			echo "FAIL $name: frames [$gframes], expected [$frames]; log $log" >"$res"
		else
			echo "ok $name" >"$res"
		fi
		return
	fi
	if [ "$stop" != - ]; then
		# retained: the trace of the record read back at the next boot
		# (the last dump there is one the reset cut short).
		if [ "$scen" = retained ]; then
			IFS='|' read -r gstop gframes <<<"$(record_trace_of "$log")"
		else
			IFS='|' read -r gstop gframes <<<"$(dump_of "$log")"
		fi
		[ "$stop" = NONE ] && stop="" # a dump that must not finish (nested)
		if [ "$gstop" != "$stop" ]; then
			echo "FAIL $name: stopped with ${gstop:-no dump line}, expected $stop; log $log" >"$res"
			return
		fi
		if [ "$gframes" != "$frames" ]; then
			echo "FAIL $name: frames [$gframes], expected [$frames]; log $log" >"$res"
			return
		fi
	fi
	line=$(special_checks "$scen" "$suite" "$log" "$img")
	if [ -n "$line" ]; then
		echo "FAIL $name: $line; log $log" >"$res"
		return
	fi
	if [ -s "$log.frames" ]; then
		read -r l f <"$log.frames"
		echo "ok $name (core: gdb's $f frames of $l thread(s) are sfu's, PC and SP)" >"$res"
		return
	fi
	echo "ok $name" >"$res"
}


# The crash record decoder the retained scenario's check uses (host).
make -s --no-print-directory build/sfu-crash >"$out/sfu-crash-build.log" 2>&1 ||
	emit "FAIL firmware/sfu-crash/build: make build/sfu-crash failed (log $out/sfu-crash-build.log)"

# ---------------------------------------------------------------------------
# Build, per suite.

declare -A built why_not images
for suite in $suites; do
	mkdir -p "$out/$suite/logs"
	mapfile -t vars < <(suite_make_vars "$suite")
	# The images, with their image.env (no compiler needed for that).
	if ! elfs=$(make -s --no-print-directory -C examples EX_OUT="$root/$out/$suite" "${vars[@]}" images \
		2>"$out/$suite/build.log"); then
		emit "FAIL firmware/$suite/build: make -C examples images failed (log $out/$suite/build.log)"
		continue
	fi
	images[$suite]=$(for e in $elfs; do
		image=$(basename "$(dirname "$e")")
		image_env "$suite" "$image"
		suite_boots "$suite" && grep -Eq -- "$image_filter" <<<"$image" && echo "$image"
	done)
	miss=$(suite_missing "$suite")
	for image in ${images[$suite]}; do
		built[$suite/$image]=0
		why_not[$suite/$image]=$miss
	done
	if [ -n "$miss" ]; then
		emit "FAIL firmware/$suite/build: $miss"
		continue
	fi
	targets=""
	lld=$(suite_lld "$suite")
	for image in ${images[$suite]}; do
		image_env "$suite" "$image"
		if [ "$ex_link" = lld ] && [ "$lld" = "$LLD" ] && ! command -v "${LLD%% *}" >/dev/null 2>&1; then
			why_not[$suite/$image]="$LLD not found (install: apt-get install lld-14)"
			continue
		fi
		targets="$targets $root/$out/$suite/$image/sfu-$image.elf"
	done
	# Relink every image (cheap), so a failed link cannot leave an image
	# of an earlier run to be booted.
	rm -f $targets
	start=$(date +%s)
	make -k -j"$jobs" --no-print-directory -C examples EX_OUT="$root/$out/$suite" "${vars[@]}" \
		$targets >"$out/$suite/build.log" 2>&1
	brc=$?
	for image in ${images[$suite]}; do
		[ -n "${why_not[$suite/$image]}" ] && continue
		if [ -f "$out/$suite/$image/sfu-$image.elf" ]; then
			built[$suite/$image]=1
		else
			why_not[$suite/$image]="build failed (log $out/$suite/build.log)"
		fi
	done
	if [ $brc -eq 0 ]; then
		emit "ok firmware/$suite/build ($(( $(date +%s) - start )) s)"
	else
		emit "FAIL firmware/$suite/build: make exited $brc; $(grep -m1 -E 'error|Error|sfu-symtab:' "$out/$suite/build.log" | cut -c1-200) (log $out/$suite/build.log)"
	fi
	for image in ${images[$suite]}; do
		image_env "$suite" "$image"
		[ "$ex_link" = lld ] && [ "${built[$suite/$image]}" = 0 ] &&
			emit "FAIL firmware/$suite/$image/build: ${why_not[$suite/$image]}"
	done
done
flush

# ---------------------------------------------------------------------------
# Boots.

# Reserve the next result slot in $f (no subshell: seq_no must advance).
next_slot() {
	seq_no=$((seq_no + 1))
	f=$results/$(printf '%05d' $seq_no)
}

# boot_case SUITE IMAGE SCENARIO NAME LOG_TAG [BOOT.SH OPTIONS...]: run_case
# in the pool under each QEMU, or a FAIL line if it cannot run.
boot_case() {
	local suite=$1 image=$2 scen=$3 name=$4 tag=$5 q n qm
	shift 5
	for q in $(image_qemus "$suite" "${tag#-}"); do
		n=$name
		[ "$q" = host ] || n=$name/$q
		[ "$q" = host ] && q=""
		qm=$(qemu_missing "${q:-host}")
		if [ "${built[$suite/$image]}" != 1 ]; then
			emit "FAIL $n: image not built: ${why_not[$suite/$image]}"
		elif [ -n "$qm" ]; then
			emit "FAIL $n: $qm"
		else
			next_slot
			spawn "$jobs" run_case "$suite" "$image" "$scen" "$n" "$f" "$tag${q:+-$q}" "$q" "$@"
		fi
	done
}

for suite in $suites; do
	elfs=""
	for image in ${images[$suite]}; do
		image_env "$suite" "$image"
		elfs="$elfs $out/$suite/$image/sfu-$image.elf"
		for scen in $scenarios; do
			if ! image_boots "$scen"; then
				emit "# firmware/$suite/$image/$scen not run: $ex_scenarios_why"
				continue
			fi
			exp=$(expect "$scen" "$suite")
			if [ "${exp%% *}" = n/a ]; then
				emit "# firmware/$suite/$image/$scen not run: ${exp#n/a }"
				continue
			fi
			boot_case "$suite" "$image" "$scen" "firmware/$suite/$image/$scen" ""
		done
		# Ticks on every instruction boundary (prologues, epilogues):
		# slower, so not on every image (suite_1insn).
		if ! suite_1insn "$suite"; then
			:
		elif image_boots timer; then
			boot_case "$suite" "$image" timer "firmware/$suite/$image/timer-1insn" -1insn -1
		else
			emit "# firmware/$suite/$image/timer-1insn not run: $ex_scenarios_why"
		fi
	done
	# The GNU tools' view of the same images (check-sframe.sh), in the pool.
	any=0
	for image in ${images[$suite]}; do [ "${built[$suite/$image]}" = 1 ] && any=1; done
	if [ "$any" = 1 ]; then
		next_slot
		(
			if [ "$(suite_root "$suite")" = bookworm ]; then
				env_od=()
			else
				t="tools/toolchain.sh run $(suite_root "$suite")"
				env_od=("OBJDUMP_aarch64=$t aarch64-linux-gnu-objdump" "OBJDUMP_x86_64=$t objdump"
					"READELF_aarch64=$t aarch64-linux-gnu-readelf" "READELF_x86_64=$t readelf")
			fi
			# shellcheck disable=SC2086
			env "${env_od[@]}" sh examples/check-sframe.sh $elfs >"$out/$suite/logs/check-sframe.log" 2>&1
			sed -n "s|^ok |ok firmware/$suite/|p; s|^FAIL |FAIL firmware/$suite/|p" \
				"$out/$suite/logs/check-sframe.log" >"$f"
			[ -s "$f" ] || echo "FAIL firmware/$suite/sframe: check-sframe.sh printed no result (log $out/$suite/logs/check-sframe.log)" >"$f"
		) &
	fi
done
wait
flush

# The frames gdb showed from the crash records' cores, equal to sfu's (PC
# and SP), per suite, scenario and board (core_check; the host QEMU's boots
# or, for the clang suites, QEMU 11's): every scenario whose records were
# checked, none left out of the count.
for suite in $suites; do
	for scen in $scenarios; do
		sum="" all=0
		for board in aarch64-virt x86_64-pc; do
			n=0 t=0 i=0
			for image in ${images[$suite]}; do
				[[ $image == "$board" || $image == "$board"-* ]] || continue
				f=$out/$suite/logs/$image-$scen$(log_tag "$suite").log.frames
				[ -s "$f" ] || continue
				read -r a b <"$f"
				t=$((t + a)) n=$((n + b)) i=$((i + 1))
			done
			sum="$sum${sum:+; }$board $n frames of $t threads on $i images"
			all=$((all + i))
		done
		[ "$all" = 0 ] || echo "# core frames compared: $suite $scen: $sum"
	done
done

# ---------------------------------------------------------------------------
# The README's recipe is the code the recipe scenario ran: every code block
# after a "<!-- recipe: FILE -->" line of README.md is a verbatim excerpt of
# FILE.
python3 - <<'PY' | while IFS= read -r line; do emit "$line"; done
import re
readme = open("README.md").read()
blocks = re.findall(r"<!-- recipe: (\S+) -->\n```c\n(.*?)\n```", readme, re.S)
if not blocks:
    print("FAIL firmware/readme-recipe: README.md has no recipe blocks")
for path, code in blocks:
    try:
        text = open(path).read()
    except OSError as e:
        print("FAIL firmware/readme-recipe/%s: %s" % (path, e))
        continue
    if code in text:
        print("ok firmware/readme-recipe/%s: the README's %d lines are the file's" % (path, code.count("\n") + 1))
    else:
        print("FAIL firmware/readme-recipe/%s: the README's block is not in the file" % path)
PY
flush

# ---------------------------------------------------------------------------
# Cross-checks on the logs.

for suite in $suites; do
	for image in ${images[$suite]}; do
		image_env "$suite" "$image"
		# Signed return addresses: every complete trace is the plain
		# image's, and signed return addresses really were in play
		# (panic's LR carries a PAC).
		[ "$ex_pac" = 1 ] && for scen in $scenarios; do
			exp=$(expect "$scen" "$suite")
			read -r _ stop _ <<<"$exp"
			[ "$stop" = SFU_END ] || continue
			name=firmware/$suite/$image/$scen/same-as-nopac
			a=$out/$suite/logs/$ex_board-$scen$(log_tag "$suite").log
			p=$out/$suite/logs/$image-$scen$(log_tag "$suite").log
			if [ "${built[$suite/$image]}" != 1 ] || [ "${built[$suite/$ex_board]}" != 1 ] ||
				[ ! -s "$a" ] || [ ! -s "$p" ]; then
				emit "FAIL $name: no logs to compare (images not built or not booted)"
				continue
			fi
			da=$(dump_of "$a")
			dp=$(dump_of "$p")
			if [ "$da" != "$dp" ]; then
				emit "FAIL $name: pac-ret [$dp], without [$da]"
			elif [ "$scen" = panic ] && ! grep -q 'PAC stripped' "$p"; then
				emit "FAIL $name: panic's link register carried no PAC (pac-ret not in effect?)"
			else
				emit "ok $name"
			fi
		done

		# tools/sfu-symbolize reads the dump format: the fault dump's
		# interrupted leaf is looked up at its exact PC, the return
		# addresses at ra - 1 (chain_e's is chain_b's first byte).
		[ -z "$ex_variant" ] || continue
		# (A run narrowed by SFU_FW_SCENARIOS without null has no fault dump.)
		[[ " $(echo $scenarios) " == *" null "* ]] || continue
		name=firmware/$suite/$image/symbolize
		log=$out/$suite/logs/$image-null$(log_tag "$suite").log
		img=$out/$suite/$image/sfu-$image.elf
		if [ "${built[$suite/$image]}" != 1 ] || [ ! -s "$log" ]; then
			emit "FAIL $name: no fault dump to symbolize"
			continue
		fi
		sym=$(tools/sfu-symbolize "$img" "$log" 2>&1)
		if ! grep -q 'leaf_load+0x0/.*(interrupted)  at leaf_load at .*leaf\.c:' <<<"$sym"; then
			emit "FAIL $name: leaf_load not resolved to leaf.c: $(grep leaf_load <<<"$sym" | head -1)"
		elif ! grep -q ' chain_e+.*  at chain_e at .*chain_nofp\.c:' <<<"$sym"; then
			emit "FAIL $name: chain_e not resolved to chain_nofp.c: $(grep chain_e <<<"$sym" | head -1)"
		else
			emit "ok $name"
		fi
		# Frame numbers with leading zeros, as printers that pad with
		# 0 write them, and a first frame at a function's first byte:
		# frame 0 is exact, so it names that function, not the one
		# before it (frame 0 captured at panic+0x0 is what gcc 16 gives).
		name=firmware/$suite/$image/symbolize-frame-0
		nm_tool=nm
		[ "$ex_arch" = aarch64 ] && nm_tool=aarch64-linux-gnu-nm
		a=$($nm_tool "$img" | awk '$3 == "panic" { print $1 }')
		b=$($nm_tool "$img" | awk '$3 == "chain_b" { print $1 }')
		sym=$(printf '  #00 0x%s panic+0x0\n  #01 0x%s chain_b+0x0\n  #02 0x%s ?? (user)\n' "$a" "$b" "$b" |
			tools/sfu-symbolize "$img" 2>&1)
		if [ -z "$a" ] || [ -z "$b" ]; then
			emit "FAIL $name: no panic or chain_b symbol in $img"
		elif ! grep -q '#00 .*  at panic at .*panic\.c:' <<<"$sym"; then
			emit "FAIL $name: frame #00 at panic's first byte not named panic: $(head -1 <<<"$sym")"
		elif grep -q '#01 .*  at chain_b ' <<<"$sym"; then
			emit "FAIL $name: frame #01, a return address, looked up as exact: $(sed -n 2p <<<"$sym")"
		elif ! grep -q '#02 .*(user)  at (user mode)$' <<<"$sym"; then
			emit "FAIL $name: a (user) frame was looked up in the image: $(sed -n 3p <<<"$sym")"
		else
			emit "ok $name"
		fi
	done
done
flush

# LLVM's own SFrame and GNU ld: the objects of clang22-sframe's x86_64-pc
# image linked by the sid chroot's GNU ld (2.47), with the image's script:
# ld refuses each object's .sframe (V2, and ld 2.47 merges V3 only) and the
# image would have no unwind tables, hence lld 22 for that suite.
if [[ " $suites " == *" clang22-sframe "* ]]; then
	name=firmware/clang22-sframe/x86_64-pc/gnu-ld
	d=$out/clang22-sframe/x86_64-pc
	t="tools/toolchain.sh run sid"
	if [ "${built[clang22-sframe/x86_64-pc]:-0}" != 1 ]; then
		emit "FAIL $name: image not built: ${why_not[clang22-sframe/x86_64-pc]:-not in the suite}"
	else
		objs=$(ls "$d"/*.o | grep -v '/symtab0\.o$')
		# shellcheck disable=SC2086
		$t ld -nostdlib -static -z noexecstack --no-warn-rwx-segments -z max-page-size=0x1000 -L linker -L "$d" \
			-T examples/x86_64-pc/link.ld -o "$d/gnu-ld.elf" $objs \
			"$($t clang-22 --target=x86_64-linux-gnu -print-libgcc-file-name)" >"$d/gnu-ld.log" 2>&1
		rc=$?
		n=$(grep -c '(\.sframe); unexpected SFrame format version 2$' "$d/gnu-ld.log")
		c=0
		for o in $objs; do readelf -SW "$o" | grep -q ' \.sframe ' && c=$((c + 1)); done
		size=$(readelf -SW "$d/gnu-ld.elf" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".sframe" { print $5 }')
		if [ "$c" -gt 0 ] && [ "$n" = "$c" ] && [ "$size" = 000000 ]; then
			emit "ok $name: ld 2.47 (exit $rc) refuses the .sframe of all $c objects that have one, \"$(grep -m1 'unexpected SFrame' "$d/gnu-ld.log" | sed 's/.*; //')\", and leaves .sframe empty"
		else
			emit "FAIL $name: expected ld 2.47 to refuse each of $c objects' LLVM V2 .sframe and write an empty one: $n refused, .sframe size ${size:-none}, exit $rc; log $d/gnu-ld.log"
		fi
	fi
	flush
fi

# The embedding's check can fail: bookworm's sfu-gen images linked again by
# their own final link command (make -n), as built (sframe-gen.sh check
# passes) and with 256 more bytes of code at the end of .text, which moves
# the section but no function (it refuses: every function's offset from
# the section changed).  A link that moved code and section alike would
# keep the section right: its offsets are relative.
if [[ " $suites " == *" bookworm "* ]]; then
	for image in ${images[bookworm]}; do
		image_env bookworm "$image"
		[ "$ex_sframe" = gen ] || continue
		name=firmware/bookworm/$image/embed-check
		d=$out/bookworm/$image
		if [ "${built[bookworm/$image]}" != 1 ]; then
			emit "FAIL $name: image not built: ${why_not[bookworm/$image]}"
			continue
		fi
		elf=$root/$d/sfu-$image.elf
		# The link writing $d/@OUT@.elf (and its map).
		link=$(make -s -n -B V=1 --no-print-directory -C examples EX_OUT="$root/$out/bookworm" "$elf" 2>/dev/null |
			grep -e " -Map $elf.map -o $elf.tmp ")
		link=${link/ -Map $elf.map -o $elf.tmp / -Map $root/$d/@OUT@.map -o $root/$d/@OUT@.elf }
		cc=gcc nm=nm
		[ "$ex_arch" = aarch64 ] && cc=aarch64-linux-gnu-gcc nm=aarch64-linux-gnu-nm
		printf '.text\n.space 256\n.section .note.GNU-stack,"",%%progbits\n' | $cc -c -x assembler - -o "$d/pad.o"
		embed_check() { NM=$nm sh examples/sframe-gen.sh check "$d/sframe.bin" "$d/$1.elf" >>"$d/$1.log" 2>&1; }
		if [ -z "$link" ]; then
			emit "FAIL $name: no final link command from make -n"
		elif ! sh -c "${link//@OUT@/relink}" >"$d/relink.log" 2>&1 || ! embed_check relink; then
			emit "FAIL $name: the same link again is refused; log $d/relink.log"
		elif ! sh -c "${link//@OUT@/moved} $root/$d/pad.o" >"$d/moved.log" 2>&1; then
			emit "FAIL $name: the link with 256 more bytes of code failed; log $d/moved.log"
		elif embed_check moved; then
			emit "FAIL $name: a link that moved the section from the code passed the check; log $d/moved.log"
		elif ! grep -q 'moved code or the section' "$d/moved.log"; then
			emit "FAIL $name: refused for another reason; log $d/moved.log"
		else
			emit "ok $name: relinked as built, passes; with 256 more bytes of code at the end, refused"
		fi
	done
	flush
fi

# ---------------------------------------------------------------------------
# Sections that cannot lie (core/sfu.h: SFU_E_LINKED, SFU_E_CODE_RANGE).
# Each board's lld image built again as a user who missed the lld option
# would build it: with the options of the GNU ld images (EX_LLD_DEFS empty:
# no SFU_OPT_START_PCREL) and, told wrongly that the starts are relative to
# each section, with SFU_OPT_START_SECREL.  Booted with the panic scenario
# under the suite's first QEMU.  binutils 2.40's V1 and 2.44's V2 sections
# (bookworm, trixie) have no PC-relative flag: the set-up must print the
# error and the dump stop with it, no frame (the default build: several
# unflagged sections, SFU_E_LINKED; the SECREL build: the starts leave
# .text or collide, SFU_E_CODE_RANGE).  2.47's V3 sections (sid) carry the
# flag, so the default build needs no option: it must walk as the lld image.
lie_kinds() { # SUITE -> "KIND|EX_LLD_DEFS|CODE" per line
	case $1 in
	bookworm | trixie)
		echo "default||SFU_E_LINKED"
		echo "secrel|-DEX_SFRAME_OPTS=SFU_OPT_START_SECREL|SFU_E_CODE_RANGE" ;;
	sid) echo "default||SFU_END" ;;
	esac
}

# lie_boot SUITE KIND CODE IMAGE NAME RESULT_FILE QEMU
lie_boot() {
	local suite=$1 kind=$2 code=$3 image=$4 name=$5 res=$6 qemu=$7 d log line exp stop frames gstop gframes before
	d=$out/$suite/lie-$kind
	. "$d/$image/image.env"
	log=$out/$suite/logs/$image-lie-$kind-panic$(log_tag "$suite").log
	mapfile -t qopt < <(qemu_opts "$qemu")
	if ! line=$(sh examples/boot.sh -s -n "$name" -t "$timeout_s" -l "$log" "${qopt[@]}" "$d/$image/sfu-$image.elf" panic); then
		echo "$line; log $log" >"$res"
		return
	fi
	IFS='|' read -r gstop gframes <<<"$(dump_of "$log")"
	if [ "$code" = SFU_END ]; then
		exp=$(expect panic "$suite")
		read -r _ stop frames <<<"$exp"
		frames=$(frames_of "$frames")
		if [ "$gstop" != "$stop" ] || [ "$gframes" != "$frames" ]; then
			echo "FAIL $name: stopped with ${gstop:-no dump line} [$gframes], expected $stop [$frames]; log $log" >"$res"
		else
			echo "ok $name: PC-relative flag set, no option needed: the lld image's trace" >"$res"
		fi
		return
	fi
	# The set-up's line (before the dump) names the error, with its text.
	before=$(tr -d '\r' <"$log" | sed -n '/^backtrace:$/q;p')
	if ! grep -v '^backtrace' <<<"$before" | grep -qF "$(err_text "$code") ($code)"; then
		echo "FAIL $name: no set-up line with '$(err_text "$code") ($code)' before the dump; log $log" >"$res"
	elif [ "$gstop" != "$code" ]; then
		echo "FAIL $name: the dump stopped with ${gstop:-no dump line}, expected $code; log $log" >"$res"
	elif grep -Eq '^  #[0-9]+ ' "$log"; then
		echo "FAIL $name: frames printed after the refusal: [$gframes]; log $log" >"$res"
	else
		echo "ok $name: refused at set-up ($code), no frame" >"$res"
	fi
}

for suite in $suites; do
	kinds=$(lie_kinds "$suite")
	[ -n "$kinds" ] || continue
	lld_images=$(for image in ${images[$suite]}; do
		image_env "$suite" "$image"
		[ "$ex_link" = lld ] && echo "$image"
	done)
	[ -n "$lld_images" ] || continue
	miss=$(suite_missing "$suite")
	command -v "${LLD%% *}" >/dev/null 2>&1 || miss="$LLD not found (install: apt-get install lld-14)"
	mapfile -t vars < <(suite_make_vars "$suite")
	while IFS='|' read -r kind defs code; do
		d=$out/$suite/lie-$kind
		targets=""
		for image in $lld_images; do targets="$targets $root/$d/$image/sfu-$image.elf"; done
		if [ -n "$miss" ]; then
			emit "FAIL firmware/$suite/lie-$kind/build: $miss"
			continue
		fi
		rm -f $targets
		make -k -j"$jobs" --no-print-directory -C examples EX_OUT="$root/$d" "${vars[@]}" "EX_LLD_DEFS=$defs" \
			$targets >"$d.build.log" 2>&1
		for image in $lld_images; do
			image_env "$suite" "$image"
			q=$(suite_qemus "$suite")
			q=${q%% *}
			name=firmware/$suite/$image/lie-$kind
			[ "$q" = host ] || name=$name/$q
			[ "$q" = host ] && q=""
			qm=$(qemu_missing "${q:-host}")
			if [ ! -f "$d/$image/sfu-$image.elf" ]; then
				emit "FAIL $name: build failed (log $d.build.log)"
			elif [ -n "$qm" ]; then
				emit "FAIL $name: $qm"
			else
				next_slot
				spawn "$jobs" lie_boot "$suite" "$kind" "$code" "$image" "$name" "$f" "$q"
			fi
		done
	done <<<"$kinds"
done
wait
flush
