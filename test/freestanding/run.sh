#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The core builds freestanding and leaves no undefined symbol (core/sfu.h:
# no function of the C library is called, not even memcpy): for each
# compiler (test/common/lib.sh: gcc 12, clang 14, and gcc 14 / gcc 16 from
# the trixie / sid chroots, whose newer warnings users will see under
# -Werror) x target x configuration, compile a TU that defines
# SFU_IMPLEMENTATION with the bare-metal flags and check that `nm -u` on
# the object is empty (an implicit memcpy/memset would show here).
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh
out=build/freestanding
mkdir -p "$out"
cat > "$out/tu.c" <<'C'
#define SFU_IMPLEMENTATION
#include "sfu.h"
C
WARN="-Wall -Wextra -Wundef -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
BASE="-std=c99 -ffreestanding -nostdlib -fno-builtin -c $WARN -Icore"
# The bare-metal flags of each architecture (the compilers: lib.sh).
arch_flags() { [ "$1" = x86_64 ] && echo "-mno-red-zone -mgeneral-regs-only" || echo "-mgeneral-regs-only"; }
configs=(
	"full|"
	"static|-DSFU_STATIC -DSFU_ERROR_STRINGS=1"
	"v3-le|-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0"
	"v1-only|-DSFU_V2=0 -DSFU_V3=0"
	"be-only-fpfallback|-DSFU_LITTLE=0 -DSFU_FP_FALLBACK=1"
	"smallest-aarch64|-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 -DSFU_AMD64=0 -DSFU_S390X=0 -DSFU_FLEX=0"
	"smallest-amd64|-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 -DSFU_AARCH64=0 -DSFU_S390X=0"
	"smallest-amd64-no-pltgot-fix|-DSFU_V1=0 -DSFU_V2=0 -DSFU_BIG=0 -DSFU_AARCH64=0 -DSFU_S390X=0 -DSFU_FIX_LD_PLTGOT=0"
	"cache-inline-read|-DSFU_CACHE=1 -DSFU_READ(c,a,o)=((void)(c),*(o)=(a),0)"
	"index-cache|-DSFU_INDEX=1 -DSFU_CACHE=1 -DSFU_STATIC"
	"index-cache-extern|-DSFU_INDEX=1 -DSFU_CACHE=1"
	"general-rules|-DSFU_COMPACT=0 -DSFU_INDEX=1 -DSFU_FLEX=0 -DSFU_S390X=0"
	"fast|-DSFU_FAST=1"
	"index-cache-small|-DSFU_INDEX=1 -DSFU_CACHE=1 -DSFU_FAST=0"
)
# One case: compile (COMMAND... -o OBJ) and check that nm -u shows nothing
# but the symbol ALLOWED (the TU's own extern hook; empty: none).  The
# cases run two at a time (spawn, test/common/lib.sh); each prints its
# result in one write and returns non-zero on failure (spawn_wait counts).
compile_case() { # CASE_NAME OBJ ALLOWED COMMAND...
	local case_name=$1 obj=$2 allowed=$3 msg undef
	shift 3
	if ! msg=$("$@" -o "$obj" 2>&1); then
		printf 'FAIL %s: does not compile\n%s\n' "$case_name" "$(head -20 <<<"$msg")"
		return 1
	fi
	undef=$(nm -u "$obj" | grep -vx " *U ${allowed:-}")
	if [ -n "$undef" ]; then
		echo "FAIL $case_name: undefined symbols: $(echo $undef)"
		return 1
	fi
	pass "$case_name"
}
for t in "${bare_compilers[@]}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	tflags=$(arch_flags "$arch")
	need "freestanding $tname" "${cc%% *}" "gcc-aarch64-linux-gnu clang" || continue
	for c in "${configs[@]}"; do
		IFS='|' read -r cname cflags <<<"$c"
		# -O3 too where the most code is: its warnings differ (gcc 12-16
		# warned -Wmaybe-uninitialized in the index build, which stops a
		# user's -O3 -Werror build).
		opts="-O0 -Os -O2"
		[ "$cname" = index-cache-extern ] && opts="$opts -O3"
		for opt in $opts; do
			# shellcheck disable=SC2086 # flags: several words
			spawn 2 compile_case "freestanding $tname $cname $opt" "$out/$tname-$cname$opt.o" "" \
				$cc $BASE $tflags $cflags $opt "$out/tu.c"
		done
	done
