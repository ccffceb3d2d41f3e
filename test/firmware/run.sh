#!/usr/bin/env bash
# test/firmware/run.sh -- the example firmware end to end, in QEMU, with
# every toolchain: the dumps must show the exact expected function sequence.
#
# For each toolchain suite (bookworm: gcc 12 / binutils 2.40, SFrame V1;
# trixie: gcc 14 / 2.44, V2; sid: gcc 16 / 2.47, V3) it builds the five
# example images once (examples/build.mk: aarch64-virt, its pac-ret build,
# x86_64-pc, and both boards linked by lld-14), then boots every scenario
# on every image and compares against test/firmware/expected.txt:
#
#   - QEMU's exit status (the image's status, mapped per board);
#   - the dump's stop code ("backtrace: N frames, stopped: ... (CODE)");
#   - the function of every frame, innermost first, with the
#     (exception)/(interrupted) markers;
#   - timer: the summary "timer: T ticks, C complete traces, F failures"
#     with T >= 2000, C = T, F = 0, also with ticks on every instruction
#     (QEMU -singlestep) on the GNU ld images;
#   - pac-ret on -cpu max: pointer authentication was on, signed return
#     addresses were seen, and each trace is the non-PAC build's;
#   - tools/sfu-symbolize resolves the fault dump to the right source files;
#   - examples/check-sframe.sh on the suite's images (the GNU tools' view of
#     each .sframe).
#
# One line per case, "ok <case>" or "FAIL <case>: <why>".  A missing
# emulator, compiler, chroot or lld is a FAIL with the install command.
# Every QEMU run has a timeout; boots run SFU_FW_JOBS (2) at a time.
#
# Environment: SFU_FW_SUITES (default "bookworm trixie sid"),
# SFU_FW_OUT (build/firmware), SFU_FW_TIMEOUT (seconds per boot, 30),
# SFU_FW_JOBS (2), SFU_FW_KEEP=1 keeps going after a failed build.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
out=${SFU_FW_OUT:-build/firmware}
suites=${SFU_FW_SUITES:-bookworm trixie sid}
timeout_s=${SFU_FW_TIMEOUT:-30}
jobs=${SFU_FW_JOBS:-2}
expected=test/firmware/expected.txt

images="aarch64-virt aarch64-virt-pac x86_64-pc aarch64-virt-lld x86_64-pc-lld"
scenarios="hello panic null udf nullcall irqpanic timer corrupt badfp loop badsp"
# Ticks on every instruction boundary (prologues, epilogues): slower, so on
# the GNU ld images only.
singlestep_images="aarch64-virt aarch64-virt-pac x86_64-pc"
# The pac-ret image must give the non-PAC image's traces.
pac_scenarios="panic null udf nullcall irqpanic badfp"

QEMU_aarch64=${QEMU_aarch64:-qemu-system-aarch64}
QEMU_x86_64=${QEMU_x86_64:-qemu-system-x86_64}
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

arch_of() { case $1 in aarch64*) echo aarch64 ;; *) echo x86_64 ;; esac; }
board_of() { case $1 in aarch64*) echo aarch64-virt ;; *) echo x86_64-pc ;; esac; }

# ---------------------------------------------------------------------------
# Tools.

qemu_missing() { # ARCH -> message, or nothing
	local q pkg
	if [ "$1" = aarch64 ]; then q=$QEMU_aarch64 pkg=qemu-system-arm; else q=$QEMU_x86_64 pkg=qemu-system-x86; fi
	command -v "${q%% *}" >/dev/null 2>&1 || echo "$q not found (install: apt-get install $pkg)"
}

