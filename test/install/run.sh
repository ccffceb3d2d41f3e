#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test/install/run.sh - sfu as a user adopts it: its license lines, its
# release number, make install, the package files, the tools as installed,
# and the release tarball.
#
#   install/spdx            every tracked file has its SPDX line (tools/spdx.sh)
#   install/spdx-fix        tools/spdx.sh --fix on files of each kind: the
#                           line where it belongs, idempotent, other licenses
#                           and unknown kinds of file refused
#   install/version         the Makefile's release = SFU_VERSION_STRING of
#                           core/sfu.h = CHANGELOG.md's newest heading
#   install/layout          make install PREFIX=...: headers, fragments, tools,
#                           sfu.pc, the CMake package, LICENSE where they belong
#   install/install-lib     make install-lib: all of it but the tools, nothing
#                           compiled
#   install/tool/NAME       every installed tool: --version, --help, and for
#                           the C ones ldd: no sanitizer runtime, and each
#                           library of its NAME_LIBS
#   install/destdir         DESTDIR stages under itself only; the files name
#                           PREFIX, not DESTDIR
#   install/ARCH/HOW        a bare-metal consumer (consumer/) built for aarch64
#                           and x86_64 through pkg-config (installed, staged
#                           with DESTDIR: PKG_CONFIG_SYSROOT_DIR) and CMake
#                           (find_package of the installed and of the staged
#                           tree, add_subdirectory, FetchContent of the
#                           tarball and of a folder: the tarball unpacked),
#                           linked with
#                           `INCLUDE sframe.ld` from the package's folder: the
#                           image has a non-empty .sframe between
#                           __sframe_start and __sframe_end that the
#                           installed sfu-dump validates
#   install/cmake-version   find_package(sfu VERSION) takes this release and
#                           refuses another major one
#   install/dist            make dist: sfu-VERSION.tar.gz, every entry under
#                           sfu-VERSION/, LICENSE, CHANGELOG.md and the
#                           package files in, no tests or build output, the
#                           same bytes when made twice; unpacked, it passes
#                           its own SPDX check, and installs from itself
#                           (dist/... cases: the consumers against that
#                           install)
#   install/make-run-quiet  examples/ builds an image with one line of output
#   install/uninstall       make uninstall leaves no file behind
#
# Environment: SFU_INSTALL_ARCHS (default "x86_64 aarch64").
set -u
cd "$(dirname "$0")/../.."
. test/common/lib.sh

out=build/install
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$PWD
archs=${SFU_INSTALL_ARCHS:-x86_64 aarch64}
consumer=$top/test/install/consumer

declare -A CC=([x86_64]=gcc [aarch64]=aarch64-linux-gnu-gcc)
declare -A NM=([x86_64]=nm [aarch64]=aarch64-linux-gnu-nm)
declare -A MACHINE=([x86_64]=X86-64 [aarch64]=AArch64)

ok_tools=1
need install/tools cmake cmake || ok_tools=0
need install/tools pkg-config pkgconf || ok_tools=0
need install/tools aarch64-linux-gnu-gcc "gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu" || ok_tools=0
need install/tools ldd libc-bin || ok_tools=0
need install/tools readelf binutils || ok_tools=0

# ---- the license lines ----------------------------------------------------------
if r=$(tools/spdx.sh --check 2>&1); then
	pass install/spdx "$(echo "$r" | tail -1)"
else
	fail install/spdx "$(echo "$r" | head -5 | tr '\n' ';')"
fi

