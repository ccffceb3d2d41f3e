#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench: speed per frame of sfu, in several configurations and beside
# the core of a baseline commit, against a frame-pointer walk, libgcc's
# _Unwind_Backtrace and libunwind's unw_backtrace, on the same stacks.
#
#   1. test/bench/gen-chain.py writes build/bench/chain.c: BENCH_FUNCS (2400)
#      functions of varied frame shapes that call each other in an order
#      fixed by a seed.
#   2. Each toolchain generation builds it into build/bench/V<n>/libchain.so
#      with -Wa,--gsframe, keeping .eh_frame and frame pointers:
#      bookworm gcc 12 -> SFrame V1, trixie gcc 14 -> V2, sid gcc 16 -> V3.
#   3. The host harness (test/bench/bench.c, gcc 12) links five sfu builds
#      (test/bench/bench.h): the core with every default (cold walks), with
#      the row cache and the indexes (each index kind, the cache), with
#      those and an inlined port read (SFU_READ), with SFU_SAFE_CODEGEN=0,
#      and the core of the baseline commit BENCH_BASE_REV (none by default;
#      a commit id, e.g. 4730010, adds its core beside, from git) with its
#      cache.  At the leaf of chains of depth 16, 64 and 256 it first checks
#      that every unwinder returns the same PCs, then counts instructions
#      (valgrind --tool=callgrind, one warm call, collected only around the
#      unwind call) and times them (median of BENCH_SAMPLES batches).
#   4. aarch64 (BENCH_AARCH64=1): the same harness under qemu-aarch64 checks
#      the PCs and times (emulated, not comparable to hardware); then
#      test/bench/count.c counts the instructions one walk executes with
#      SFU_SAFE_CODEGEN=1 and =0 (qemu -singlestep logs one line per
#      instruction; the lines between two marks are counted).
#   5. test/bench/report.py prints the table (also in build/bench/table.txt),
#      where the instructions of the V3 depth-64 walks go (callgrind's cost
#      per source line, summed per function of the core (core/sfu*.h),
#      inlined code counted where its lines are), ending with one line per
#      figure:
#        bench: <unwinder> <config> <instructions per frame>
#
# Environment: BENCH_GENS (default "V1 V2 V3"), BENCH_SAMPLES (201),
# BENCH_DEPTHS (16,64,256), BENCH_FUNCS (2400), BENCH_AARCH64 (1),
# BENCH_BASE_REV (empty by default: no baseline, and docs/measurements.md is rewritten).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd -P)
B=build/bench
GENS=${BENCH_GENS:-"V1 V2 V3"}
SAMPLES=${BENCH_SAMPLES:-201}
DEPTHS=${BENCH_DEPTHS:-16,64,256}
FUNCS=${BENCH_FUNCS:-2400}
AARCH64=${BENCH_AARCH64:-1}
BASE_REV=${BENCH_BASE_REV-}

fail() { echo "bench: $*" >&2; exit 1; }

# ---- what we need, installed by nobody but the user ------------------------
missing=""
have_file() { [ -e "$1" ] || missing="$missing $2"; }
have_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
have_cmd gcc gcc
have_cmd python3 python3
have_cmd valgrind valgrind
have_file /usr/include/valgrind/callgrind.h valgrind
have_file /usr/include/x86_64-linux-gnu/libunwind.h libunwind-dev
if [ "$AARCH64" = 1 ]; then
	have_cmd aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
	have_cmd qemu-aarch64 qemu-user
	have_file /usr/aarch64-linux-gnu/lib/libc.so.6 libc6-dev-arm64-cross
fi
if [ -n "$missing" ]; then
	missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
	echo "bench: missing Debian packages; install them with:" >&2
	echo "  apt-get update && apt-get install -y $missing" >&2
	exit 1
fi
suite_of() { case "$1" in V1) echo bookworm ;; V2) echo trixie ;; V3) echo sid ;; *) fail "unknown generation $1" ;; esac; }
for g in $GENS; do
	s=$(suite_of "$g")
	[ "$s" = bookworm ] && continue
	[ -f "$(tools/toolchain.sh path "$s")/.sfu-ready" ] ||
		fail "no $s chroot (SFrame $g); build it with: tools/toolchain.sh ensure $s   (or: make toolchains)"
