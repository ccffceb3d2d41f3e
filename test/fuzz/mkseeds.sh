#!/bin/sh
# SPDX-License-Identifier: MIT
# mkseeds.sh - regenerate the seed corpora from real sections.
#
#   sh test/fuzz/mkseeds.sh
#
# Builds the property-test images with all three toolchain generations
# (test/props/images.sh: gcc 12/V1, gcc 14/V2, gcc 16/V3; x86_64, aarch64,
# aarch64 with pac-ret, aarch64 big-endian, s390x on sid; objects, linked
# images and `ld -r` output), extracts each .sframe (objcopy -O binary
# --only-section=.sframe) and turns it into seeds with mkseed.c:
#   corpus/fuzz_decode/<suite>-<arch>-<file>           every section
#   corpus/fuzz_walk/<suite>-<arch>-<file>-<variant>   linked images and
#                                                      ld -r output
#   corpus/fuzz_gen/seed-NN                            PRNG bytes (the
#                                                      generator needs no
#                                                      real sections)
# Files with other names in the corpus directories (distilled corpora,
# dist-*) are left alone.  Run it after changing test/props/src or the
# input layouts, and commit the result.
set -eu
export LC_ALL=C
cd "$(dirname "$0")/../.."
sh test/props/images.sh build/props
mkdir -p build/fuzz
gcc -std=c99 -O1 -Wall -Wextra -Werror -Itest/fuzz -Icore -o build/fuzz/mkseed test/fuzz/mkseed.c
c=test/fuzz/corpus
mkdir -p $c/fuzz_decode $c/fuzz_walk $c/fuzz_gen
rm -f $c/fuzz_decode/bookworm-* $c/fuzz_decode/trixie-* $c/fuzz_decode/sid-* \
	$c/fuzz_walk/bookworm-* $c/fuzz_walk/trixie-* $c/fuzz_walk/sid-* $c/fuzz_gen/seed-*
while read -r file addr suite arch kind; do
	name=$(echo "$suite-$arch-$(basename "$file" .sframe)" | tr . _)
	walk=$c/fuzz_walk
	# Relocatable objects: unrelocated starts, fine to decode, dull to walk.
	[ "$kind" = obj ] && walk=-
	build/fuzz/mkseed $c/fuzz_decode "$walk" "$name" "$file" "$addr"
done <build/props/manifest
# fuzz_gen: 32 inputs of 48..240 bytes from a fixed PRNG (awk's srand).
awk 'BEGIN {
	srand(20261122);
	for (i = 0; i < 32; i++) {
		f = sprintf("'$c'/fuzz_gen/seed-%02d", i);
		n = 48 + int(rand() * 192);
		s = "";
		for (j = 0; j < n; j++)
			printf "%c", int(rand() * 256) > f;
		close(f);
	}
}' </dev/null
du -sh $c