# The fixer on files of each kind: the line where it belongs, a #! line and a
# Python coding line kept first, a file without a final newline, the mode
# kept; a second run changes no byte; another license is reported, not
# rewritten; a kind of file with no rule is an error.
d=$out/spdx
mkdir -p "$d"
printf '#!/bin/sh\necho hi\n' >"$d/a.sh"
chmod 755 "$d/a.sh"
printf '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n' >"$d/b.py"
printf 'int x;' >"$d/c.c"
printf '# Title\n' >"$d/d.md"
printf 'all:\n\ttrue\n' >"$d/Makefile"
spdx_want() { # FILE LINE-NUMBER TEXT
	[ "$(sed -n "$2p" "$1")" = "$3" ]
}
why=""
files=("$d/a.sh" "$d/b.py" "$d/c.c" "$d/d.md" "$d/Makefile")
tools/spdx.sh --fix "${files[@]}" >"$d/fix.log" 2>&1 || why="--fix exited $?"
sum1=$(cat "${files[@]}" | md5sum)
tools/spdx.sh --fix "${files[@]}" >>"$d/fix.log" 2>&1 || why="$why; a second --fix exited $?"
[ "$(cat "${files[@]}" | md5sum)" = "$sum1" ] || why="$why; a second --fix changed bytes"
spdx_want "$d/a.sh" 1 '#!/bin/sh' && spdx_want "$d/a.sh" 2 '# SPDX-License-Identifier: MIT' &&
	[ -x "$d/a.sh" ] || why="$why; a.sh: $(head -2 "$d/a.sh" | tr '\n' '|')"
spdx_want "$d/b.py" 2 '# -*- coding: utf-8 -*-' && spdx_want "$d/b.py" 3 '# SPDX-License-Identifier: MIT' ||
	why="$why; b.py: $(head -3 "$d/b.py" | tr '\n' '|')"
[ "$(cat "$d/c.c")" = "$(printf '/* SPDX-License-Identifier: MIT */\nint x;')" ] || why="$why; c.c: $(cat "$d/c.c")"
spdx_want "$d/d.md" 1 '<!-- SPDX-License-Identifier: MIT -->' || why="$why; d.md: $(head -1 "$d/d.md")"
spdx_want "$d/Makefile" 1 '# SPDX-License-Identifier: MIT' || why="$why; Makefile: $(head -1 "$d/Makefile")"
tools/spdx.sh --check "${files[@]}" >/dev/null 2>&1 || why="$why; --check refused the fixed files"
printf '/* SPDX-License-Identifier: GPL-2.0-only */\nint y;\n' >"$d/e.c"
cp "$d/e.c" "$d/e.c.orig"
printf 'data\n' >"$d/f.xyz"
if tools/spdx.sh --fix "$d/e.c" "$d/f.xyz" >"$d/other.log" 2>&1; then
	why="$why; --fix accepted another license and an unknown kind of file"
fi
cmp -s "$d/e.c" "$d/e.c.orig" || why="$why; another license's line was rewritten"
grep -q 'e.c: an SPDX line other than' "$d/other.log" && grep -q 'f.xyz: no comment syntax known' "$d/other.log" ||
	why="$why; the refusals were not named: $(tr '\n' '|' <"$d/other.log")"
if [ -z "$why" ]; then
	pass install/spdx-fix "shell, Python with a coding line, C without a final newline, Markdown, make; idempotent; GPL and unknown kinds refused"
else
	fail install/spdx-fix "${why#; }"
fi

