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
# The bare-metal ports' thread pieces and crash record (port/common) are
# freestanding too: a TU using them, at -O2/-O3 (where loops may become
# memset/memcpy calls), leaves no undefined symbol.
cat > "$out/port-tu.c" <<'C'
#define SFU_IMPLEMENTATION
#define SFU_PORT_LINKER_RAM 0
#include "sfu_port.h"
#include "common/sfu_crash.h"
int tu_record(uint8_t *dst, const sfu_frame *f, size_t n);
int tu_record(uint8_t *dst, const sfu_frame *f, size_t n)
{
	struct sfu_crash c;
	sfu_crash_init(&c, 1, SFU_CRASH_PANIC, "x", 0);
	sfu_crash_frames(&c, f, n, SFU_END);
	sfu_crash_write(&c, dst, SFU_CRASH_SIZE);
	return sfu_crash_read(dst, SFU_CRASH_SIZE, &c);
}
int tu_ext(uint8_t *dst, size_t budget, const sfu_port *p, const sfu_regs *r, const sfu_frame *f, size_t n);
int tu_ext(uint8_t *dst, size_t budget, const sfu_port *p, const sfu_regs *r, const sfu_frame *f, size_t n)
{
	struct sfu_crash c;
	struct sfu_crash_thread t;
	struct sfu_crash_ext x;
	size_t used;
	sfu_crash_init(&c, 1, SFU_CRASH_PANIC, "x", 0);
	sfu_crash_frames(&c, f, n, SFU_END);
	sfu_crash_regs_from(&t, SFU_CRASH_EM_AARCH64, r);
	t.name = "main";
	t.state = SFU_CRASH_T_CRASHED;
	t.frames = f;
	t.nframes = n;
	t.stop = SFU_END;
	x.machine = SFU_CRASH_EM_AARCH64;
	x.id = dst;
	x.idlen = 20;
	x.threads = &t;
	x.nthreads = 1;
	x.crashed = 0;
	x.port = p;
	x.pac = sfu_crash_pac_mask(p->strip_ra, p->ctx);
	return sfu_crash_ext_write(&c, &x, dst, budget, &used);
}
int tu_thread(struct sfu_port_thread *t, const sfu_stack *s, const struct sfu_switch_layout *l, sfu_regs *r);
int tu_thread(struct sfu_port_thread *t, const sfu_stack *s, const struct sfu_switch_layout *l, sfu_regs *r)
{
	if (sfu_port_thread_init(t, NULL, s, 2))
		return 1;
	return sfu_port_switch_regs(t->port.ctx, l, s[0].lo, r);
}
int tu_trap(struct sfu_port_ctx *c, uint64_t pc, uint64_t sp, sfu_regs *r);
int tu_trap(struct sfu_port_ctx *c, uint64_t pc, uint64_t sp, sfu_regs *r)
{
	return sfu_port_trap(c, pc, sp, r);
}
C
for t in "${bare_compilers[@]:0:4}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	tflags=$(arch_flags "$arch")
	for opt in -O2 -O3; do
		# shellcheck disable=SC2086 # flags: several words
		spawn 2 compile_case "freestanding port-threads-crash $tname $opt" "$out/port-$tname$opt.o" "" \
			$cc $BASE -Iport $tflags $opt "$out/port-tu.c"
	done
done
# The dump layer (port/common/sfu_dump.h), with the core and the port, is
# freestanding too: at -O2/-O3 nothing left undefined (its output goes
# through the hook in struct sfu_dump; no linker symbol with both
# SFU_PORT_LINKER_RAM and SFU_DUMP_LINKER_SFRAME off), with every public
# function external and with SFU_STATIC.
cat > "$out/dump-tu.c" <<'C'
#define SFU_IMPLEMENTATION
#define SFU_PORT_LINKER_RAM 0
#define SFU_DUMP_LINKER_SFRAME 0
#include "common/sfu_dump.h"
static const struct sfu_port_range ram[] = { { 0x1000, 0x2000 } };
void tu_write(const char *s, size_t n);
struct sfu_dump tu_dump = SFU_DUMP_INIT(tu_dump, tu_write, ram, 1, NULL, 0);
int tu_dump_all(void);
int tu_dump_all(void)
{
	return sfu_dump_stack(&tu_dump) + sfu_dump_trap(&tu_dump, NULL, 0) + sfu_dump_threads(&tu_dump, NULL, NULL) +
	       sfu_dump_thread_table(&tu_dump, NULL);
}
C
for t in "${bare_compilers[@]:0:4}"; do
	IFS='|' read -r tname cc arch <<<"$t"
	tflags=$(arch_flags "$arch")
	for cfg in "extern|" "static|-DSFU_STATIC"; do
		for opt in -O2 -O3; do
			# shellcheck disable=SC2086 # flags: several words
			spawn 2 compile_case "freestanding dump-layer ${cfg%%|*} $tname $opt" "$out/dump-${cfg%%|*}-$tname$opt.o" \
				tu_write $cc $BASE -Iport $tflags ${cfg#*|} $opt "$out/dump-tu.c"
		done
	done
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
#include "common/sfu_dump.h"
#include "common/sfu_crash.h"
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
	"-DSFU_PORT_THREAD_STACKS=0" "-DSFU_PORT_THREAD_STACKS=65" "-DSFU_CRASH_MAX_THREADS=0" \
	"-DSFU_CRASH_MAX_THREADS=256"; do
	knob_rejected "$out/knob-tu.c" "$bad" gcc $BASE -Iport
done
for bad in "-DSFU_HOST_MAX_MAPS=0" "-DSFU_HOST_MAX_SECTIONS=0" "-DSFU_HOST_GUARD_GAP=4095" \
	"-DSFU_HOST_GUARD_GAP=-4096"; do
	knob_rejected "$out/host-tu.c" "$bad" gcc -std=c99 -c $WARN -Icore -Iport
done
# The knob TUs themselves compile (so a pass above is the knob's doing).
if msg=$(gcc $BASE -Iport "$out/knob-tu.c" -o "$out/knob.o" 2>&1) &&
	msg=$(gcc -std=c99 -c $WARN -Icore -Iport "$out/host-tu.c" -o "$out/host.o" 2>&1); then
	pass "knob-tus-compile"
else
	fail "knob-tus-compile" "$(grep -m1 'error' <<<"$msg")"
fi
# Only the three allowed standard headers.
bad=$(grep -nE '^\s*#\s*include\s*<' core/*.h | grep -vE '<(stdint|stddef|stdbool)\.h>')
if [ -n "$bad" ]; then fail core-includes "$bad"; else pass core-includes; fi
[ $fails = 0 ] && [ $spawn_failed = 0 ]