# Toolchain of a suite: make variables for examples/build.mk, or a reason.
suite_missing() {
	case $1 in
	bookworm)
		command -v gcc >/dev/null 2>&1 || { echo "gcc not found (install: apt-get install gcc binutils)"; return; }
		command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
			echo "aarch64-linux-gnu-gcc not found (install: apt-get install gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu)" ;;
	trixie | sid)
		local p
		p=$(tools/toolchain.sh path "$1")
		[ -f "$p/.sfu-ready" ] || echo "no $1 toolchain chroot in $p (install: make toolchains, or tools/toolchain.sh ensure $1)" ;;
	*) echo "unknown suite $1 (bookworm, trixie or sid)" ;;
	esac
}

suite_make_vars() { # SUITE -> prints make variable assignments, one per line
	[ "$1" = bookworm ] && return
	local t="tools/toolchain.sh run $1"
	printf '%s\n' "CC_x86_64=$t gcc" "LD_x86_64=$t ld" \
		"CC_aarch64=$t aarch64-linux-gnu-gcc" "LD_aarch64=$t aarch64-linux-gnu-ld"
}

# 1 when QEMU spells one-instruction TBs -singlestep (before 8.1).
singlestep_flag() {
	local v
	v=$("${QEMU_x86_64%% *}" --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -1)
	set -- $v
	if [ $# -eq 2 ] && { [ "$1" -gt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -ge 1 ]; }; }; then
		echo "-accel tcg,one-insn-per-tb=on"
	else
		echo "-singlestep"
	fi
}

# ---------------------------------------------------------------------------
# Expected data.

# expect SCENARIO SUITE ARCH -> "STATUS STOP FRAMES..." of the most specific
# matching line of expected.txt.
expect() {
	awk -v s="$1" -v suite="$2" -v arch="$3" '
	/^[ \t]*(#|$)/ { next }
	$1 != s { next }
	{
		sel = $2; rank = -1
		if (sel == "*") rank = 0
		else if (sel == arch || sel == suite) rank = 1
		else if (sel == suite "/" arch) rank = 2
		if (rank > best || best == "") {
			if (rank < 0) next
			best = rank
			line = $3
			for (i = 4; i <= NF; i++) line = line " " $i
		}
	}
	END { if (line != "") print line }' "$expected"
}

# The board's names for @trap / @stub.
subst_board() { # ARCH TEXT
	if [ "$1" = aarch64 ]; then
		printf '%s\n' "$2" | sed 's/@trap/a64_trap/g; s/@stub/trap_common/g'
	else
		printf '%s\n' "$2" | sed 's/@trap/x86_trap/g; s/@stub/isr_common/g'
	fi
}

# From a serial log: "STOP|FRAMES" of the last dump in it.
dump_of() {
	tr -d '\r' <"$1" | awk '
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
	}
	END { print stop "|" seq }'
}

# ---------------------------------------------------------------------------
# One boot.

# boot IMAGE_PATH ARCH SCENARIO LOG [EXTRA QEMU ARGS...] -> QEMU's status
boot() {
	local img=$1 arch=$2 scen=$3 log=$4
	shift 4
	local -a q
	if [ "$arch" = aarch64 ]; then
		q=($QEMU_aarch64 -M virt,gic-version=2 -cpu max -m 128M -nographic -no-reboot -semihosting)
	else
		q=($QEMU_x86_64 -M pc -m 128M -nographic -no-reboot -nic none
			-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	fi
	timeout "$timeout_s" "${q[@]}" "$@" -kernel "$img" -append "scenario=$scen" \
		</dev/null >"$log" 2>&1
	echo $?
}

# run_case SUITE IMAGE SCENARIO CASE_NAME RESULT_FILE [EXTRA QEMU ARGS...]
run_case() {
	local suite=$1 image=$2 scen=$3 name=$4 res=$5
	shift 5
	local arch img log exp status stop frames rc want got gstop gframes line
	arch=$(arch_of "$image")
	img=$out/$suite/$image/sfu-$image.elf
	log=$out/$suite/logs/$image-$scen${1:+-1insn}.log
	exp=$(expect "$scen" "$suite" "$arch")
	if [ -z "$exp" ]; then
		echo "FAIL $name: no line for $scen in $expected" >"$res"
		return
	fi
	read -r status stop frames <<<"$exp"
	frames=$(subst_board "$arch" "$frames")
	rc=$(boot "$img" "$arch" "$scen" "$log" "$@")
	if [ "$arch" = aarch64 ]; then want=$status; else want=$(( (status << 1) | 1 )); fi
	if [ "$rc" != "$want" ]; then
		case $rc in
		124) line="timed out after ${timeout_s}s" ;;
		0) line="QEMU exit 0 (reset or triple fault)" ;;
		*) line="QEMU exit $rc" ;;
		esac
		echo "FAIL $name: $line, expected $want (status $status); log $log" >"$res"
		return
	fi
	if grep -q 'while reporting an earlier panic/fault' "$log"; then
		echo "FAIL $name: nested panic/fault while dumping; log $log" >"$res"
		return
	fi
	case $scen in
	timer)
		line=$(tr -d '\r' <"$log" | sed -n 's/^timer: \([0-9]*\) ticks, \([0-9]*\) complete traces, \([0-9]*\) failures$/\1 \2 \3/p')
		if [ -z "$line" ]; then
			echo "FAIL $name: no timer summary line; log $log" >"$res"
			return
		fi
		set -- $line
		if [ "$1" -lt 2000 ] || [ "$2" != "$1" ] || [ "$3" != 0 ]; then
			echo "FAIL $name: $1 ticks, $2 complete traces, $3 failures (want >= 2000, all complete); log $log" >"$res"
			return
		fi
		echo "ok $name ($1 ticks, $2 complete traces, 0 failures)" >"$res"
		return ;;
	hello)
		if ! tr -d '\r' <"$log" | grep -q '^hello: 0 check(s) failed$'; then
			echo "FAIL $name: port self-checks failed; log $log" >"$res"
			return
		fi ;;
	esac
	if [ "$image" = aarch64-virt-pac ] && ! grep -q 'SCTLR_EL1.EnIA set' "$log"; then
		echo "FAIL $name: pointer authentication was not enabled on -cpu max; log $log" >"$res"
		return
	fi
	if [ "$stop" != - ]; then
		IFS='|' read -r gstop gframes <<<"$(dump_of "$log")"
		if [ "$gstop" != "$stop" ]; then
			echo "FAIL $name: stopped with ${gstop:-no dump line}, expected $stop; log $log" >"$res"
			return
		fi
		if [ "$gframes" != "$frames" ]; then
			echo "FAIL $name: frames [$gframes], expected [$frames]; log $log" >"$res"
			return
		fi
	fi
	echo "ok $name" >"$res"
}

