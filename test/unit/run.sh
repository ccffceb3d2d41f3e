#!/usr/bin/env bash
# Unit tests of the core on sections built by test/unit/sfb.h, and of the
# port's thread pieces and crash record (test_port), under ASan+UBSan,
# compiled by gcc and by clang.
set -u
cd "$(dirname "$0")/../.."
out=build/unit
mkdir -p "$out"
FLAGS="-std=c99 -O1 -g -Wall -Wextra -Wundef -Werror -D_DEFAULT_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all"
rc=0
for cc in gcc clang; do
	for t in test_core test_fpfallback test_cache test_port; do
		if ! command -v $cc >/dev/null; then
			echo "FAIL unit $cc: $cc missing (apt-get install $cc)"; rc=1; continue
		fi
		# test_port: the x86_64 bare-metal port and the crash record, on the host.
		if ! $cc $FLAGS -Icore -Iport/x86_64 -Iport/common -o "$out/$t-$cc" test/unit/$t.c; then
			echo "FAIL unit $t-$cc: does not compile"; rc=1; continue
		fi
		# Case names carry the compiler so both runs count.
		"$out/$t-$cc" | sed "s/^\(ok\|FAIL\) /\1 [$cc] /" || rc=1
	done
done
exit $rc
