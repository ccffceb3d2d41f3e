#!/usr/bin/env bash
# make bench: speed per frame of sfu against a frame-pointer walk, libgcc's
# _Unwind_Backtrace and libunwind's unw_backtrace, on the same stacks.
#
#   1. test/bench/gen-chain.py writes build/bench/chain.c: BENCH_FUNCS (2400)
#      functions of varied frame shapes that call each other in an order
#      fixed by a seed.
#   2. Each toolchain generation builds it into build/bench/V<n>/libchain.so
#      with -Wa,--gsframe, keeping .eh_frame and frame pointers:
#      bookworm gcc 12 -> SFrame V1, trixie gcc 14 -> V2, sid gcc 16 -> V3.
#   3. The host harness (test/bench/bench.c, gcc 12) loads it and, at the
#      leaf of chains of depth 16, 64 and 256, first checks that every
#      unwinder returns the same PCs, then counts instructions (valgrind
#      --tool=callgrind, one warm call, collected only around the unwind
#      call) and times them (median of BENCH_SAMPLES batches).
#   4. test/bench/report.py prints the table (also in build/bench/table.txt).
#
# If test/bench/core-proposal.diff applies to core/, the patched copy
# (build/bench/exp/core/sfu.h) is measured too, as "sfu-exp" and, with its
# lookup cache, "sfu-exp+cache".
#
# Environment: BENCH_GENS (default "V1 V2 V3"), BENCH_SAMPLES (201),
# BENCH_DEPTHS (16,64,256), BENCH_FUNCS (2400), BENCH_AARCH64 (1: also run
# the aarch64 build under qemu-aarch64, a correctness check plus timings
# that are NOT comparable to hardware).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd -P)
B=build/bench
GENS=${BENCH_GENS:-"V1 V2 V3"}
SAMPLES=${BENCH_SAMPLES:-201}
DEPTHS=${BENCH_DEPTHS:-16,64,256}
FUNCS=${BENCH_FUNCS:-2400}
AARCH64=${BENCH_AARCH64:-1}

fail() { echo "bench: $*" >&2; exit 1; }

# ---- what we need, installed by nobody but the user ------------------------
missing=""
have_file() { [ -e "$1" ] || missing="$missing $2"; }
have_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
have_cmd gcc gcc
have_cmd python3 python3
have_cmd valgrind valgrind
have_cmd patch patch
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

# ---- the experimental header (core + core-proposal.diff) ----------------------
SFX=0
rm -rf "$B/exp"
if [ -s test/bench/core-proposal.diff ]; then
	mkdir -p "$B/exp"
	cp -r core "$B/exp/core"
	if (cd "$B/exp" && patch -p1 --quiet --forward <"$ROOT/test/bench/core-proposal.diff" >patch.log 2>&1); then
		SFX=1
	else
		echo "bench: note: test/bench/core-proposal.diff does not apply to core/ (merged or stale); measuring core only" >&2
	fi
fi

HFLAGS="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wa,--gsframe -Wall -Wextra -Werror -Itest/bench"
build_harness() { # cc outdir [extra flags]
	local cc=$1 out=$2; shift 2
	local objs="$out/sfu.o"
	# The cache knob, where the header has one (core once merged, or the
	# experimental copy).
	local cache=""
	grep -q 'SFU_CACHE' core/sfu.h && cache="-DSFU_CACHE=1"
	$cc $HFLAGS "$@" $cache -Icore -c '-DBENCH_NAME(x)=sfu_##x' -o "$out/sfu.o" test/bench/sfu_tu.c
	if [ $SFX = 1 ]; then
		cache=""
		grep -q 'SFU_CACHE' "$B/exp/core/sfu.h" && cache="-DSFU_CACHE=1"
		$cc $HFLAGS "$@" $cache -I"$B/exp/core" -c '-DBENCH_NAME(x)=sfx_##x' -o "$out/sfx.o" test/bench/sfu_tu.c
		objs="$objs $out/sfx.o"
	fi
	$cc $HFLAGS "$@" -DBENCH_SFX=$SFX -DBENCH_LIBUNWIND=0 -o "$out/bench-libgcc" test/bench/bench.c $objs \
		-L"$out" -lchain -Wl,-rpath,'$ORIGIN'
	if [ "$cc" = gcc ]; then
		$cc $HFLAGS "$@" -DBENCH_SFX=$SFX -DBENCH_LIBUNWIND=1 -o "$out/bench-libunwind" test/bench/bench.c $objs \
			-L"$out" -lchain -Wl,-rpath,'$ORIGIN' -lunwind
	fi
}

run_one() { # tag binary [args]: timing run, then the callgrind run
	local tag=$1 bin=$2
	echo "bench: $tag: timing" >&2
	"$bin" --depths "$DEPTHS" --samples "$SAMPLES" >"$B/out/$tag.time" 2>"$B/out/$tag.err" ||
		{ cat "$B/out/$tag.err" >&2; fail "$tag: $bin failed"; }
	echo "bench: $tag: callgrind" >&2
	(cd "$B/out" && valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="cg.$tag.%p" \
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

# ---- aarch64 under qemu-aarch64: agreement, and emulated time only ------------
if [ "$AARCH64" = 1 ]; then
	for g in $GENS; do
		s=$(suite_of "$g")
		build_chain "$g" "$s" aarch64-linux-gnu-gcc "$B/$g-aarch64"
		build_harness aarch64-linux-gnu-gcc "$B/$g-aarch64"
		tag="$g-aarch64-libgcc"
		echo "bench: $tag: check and emulated timing (qemu-aarch64)" >&2
		QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64 "$B/$g-aarch64/bench-libgcc" --depths "$DEPTHS" \
			--samples 21 >"$B/out/$tag.qemu" 2>"$B/out/$tag.err" ||
			{ cat "$B/out/$tag.err" >&2; fail "$tag failed"; }
	done
fi

python3 test/bench/report.py "$B/out" | tee "$B/table.txt"
