# SPDX-License-Identifier: MIT
# build.sh - sourced by run.sh and run-fuzz.sh: build the libFuzzer
# harnesses with clang (libFuzzer, ASan, UBSan, nothing recovers; the rules
# and flags are test/common/host.mk's).
#
#   . test/fuzz/build.sh
#   fuzz_build_one OUTDIR HARNESS [SHAPE] || ...   (from the top of the repository)
#
# Each harness links the core in seven configurations (core_*.c, each
# SFU_STATIC; wc_core.h), compiled once into OUTDIR; SHAPE (Os or O2) is
# the core's shape (test/common/host.mk: FUZZ_SHAPE; none: -O2 with each
# configuration's default).  fuzz_build_all OUTDIR [SHAPE] builds every
# harness, two compilations at a time (a failure is reported by
# fuzz_build_one).  On failure fuzz_build_one leaves the reason in
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

# fuzz_build_all OUTDIR [SHAPE]
fuzz_build_all() {
	local out=$1 shape=${2:-} h targets=""
	mkdir -p "$out"
	for h in $FUZZ_HARNESSES; do targets="$targets $out/$h"; done
	# shellcheck disable=SC2086
	make -s -k -j2 --no-print-directory BUILD=build FUZZ_OUT="$out" FUZZ_SHAPE="$shape" $targets \
		>"$out/prebuild.log" 2>&1
}

# fuzz_build_one OUTDIR HARNESS [SHAPE]
fuzz_build_one() {
	local out=$1 h=$2 shape=${3:-}
	mkdir -p "$out"
	if ! make -s --no-print-directory BUILD=build FUZZ_OUT="$out" FUZZ_SHAPE="$shape" "$out/$h" >"$out/$h.log" 2>&1; then
		FUZZ_BUILD_ERR="$(grep -m1 -E 'error|warning' "$out/$h.log" || head -1 "$out/$h.log")"
		return 1
	fi
	return 0
}