# Background jobs, at most $jobs at once.
spawn() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n 2>/dev/null || true
	done
	"$@" &
}

# ---------------------------------------------------------------------------
# Build, per suite.

declare -A built why_not
onestep=$(singlestep_flag)
for suite in $suites; do
	miss=$(suite_missing "$suite")
	mkdir -p "$out/$suite/logs"
	for image in $images; do
		built[$suite/$image]=0
		why_not[$suite/$image]=""
	done
	if [ -n "$miss" ]; then
		for image in $images; do why_not[$suite/$image]=$miss; done
		emit "FAIL firmware/$suite/build: $miss"
		continue
	fi
	targets=""
	for image in $images; do
		case $image in
		*-lld)
			if ! command -v "${LLD%% *}" >/dev/null 2>&1; then
				why_not[$suite/$image]="$LLD not found (install: apt-get install lld-14)"
				continue
			fi ;;
		esac
		targets="$targets $root/$out/$suite/$image/sfu-$image.elf"
	done
	mapfile -t vars < <(suite_make_vars "$suite")
	# Relink every image (cheap), so a failed link cannot leave an image
	# of an earlier run to be booted.
	rm -f $targets
	start=$(date +%s)
	make -k -j"$jobs" --no-print-directory -C examples EX_OUT="$root/$out/$suite" "${vars[@]}" \
		$targets >"$out/$suite/build.log" 2>&1
	brc=$?
	for image in $images; do
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
		emit "FAIL firmware/$suite/build: make exited $brc; $(grep -m1 -E 'error|Error|symtab.sh:' "$out/$suite/build.log" | cut -c1-200) (log $out/$suite/build.log)"
	fi
	for image in $images; do
		[ -n "${why_not[$suite/$image]}" ] && [ "${built[$suite/$image]}" = 0 ] &&
			case $image in *-lld) emit "FAIL firmware/$suite/$image/build: ${why_not[$suite/$image]}" ;; esac
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