done

mkdir -p "$B/out"
rm -f "$B"/out/*

# ---- the baseline core, from git ------------------------------------------------
HAVE_BASE=0
rm -rf "$B/base"
if [ -n "$BASE_REV" ]; then
	mkdir -p "$B/base"
	# The whole core/ of that commit (one header, or sfu.h and its parts).
	if git archive "$BASE_REV" core 2>/dev/null | tar -x -C "$B/base" 2>/dev/null && [ -f "$B/base/core/sfu.h" ]; then
		HAVE_BASE=1
		echo "$BASE_REV" >"$B/out/base-rev"
	else
		echo "bench: note: no core at $BASE_REV in this repository's history; no baseline columns" >&2
	fi
fi

# ---- the call-chain library, once per generation -----------------------------
python3 test/bench/gen-chain.py "$B/chain.c.new" --funcs "$FUNCS"
if cmp -s "$B/chain.c.new" "$B/chain.c"; then rm "$B/chain.c.new"; else mv "$B/chain.c.new" "$B/chain.c"; fi

# Frame pointers kept (the floor needs them), .eh_frame kept (libgcc and
# libunwind need it), no sibling calls (every chain function stays on the
# stack), no libc (the same file links in every chroot and loads on the host).
CHAIN_FLAGS="-O2 -fPIC -shared -nostdlib -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
 -fno-optimize-sibling-calls -fasynchronous-unwind-tables -fno-stack-protector -Wa,--gsframe"
build_chain() { # gen suite cc outdir
	local g=$1 s=$2 cc=$3 out=$4
	mkdir -p "$out"
	if [ "$out/libchain.so" -nt "$B/chain.c" ] && [ "$out/libchain.so" -nt test/bench/run.sh ]; then return 0; fi
	echo "bench: building $out/libchain.so ($FUNCS functions) with $s $cc (SFrame $g)" >&2
	tools/toolchain.sh run "$s" $cc $CHAIN_FLAGS -Wl,-soname,libchain.so -o "$out/libchain.so" "$B/chain.c" ||
		fail "building libchain.so with $s failed"
}

HFLAGS="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wa,--gsframe -Wall -Wextra -Werror -Itest/bench"
# The sfu builds of bench.h: prefix, header directory, knobs.
# The speed knob on (SFU_FAST=1) in the first four; sfs is the small shape
# every build without an index or the cache gets by default (SFU_FAST=0),
# here with the cache too: the knob's gain, at the same -O2.
sfu_builds() {
	echo "sfu core -DSFU_FAST=1"
	echo "sfx core -DSFU_CACHE=1 -DSFU_INDEX=1 -DSFU_FAST=1"
	echo "sfr core -DSFU_CACHE=1 -DSFU_INDEX=1 -DSFU_FAST=1 -DBENCH_INLINE_READ"
	echo "sfn core -DSFU_FAST=1 -DSFU_SAFE_CODEGEN=0"
	echo "sfs core -DSFU_CACHE=1 -DSFU_FAST=0"
	[ $HAVE_BASE = 1 ] && echo "bas $B/base/core -DSFU_CACHE=1"
	return 0
}
build_tus() { # cc outdir [extra flags]: the sfu builds' objects, listed on stdout
	local cc=$1 out=$2 p dir knobs
	shift 2
	while read -r p dir knobs; do
		# shellcheck disable=SC2086
		$cc $HFLAGS "$@" $knobs -I"$dir" -c "-DBENCH_NAME(x)=${p}_##x" -o "$out/$p.o" test/bench/sfu_tu.c >&2 ||
			fail "compiling the $p build with $cc failed"
		echo "$out/$p.o"
	done < <(sfu_builds)
}
build_harness() { # cc outdir [extra flags]
	local cc=$1 out=$2 objs
	shift 2
	objs=$(build_tus "$cc" "$out" "$@" | tr '\n' ' ')
	# shellcheck disable=SC2086
	$cc $HFLAGS "$@" -DBENCH_BASE=$HAVE_BASE -DBENCH_LIBUNWIND=0 -o "$out/bench-libgcc" test/bench/bench.c $objs \
		-L"$out" -lchain -Wl,-rpath,'$ORIGIN'
	if [ "$cc" = gcc ]; then
		# shellcheck disable=SC2086
		$cc $HFLAGS "$@" -DBENCH_BASE=$HAVE_BASE -DBENCH_LIBUNWIND=1 -o "$out/bench-libunwind" test/bench/bench.c \
			$objs -L"$out" -lchain -Wl,-rpath,'$ORIGIN' -lunwind
	fi
}

run_one() { # tag binary [args]: timing run, then the callgrind run
	local tag=$1 bin=$2
	echo "bench: $tag: timing" >&2
	"$bin" --depths "$DEPTHS" --samples "$SAMPLES" >"$B/out/$tag.time" 2>"$B/out/$tag.err" ||
		{ cat "$B/out/$tag.err" >&2; fail "$tag: $bin failed"; }
	echo "bench: $tag: callgrind" >&2
	(cd "$B/out" && valgrind --tool=callgrind --collect-atstart=no --compress-strings=no --compress-pos=no \
		--callgrind-out-file="cg.$tag.%p" \
		"$ROOT/$bin" --depths "$DEPTHS" >"$tag.cg" 2>"$tag.cg.err") ||
		{ tail -20 "$B/out/$tag.cg.err" >&2; fail "$tag: callgrind run failed"; }
}

for g in $GENS; do
	s=$(suite_of "$g")
	build_chain "$g" "$s" gcc "$B/$g"
	build_harness gcc "$B/$g"
	run_one "$g-libgcc" "$B/$g/bench-libgcc"
	run_one "$g-libunwind" "$B/$g/bench-libunwind"
done

# ---- aarch64 under qemu-aarch64 -------------------------------------------------
if [ "$AARCH64" = 1 ]; then
	export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
	for g in $GENS; do
		s=$(suite_of "$g")
		o=$B/$g-aarch64
		build_chain "$g" "$s" aarch64-linux-gnu-gcc "$o"
		build_harness aarch64-linux-gnu-gcc "$o"
		tag="$g-aarch64-libgcc"
		echo "bench: $tag: check and emulated timing (qemu-aarch64)" >&2
		qemu-aarch64 "$o/bench-libgcc" --depths "$DEPTHS" --samples 21 >"$B/out/$tag.qemu" 2>"$B/out/$tag.err" ||
			{ cat "$B/out/$tag.err" >&2; fail "$tag failed"; }
		# Instruction counts with and without the safe code generation.
		aarch64-linux-gnu-gcc $HFLAGS -no-pie -o "$o/count" test/bench/count.c "$o/sfu.o" "$o/sfn.o" \
			-L"$o" -lchain -Wl,-rpath,'$ORIGIN'
		text=$(readelf -SW "$o/count" | awk '$2 == ".text" { print "0x" $4 "+0x" $6 }')
		echo "bench: $g-aarch64: counting instructions (qemu-aarch64 -singlestep)" >&2
		# The log (stderr) goes through awk; the program's lines to a file.
		qemu-aarch64 -singlestep -d exec,nochain -dfilter "$text" "$o/count" --depth 64 2>&1 \
			>"$B/out/$g-aarch64.count" |
			awk '/\] bench_mark$/ { m[n++] = NR } END {
				if (n != 6) { print "MARKS " n; exit 1 }
				empty = m[1] - m[0]
				printf "INSNS build=sfu insns=%d\n", m[3] - m[2] - empty
				printf "INSNS build=sfn insns=%d\n", m[5] - m[4] - empty
			}' >>"$B/out/$g-aarch64.count" || fail "$g-aarch64: counting failed ($(tail -1 "$B/out/$g-aarch64.count"))"
	done
fi

python3 test/bench/report.py "$B/out" | tee "$B/table.txt"
# docs/measurements.md gets this table, unless it compares with a baseline
# commit (BENCH_BASE_REV=, empty, for the page; measurements.py says so).
python3 test/common/measurements.py bench "$B/table.txt" || true
