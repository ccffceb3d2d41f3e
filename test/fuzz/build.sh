# SPDX-License-Identifier: MIT
# build.sh - sourced by run.sh and run-fuzz.sh: build the libFuzzer
# harnesses with clang (libFuzzer, ASan, UBSan, nothing recovers; the rules
# and flags are test/common/host.mk's).
#
#   . test/fuzz/build.sh
#   fuzz_build_one OUTDIR HARNESS || ...   (from the top of the repository)
#
# Each harness links the core in seven configurations (core_*.c, each
# SFU_STATIC; wc_core.h).  On failure fuzz_build_one leaves the reason in
# $FUZZ_BUILD_ERR.

FUZZ_HARNESSES="fuzz_decode fuzz_walk fuzz_gen"
FUZZ_CC=${FUZZ_CC:-clang}
export FUZZ_CC
FUZZ_APT="apt-get install -y clang libfuzzer-14-dev libclang-rt-14-dev"

# clang that can link -fsanitize=fuzzer?  Sets FUZZ_BUILD_ERR if not.
fuzz_toolchain_ok() {
	local log=build/fuzz/toolchain-check.log
	if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
		FUZZ_BUILD_ERR="$FUZZ_CC not found; install with: $FUZZ_APT"
		return 1
	fi
	mkdir -p build/fuzz
	if ! make -s --no-print-directory BUILD=build fuzz-toolchain-check >"$log" 2>&1; then
		FUZZ_BUILD_ERR="$FUZZ_CC cannot link -fsanitize=fuzzer ($(head -1 "$log")); install with: $FUZZ_APT"
		return 1
	fi
	return 0
}

# fuzz_build_one OUTDIR HARNESS
fuzz_build_one() {
	local out=$1 h=$2
	mkdir -p "$out"
	if ! make -s --no-print-directory BUILD=build FUZZ_OUT="$out" "$out/$h" >"$out/$h.log" 2>&1; then
		FUZZ_BUILD_ERR="$(grep -m1 -E 'error|warning' "$out/$h.log" || head -1 "$out/$h.log")"
		return 1
	fi
	return 0
}