done
# No C library call, whatever the compiler and the flags: the crash path
# whole (test/common/crash_tu.c: the core, the port, the dump, every
# thread, the layouts' callbacks, the crash record) and the core alone, by
# gcc 12/14/16 and clang 14/21/22 for both targets at -O0/-O2/-Os, with the
# bare-metal flags above and, as many kernels build, without
# -ffreestanding and -fno-builtin (where compilers turn loops and struct
# copies into memset/memcpy calls): nm -u shows nothing but the output
# hook (tu_write).  The crash path also with SFU_STATIC.
libc_compilers=("${bare_compilers[@]}"
	"clang21-x86_64|tools/toolchain.sh run sid clang-21 --target=x86_64-none-elf|x86_64"
	"clang21-aarch64|tools/toolchain.sh run sid clang-21 --target=aarch64-none-elf|aarch64"
	"clang22-x86_64|tools/toolchain.sh run sid clang-22 --target=x86_64-none-elf|x86_64"
	"clang22-aarch64|tools/toolchain.sh run sid clang-22 --target=aarch64-none-elf|aarch64"
)
if [ -f "$(tools/toolchain.sh path sid)/.sfu-ready" ]; then
	tools/toolchain.sh install sid clang-21 clang-22 >&2 || true
fi
HOSTED="-std=c99 -c $WARN -Icore"
for t in "${libc_compilers[@]}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	tflags=$(arch_flags "$arch")
	need "freestanding libc $tname" "${cc%% *}" "gcc-aarch64-linux-gnu clang" || continue
	for opt in -O0 -O2 -Os; do
		# Hosted: the target's Linux triple (its libc's headers; a bare
		# triple has none to build against without -ffreestanding).
		hcc=${cc/-none-elf/-linux-gnu}
		# shellcheck disable=SC2086 # flags: several words
		spawn 2 compile_case "freestanding no-libc crash-path freestanding $tname $opt" \
			"$out/crash-freestanding-$tname$opt.o" tu_write $cc $BASE $tflags -Icrash -Iport $opt test/common/crash_tu.c
		# shellcheck disable=SC2086 # flags: several words
		spawn 2 compile_case "freestanding no-libc crash-path hosted $tname $opt" "$out/crash-hosted-$tname$opt.o" \
			tu_write $hcc $HOSTED -Icrash -Iport $opt test/common/crash_tu.c
		# shellcheck disable=SC2086 # flags: several words
		spawn 2 compile_case "freestanding no-libc core hosted $tname $opt" "$out/core-hosted-$tname$opt.o" "" \
			$hcc $HOSTED $opt "$out/tu.c"
	done
	# shellcheck disable=SC2086 # flags: several words
	spawn 2 compile_case "freestanding no-libc crash-path static $tname -O2" "$out/crash-static-$tname.o" tu_write \
		$cc $BASE $tflags -DSFU_STATIC -Icrash -Iport -O2 test/common/crash_tu.c
