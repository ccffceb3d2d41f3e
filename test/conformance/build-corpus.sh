#!/bin/sh
# SPDX-License-Identifier: MIT
# build-corpus.sh OUTDIR - build the SFrame conformance corpus with every
# toolchain suite and write the reference dumps next to each file.
#
#   test/conformance/build-corpus.sh build/conformance
#
# OUTDIR must be inside the repository (the suites run in chroots that
# see only the repository, bind-mounted at the same path).  The build is
# incremental (make, two jobs at a time, JOBS=N to change): a second run
# with no change rebuilds nothing.  corpus.mk says what is built, mkref.sh
# what a reference is.  At the end: OUTDIR/skipped.txt lists the files
# without a reference (no .sframe section, lld's concatenated sections,
# or the reference objdump failed on them), OUTDIR/warnings.txt every
# message of the compilers, assemblers, linkers and objdump, and
# coverage.sh prints what the corpus covers.
#
# $mk below is split on purpose (a command and its arguments).
# shellcheck disable=SC2086
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
mkdir -p "$1"
out=$(cd "$1" && pwd -P)
case $out in
"$top"/*) rel=${out#"$top"/} ;;
*) echo "build-corpus.sh: OUTDIR must be inside $top" >&2; exit 2 ;;
esac
cd "$top"

jobs=${JOBS:-2}
tc=tools/toolchain.sh
mk="make --no-print-directory -f test/conformance/corpus.mk -j$jobs OUT=$rel"

$tc ensure trixie sid
$tc install sid clang-22 lld-22
for s in bookworm trixie sid llvm; do
	echo "build-corpus.sh: building $s" >&2
	$tc run "$([ $s = llvm ] && echo sid || echo $s)" $mk SUITE="$s" build
done
if command -v ld.lld-14 >/dev/null; then
	for s in bookworm trixie sid; do
		$mk SUITE="$s" NOCOMPILE=1 lld
	done
else
	echo "build-corpus.sh: no ld.lld-14 on the host, no lld images" >&2
fi
echo "build-corpus.sh: references" >&2
$tc run sid $mk SUITES="trixie sid llvm" refs
$tc run bookworm $mk SUITES=bookworm refs

# Files with no reference (no .sframe, or objdump failed on them), and
# every message the tools printed.
find "$rel" -name "*.refinfo" | LC_ALL=C sort | while read -r r; do
	read -r what why <"$r"
	if [ "$what" = skip ]; then echo "${r%.refinfo}: $why"; fi
done >"$rel/skipped.txt"
# (gcc names its temporary assembly file /tmp/ccXXXXXX.s: dropped, with
# the "Assembler messages:" line, so that the list is the same each run.)
find "$rel" -name '*.log' -size +0 | LC_ALL=C sort | while read -r l; do
	sed -e '/: Assembler messages:$/d' -e 's|^/tmp/cc[^:]*\.s: ||' \
		-e "s|^|${l%.log}: |" "$l"
done >"$rel/warnings.txt"
find "$rel" -name '*.referr' | LC_ALL=C sort | while read -r l; do
	sed "s|^|${l%.referr}: objdump: |" "$l"
done >>"$rel/warnings.txt"

n=$(find "$rel" -name '*.ref' | wc -l)
echo "build-corpus.sh: $n reference dumps in $rel;" \
	"$(wc -l <"$rel/skipped.txt") files skipped ($rel/skipped.txt);" \
	"$(wc -l <"$rel/warnings.txt") tool messages ($rel/warnings.txt)" >&2

test/conformance/coverage.sh "$rel"