for suite in $suites; do
	for image in $images; do
		arch=$(arch_of "$image")
		qm=$(qemu_missing "$arch")
		for scen in $scenarios; do
			name=firmware/$suite/$image/$scen
			if [ "${built[$suite/$image]}" != 1 ]; then
				emit "FAIL $name: image not built: ${why_not[$suite/$image]}"
			elif [ -n "$qm" ]; then
				emit "FAIL $name: $qm"
			else
				next_slot
				spawn run_case "$suite" "$image" "$scen" "$name" "$f"
			fi
		done
		case " $singlestep_images " in
		*" $image "*)
			name=firmware/$suite/$image/timer-1insn
			if [ "${built[$suite/$image]}" != 1 ]; then
				emit "FAIL $name: image not built: ${why_not[$suite/$image]}"
			elif [ -n "$qm" ]; then
				emit "FAIL $name: $qm"
			else
				next_slot
				# shellcheck disable=SC2086
				spawn run_case "$suite" "$image" timer "$name" "$f" $onestep
			fi ;;
		esac
	done
	# The GNU tools' view of the same images (check-sframe.sh), in the pool.
	if [ "${built[$suite/aarch64-virt]}" = 1 ] || [ "${built[$suite/x86_64-pc]}" = 1 ]; then
		next_slot
		(
			if [ "$suite" = bookworm ]; then
				env_od=()
			else
				t="tools/toolchain.sh run $suite"
				env_od=("OBJDUMP_aarch64=$t aarch64-linux-gnu-objdump" "OBJDUMP_x86_64=$t objdump"
					"READELF_aarch64=$t aarch64-linux-gnu-readelf" "READELF_x86_64=$t readelf")
			fi
			env "${env_od[@]}" sh examples/check-sframe.sh "$out/$suite" >"$out/$suite/logs/check-sframe.log" 2>&1
			sed -n "s|^ok |ok firmware/$suite/|p; s|^FAIL |FAIL firmware/$suite/|p" \
				"$out/$suite/logs/check-sframe.log" >"$f"
			[ -s "$f" ] || echo "FAIL firmware/$suite/sframe: check-sframe.sh printed no result (log $out/$suite/logs/check-sframe.log)" >"$f"
		) &
	fi
done
wait
flush

# ---------------------------------------------------------------------------
# Cross-checks on the logs.

for suite in $suites; do
	# pac-ret: the same function sequences as without PAC, and signed
	# return addresses really were in play (panic's LR carries a PAC).
	for scen in $pac_scenarios; do
		name=firmware/$suite/aarch64-virt-pac/$scen/same-as-nopac
		a=$out/$suite/logs/aarch64-virt-$scen.log
		p=$out/$suite/logs/aarch64-virt-pac-$scen.log
		if [ "${built[$suite/aarch64-virt-pac]}" != 1 ] || [ "${built[$suite/aarch64-virt]}" != 1 ] ||
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
	# interrupted leaf is looked up at its exact PC, the return addresses
	# at ra - 1 (chain_e's is chain_b's first byte).
	for image in aarch64-virt x86_64-pc; do
		name=firmware/$suite/$image/symbolize
		log=$out/$suite/logs/$image-null.log
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
		[ "$image" = aarch64-virt ] && nm_tool=aarch64-linux-gnu-nm
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