# ---- the release number -----------------------------------------------------------
version=$(make -s --no-print-directory print-version)
printf '#include "sfu.h"\n#include <stdio.h>\nint main(void) { puts(SFU_VERSION_STRING); return 0; }\n' >"$out/v.c"
hv=$(gcc -Icore -o "$out/v" "$out/v.c" 2>&1 && "$out/v")
cl=$(sed -n 's/^## \([0-9][0-9.]*\)\b.*/\1/p' CHANGELOG.md | head -1)
if [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && [ "$hv" = "$version" ] && [ "$cl" = "$version" ]; then
	pass install/version "$version (Makefile, SFU_VERSION_STRING, CHANGELOG.md)"
else
	fail install/version "Makefile '$version', SFU_VERSION_STRING '$hv', CHANGELOG.md's newest '$cl'"
fi

[ $ok_tools = 1 ] || exit 1

# ---- make install ---------------------------------------------------------------
prefix=$out/prefix
if ! make -s --no-print-directory install PREFIX="$prefix" >"$out/install.log" 2>&1; then
	fail install/layout "make install failed (log $out/install.log)"
	exit 1
fi

# layout PREFIX ROOT: what is missing under ROOT (a tree installed for PREFIX).
layout() {
	local p=$1 r=$2 f missing=""
	for f in include/sfu/sfu.h include/sfu/sfu_format.h include/sfu/sfu_walk.h include/sfu/sfu_decode.h \
		include/sfu/sfu_validate.h include/sfu/sfu_fast.h include/sfu/sfu_port.h \
		include/sfu/aarch64/sfu_port_aarch64.h include/sfu/x86_64/sfu_port_x86_64.h \
		include/sfu/sfu_layout.h include/sfu/sfu_crash.h include/sfu/sfu_dump.h \
		include/sfu/sfu_freertos.h include/sfu/sfu_threadx.h include/sfu/sfu_linux.h \
		share/sfu/sframe.ld share/sfu/sframe-gen.ld share/pkgconfig/sfu.pc \
		share/cmake/sfu/sfu-config.cmake share/cmake/sfu/sfu-config-version.cmake share/doc/sfu/LICENSE \
		$(for t in $(make -s --no-print-directory print-tools); do echo "bin/$t"; done); do
		[ -f "$r$p/$f" ] || missing="$missing $f"
	done
	grep -qx "prefix=$p" "$r$p/share/pkgconfig/sfu.pc" 2>/dev/null || missing="$missing (sfu.pc: prefix=$p)"
	echo "$missing"
}
m=$(layout "$prefix" "")
hdrs=$(find core crash port rtos -name '*.h' | wc -l)
ihdrs=$(find "$prefix/include/sfu" -name '*.h' | wc -l)
if [ -z "$m" ] && [ "$hdrs" = "$ihdrs" ]; then
	pass install/layout "$ihdrs headers, 2 linker fragments, $(ls "$prefix/bin" | wc -l) tools, sfu.pc, the CMake package, LICENSE"
else
	fail install/layout "missing:$m; $ihdrs of $hdrs headers"
fi

# install-lib: all but the tools, and nothing built for the host.
d=$out/lib-only
if make --no-print-directory install-lib PREFIX="$d" >"$d.log" 2>&1 && [ ! -e "$d/bin" ] &&
	! grep -q ' CC ' "$d.log" && [ "$(layout "$d" "" | tr ' ' '\n' | grep -vc '^bin/\|^$')" = 0 ]; then
	pass install/install-lib "headers, fragments, package files, LICENSE; no bin/, nothing compiled"
else
	fail install/install-lib "missing:$(layout "$d" "" | tr ' ' '\n' | grep -v '^bin/' | tr '\n' ' ') (log $d.log)"
fi

# ---- the installed tools --------------------------------------------------------
# tool_check BIN NAME LIBS: --version, --help, ldd.
tool_check() {
	local bin=$1 t=$2 libs=$3 v h l why="" lib
	v=$("$bin" --version 2>&1) || why="--version exited $?"
	[ "$v" = "$t (sfu) $version" ] || why="$why; --version said '$v'"
	h=$("$bin" --help 2>/dev/null) || why="$why; --help exited $?"
	[[ $(echo "$h" | head -1) == "usage: $t "* ]] || why="$why; --help's first line is '$(echo "$h" | head -1)'"
	if [ "$(head -c 4 "$bin")" = $'\x7fELF' ]; then
		l=$(ldd "$bin" 2>&1)
		if echo "$l" | grep -Eq 'lib(asan|ubsan|tsan|lsan)'; then
			why="$why; links a sanitizer runtime: $(echo "$l" | grep -Eo 'lib[a-z]*san[^ ]*' | tr '\n' ' ')"
		fi
		for lib in $libs; do
			case $lib in -l*) echo "$l" | grep -q "lib${lib#-l}\.so" || why="$why; ldd shows no lib${lib#-l}" ;; esac
		done
		l="ldd: $(echo "$l" | awk '{ print $1 }' | grep -v -e vdso -e ld-linux | tr '\n' ' ')"
	else
		l="script"
	fi
	if [ -z "$why" ]; then
		pass "$4/tool/$t" "--version, --help; $l"
	else
		fail "$4/tool/$t" "${why#; }"
	fi
}
libs_of() { make -s --no-print-directory print-tool-libs | sed -n "s/^$1: *//p"; }
for t in $(make -s --no-print-directory print-tools); do
	tool_check "$prefix/bin/$t" "$t" "$(libs_of "$t")" install
