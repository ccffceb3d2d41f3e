#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spdx.sh - every file of the tree says its license in one SPDX line.
#
#   tools/spdx.sh --check [FILE...]   list the files without their line, exit 1
#   tools/spdx.sh --fix [FILE...]     add the line where it is missing
#
# Without FILEs: every file git tracks (when the top folder is not a git
# checkout's, as in the unpacked `make dist` tarball: every file below it
# but build/).  --fix
# is idempotent: a file that has its line is left byte for byte as it is,
# so it can run again after every merge.  Neither touches a file that names
# another SPDX license: that is reported, never rewritten.
#
# Where the line goes and how it is written depends on the file's type:
#
#   C, C++, headers, assembly (.S runs through the C preprocessor; GNU as
#   takes C comments in .s too), linker scripts, device trees:
#                                            /* SPDX-License-Identifier: MIT */
#   shell, Python, awk, sed, gdb, make, Kconfig, CMake, pkg-config templates,
#   YAML, TOML, ini-style files, .gitignore, .editorconfig, the firmware's
#   expected.txt (#-comments):
#                                            # SPDX-License-Identifier: MIT
#   Markdown, HTML:                          <!-- SPDX-License-Identifier: MIT -->
#   reStructuredText:                        .. SPDX-License-Identifier: MIT
#
# on the first line, or after a "#!" line (which must stay first) and
# after a Python coding line (which must stay within the first two, PEP
# 263).  A file of a type not listed here is an error (add a rule below),
# so no new kind of file slips through unlabelled.
#
# Exempt (EXEMPT below): LICENSE, which is the text itself; the fuzz corpora
# and regression inputs under test/fuzz/ (binary inputs fed to the harnesses
# byte for byte, and the .note beside each regression, whose first line
# the replay prints as what the input once broke).
set -euo pipefail

ID="SPDX-License-Identifier: MIT"
TAG="SPDX-License-Identifier:"

# Paths (shell patterns, from the top of the tree) that carry no line.
EXEMPT=(
	LICENSE
	'test/fuzz/corpus/*'
	'test/fuzz/regressions/*'
)

die() { echo "spdx.sh: $*" >&2; exit 2; }

cd "$(dirname "$0")/.."

mode=${1:-}
case $mode in
--check | --fix) shift ;;
*) die "usage: tools/spdx.sh --check|--fix [FILE...]" ;;
esac

exempt() {
	local p
	for p in "${EXEMPT[@]}"; do
		# shellcheck disable=SC2053 # $p is a pattern
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# style FILE: c, hash or md (how its comments are written), or nothing.
style() {
	local f=$1 first
	IFS= read -r first <"$f" || true
	case $first in
	'#!'*) echo hash; return ;;
	esac
	case ${f##*/} in
	*.c | *.h | *.S | *.s | *.ld | *.lds | *.cc | *.cpp | *.hpp | *.dts | *.dtsi | *.inc) echo c ;;
	*.sh | *.bash | *.py | *.mk | *.cmake | *.cmake.in | *.pc.in | *.awk | *.sed | *.gdb) echo hash ;;
	*.yml | *.yaml | *.toml | *.cfg | *.ini | *.conf) echo hash ;;
	Makefile | GNUmakefile | CMakeLists.txt | Kconfig*) echo hash ;;
	.gitignore | .gitattributes | .editorconfig | .clang-format | .shellcheckrc) echo hash ;;
	*.md | *.html) echo md ;;
	*.rst) echo rst ;;
	esac
	# Text files read by a test whose reader skips #-comments.
	case $f in
	test/firmware/expected.txt) echo hash ;;
	esac
}

line_for() {
	case $1 in
	c) echo "/* $ID */" ;;
	hash) echo "# $ID" ;;
	md) echo "<!-- $ID -->" ;;
	rst) echo ".. $ID" ;;
	esac
}

# skip FILE: how many lines must stay before the SPDX line (a #! line, and
# after it a Python coding line).
skip() {
	local n=0 l1 l2
	{ IFS= read -r l1 || true; IFS= read -r l2 || true; } <"$1"
	case $l1 in '#!'*) n=1 ;; esac
	if [ $n = 1 ] && [[ $l2 =~ ^[[:space:]]*#.*coding[:=] ]]; then
		n=2
	fi
	echo $n
}

if [ $# -gt 0 ]; then
	files=("$@")
elif [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PWD" ]; then
	mapfile -t files < <(git ls-files)
else
	mapfile -t files < <(find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort)
fi

bad=0 fixed=0 checked=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue # deleted in the work tree, not yet in the index
	exempt "$f" && continue
	checked=$((checked + 1))
	s=$(style "$f")
	s=${s%%$'\n'*}
	if [ -z "$s" ]; then
		echo "$f: no comment syntax known for this kind of file (add a rule to tools/spdx.sh or exempt it there)"
		bad=$((bad + 1))
		continue
	fi
	want=$(line_for "$s")
	n=$(skip "$f")
	at=$(sed -n "$((n + 1))p" "$f")
	[ "$at" = "$want" ] && continue
	if head -n $((n + 3)) "$f" | grep -q "$TAG"; then
		echo "$f: an SPDX line other than \"$want\" at line $((n + 1)) (not rewritten)"
		bad=$((bad + 1))
		continue
	fi
	if [ "$mode" = --check ]; then
		echo "$f: no \"$want\" at line $((n + 1)) (tools/spdx.sh --fix adds it)"
		bad=$((bad + 1))
		continue
	fi
	# Rewrite in place (cat >, not mv: the file keeps its mode and links).
	tmp=$(mktemp)
	{
		head -n "$n" "$f"
		printf '%s\n' "$want"
		tail -n +$((n + 1)) "$f"
	} >"$tmp"
	cat "$tmp" >"$f"
	rm -f "$tmp"
	fixed=$((fixed + 1))
done

if [ "$mode" = --fix ]; then
	echo "spdx.sh: $checked files, $fixed given their SPDX line, $bad left to fix by hand"
else
	echo "spdx.sh: $checked files, $bad without their SPDX line"
fi
[ "$bad" = 0 ]
