# build.sh - sourced by run.sh and run-fuzz.sh: build the libFuzzer
# harnesses with clang (libFuzzer, ASan, UBSan, nothing recovers).
#
#   . test/fuzz/build.sh
#   fuzz_build_one OUTDIR HARNESS || ...   (from the top of the repository)
#
# Each harness links the core in seven configurations (core_*.c, each
# SFU_STATIC; wc_core.h).  On failure fuzz_build_one leaves the reason in
# $FUZZ_BUILD_ERR.

FUZZ_HARNESSES="fuzz_decode fuzz_walk fuzz_gen"
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_CFLAGS="-std=c99 -g -O2 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-function -Icore -Itest/fuzz"
FUZZ_CORES="test/fuzz/core_default.c test/fuzz/core_fpfb.c test/fuzz/core_min.c test/fuzz/core_cache.c \
 test/fuzz/core_v3be.c test/fuzz/core_v1.c test/fuzz/core_general.c"
FUZZ_APT="apt-get install -y clang libfuzzer-14-dev libclang-rt-14-dev"

# clang that can link -fsanitize=fuzzer?  Sets FUZZ_BUILD_ERR if not.
fuzz_toolchain_ok() {
	local d
	if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
		FUZZ_BUILD_ERR="$FUZZ_CC not found; install with: $FUZZ_APT"
		return 1
	fi
	d=$(mktemp -d)
	printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$d/t.c"
	if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$d/t" "$d/t.c" >"$d/log" 2>&1; then
		FUZZ_BUILD_ERR="$FUZZ_CC cannot link -fsanitize=fuzzer ($(head -1 "$d/log")); install with: $FUZZ_APT"
		rm -rf "$d"
		return 1
	fi
	rm -rf "$d"
	return 0
}

# fuzz_build_one OUTDIR HARNESS
fuzz_build_one() {
	local out=$1 h=$2
	mkdir -p "$out"
	if ! $FUZZ_CC $FUZZ_CFLAGS -o "$out/$h" "test/fuzz/$h.c" $FUZZ_CORES >"$out/$h.log" 2>&1; then
		FUZZ_BUILD_ERR="$(grep -m1 -E 'error|warning' "$out/$h.log" || head -1 "$out/$h.log")"
		return 1
	fi
	return 0
}
