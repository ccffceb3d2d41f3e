# SPDX-License-Identifier: MIT
# lib.sh - what the suites' scripts (test/*/run.sh) share.  Sourced by bash
# from the top of the repository:
#
#   . test/common/lib.sh
#
# The case protocol (test/run-all.sh counts the lines): one line per case,
# "ok NAME[: detail]" or "FAIL NAME: why"; anything else is ignored.
#
#   pass NAME [DETAIL]      the ok line
#   fail NAME WHY           the FAIL line, counted in $fails
#   need NAME TOOL PACKAGE  TOOL on the PATH, or NAME fails with the
#                           apt-get command that installs PACKAGE (which
#                           may name several packages); returns 1 then
#   host_prog PATH          build a host program of test/common/host.mk
#                           (make, quiet); its messages in PATH.build.log
#   spawn N CMD...          CMD in the background, at most N at once
#   spawn_wait              wait for all of them; $spawn_failed counts the
#                           ones that exited non-zero
#   bare_compilers          NAME|COMMAND|ARCH of each compiler the core and
#                           the ports are built with for bare metal
#
# The compile flags live in the Makefile (HOST_CFLAGS, SANITIZE) and
# test/common/host.mk, not here: the scripts build through make.
#
# Sourcing it also puts build/python first on the PATH when python3 there
# is not the interpreter itself (a version manager's shim: pyenv's runs
# pyenv, a second or so a call on a slow machine, and the suites call
# python3 hundreds of times): build/python/python3 runs the interpreter
# the shim chose, found once.

fails=0
spawn_failed=0

sfu_python_direct() {
	local py
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || return 0
	{ [ -n "$py" ] && [ -x "$py" ] && [ "$(command -v python3)" != "$py" ]; } || return 0
	mkdir -p build/python
	printf '#!/bin/sh\n# test/common/lib.sh: python3 as %s found it\nexec "%s" "$@"\n' "$(command -v python3)" "$py" \
		>build/python/python3.$$
	chmod 755 build/python/python3.$$
	mv -f build/python/python3.$$ build/python/python3
	PATH=$PWD/build/python:$PATH
}
sfu_python_direct

# gcc 12 and clang 14 of the host (the first four), gcc 14 and 16 of the
# trixie and sid chroots, whose newer warnings users will see under -Werror.
bare_compilers=(
	"gcc12-x86_64|gcc|x86_64"
	"gcc12-aarch64|aarch64-linux-gnu-gcc|aarch64"
	"clang14-x86_64|clang --target=x86_64-none-elf|x86_64"
	"clang14-aarch64|clang --target=aarch64-none-elf|aarch64"
	"gcc14-x86_64|tools/toolchain.sh run trixie gcc|x86_64"
	"gcc14-aarch64|tools/toolchain.sh run trixie aarch64-linux-gnu-gcc|aarch64"
	"gcc16-x86_64|tools/toolchain.sh run sid gcc|x86_64"
	"gcc16-aarch64|tools/toolchain.sh run sid aarch64-linux-gnu-gcc|aarch64"
)

pass() {
	echo "ok $1${2:+: $2}"
}

fail() {
	echo "FAIL $1: $2"
	fails=$((fails + 1))
}

need() {
	command -v "$2" >/dev/null 2>&1 && return 0
	fail "$1" "$2 not found; install with: apt-get install -y $3"
	return 1
}

host_prog() {
	mkdir -p "$(dirname "$1")"
	make -s --no-print-directory BUILD=build "$1" >"$1.build.log" 2>&1
}

spawn() {
	local n=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do
		wait -n || spawn_failed=$((spawn_failed + 1))
	done
	"$@" &
}

spawn_wait() {
	local p
	for p in $(jobs -p); do
		wait "$p" || spawn_failed=$((spawn_failed + 1))
	done
}