done

# ---- DESTDIR ---------------------------------------------------------------------
stage=$out/stage
sprefix=/opt/sfu-install-test
if make -s --no-print-directory install DESTDIR="$stage" PREFIX="$sprefix" >"$out/destdir.log" 2>&1 &&
	[ -z "$(layout "$sprefix" "$stage")" ] && [ ! -e "$sprefix" ] &&
	! grep -rq "$stage" "$stage$sprefix/share"; then
	pass install/destdir "staged under DESTDIR, files name $sprefix"
else
	fail install/destdir "make install DESTDIR=$stage PREFIX=$sprefix: missing$(layout "$sprefix" "$stage") (log $out/destdir.log)"
fi

# ---- the consumers ----------------------------------------------------------------
# check_image NAME ARCH ELF: the image is ARCH's and has a non-empty .sframe
# between __sframe_start and __sframe_end, which sfu-dump validates.
check_image() {
	local name=$1 a=$2 elf=$3 s e size fdes
	if [ ! -f "$elf" ]; then
		fail "$name" "no image $elf"
		return
	fi
	if ! readelf -h "$elf" | grep -q "Machine: *.*${MACHINE[$a]}"; then
		fail "$name" "$elf is not a ${MACHINE[$a]} image"
		return
	fi
	s=$(${NM[$a]} "$elf" | awk '$3 == "__sframe_start" { print $1 }')
	e=$(${NM[$a]} "$elf" | awk '$3 == "__sframe_end" { print $1 }')
	size=$(readelf -SW "$elf" | sed -n 's/^ *\[ *[0-9]*\] \.sframe  *[A-Z_]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	fdes=$("$prefix/bin/sfu-dump" --validate "$elf" 2>&1 | sed -n 's/^ *Num FDEs: //p')
	if [ -z "$s" ] || [ -z "$e" ] || [ $((16#$e)) -le $((16#$s)) ]; then
		fail "$name" "__sframe_start '$s', __sframe_end '$e'"
	elif [ -z "$size" ] || [ $((16#$size)) = 0 ]; then
		fail "$name" "no .sframe section, or an empty one ('$size')"
	elif [ -z "$fdes" ] || [ "$fdes" = 0 ]; then
		fail "$name" "sfu-dump --validate refused the .sframe or found no FDE"
	else
		pass "$name" "$((16#$e - 16#$s)) bytes of .sframe at 0x$s, $fdes FDEs"
	fi
}

# pc_build NAME ARCH ENV...: consumer.c through pkg-config, with ENV set.
pc_build() {
	local name=$1 a=$2 d flags
	shift 2
	d=$out/$name
	mkdir -p "$d"
	if ! flags=$(env "$@" pkg-config --cflags --libs sfu 2>"$d/log"); then
		fail "$name" "pkg-config --cflags --libs sfu: $(head -1 "$d/log")"
		return
	fi
	# shellcheck disable=SC2086 # $flags is a list of options
	if ${CC[$a]} -std=gnu11 -O2 -ffreestanding -fno-pic -fno-pie -fno-stack-protector -fasynchronous-unwind-tables \
		-Wa,--gsframe -Wall -Wextra -Wundef -Werror -nostdlib -static -no-pie -Wl,--build-id=none \
		-Wl,--no-warn-rwx-segments -T "$consumer/link.ld" $flags "$consumer/consumer.c" -o "$d/consumer.elf" \
		>>"$d/log" 2>&1; then
		check_image "$name" "$a" "$d/consumer.elf"
	else
		fail "$name" "the build failed with $flags (log $d/log)"
	fi
}

# cmake_build NAME ARCH CMAKE-ARGS...: consumer/CMakeLists.txt, bare metal.
cmake_build() {
	local name=$1 a=$2 d
	shift 2
	d=$out/$name
	rm -rf "$d"
	mkdir -p "$d"
	if cmake -S "$consumer" -B "$d" -DCMAKE_SYSTEM_NAME=Generic -DCMAKE_SYSTEM_PROCESSOR="$a" \
		-DCMAKE_C_COMPILER="${CC[$a]}" -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY "$@" >"$d/log" 2>&1 &&
		cmake --build "$d" >>"$d/log" 2>&1; then
		check_image "$name" "$a" "$d/consumer.elf"
	else
		fail "$name" "cmake failed: $(grep -m1 -E 'Error|error' "$d/log") (log $d/log)"
	fi
}

# consumers TAG PREFIX: the pkg-config and find_package consumers of an
# installed tree, both archs.
consumers() {
	local tag=$1 p=$2 a
	for a in $archs; do
		pc_build "$tag/$a/pkg-config" "$a" PKG_CONFIG_PATH="$p/share/pkgconfig"
		cmake_build "$tag/$a/find_package" "$a" -DSFU_VIA=package -DCMAKE_PREFIX_PATH="$p" \
			-DCONSUMER_ANGLE=ON -DSFU_WANT="$version"
	done
}

# The tarball, and a copy unpacked (FetchContent from a folder: not the
# work tree, which holds build/ and so the fetch's own copy).
make -s --no-print-directory dist >"$out/dist.log" 2>&1
tarball=$top/build/sfu-$version.tar.gz
mkdir -p "$out/fetch"
[ -f "$tarball" ] && tar -xzf "$tarball" -C "$out/fetch"
unpacked=$out/fetch/sfu-$version

consumers install "$prefix"
for a in $archs; do
	pc_build "install/$a/pkg-config-destdir" "$a" PKG_CONFIG_SYSROOT_DIR="$stage" \
		PKG_CONFIG_PATH="$stage$sprefix/share/pkgconfig"
	cmake_build "install/$a/find_package-destdir" "$a" -DSFU_VIA=package -DCMAKE_PREFIX_PATH="$stage$sprefix"
	cmake_build "install/$a/add_subdirectory" "$a" -DSFU_VIA=subdirectory -DSFU_SOURCE="$top"
	if [ -f "$tarball" ]; then
		cmake_build "install/$a/fetchcontent-tarball" "$a" -DSFU_VIA=fetch -DSFU_SOURCE="$tarball"
		cmake_build "install/$a/fetchcontent-folder" "$a" -DSFU_VIA=fetch -DSFU_SOURCE="$unpacked"
	else
		fail "install/$a/fetchcontent" "make dist made no $tarball (log $out/dist.log)"
	fi
done

# find_package(sfu VERSION): this release, and not another major one
# (configured for the host: only the package is looked at).
d=$out/cmake-version
major=${version%%.*}
if cmake -S "$consumer" -B "$d/this" -DSFU_VIA=package -DCMAKE_PREFIX_PATH="$prefix" -DSFU_WANT="$version" \
	>"$d.log" 2>&1 &&
	! cmake -S "$consumer" -B "$d/next" -DSFU_VIA=package -DCMAKE_PREFIX_PATH="$prefix" \
		-DSFU_WANT="$((major + 1)).0" >"$d-next.log" 2>&1 && grep -q "sfu-config.cmake, version: $version" "$d-next.log"; then
	pass install/cmake-version "find_package(sfu $version) found, find_package(sfu $((major + 1)).0) refused"
else
	fail install/cmake-version "find_package(sfu VERSION) answered wrong (logs $d.log, $d-next.log)"
fi

# ---- the release tarball ------------------------------------------------------------
if [ -f "$tarball" ]; then
	list=$(tar -tzf "$tarball")
	why=""
	echo "$list" | grep -v "^sfu-$version/" | head -1 | grep -q . && why="$why; entries outside sfu-$version/"
	for f in LICENSE CHANGELOG.md README.md Makefile CMakeLists.txt core/sfu.h core/sfu_walk.h linker/sframe.ld \
		packaging/sfu.pc.in tools/sfu_tool.h; do
		echo "$list" | grep -qx "sfu-$version/$f" || why="$why; no $f"
	done
	echo "$list" | grep -Eq "^sfu-$version/(test|build)/" && why="$why; test/ or build/ inside"
	cp "$tarball" "$out/first.tar.gz"
	make -s --no-print-directory dist >>"$out/dist.log" 2>&1
	cmp -s "$tarball" "$out/first.tar.gz" || why="$why; a second make dist made other bytes"
	rm -rf "$out/dist"
	mkdir -p "$out/dist"
	tar -xzf "$tarball" -C "$out/dist"
	src=$out/dist/sfu-$version
	(cd "$src" && tools/spdx.sh --check) >"$out/dist-spdx.log" 2>&1 || why="$why; its own SPDX check failed (log $out/dist-spdx.log)"
	dprefix=$out/dist-prefix
	if ! make -s --no-print-directory -C "$src" install PREFIX="$dprefix" >"$out/dist-install.log" 2>&1; then
		why="$why; make install from the unpacked tarball failed (log $out/dist-install.log)"
	elif [ -n "$(layout "$dprefix" "")" ]; then
		why="$why; its install lacks$(layout "$dprefix" "")"
	fi
	if [ -z "$why" ]; then
		pass install/dist "$(basename "$tarball"): $(echo "$list" | grep -vc '/$') files, $(wc -c <"$tarball") bytes, reproducible, installs from itself"
		for t in $(make -s --no-print-directory print-tools); do
			tool_check "$dprefix/bin/$t" "$t" "$(libs_of "$t")" dist
		done
		consumers dist "$dprefix"
	else
		fail install/dist "${why#; }"
	fi
else
	fail install/dist "make dist made no $tarball (log $out/dist.log)"
fi

# ---- make run's build: one line per image ---------------------------------------------
# One image built from nothing by examples/ (what make run does for each):
# one "IMAGE" line, no per-step lines.
d=$out/examples
if make --no-print-directory -C examples EX_OUT="$d" "$d/x86_64-pc/sfu-x86_64-pc.elf" >"$d.log" 2>&1; then
	if [ "$(wc -l <"$d.log")" = 1 ] && grep -q '^  IMAGE   .*/sfu-x86_64-pc\.elf$' "$d.log"; then
		pass install/make-run-quiet "one line for the image: $(cat "$d.log")"
	else
		fail install/make-run-quiet "$(wc -l <"$d.log") lines for one image: $(head -3 "$d.log" | tr '\n' '|')"
	fi
else
	fail install/make-run-quiet "building the x86_64-pc image failed (log $d.log)"
fi

# ---- uninstall ---------------------------------------------------------------------------
make -s --no-print-directory uninstall PREFIX="$prefix" >"$out/uninstall.log" 2>&1
left=$(find "$prefix" -type f 2>/dev/null)
if [ -z "$left" ]; then
	pass install/uninstall "nothing left under the prefix"
else
	fail install/uninstall "left: $(echo "$left" | head -3 | tr '\n' ' ')"
fi

[ "$fails" = 0 ]