done
spawn_wait
# Every knob given a nonsense value stops the build with its own #error,
# naming the knob (gcc prints "#error", clang only the text): not a
# build that compiles, nor one that fails for another reason.  The core's
# knobs through tu.c; the dump layer's, the port's and the crash record's
# through knob-tu.c (which sets none of them itself); the Linux host
# port's through host-tu.c, compiled hosted.
cat > "$out/knob-tu.c" <<'C'
#define SFU_IMPLEMENTATION
#include "sfu_threads.h"
#include "sfu_crash.h"
C
cat > "$out/host-tu.c" <<'C'
#define _GNU_SOURCE
#define SFU_IMPLEMENTATION
#include "sfu.h"
#include "host/sfu_port_host.h"
C
knob_rejected() { # TU "-DKNOB=VALUE ..." COMPILER ARGS...
	local tu=$1 bad=$2 knob msg
	shift 2
	knob=${bad%%=*}
	knob=${knob#-D}
	# shellcheck disable=SC2086 # $bad: several -D words
	if msg=$("$@" $bad "$tu" -o "$out/bad.o" 2>&1); then
		fail "knob-rejected '$bad'" "compiled"
	elif grep -qE "error: (#error )?\".*$knob" <<<"$msg"; then
		pass "knob-rejected '$bad'"
	else
		fail "knob-rejected '$bad'" "no #error naming $knob: $(grep -m1 'error' <<<"$msg")"
	fi
}
for bad in "-DSFU_V1=2" "-DSFU_V2=2" "-DSFU_V3=-1" "-DSFU_V1=0 -DSFU_V2=0 -DSFU_V3=0" \
	"-DSFU_LITTLE=2" "-DSFU_BIG=2" "-DSFU_LITTLE=0 -DSFU_BIG=0" \
	"-DSFU_AMD64=2" "-DSFU_AARCH64=2" "-DSFU_S390X=2" "-DSFU_AMD64=0 -DSFU_AARCH64=0 -DSFU_S390X=0" \
	"-DSFU_FLEX=2" "-DSFU_FP_FALLBACK=3" "-DSFU_DEPTH_CAP=0" "-DSFU_DEPTH_CAP=65536" "-DSFU_ERROR_STRINGS=2" \
	"-DSFU_CACHE=2" "-DSFU_INDEX=2" "-DSFU_FAST=2" "-DSFU_FAST=-1" "-DSFU_COMPACT=-1" "-DSFU_SAFE_CODEGEN=2" \
	"-DSFU_FIX_LD_PLTGOT=2"; do
	knob_rejected "$out/tu.c" "$bad" gcc $BASE
done
for bad in "-DSFU_DUMP_SECTIONS=0" "-DSFU_DUMP_SECTIONS=4097" "-DSFU_DUMP_LINKER_SFRAME=2" \
	"-DSFU_DUMP_SFRAME_OPTS=3" "-DSFU_DUMP_SFRAME_OPTS=4" "-DSFU_DUMP_LINKER_TEXT=2" "-DSFU_DUMP_SYMTAB=3" \
	"-DSFU_DUMP_NAME_MAX=4" "-DSFU_DUMP_NAME_MAX=4097" "-DSFU_PORT_LINKER_RAM=2" \
	"-DSFU_PORT_THREAD_STACKS=0" "-DSFU_PORT_THREAD_STACKS=65" "-DSFU_PORT_GUARD_GAP=-1" \
	"-DSFU_PORT_GUARD_GAP=1048577" "-DSFU_CRASH_MAX_THREADS=0" \
	"-DSFU_CRASH_MAX_THREADS=256" "-DSFU_DUMP_TABLE_STACKS=0" "-DSFU_DUMP_TABLE_STACKS=9" \
	"-DSFU_DUMP_MAX_THREADS=0" "-DSFU_DUMP_MAX_THREADS=65537" "-DSFU_DUMP_THREADS=2" "-DSFU_ERROR_STRINGS=0" \
	"-DSFU_DUMP_SP=2" "-DSFU_DUMP_LINKER_BUILD_ID=2"; do
	knob_rejected "$out/knob-tu.c" "$bad" gcc $BASE -Icrash -Iport
done
for bad in "-DSFU_HOST_MAX_MAPS=0" "-DSFU_HOST_MAX_SECTIONS=0" "-DSFU_HOST_GUARD_GAP=4095" \
	"-DSFU_HOST_GUARD_GAP=-4096"; do
	knob_rejected "$out/host-tu.c" "$bad" gcc -std=c99 -c $WARN -Icore -Icrash -Iport
done
# The knob TUs themselves compile (so a pass above is the knob's doing).
if msg=$(gcc $BASE -Icrash -Iport "$out/knob-tu.c" -o "$out/knob.o" 2>&1) &&
	msg=$(gcc -std=c99 -c $WARN -Icore -Icrash -Iport "$out/host-tu.c" -o "$out/host.o" 2>&1); then
	pass "knob-tus-compile"
else
	fail "knob-tus-compile" "$(grep -m1 'error' <<<"$msg")"
fi
# Only the three allowed standard headers.
bad=$(grep -nE '^\s*#\s*include\s*<' core/*.h | grep -vE '<(stdint|stddef|stdbool)\.h>')
if [ -n "$bad" ]; then fail core-includes "$bad"; else pass core-includes; fi
[ $fails = 0 ] && [ $spawn_failed = 0 ]
